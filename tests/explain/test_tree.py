"""engine/explain/tree.py: the explanation trees carry every line of the text form, predicates
with their conjunct, values and result, events with their index in the stream, moves with the
automaton's state names; on the samples' presets and on random small patterns and streams."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sample_streams
from engine.dsl import parse
from engine.explain import ExplainError, explain_match, explain_why_not, format_text
from engine.explain.tree import NODE_KINDS, explanation_tree, match_tree, predicates, why_not_tree
from engine.explain.common import engine_run
from engine.model import Strategy
from tests.strategies import small_patterns, small_streams

PRESETS = [(s, name) for s in sample_streams.names() for name in sample_streams.load(s).presets]


def _text_lines(result):
    return [ln.strip() for ln in format_text(result).splitlines() if ln.strip()]


def check_tree(result, events):
    """The properties every tree has: each text line is one node's line, keys unique, kinds
    known, predicate nodes hold the facts of their text line, events their stream index."""
    step_of = {e.id: k for k, e in enumerate(events)}
    root = explanation_tree(result, step_of)
    nodes = list(root.walk())
    lines = [n.line for n in nodes if n.line]
    for ln in _text_lines(result):
        assert ln in lines, (ln, lines)
    keys = [n.key for n in nodes]
    assert len(keys) == len(set(keys))
    for n in nodes:
        assert n.kind in NODE_KINDS and n.label
        if n.kind == "predicate":
            assert n.conjunct and n.conjunct in n.line and isinstance(n.result, bool)
            assert n.line.startswith("✓" if n.result else "✗")
            for name in n.values:
                assert name in n.line or not n.line.endswith(")")
        if n.kind == "event" and n.event is not None and n.step is not None:
            assert events[n.step].id == n.event or str(events[n.step].id) == str(n.event)
            assert n.label.startswith(f"event #{n.step + 1:,} (id ")
    return root


def test_stock_match_tree_groups_moves_under_their_event():
    p = parse(sample_streams.load("stocks_sase").presets["stock_trend_any"])
    events = sample_streams.events("stocks_sase")
    res = explain_match(p, events, 1)
    root = check_tree(res, events)
    assert root.kind == "note" and root.label.startswith("match #1")
    ev6 = [n for n in root.children if n.kind == "event" and n.event == 6]
    assert len(ev6) == 1 and ev6[0].label.startswith("event #6 (id 6)")
    # proceed a[i] -> b then begin b -> F, both on event 6
    assert [(c.edge, c.state, c.to) for c in ev6[0].children] == [("proceed", "a[i]", "b"), ("begin", "b", "F")]
    begin_b = ev6[0].children[1]
    assert [c.conjunct for c in begin_b.children] == ["b.volume < 80% * a[a.len].volume", "b.symbol = a[1].symbol"]
    assert begin_b.children[0].values == {"b.volume": 750, "a[a.len].volume": 1010}  # by hand: the sample's rows
    assert begin_b.children[0].result is True and begin_b.children[1].equivalence


def test_why_not_tree_names_event_edge_and_failing_predicate():
    p = parse(sample_streams.load("stocks_sase").presets["stock_trend_any"])
    events = sample_streams.events("stocks_sase")
    res = explain_why_not(p, events, "1,3,5")
    assert res["verdict"] == "no_match"
    root = check_tree(res, events)
    reason = next(n for n in root.children if n.line.startswith("reason"))
    ev = next(n for n in reason.children if n.kind == "event")
    assert ev.event == 5 and ev.step == 4
    edge = ev.children[0]
    assert (edge.kind, edge.edge, edge.state) == ("edge", "begin", "b")
    pred = edge.children[0]
    assert (pred.kind, pred.conjunct, pred.result) == ("predicate", res["reason"]["predicate"], False)
    assert pred.values == res["reason"]["values"]
    far = next(n for n in root.children if n.line.startswith("furthest"))
    assert [n.event for n in far.children] == [1, 3]


@pytest.mark.parametrize("sample,preset", PRESETS)
def test_every_preset_tree_carries_the_text(sample, preset):
    p = parse(sample_streams.load(sample).presets[preset])
    events = sample_streams.events(sample)
    rnd = random.Random(f"{sample}/{preset}")
    for k in (1, 2):
        try:
            check_tree(explain_match(p, events, k), events)
        except ExplainError:
            break
    ids = [e.id for e in events]
    for _ in range(3):
        spec = ",".join(str(i) for i in sorted(rnd.sample(ids, min(len(ids), rnd.randint(1, 3))),
                                               key=ids.index))
        try:
            check_tree(explain_why_not(p, events, spec), events)
        except ExplainError:
            continue


def _runs(p, events):
    try:
        run = engine_run(p, events)
    except ExplainError:
        return None
    return None if run.error else run.matches


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(max_size=7),
       rnd=st.randoms(use_true_random=False))
def test_random_trees_carry_every_text_line(p, events, rnd):
    got = _runs(p, events)
    if got is None:
        return
    for k in range(1, min(len(got), 2) + 1):
        try:
            check_tree(explain_match(p, events, k), events)
        except ExplainError:
            pass
    ids = [e.id for e in events]
    spec = ",".join(str(i) for i in sorted(rnd.sample(ids, rnd.randint(1, min(3, len(ids)))), key=ids.index))
    try:
        check_tree(explain_why_not(p, events, spec), events)
    except ExplainError:
        pass


def test_predicates_lists_in_order_and_unknown_ids_keep_a_label():
    res = {"verdict": "match", "index": 1, "engine": "x", "match": {"a": ["q"]}, "start": 1, "end": 1,
           "steps": [{"kind": "begin", "event": "q", "type": "A", "ts": 1, "state": "a", "edge": "begin", "to": "F",
                      "text": "t", "predicates": [{"text": "a.x > 1", "values": {"a.x": 2}, "result": True},
                                                  {"text": "a.y < 1", "values": {"a.y": 2}, "result": False}]}]}
    root = match_tree(res)  # no stream index known
    assert [n.conjunct for n in predicates(root)] == ["a.x > 1", "a.y < 1"]
    assert root.children[0].label.startswith("event id q")
    assert why_not_tree({"verdict": "match", "index": 3, "match": {"a": [1]}}).label == "match #3: a=[1]"
