"""The Debug and Learn pages' views (visualizers/trace_view.py, visualizers/learn_view.py):
what they read from the step trace, and that every figure is valid plotly (the views build
plotly JSON without validation, so the schema is checked here)."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest

import sample_streams
from engine.dsl import parse
from engine.events import load_events
from engine.model import Strategy
from engine.run_choice import trace
from engine.trace import buffer_at
from sample_streams import generators as G
from visualizers import learn_view as LV
from visualizers import trace_view as TV

STOCK = sample_streams.load("stocks_sase").presets["stock_trend"]
LAZY = "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match AND a.price < c.price WITHIN 2 s"
RATES = {"A": 10, "B": 1, "C": 5}


def _valid(fig: go.Figure) -> go.Figure:
    """Re-validate against plotly's schema (raises on an invalid property)."""
    return go.Figure(fig.to_dict())


@pytest.fixture(scope="module")
def stock():
    p = parse(STOCK)
    events = sample_streams.events("stocks_sase")
    steps = trace(p, events, engine="nfab")
    return p, events, steps


@pytest.fixture(scope="module")
def skewed():
    events = load_events(G.skewed_types(80, RATES, seed=1)).events
    return parse(LAZY), events


def test_match_numbers_follow_the_emission_order(stock):
    _p, _e, steps = stock
    nums = TV.match_numbers(steps)
    texts = {TV.match_text({"match": dict((v, list(ids)) for v, ids in k)}): n for k, n in nums.items()}
    assert texts == {"a=1,2,3,4,5 b=6": 1, "a=3,4 b=6": 2, "a=1,2,3,4,5,6,7 b=8": 3}


def test_state_counts_and_step_edges(stock):
    _p, _e, steps = stock
    assert TV.state_counts(steps[2]) == {"a[i]": 2}  # e3: run 1 takes it, run 2 begins with it
    edges = {(u, v, k): n for u, v, k, n in TV.step_edges(steps[5])}
    assert edges[("a[i]", "b", "proceed")] == 2     # e6 completes both R1 and R2
    assert edges[("a[i]", "a[i]", "take")] == 2


def test_match_path_is_the_runs_moves(stock):
    _p, _e, steps = stock
    m = steps[5].matches[1]                       # a=3,4 b=6 (R2 of the paper)
    path = TV.match_path(steps, m)
    assert [(a.kind, a.state, a.to, a.event) for a in path] == [
        ("begin", "a[1]", "a[i]", 3), ("take", "a[i]", "a[i]", 4), ("proceed", "a[i]", "b", 6),
        ("begin", "b", "F", 6)]


def test_buffer_matches_the_papers_figure_4(stock):
    """SASE+ Figure 4 (papers/sase-nfab.md §6.5): e4 in a[i] points to e3 in a[i] with [1]
    and to e3 in a[1] with [2]; b:e6 points to e5 with [1.1] and to e4 with [2.1]."""
    _p, _e, steps = stock
    entries, added, _pointed, removed = TV.buffer_view(steps, 5)
    assert set(entries) == set(buffer_at(steps, 5))
    preds = {eid: {(p["label"], p["to"]) for p in e["preds"]} for eid, e in entries.items()}
    assert preds["a[i]@4"] == {("1", "a[i]@3"), ("2", "a[1]@3")}
    assert preds["b@6"] == {("1.1", "a[i]@5"), ("2.1", "a[i]@4")}
    assert added == {"b@6", "a[i]@6"} and not removed
    # retrieval: 2.1 follows [2] at e4, the compatible label, down to a[1]:e3
    path = TV.retrieval_path(entries, 6, "2.1")
    assert [p[0] for p in path] == ["b@6", "a[i]@4", "a[1]@3"]
    path = TV.retrieval_path(entries, 6, "1.1")
    assert [p[0] for p in path] == ["b@6", "a[i]@5", "a[i]@4", "a[i]@3", "a[i]@2", "a[1]@1"]


def test_nfab_figures_are_valid_at_every_step(stock):
    p, events, steps = stock
    g = TV.debug_graph(p, "nfab", steps)
    seq = {e.id: e.seq for e in events}
    m = steps[7].matches[0]
    path = TV.match_path(steps, m)
    for k, s in enumerate(steps):
        fig = _valid(TV.live_automaton_figure(g, s if s.step != "close" else None, path))
        entries, added, pointed, _ = TV.buffer_view(steps, k)
        _valid(TV.shared_buffer_figure(entries, TV.stack_order(g, entries), seq, added, pointed,
                                       TV.retrieval_path(entries, 8, "1.2")))
        _valid(TV.cursor_timeline_figure(steps, k, m, TV.live_event_ids(s)))
    names = [t.name for t in fig.data]
    assert "match path" in names
    # live states carry their run count inside the circle
    fig = TV.live_automaton_figure(g, steps[3])
    states = next(t for t in fig.data if t.name == "states")
    assert any("a[i]" in t and "<b>2</b>" in t for t in states.text)
    assert "2 live runs" in fig.layout.title.text


def test_buffer_figure_caps_the_events_drawn():
    p = parse(STOCK)
    events = load_events(G.stocks(120, symbols=2, seed=0, start_price=100, volume=(500, 1500))).events
    steps = trace(p, events, engine="nfab")
    entries, added, pointed, _ = TV.buffer_view(steps, 110)
    g = TV.debug_graph(p, "nfab", steps)
    fig = _valid(TV.shared_buffer_figure(entries, TV.stack_order(g, entries), {e.id: e.seq for e in events},
                                         added, pointed, max_events=20))
    assert "20 events drawn" in fig.layout.title.text
    boxes = next(t for t in fig.data if t.name == "entries")
    assert len({t for t in boxes.text}) <= 20


