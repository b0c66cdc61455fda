"""engine.engines.aseq.prefix_tree and counter_updates: the counters' state objects, and the
fast update path (``CounterUpdates._apply_plain``: COUNT, no START-anchored predicate, no
tracer) gives exactly what the general path (``_apply``) gives."""
from __future__ import annotations

from hypothesis import given

from engine.dsl import parse
from engine.events import make_stream
from engine.engines.aseq import core
from engine.engines.aseq.engine import AseqMatcher, rows_for
from engine.engines.aseq.prefix_tree import (ALL, GroupTotals, Snapshot, Tree, jsonable_key, max_of, min_of,
                                             tree_id)
from engine.engines.aseq.values import Val
from tests.engines.aseq.test_properties import SETTINGS, patterns, streams


def test_snapshot_rows_in_expiry_order_and_live_totals():
    snap = Snapshot({7: [5.0, 2], 3: [2.0, 1], 4: [5.0, 10]}, counts=True)
    assert snap.tags == [3, 4, 7] and snap.exps == [2.0, 5.0, 5.0] and snap.vals == [1, 10, 2]
    assert len(snap) == 3
    assert snap.live(None) == 13 and snap.live(1.0) == 13 and snap.live(2.0) == 12
    assert snap.live(2.0, inclusive=True) == 13 and snap.live(5.0) == 0
    assert list(snap.live_rows(2.0)) == [(4, 5.0, 10), (7, 5.0, 2)]
    assert snap.as_json() == {"3": [2.0, 1], "4": [5.0, 10], "7": [5.0, 2]}
    vals = Snapshot({1: [3.0, Val(2, 4, 2, 3, 1)]}, counts=False)
    assert vals.live(None).c == 2 and vals.live(3.0).c == 0


def test_small_helpers():
    assert max_of(None, 2) == 2 and max_of(3, None) == 3 and max_of(1, 2) == 2
    assert min_of(None, 2) == 2 and min_of(3, None) == 3 and min_of(1, 2) == 1
    assert repr(ALL) == "ALL" and type(ALL)() is ALL
    assert jsonable_key(ALL) is None and jsonable_key(("a",)) == "a" and jsonable_key((1, "b")) == [1, "b"]
    assert jsonable_key(2.5) == 2.5 and jsonable_key(object).startswith("<class")
    t = Tree(0, None, 0.0, float("inf"), ("k",), (ALL,), 2, 0)
    assert tree_id(t) == "global:k" and t.cnt == [0, 0]
    tot = GroupTotals()
    assert (tot.count, tot.total, tot.n) == (0, 0, 0)


def _general_only(self, trees, ops):
    """The fast path replaced by the general one, tree by tree."""
    for t in trees:
        self._apply(t, ops, None, {})


@SETTINGS
@given(patterns(), streams())
def test_the_plain_update_equals_the_general_one(text, ev):
    p = parse(text)
    fast = rows_for(p, ev, "aseq", share_starts=False)
    original = core.Counters._apply_plain
    core.Counters._apply_plain = _general_only
    try:
        slow = rows_for(p, ev, "aseq", share_starts=False)
    finally:
        core.Counters._apply_plain = original
    assert [(r.ts, r.event, r.group, repr(r.value)) for r in fast] == \
           [(r.ts, r.event, r.group, repr(r.value)) for r in slow], text


def test_the_plain_path_runs():
    """The plain path is taken (COUNT, no anchored predicate) and counts updates and resets
    as the general path does."""
    p = parse("PATTERN SEQ(A a, !C c, B b) AGG COUNT WITHIN 5")
    events = make_stream([{"id": i, "type": t, "ts": i} for i, t in enumerate("AABCAB")])
    calls = []
    original = core.Counters._apply_plain

    def spy(self, trees, ops):
        calls.append(len(ops))
        return original(self, trees, ops)

    def counts(m):
        return m.counters.updates, m.counters.resets

    core.Counters._apply_plain = spy
    try:
        fast = AseqMatcher(p, share_starts=False)
        rows = [r for e in events for r in fast.feed(e)]
    finally:
        core.Counters._apply_plain = original
    assert calls
    core.Counters._apply_plain = _general_only
    try:
        slow = AseqMatcher(p, share_starts=False)
        rows_slow = [r for e in events for r in slow.feed(e)]
    finally:
        core.Counters._apply_plain = original
    assert [(r.event, r.value) for r in rows] == [(r.event, r.value) for r in rows_slow]
    assert counts(fast) == counts(slow) and counts(fast)[1] > 0
