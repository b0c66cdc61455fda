"""Differential tests (papers/lazy-chain-nfa.md §6 T13): the lazy chain under **every**
evaluation order (First-Chance and Post-Processing negation), the tree NFA and the eager
baseline return exactly the oracle's matches, with no duplicates, on random small
streams and random SEQ/AND/OR/negation/Kleene patterns; matches are emitted no earlier
than their last event and no later than the window of their first event; the chain in
sequence order reproduces the eager instance counts (Lemma 1 base case)."""
from __future__ import annotations

import itertools

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.engines.oracle import oracle
from engine.engines.lazy.eager_matcher import EagerMatcher
from engine.engines.lazy.chain_matcher import LazyChainMatcher
from engine.engines.lazy.tree_matcher import LazyTreeMatcher
from engine.model import Component, Group, Pattern, PatternError, Window
from engine.engines.oracle.oracle import OracleTooLarge
from tests.strategies import predicates, small_patterns, small_streams
from tests.support import feed_log as log_run

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))


def matchers(p, all_orders=True):
    yield "eager", lambda: EagerMatcher(p)
    yield "tree", lambda: LazyTreeMatcher(p)
    pos = [c.var for c in p.positive]
    orders = list(itertools.permutations(pos)) if all_orders else [tuple(pos), tuple(reversed(pos))]
    negs = ("fc", "pp") if p.negated else ("fc",)  # without negation the two plans are the same
    for order in orders:
        for neg in negs:
            yield f"chain{order}/{neg}", (lambda o=order, n=neg: LazyChainMatcher(p, order=list(o), negation=n))
    yield "chain/warmup", lambda: LazyChainMatcher(p, warmup=3)


def close_index(p, events, m):
    """Index of the first event outside the window of the match's first event (or the end)."""
    if p.window is None:
        return len(events)
    w = p.window
    first = events[m.start_seq]
    for e in events[m.start_seq:]:
        d = (e.seq - first.seq) if w.is_count else (e.ts - first.ts)
        if d >= w.size:
            return e.seq
    return len(events)


def check_against_oracle(p, events, all_orders=True):
    try:
        expected = {m.key: m for m in oracle.run(p, events)}
    except OracleTooLarge:
        assume(False)
    has_neg = bool(p.negated)
    for name, make in matchers(p, all_orders):
        log = log_run(make(), events)
        got = [m.key for _, m in log]
        assert len(got) == len(set(got)), f"{name}: duplicates\n{p}"
        assert set(got) == set(expected), f"{name}\n{p}\n{events}"
        for i, m in log:
            exp = expected[m.key]
            assert (m.start, m.end, m.start_seq, m.end_seq) == (exp.start, exp.end, exp.start_seq, exp.end_seq)
            assert m.end_seq <= i <= close_index(p, events, m), f"{name}: emitted at {i}: {m}"
            if not has_neg and name != "chain/warmup":
                assert i == m.end_seq, f"{name}: a positive match is emitted with its last event"


@settings(max_examples=220, **SETTINGS)
@given(p=small_patterns(max_positive=3, any_type=True), events=small_streams(max_size=8))
def test_all_engines_equal_oracle_on_small_patterns(p, events):
    check_against_oracle(p, events)


@st.composite
def nested_patterns(draw, max_positive=4):
    """Nested SEQ/AND/OR (partial orders, Kleene inside AND), ``?``/``*``, up to two
    negations in the top SEQ (between or trailing), predicates, ``[attr]``, time or count
    windows, ANY."""
    names = iter("abcdefghij")
    budget = [draw(st.integers(1, max_positive))]

    def comp():
        budget[0] -= 1
        return Component(type=draw(st.sampled_from(["A", "B", "C", "A", "B", "C", "ANY"])), var=next(names),
                         quant=draw(st.sampled_from(["one", "one", "one", "plus", "opt", "star"])))

    def item(depth):
        if depth > 0 and budget[0] >= 2 and draw(st.integers(0, 2)) == 0:
            op = draw(st.sampled_from(["SEQ", "AND", "OR"]))
            return Group(op=op, items=[item(depth - 1) for _ in range(draw(st.integers(2, min(3, budget[0]))))])
        return comp()

    items = []
    while budget[0] > 0:
        items.append(item(2))
    top = draw(st.sampled_from(["SEQ", "SEQ", "AND", "OR"]))
    win = None
    if draw(st.booleans()):
        win = Window(value=draw(st.integers(2, 6)), unit=draw(st.sampled_from([None, None, "events"])))
    if top == "SEQ":
        for _ in range(draw(st.integers(0, 2))):
            pos = draw(st.integers(1, len(items)))
            if pos == len(items) and win is None:
                win = Window(value=draw(st.integers(2, 6)))
            items.insert(pos, Component(type=draw(st.sampled_from(["A", "B", "C"])), var=next(names), negated=True))
    root = Group(op=top, items=items)
    try:
        Pattern(root=root, window=win).check()
    except PatternError:
        assume(False)
    comps = Pattern(root=root, window=win).components()
    where = draw(st.lists(predicates(comps, attrs=("x", "y"), str_attrs=("k",), nums=st.integers(0, 3),
                                     strs=st.sampled_from(["p", "q"]), max_depth=1, allow_bool_leaf=False),
                          max_size=3))
    p = Pattern(root=root, where=where, equivalence=draw(st.lists(st.sampled_from(["x", "k"]), max_size=1)),
                window=win)
    try:
        p.check()
    except PatternError:
        assume(False)
    return p


@settings(max_examples=220, **SETTINGS)
@given(p=nested_patterns(), events=small_streams(max_size=9))
def test_all_engines_equal_oracle_on_nested_patterns(p, events):
    check_against_oracle(p, events)


@settings(max_examples=60, **SETTINGS)
@given(p=nested_patterns(max_positive=5), events=small_streams(min_size=6, max_size=12))
def test_larger_inputs_two_orders(p, events):
    check_against_oracle(p, events, all_orders=False)


@st.composite
def seq_patterns(draw):
    n = draw(st.integers(2, 4))
    items = [Component(type=draw(st.sampled_from("ABC")), var="abcd"[k]) for k in range(n)]
    win = Window(value=draw(st.integers(2, 8))) if draw(st.booleans()) else None
    root = Group(op="SEQ", items=items)
    where = draw(st.lists(predicates(items, attrs=("x", "y"), str_attrs=("k",), nums=st.integers(0, 3),
                                     strs=st.sampled_from(["p", "q"]), max_depth=1, allow_bool_leaf=False),
                          max_size=2))
    p = Pattern(root=root, where=where, window=win)
    try:
        p.check()
    except PatternError:
        assume(False)
    return p


@settings(max_examples=120, **SETTINGS)
@given(p=seq_patterns(), events=small_streams(max_size=10))
def test_chain_in_sequence_order_is_the_eager_nfa(p, events):
    """Lemma 1 base case: same matches and exactly the eager instance counts."""
    e = EagerMatcher(p)
    c = LazyChainMatcher(p, order=[x.var for x in p.positive])
    assert sorted(m.key for m in log_run_matches(e, events)) == sorted(m.key for m in log_run_matches(c, events))
    assert c.stats.runs_created == e.stats.runs_created


def log_run_matches(m, events):
    return [x for _, x in log_run(m, events)]
