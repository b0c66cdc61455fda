"""The MATCH_RECOGNIZE row pattern drawn on the Design canvas (visualizers/sql_canvas.py): a term
node per variable occurrence, anchor and empty pattern, boxes for groups, alternations, PERMUTE and
exclusions, concatenation edges in order, and nothing from the query reaching the canvas as markup."""
from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.sql_edit import parse_label, read_content, strip_offsets, unfence
from engine.engines.sql.parser import parse_query
from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Node, Permute, Quantified, Var
from sample_streams.sql_queries import presets
from tests.engines.sql.sql_support import VARS
from tests.engines.sql.sql_support import patterns as any_pattern
from visualizers.sql_canvas import (NO_DEFINE, node_at, parse_id, pattern_to_canvas, query_to_canvas,
                                    quantifier_words)


def patterns() -> st.SearchStrategy[str]:
    """Row patterns over every construct, a quoted lower-case variable among the names."""
    return any_pattern(names=(*VARS, '"b"'))


def query(pattern: str, defines: str = "DEFINE A AS x > 1, B AS x < PREV(x)") -> str:
    return f"SELECT * FROM t MATCH_RECOGNIZE (\n  ORDER BY ts\n  PATTERN ({pattern})\n  {defines}\n) AS m\n"


def by_id(nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in nodes}


def test_the_v_shape_is_three_terms_in_a_row() -> None:
    q = parse_query(presets()["v_shape"].text)
    nodes, edges = query_to_canvas(q)
    assert [n["id"] for n in nodes] == ["t:r.0", "t:r.1", "t:r.2"]
    assert [n["data"]["term"] for n in nodes] == ["STRT", "DOWN+", "UP+"]
    assert [(e["source"], e["target"]) for e in edges] == [("t:r.0", "t:r.1"), ("t:r.1", "t:r.2")]
    # the DEFINE is the node's subtitle, as code; a variable without one says so
    assert nodes[1]["data"]["content"] == "DOWN+\n\n_one or more_\n\n`price < PREV(price)`"
    assert nodes[0]["data"]["content"].endswith(NO_DEFINE)
    xs = [n["position"]["x"] for n in nodes]
    assert xs == sorted(xs) and len(set(xs)) == 3


def test_groups_alternatives_permute_exclusion_and_anchors_are_boxes_and_marks() -> None:
    q = parse_query(query('^ A (B | C)+? PERMUTE(A, "b") {- C -} $', "DEFINE C AS x = 3"))
    nodes, edges = query_to_canvas(q)
    d = by_id(nodes)
    labels = {n["id"]: n["data"]["term"] for n in nodes}
    assert labels["t:r.0"] == "^" and "partition start" in d["t:r.0"]["data"]["content"]
    assert labels["t:r.5"] == "$" and "partition end" in d["t:r.5"]["data"]["content"]
    # the reluctant quantified alternation: one box, its options inside it, top to bottom
    assert d["g:r.2"]["data"]["box"] == "alternation"
    assert "fewest first" in d["g:r.2"]["data"]["content"] and "one of" in d["g:r.2"]["data"]["content"]
    assert d["t:r.2.0.0"]["parentId"] == d["t:r.2.0.1"]["parentId"] == "g:r.2"
    assert d["t:r.2.0.0"]["position"]["y"] < d["t:r.2.0.1"]["position"]["y"]
    assert d["g:r.3"]["data"]["box"] == "permute" and labels["t:r.3.1"] == '"b"'
    assert d["g:r.4"]["data"]["box"] == "exclusion" and d["t:r.4.0"]["parentId"] == "g:r.4"
    assert "x = 3" in d["t:r.4.0"]["data"]["content"]
    # concatenation edges at the top level, none between options
    assert [(e["source"], e["target"]) for e in edges] == [
        ("t:r.0", "t:r.1"), ("t:r.1", "g:r.2"), ("g:r.2", "g:r.3"), ("g:r.3", "g:r.4"), ("g:r.4", "t:r.5")]
    # boxes cannot be deleted (their members can)
    assert not d["g:r.2"]["deletable"] and d["t:r.2.0.0"]["deletable"]


def test_a_quantified_sequence_is_a_box_with_its_edges_inside() -> None:
    q = parse_query(query("A (B C){2,3} D"))
    nodes, edges = query_to_canvas(q)
    d = by_id(nodes)
    assert d["g:r.1"]["data"]["content"].startswith("**( … )\\{2,3}**") or "2 to 3" in d["g:r.1"]["data"]["content"]
    assert "2 to 3" in d["g:r.1"]["data"]["content"]
    assert ("t:r.1.0.0", "t:r.1.0.1") in [(e["source"], e["target"]) for e in edges]


