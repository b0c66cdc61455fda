"""The graph exports of the eager, SES and uncertain engines (engine/engines/lazy/eager_compiler.py,
ses_moves.py, uncertain.py): states and edges of small known patterns, and every move the
engine's trace makes on the sample data is an edge of its graph."""
from __future__ import annotations

from itertools import combinations

import pytest

import sample_streams
from engine.engines.lazy.eager_compiler import eager_graph
from engine.engines.ses.compiler import compile_ses
from engine.engines.ses.moves import ses_moves_graph
from engine.engines.uncertain.automaton import SIGNATURE, event_based_graph, event_mode, point_based_graph
from engine.dsl import parse
from engine.run_choice import trace
from engine.engines.uncertain.pmf import derived_u_max


def _preset(sample: str, name: str):
    return parse(sample_streams.load(sample).presets[name])


def _edges(g, kind: str | None = None) -> set[tuple[str, str, str]]:
    return {(u, v, d.get("var") or "") for u, v, d in g.edges(data=True) if kind is None or d["kind"] == kind}


def _moves(steps, kinds=("begin", "take")) -> set[tuple[str | None, str]]:
    return {(a.state, a.to) for s in steps for a in s.actions if a.kind in kinds and a.to is not None}


# --------------------------------------------------------------------------- eager

def test_eager_graph_is_the_bound_set_lattice_with_drawing_attributes():
    g = eager_graph(_preset("chemo", "chemo_cycle"))  # SEQ(AND(C c, P+ p[]), B b) WITHIN 16 days
    assert _edges(g, "take") == {("q{}", "q{c}", "c"), ("q{}", "q{p}", "p"), ("q{c}", "q{c,p}", "p"),
                                 ("q{p}", "q{c,p}", "c"), ("q{c,p}", "F", "b")}
    assert {u for u, v, d in g.edges(data=True) if d["kind"] == "iterate"} == {"q{p}", "q{c,p}"}
    assert {u for u, v, d in g.edges(data=True) if d["kind"] == "timeout"} == {"q{c}", "q{p}", "q{c,p}"}
    assert all(d["style"] in ("take", "ignore", "proceed", "negation") for _u, _v, d in g.edges(data=True))
    assert [n for n, d in g.nodes(data=True) if d["start"]] == ["q{}"]
    take_b = next(d for u, v, d in g.edges(data=True) if (u, v) == ("q{c,p}", "F"))
    assert "span < 16 days" in take_b["formula"]


def test_eager_graph_has_every_move_the_eager_engine_makes():
    p = _preset("chemo", "chemo_cycle")
    g = eager_graph(p)
    moves = _moves(trace(p, sample_streams.events("chemo"), "eager", limit=None))
    assert moves
    for u, v in moves:
        v = v if v in g else "F"  # the complete binding `q{c,p,b}` is drawn as F
        assert g.has_edge(u, v), (u, v)


def test_eager_graph_negation_is_post_processing():
    g = eager_graph(parse("PATTERN SEQ(A a, !B b, C c) WITHIN 10"))
    assert g.has_edge("q{a,c}", "¬b") and g.has_edge("¬b", "R") and g.has_edge("¬b", "F")
    assert {d["kind"] for u, v, d in g.edges(data=True) if u == "¬b"} == {"negation", "search_failed"}


# --------------------------------------------------------------------------- SES

def test_ses_graph_states_are_the_pairs_of_the_ses_automaton():
    for sample, name in (("chemo", "chemo_cycle"), ("trades", "three_tickers"), ("trades", "rising_then_falling")):
        p = _preset(sample, name)
        g = ses_moves_graph(p)
        assert set(g) - {"R"} == set(compile_ses(p).to_networkx()), name


