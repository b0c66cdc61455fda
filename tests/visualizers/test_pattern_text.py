"""visualizers/pattern_text.py: every conjunct of every preset found in its source, the
predicates cep explain prints found, the highlighted HTML escaped and equal to the source
once the marks are taken off."""
from __future__ import annotations

import html
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sample_streams
from engine.dsl import parse
from engine.dsl.printer import to_text as pattern_to_text
from engine.explain import ExplainError, explain_match
from engine.explain.checks import pattern_conjuncts
from engine.explain.tree import match_tree, predicates
from engine.expr import to_text
from engine.model import Strategy
from tests.strategies import small_patterns
from visualizers.pattern_text import find_predicate, highlighted_html, locate

PRESETS = [(s, name) for s in sample_streams.names() for name in sample_streams.load(s).presets]


def _unmarked(out: str) -> str:
    assert out.startswith('<pre class="cep-pattern">') and out.endswith("</pre>")
    body = out[len('<pre class="cep-pattern">'):-len("</pre>")]
    assert "<" not in body.replace("<mark>", "").replace("</mark>", "")
    return html.unescape(body.replace("<mark>", "").replace("</mark>", ""))


def _marks(out: str) -> list[str]:
    return [html.unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", out, flags=re.S)]


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_every_conjunct_of_every_preset_is_found(sample, preset):
    src = sample_streams.load(sample).presets[preset]
    p = parse(src)
    located = locate(src)
    for c in pattern_conjuncts(p):
        spans = find_predicate(src, to_text(c), located=located)
        assert spans, to_text(c)
        s, e = spans[0]
        assert to_text(parse_expr(src[s:e])) == to_text(c)
    for attr in p.equivalence:
        spans = find_predicate(src, f"b.{attr} = a[1].{attr}", equivalence=True, located=located)
        assert spans and src[spans[0][0]:spans[0][1]] == attr
    for comp in p.positive:
        out = highlighted_html(src, variables=[comp.var])
        assert len(_marks(out)) == 1 and re.search(rf"\b{re.escape(comp.var)}\b", _marks(out)[0])


def parse_expr(text):
    from engine.dsl.parser import parse_expr as pe
    return pe(text)


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_every_predicate_cep_explain_prints_is_found(sample, preset):
    src = sample_streams.load(sample).presets[preset]
    p = parse(src)
    events = sample_streams.events(sample)
    texts = []
    for k in (1, 2, 3):
        try:
            texts += [(n.conjunct, n.equivalence) for n in predicates(match_tree(explain_match(p, events, k)))]
        except ExplainError:
            break
    located = locate(src)
    for text, eq in texts:
        assert find_predicate(src, text, eq, located=located), text


def test_highlight_marks_the_conjunct_and_the_equivalence_it_came_from():
    src = sample_streams.load("stocks_sase").presets["stock_trend_any"]
    out = highlighted_html(src, ["a[1].volume > 1000", "b.symbol = a[1].symbol"])
    assert _marks(out) == ["symbol", "a[1].volume > 1000"]
    assert "a[1].volume &gt; 1000" in out
    assert _unmarked(out) == src


def test_whitespace_in_the_source_is_tolerated_and_unknown_text_marks_nothing():
    src = "PATTERN SEQ(A a, B b)\nWHERE a.x   >\n   b.x\n AND  b.y = 'q'"
    out = highlighted_html(src, ["a.x > b.x"])
    assert _marks(out) == ["a.x   >\n   b.x"] and "\n" not in out  # line breaks as &#10;
    assert _marks(highlighted_html(src, ["b.y = 'q'"])) == ["b.y = 'q'"]
    assert _marks(highlighted_html(src, ["a.z > 3"])) == []
    assert highlighted_html("not a pattern <b>", ["x"]) == '<pre class="cep-pattern">not a pattern &lt;b&gt;</pre>'


def test_hostile_literals_are_escaped():
    src = "PATTERN SEQ(A a, B b)\nWHERE a.k = '<img src=x onerror=alert(1)>' AND b.x > 1"
    out = highlighted_html(src, ["a.k = '<img src=x onerror=alert(1)>'"])
    assert "<img" not in out and _unmarked(out) == src
    assert _marks(out) == ["a.k = '<img src=x onerror=alert(1)>'"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)),
       spaces=st.lists(st.sampled_from([" ", "  ", "\n  "]), min_size=1, max_size=5), data=st.data())
def test_random_patterns_every_conjunct_found_and_html_round_trips(p, spaces, data):
    src = pattern_to_text(p)
    # re-space the WHERE clause: the spans still find every conjunct
    src = src.replace(" AND ", f"{spaces[0]}AND{spaces[-1]}")
    q = parse(src)
    located = locate(src)
    chosen = []
    for c in pattern_conjuncts(q):
        spans = find_predicate(src, to_text(c), located=located)
        assert spans, (src, to_text(c))
        assert _squeeze(src[spans[0][0]:spans[0][1]]) == _squeeze(to_text(c)) or \
            to_text(parse_expr(src[spans[0][0]:spans[0][1]])) == to_text(c)
        if data.draw(st.booleans()):
            chosen.append(to_text(c))
    out = highlighted_html(src, chosen, variables=[c.var for c in q.positive][:1])
    assert _unmarked(out) == src
    # a predicate written twice is marked twice; nothing else is marked
    assert len(_marks(out)) <= sum(to_text(c) in chosen for c in pattern_conjuncts(q)) + 1
    first_var = located_var(located, q)
    for m in _marks(out):
        assert _squeeze(m) in {_squeeze(c) for c in chosen} or m == src[first_var[0]:first_var[1]]


def located_var(located, q):
    first = q.positive[0].var
    return next((x.start, x.end) for x in located if x.kind == "variable" and x.text == first)
