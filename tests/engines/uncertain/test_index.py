"""Tests of engine/engines/uncertain/index.py: ``EventIndex``, the events seen so far per type.

- insertion in and out of lower-bound order keeps each type sorted by ``(lo, idx)``; ``size`` and
  ``max_width`` follow;
- ``overlapping`` and ``nelt`` against a brute force over the same events (random intervals, type
  filters, an ``ok`` predicate), and by hand on the notes' NELT example;
- ``forget_before`` drops exactly the events that end before the instant.
"""
from __future__ import annotations

import math
import random

import pytest

from engine.engines.uncertain.index import EventIndex
from engine.engines.uncertain.pmf import IEvent
from engine.events import Event


def iev(idx: int, type_: str, lo: int, hi: int) -> IEvent:
    e = Event(id=f"{type_.lower()}{idx}", type=type_, ts=lo, seq=idx, lower=lo, upper=hi)
    return IEvent(ev=e, idx=idx, lo=lo, hi=hi, weights=None, total=hi - lo + 1)


def test_order_size_and_width() -> None:
    index = EventIndex()
    for x in (iev(0, "A", 5, 6), iev(1, "A", 2, 9), iev(2, "B", 1, 1), iev(3, "A", 5, 5), iev(4, "A", 7, 7)):
        index.add(x)
    assert index.keys["A"] == [(2, 1), (5, 0), (5, 3), (7, 4)]
    assert [x.idx for x in index.events["A"]] == [1, 0, 3, 4]
    assert index.size == 5 and index.max_width == 7


def test_nelt_on_the_notes_example() -> None:
    # T5: a1 [1,4], then b2 [2,3], b3 [3,4], b4 [5,7], b5 [6,6], b6 [8,9]: NELT(a1) = 6 (b5 ends first)
    index = EventIndex()
    for k, (lo, hi) in enumerate([(2, 3), (3, 4), (5, 7), (6, 6), (8, 9)]):
        index.add(iev(k + 2, "B", lo, hi))
    assert index.nelt(["B"], 4, lambda x: True) == 6
    assert index.nelt(["B"], 4, lambda x: x.idx != 5) == 7
    assert index.nelt(["B"], 9, lambda x: True) == math.inf
    assert index.nelt(["C"], 0, lambda x: True) == math.inf
    assert index.nelt(None, 1, lambda x: True) == 3


def test_overlapping_by_hand() -> None:
    index = EventIndex()
    for x in (iev(0, "A", 1, 10), iev(1, "A", 4, 4), iev(2, "B", 6, 8), iev(3, "A", 11, 12)):
        index.add(x)
    assert [x.idx for x in index.overlapping(["A"], 5, 11)] == [0, 3]
    assert sorted(x.idx for x in index.overlapping(None, 5, 6)) == [0, 2]
    assert list(index.overlapping(None, 6, 5)) == []
    assert list(index.overlapping(["Z"], 0, 100)) == []


def test_forget_before() -> None:
    index = EventIndex()
    for x in (iev(0, "A", 1, 3), iev(1, "A", 2, 8), iev(2, "B", 1, 4), iev(3, "B", 5, 5)):
        index.add(x)
    assert index.forget_before(4) == 1  # only A#0 ends before 4
    assert [x.idx for x in index.events["A"]] == [1] and index.keys["A"] == [(2, 1)]
    assert index.forget_before(6) == 2
    assert index.size == 1 and index.events["B"] == [] and index.forget_before(6) == 0


@pytest.mark.parametrize("seed", range(40))
def test_against_a_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    index = EventIndex()
    seen: list[IEvent] = []
    for k in range(rng.randint(1, 30)):
        lo = rng.randint(0, 20)
        x = iev(k, rng.choice("ABC"), lo, lo + rng.choice([0, 0, 1, 2, 5, 9]))
        index.add(x)
        seen.append(x)
        types = rng.choice([None, ["A"], ["B", "C"], ["A", "Z"]])
        kept = [y for y in seen if types is None or y.type in types]
        a = rng.randint(-2, 22)
        b = a + rng.randint(-1, 6)
        want = sorted(y.idx for y in kept if y.lo <= b and y.hi >= a) if a <= b else []
        assert sorted(y.idx for y in index.overlapping(types, a, b)) == want
        after = rng.randint(-1, 21)
        banned = rng.randrange(len(seen))
        best = min((y.hi for y in kept if y.lo > after and y.idx != banned), default=math.inf)
        assert index.nelt(types, after, lambda y: y.idx != banned) == best
    for t, ks in index.keys.items():
        assert ks == sorted(ks) and ks == [(x.lo, x.idx) for x in index.events[t]]
    cut = rng.randint(0, 25)
    assert index.forget_before(cut) == sum(1 for y in seen if y.hi < cut)
    assert sorted(x.idx for es in index.events.values() for x in es) == [y.idx for y in seen if y.hi >= cut]
    assert index.size == sum(1 for y in seen if y.hi >= cut)
