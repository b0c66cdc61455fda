"""The Design canvas never hands markup from a pattern to streamlit-flow (which renders node
text as markdown with raw HTML), and what it draws still reads back into the same pattern."""
from __future__ import annotations

import re

from app import edit
from engine.dsl import parse
from visualizers import escape
from visualizers.canvas import cross_predicates, pattern_header, pattern_to_canvas

# the pattern of the report: a string literal whose backtick closed the node's code span
HOSTILE = ("PATTERN SEQ(A a, B b) WHERE a.x = 'q` <iframe srcdoc=\"<script>top.document.body.dataset.pwned=1"
           "</script>\"></iframe> `' AND b.y = '![x](https://evil.example/p.png) <img src=x onerror=alert(1)>'"
           " AND a.z = b.z AND a.w != '$x$ :red[y] **b** [l](javascript:alert(1))'")


def _outside_code_spans(md: str) -> str:
    """``md`` with its code spans (fences as CommonMark pairs them) taken out."""
    out, k = [], 0
    while k < len(md):
        if md[k] == "\\":
            out.append(md[k:k + 2])
            k += 2
            continue
        if md[k] == "`":
            fence = re.match(r"`+", md[k:]).group(0)
            m = re.compile(r"(?<!`)" + fence + r"(?!`)").search(md, k + len(fence))
            assert m, f"unclosed code span in {md!r}"
            k = m.end()
            continue
        out.append(md[k])
        k += 1
    return "".join(out)


def _code_spans(md: str) -> list[str]:
    spans, k = [], 0
    while k < len(md):
        if md[k] == "\\":
            k += 2
            continue
        if md[k] == "`":
            fence = re.match(r"`+", md[k:]).group(0)
            m = re.compile(r"(?<!`)" + fence + r"(?!`)").search(md, k + len(fence))
            inner = md[k + len(fence):m.start()]
            if inner.startswith(" ") and inner.endswith(" ") and inner.strip():
                inner = inner[1:-1]
            spans.append(inner)
            k = m.end()
            continue
        k += 1
    return spans


def test_no_markup_from_the_pattern_reaches_the_canvas():
    p = parse(HOSTILE)
    nodes, edges = pattern_to_canvas(p)
    for n in nodes:
        content = n["data"]["content"]
        plain = _outside_code_spans(content)
        assert not re.search(r"(?<!\\)[<>\[\]$]", plain.replace("a[]", "")), content
        assert "](" not in plain
    a = next(n for n in nodes if n["id"] == "c:a")["data"]["content"]
    # the predicate is shown literally, in one code span the literal's backtick cannot close
    shown = _code_spans(a)
    assert any("<iframe srcdoc=" in s and "q` <iframe" in s for s in shown), shown
    assert 'a.x = \'q` <iframe srcdoc="<script>' in " ".join(shown)


def test_hostile_canvas_reads_back_into_the_same_pattern():
    p = parse(HOSTILE)
    nodes, edges = pattern_to_canvas(p)
    res = edit.apply_canvas(p, nodes, edges)
    assert not res.changed and res.pattern == p
    # an edit on the canvas (rename b to c) still applies, the predicates follow
    for n in nodes:
        if n["id"] == "c:b":
            n["data"]["content"] = n["data"]["content"].replace("B b", "B c", 1)
    res = edit.apply_canvas(p, nodes, edges)
    assert res.changed and res.pattern.variables == ["a", "c"]
    from engine.dsl import to_text

    assert "c.y = '![x]" in to_text(res.pattern) and "a.z = c.z" in to_text(res.pattern)


def test_an_escaped_first_line_reads_back():
    comp, given = edit.parse_component_text(escape.markdown("Stock+ a[]") + "\n\n_one or more_")
    assert (comp.type, comp.var, comp.kleene, given) == ("Stock", "a", True, True)


def test_header_and_legend_escape_pattern_text():
    p = parse(HOSTILE)
    head = pattern_header(p)
    assert "<" not in _outside_code_spans(head)
    marks = cross_predicates(p)
    assert marks and marks[0][1] == "a.z = b.z"