def test_ses_graph_of_the_chemo_pattern():
    g = ses_moves_graph(_preset("chemo", "chemo_cycle"))
    assert _edges(g, "begin") == {("(1,{})", "(1,{c})", "c"), ("(1,{})", "(1,{p})", "p")}
    assert _edges(g, "take") == {("(1,{c})", "(1,{c,p})", "p"), ("(1,{p})", "(1,{c,p})", "c")}
    assert _edges(g, "iterate") == {("(1,{p})", "(1,{p})", "p"), ("(1,{c,p})", "(1,{c,p})", "p")}
    assert _edges(g, "next_set") == {("(1,{c,p})", "(2,{b})", "b")}
    # every instance may skip and expires with the window; the accepting state (no Kleene left) never moves
    assert {u for u, v, d in g.edges(data=True) if d["kind"] == "skip"} == {"(1,{c})", "(1,{p})", "(1,{c,p})"}
    assert {u for u, v, d in g.edges(data=True) if d["kind"] == "expire"} == {"(1,{c})", "(1,{p})", "(1,{c,p})"}
    assert g.out_degree("(2,{b})") == 0 and g.nodes["(2,{b})"]["kind"] == "final"
    nxt = next(d for u, v, d in g.edges(data=True) if d["kind"] == "next_set")
    assert "same [PID]" in nxt["formula"] and "span < 16 days" in nxt["formula"]


def test_ses_graph_of_p_set_is_the_subset_lattice():
    g = ses_moves_graph(_preset("trades", "three_tickers"))  # AND(Trade a, Trade m, Trade o)
    assert g.number_of_nodes() == 2 ** 3 + 1  # (1, S) for S ⊆ {a, m, o}, and R
    assert len(_edges(g, "begin")) == 3 and len(_edges(g, "take")) == 3 * 2 + 3
    assert g.nodes["(1,{a,m,o})"]["kind"] == "final"
    skip = next(d for u, v, d in g.edges(data=True) if d["kind"] == "skip")
    assert "earliest and maximal" in skip["formula"]  # WHERE earliest_maximal prunes skip branches
    cols = {d["order"] for _n, d in g.nodes(data=True)}
    assert cols == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("sample,name", [("chemo", "chemo_cycle"), ("chemo", "chemo_earliest"),
                                         ("trades", "three_tickers")])
def test_ses_graph_has_every_move_the_ses_matcher_makes(sample, name):
    p = _preset(sample, name)
    g = ses_moves_graph(p)
    steps = trace(p, sample_streams.events(sample)[:300], "ses", limit=None)
    moves = _moves(steps)
    assert moves
    for u, v in moves:
        assert g.has_edge(u, v), (u, v)
    for s in steps:
        for a in s.actions:
            if a.kind == "expire":
                assert g.has_edge(a.state, "R"), a.state


# --------------------------------------------------------------------------- uncertain

CLUSTER = ("cluster", "query1")  # SEQ(TaskStart a, CPU b, TaskFinish c, CPU d) WITHIN 15 seconds


def test_event_based_graph_any_state_runs_are_every_subset():
    p = _preset(*CLUSTER)
    assert event_mode(p) == "any-state"  # CPU twice: components are not exclusive
    g = event_based_graph(p)
    runs = {n for n, d in g.nodes(data=True) if d["kind"] == "state"}
    assert runs == {"q{" + ",".join(c) + "}" for k in (1, 2, 3) for c in combinations("abcd", k)}
    assert len(_edges(g, "begin")) == 4  # an event begins a run alone at every component it fits
    assert len(_edges(g, "take")) == sum(len(list(combinations("abcd", k))) * (4 - k) for k in (1, 2, 3))
    assert g.nodes["q{a,b,c,d}"]["kind"] == "final" and g.has_edge("q{a,b,c,d}", SIGNATURE)
    prune = {u: d["formula"] for u, v, d in g.edges(data=True) if d["kind"] == "prune"}
    assert set(prune) == runs  # TTL for every run (the window)
    assert "gap" in prune["q{b}"] and "gap" not in prune["q{a,b}"]  # gap: an earlier component is unfilled
    emit = next(d for u, v, d in g.edges(data=True) if u == "q{a,b,c,d}")
    assert emit["kind"] == "emit"  # skip_till_any_match: at once


