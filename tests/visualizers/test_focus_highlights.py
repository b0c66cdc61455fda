"""Focus highlights: the automaton draws the edges whose formula carries a focused predicate
(or the focused move), the timeline shades a focused event's lane and rings it; without a
focus both figures are what they were."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest

import sample_streams
from engine.dsl import parse
from engine.explain import ExplainError, explain_match
from engine.explain.tree import match_tree, predicates
from engine.trace import Recorder, record
from engine.engines.nfab.compiler import unsupported_reason
from engine.run_choice import choose_run
from visualizers.trace import cursor_timeline_figure, debug_graph, live_automaton_figure
from visualizers.trace.live_automaton import focus_edges

STOCKS = parse(sample_streams.load("stocks_sase").presets["stock_trend"])
PRESETS = [(s, name) for s in sample_streams.names() for name in sample_streams.load(s).presets]


def _trace(p, events):
    choice = choose_run(p, "nfab", "off")
    return list(record(choice.build(p, tracer=Recorder()), events, limit=None))


@pytest.fixture(scope="module")
def stock_steps():
    return _trace(STOCKS, sample_streams.events("stocks_sase"))


def _focus_trace(fig):
    got = [t for t in fig.to_dict()["data"] if t.get("name") == "focus"]
    return got[0] if got else None


def test_a_predicate_highlights_the_edges_whose_formula_carries_it(stock_steps):
    g = debug_graph(STOCKS, "nfab", stock_steps)
    # by hand from the SASE+ automaton: the Kleene price test guards a[i]'s take and (negated) its ignore
    assert sorted(focus_edges(g, "a[i].price > avg(a[..i-1].price)")) == [("a[i]", "a[i]", "ignore"),
                                                                          ("a[i]", "a[i]", "take")]
    assert sorted(focus_edges(g, {"predicate": "a[1].volume  >  1000"})) == [("a[1]", "a[i]", "begin")]
    # b's predicate: b's begin and ignore, and the proceed into b that peeks at it
    assert sorted(focus_edges(g, "b.volume < 80% * a[a.len].volume")) == [("a[i]", "b", "proceed"),
                                                                          ("b", "F", "begin"), ("b", "b", "ignore")]
    assert focus_edges(g, {"edge": {"state": "b", "to": "F", "edge": "begin"}}) == [("b", "F", "begin")]
    assert focus_edges(g, {"edge": {"state": "a[i]", "to": None, "edge": "ignore"}}) == [("a[i]", "a[i]", "ignore")]
    assert focus_edges(g, "c.x > 1") == [] and focus_edges(g, None) == [] and focus_edges(g, {"event": 3}) == []


def test_the_figure_draws_the_focus_and_nothing_without_one(stock_steps):
    g = debug_graph(STOCKS, "nfab", stock_steps)
    step = stock_steps[3]
    plain = live_automaton_figure(g, step)
    assert _focus_trace(plain) is None
    assert plain.to_dict() == live_automaton_figure(g, step, (), "short", None).to_dict()  # the old call
    fig = live_automaton_figure(g, step, focus={"predicate": "a[1].volume > 1000"})
    go.Figure(fig.to_dict())
    tr = _focus_trace(fig)
    assert tr["meta"]["edges"] == [["a[1]", "a[i]", "begin"]]
    assert tr["x"].count(None) == 1
    # the focus is drawn first of the overlays: under this step's moves and the match path
    names = [t.get("name") for t in fig.to_dict()["data"]]
    assert names.index("focus") < names.index("live runs")


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_every_predicate_of_an_explained_match_names_an_edge(sample, preset):
    p = parse(sample_streams.load(sample).presets[preset])
    if unsupported_reason(p) is not None:
        pytest.skip("NFA^b does not run this preset")
    events = sample_streams.events(sample)
    try:
        res = explain_match(p, events, 1, engine="nfab", match_windows="off")
    except ExplainError:
        pytest.skip("no match")
    g = debug_graph(p, "nfab", [])
    for n in predicates(match_tree(res)):
        assert focus_edges(g, n.conjunct), n.conjunct
    for n in match_tree(res).walk():
        if n.kind == "edge" and n.edge in ("begin", "take", "proceed", "ignore"):
            assert focus_edges(g, {"edge": {"state": n.state, "to": n.to, "edge": n.edge}}), (n.state, n.to, n.edge)


def test_the_timeline_shades_the_focused_event_lane(stock_steps):
    plain = cursor_timeline_figure(stock_steps, 3, None).to_dict()
    fig = cursor_timeline_figure(stock_steps, 3, None, focus_event=5)
    go.Figure(fig.to_dict())
    d = fig.to_dict()
    tr = _focus_trace(fig)
    assert tr["customdata"] == [5] and tr["x"] == [5]  # the sample's event 5 is at ts 5
    lanes = [s for s in d["layout"]["shapes"] if s["type"] == "rect"]
    assert len(lanes) == 1 and (lanes[0]["y0"], lanes[0]["y1"]) == (-0.4, 0.4)  # the one type, Stock, is lane 0
    assert [s for s in d["layout"]["shapes"] if s["type"] == "line"] == plain["layout"]["shapes"]
    assert _focus_trace(cursor_timeline_figure(stock_steps, 3, None, focus_event="nope")) is None
    assert cursor_timeline_figure(stock_steps, 3, None, focus_event="5").to_dict()["data"][-2]["name"] == "focus"