@pytest.mark.parametrize("engine", ["lazy-chain", "lazy-tree", "eager"])
def test_lazy_engines_map_onto_their_automaton(skewed, engine):
    p, events = skewed
    steps = trace(p, events, engine=engine, rates=RATES if engine == "lazy-chain" else None)
    g = TV.debug_graph(p, engine, steps)
    for s in steps:
        for u, v, _k, _n in TV.step_edges(s):
            assert TV.resolve_state(g, u) in g and TV.resolve_state(g, v) in g
        for r in s.runs:
            assert TV.resolve_state(g, r.state) in g
    ms = [m for s in steps for m in s.matches]
    assert ms
    path = TV.match_path(steps, ms[0])
    assert [a.event for a in path if a.kind == "take"] and set(TV.match_ids(ms[0])) <= {a.event for a in path}
    k = next(i for i, s in enumerate(steps) if s.matches)
    _valid(TV.live_automaton_figure(g, steps[k], path))
    _valid(TV.lazy_buffer_figure(steps[k], ["a", "b", "c"], {"a": "A", "b": "B", "c": "C"}))
    if engine == "lazy-chain":
        assert TV.trace_engine_order(steps) == [["b", "c", "a"]]  # rarest first (§4.1)
        assert g.graph["engine"] == "lazy-chain"


def test_tables(stock):
    _p, _e, steps = stock
    acts = TV.actions_frame(steps[5])
    assert list(acts["action"]) == ["proceed", "match", "take", "proceed", "match", "take", "discard"]
    assert "✓ b.volume < 80% * a[a.len].volume" in acts.loc[0, "predicates"]
    runs = TV.runs_frame(steps[4])
    assert list(runs["run"]) == ["1", "2"] and "ignore e5" in runs.loc[1, "this step"]
    assert "version" not in runs.columns  # NFA^b: the run id is its version
    assert len(TV.events_table(steps)) == 8
    assert TV.step_label(steps, 5).startswith("event #6 (id 6) · Stock at ts 6")
    assert TV.step_label(steps, 8) == "end of stream"


def test_learn_four_strategies_on_the_stock_example():
    """SASE+ §6.3 (notes): 2 / 2 / 3 / 68 matches; the ignore formulas of §4.5 step 3."""
    p = parse(STOCK)
    events = sample_streams.events("stocks_sase")
    res = LV.compare_strategies(p, events)
    counts = {r.strategy: r.count for r in res}
    assert counts == {"strict_contiguity": 2, "partition_contiguity": 2, "skip_till_next_match": 3,
                      "skip_till_any_match": 68}
    ign = {r.strategy: dict(r.ignore) for r in res}
    assert ign["strict_contiguity"]["a[i]"] == "false"
    assert ign["skip_till_any_match"]["b"] == "true"
    assert ign["skip_till_next_match"]["a[i]"].startswith("¬(")
    assert ign["partition_contiguity"]["a[i]"].startswith("¬(e.symbol")
    any_runs = next(r.runs for r in res if r.strategy == Strategy.ANY.value)
    assert any_runs == sorted(any_runs) and any_runs[-1] > 50   # exponential growth
    df = LV.strategy_matrix(res, {e.id: e.seq for e in events})
    assert len(df) == 68
    assert int((df["found by"] == 4).sum()) == 2   # the two matches every strategy finds
    row = df[df["match"] == "a=3,4 b=6"].iloc[0]
    assert row["skip_till_next_match"] == "✓" and row["strict_contiguity"] == ""
    _valid(LV.strategy_runs_figure(res))
    _valid(LV.strategy_counts_figure(res))


def test_learn_lazy_vs_eager(skewed):
    p, events = skewed
    res = LV.compare_lazy_eager(p, events, RATES)
    by = {r.engine: r for r in res}
    assert not any(r.error for r in res)
    assert len({r.matches for r in res}) == 1 and by["eager"].matches > 0     # same matches
    assert by["lazy-chain"].order == [["b", "c", "a"]]
    assert by["eager"].total_created > by["lazy-chain"].total_created          # fewer partial matches
    assert by["eager"].peak > by["lazy-chain"].peak
    assert len(by["eager"].created) == len(events)
    df = LV.lazy_frame(res)
    assert list(df["evaluation order"]) == ["", "b → c → a", ""]
    _valid(LV.lazy_figure(res))


@pytest.mark.parametrize("engine,drawn", [("lazy-chain", "lazy-chain"), ("eager", "eager"),
                                          ("lazy-tree", "lazy-tree")])
def test_kleene_last_on_every_engine_is_drawn(engine, drawn):
    """Contamination (SEQ(Alert a, Shipment+ b[])): the Automaton page's drawing when it
    names the trace's states (eager: complete runs of a trailing Kleene live at q{a,b},
    drawn as F), otherwise the trace's own states and moves."""
    p = parse(sample_streams.load("shipments").presets["contamination"])
    events = sample_streams.events("shipments")
    steps = trace(p, events, engine=engine)
    g = TV.debug_graph(p, engine, steps)
    assert g.graph.get("engine") == drawn
    for s in steps:
        for r in s.runs:
            assert TV.resolve_state(g, r.state) in g
    k = next(i for i, s in enumerate(steps) if s.matches)
    m = steps[k].matches[0]
    _valid(TV.live_automaton_figure(g, steps[k], TV.match_path(steps, m)))