def test_event_based_graph_sorted_mode_and_next_match():
    p = parse("PATTERN SEQ(A a, B b, C c) WHERE skip_till_next_match AND b.x > a.x WITHIN 5")
    assert event_mode(p) == "sorted"
    g = event_based_graph(p)
    assert _edges(g, "begin") == {("q{}", "q{a}", "a")}
    assert _edges(g, "take") == {("q{a}", "q{a,b}", "b"), ("q{a,b}", "q{a,b,c}", "c")}
    take_b = next(d for u, v, d in g.edges(data=True) if v == "q{a,b}")
    assert "b.x > a.x" in take_b["formula"] and "NELT" in take_b["formula"] and "reorder buffer" in take_b["formula"]
    assert next(d for u, v, d in g.edges(data=True) if u == "q{a,b,c}")["kind"] == "wait"
    assert any(t == "NELT" for t, _m in g.graph["terms"])
    with pytest.raises(ValueError, match="Kleene"):
        event_based_graph(parse("PATTERN SEQ(A+ a[], B b)"))


def test_point_based_graph_is_a_point_nfa_then_collapsing():
    p = _preset(*CLUSTER)
    g = point_based_graph(p)
    assert [n for n, d in g.nodes(data=True) if d["start"]] == ["a"]
    assert _edges(g, "begin") | _edges(g, "take") == {("a", "b", "a"), ("b", "c", "b"), ("c", "d", "c"),
                                                      ("d", "F", "d")}
    assert {u for u, v, d in g.edges(data=True) if d["kind"] == "expire"} == {"b", "c", "d"}
    assert {u for u, v, d in g.edges(data=True) if d["kind"] == "stay"} == {"b", "c", "d"}
    take = next(d for u, v, d in g.edges(data=True) if (u, v) == ("b", "c"))
    assert "id check" in take["formula"] and "t − a.t ≤ 14" in take["formula"] and "NELT" not in take["formula"]
    assert next(d for u, v, d in g.edges(data=True) if u == "F")["kind"] == "collapse"
    nxt = point_based_graph(p.model_copy(update={"strategy": p.strategy.NEXT}))
    take = next(d for u, v, d in nxt.edges(data=True) if (u, v) == ("b", "c"))
    assert "t ≤ NELT(a)" in take["formula"]  # the edge out of b takes b's point: next after a
    no_window = point_based_graph(parse("PATTERN SEQ(A a, B b)"))
    assert not any(d["kind"] == "expire" for _u, _v, d in no_window.edges(data=True))


@pytest.mark.parametrize("engine,make", [("uncertain-event", event_based_graph),
                                         ("uncertain-point", point_based_graph)])
def test_uncertain_graphs_have_every_move_the_engine_makes(engine, make):
    p = _preset(*CLUSTER)
    g = make(p)
    events = sample_streams.events("cluster")
    u_max = derived_u_max(events)  # as `cep run` does: the frontier moves, so runs are pruned
    steps = trace(p, events, engine, limit=None, interval=True, u_max=u_max)
    start = next(n for n, d in g.nodes(data=True) if d["start"])
    moves = _moves(steps)
    assert len(moves) >= 4
    for u, v in moves:
        assert g.has_edge(u if u is not None else start, v), (u, v)
    dropped = {a.state for s in steps for a in s.actions if a.kind == "expire" and a.state}
    for u in dropped:
        assert g.has_edge(u, "R"), u
    pruned = {(a.state, a.reason.split(":")[0]) for s in steps for a in s.actions
              if a.state and (a.reason or "").startswith(("TTL", "gap"))}
    assert pruned or engine == "uncertain-point"
    for u, rule in pruned:  # the event-based engine's TTL and gap pruning, on the state's prune edge
        formula = next(d["formula"] for _u, v, d in g.out_edges(u, data=True) if v == "R")
        assert rule in formula, (u, rule, formula)