def test_the_empty_pattern_and_a_single_term() -> None:
    nodes, edges = pattern_to_canvas(parse_query(query("")).pattern)
    assert [n["data"]["term"] for n in nodes] == ["()"] and not edges
    nodes, _ = pattern_to_canvas(parse_query(query("B*?")).pattern, {"B": "x < 1"})
    assert [n["id"] for n in nodes] == ["t:r"] and "fewest first" in nodes[0]["data"]["content"]


def test_quantifier_words() -> None:
    assert quantifier_words(Quantified(Var("A"), 0, None)) == "zero or more"
    assert quantifier_words(Quantified(Var("A"), 1, None, False)) == "one or more, fewest first (reluctant)"
    assert quantifier_words(Quantified(Var("A"), 0, 1)) == "optional"
    assert quantifier_words(Quantified(Var("A"), 3, 3)) == "exactly 3"
    assert quantifier_words(Quantified(Var("A"), 0, 4)) == "up to 4"
    assert quantifier_words(Quantified(Var("A"), 2, None)) == "2 or more"


# --------------------------------------------------------------------------- hostile text

def _outside_code_spans(md: str) -> str:
    out, k = [], 0
    while k < len(md):
        if md[k] == "\\":
            out.append(md[k:k + 2])
            k += 2
            continue
        if md[k] == "`":
            fence = re.match(r"`+", md[k:]).group(0)  # type: ignore[union-attr]
            m = re.compile(r"(?<!`)" + fence + r"(?!`)").search(md, k + len(fence))
            assert m, f"unclosed code span in {md!r}"
            k = m.end()
            continue
        out.append(md[k])
        k += 1
    return "".join(out)


HOSTILE_NAME = '"<img src=x onerror=alert(1)> **b** $x$ [l](javascript:alert(1)) `q`"'
HOSTILE_DEFINE = "x = 'q` <iframe srcdoc=\"<script>alert(1)</script>\"></iframe> `' AND x <> '$a$ :red[y]'"


def test_names_and_defines_from_the_query_are_not_markup() -> None:
    q = parse_query(query(f"A {HOSTILE_NAME}+ B", f"DEFINE {HOSTILE_NAME} AS {HOSTILE_DEFINE}, A AS x > 1"))
    nodes, _ = query_to_canvas(q)
    for n in nodes:
        outside = _outside_code_spans(n["data"]["content"])
        # outside code spans every character that could start markup is backslash-escaped
        assert not re.search(r"(?<!\\)[<$\[\]`*]", outside.replace("\\\\", "")), n["data"]["content"]
    hostile = next(n for n in nodes if n["data"]["var"] and "<img" in n["data"]["var"])
    label, paragraphs = read_content(hostile["data"]["content"])
    # what the node shows reads back as the same term and the same condition
    assert parse_label(label) == strip_offsets(node_at(q.pattern, (1,)))
    assert unfence(paragraphs[-1]) == HOSTILE_DEFINE


# --------------------------------------------------------------------------- every pattern

def _leaves(node: Node, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    if isinstance(node, (Var, Anchor, Empty)) or (isinstance(node, Quantified) and isinstance(node.body, Var)):
        return [path]
    kids: tuple[Node, ...] = ()
    if isinstance(node, Concat):
        kids = node.parts
    elif isinstance(node, Alt):
        kids = node.options
    elif isinstance(node, Permute):
        kids = node.items
    elif isinstance(node, (Quantified, Exclusion)):
        kids = (node.body,)
    return [p for k, child in enumerate(kids) for p in _leaves(child, path + (k,))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns())
def test_every_term_is_drawn_once_and_its_label_reads_back(pattern: str) -> None:
    q = parse_query(query(pattern))
    nodes, edges = query_to_canvas(q)
    ids = [n["id"] for n in nodes]
    assert len(ids) == len(set(ids))
    seen: set[str] = set()
    for n in nodes:  # parents before children
        assert n.get("parentId") is None or n["parentId"] in seen
        seen.add(n["id"])
    terms = {parse_id(n["id"])[1]: n for n in nodes if n["id"].startswith("t:")}  # type: ignore[index]
    root = q.pattern
    expected = [()] if isinstance(root, Concat) and not root.parts else _leaves(root)
    assert sorted(terms) == sorted(expected)
    for path, n in terms.items():
        label, _ = read_content(n["data"]["content"])
        if isinstance(root, Concat) and not root.parts:
            assert label == "()"
            continue
        assert parse_label(label) == strip_offsets(node_at(root, path))
    for e in edges:
        assert e["source"] in seen and e["target"] in seen
        a, b = by_id(nodes)[e["source"]], by_id(nodes)[e["target"]]
        assert a.get("parentId") == b.get("parentId")  # neighbours in one sequence
