"""Tests of engine/engines/uncertain/confidence.py: the exact confidence of one signature.

- Eq. 1 (a point match weighs ``Π p_j(t_j)``) and the window on hand-computed signatures of two
  and three events, uniform and weighted, as exact Fractions, with the range of the positive
  point matches (``conf_any``).
- Eq. 2 / Eq. 3 (skip-till-next-match: each spoiler candidate x multiplies by ``1 - P(x falls
  strictly between the instants of the components it can spoil)``): case 1 (every candidate spoils
  one component: the pairwise DP) and case 2 (one candidate spoils two: enumeration) by hand.
- ``point_weight`` on worked point matches.
- Both functions against an independent brute force over every point match (Fractions), on random
  small signatures, tight bounds narrower than the intervals, windows, and spoilers whose totals
  pass 62 bits (the Python-integer path of the transition table).
"""
from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Sequence

import pytest

from engine.engines.uncertain.confidence import Conf, conf_any, conf_next, point_weight
from engine.engines.uncertain.pmf import IEvent


def ev(lo: int, hi: int, weights: Sequence[int] | None = None, name: str = "e") -> IEvent:
    """An interval event on ``[lo, hi]`` (uniform when ``weights`` is None)."""
    w = tuple(weights) if weights is not None else None
    total = sum(w) if w is not None else hi - lo + 1
    return IEvent(ev=None, idx=0, lo=lo, hi=hi, weights=w, total=total)


def p(e: IEvent, t: int) -> Fraction:
    return Fraction(e.w(t), e.total)


def brute(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None,
          cands: Sequence[Sequence[IEvent]] | None = None) -> tuple[Fraction, tuple[int, int] | None]:
    """Σ over every strictly increasing ``t`` inside the bounds (and the window) of
    ``Π p_j(t_j) · Π_x (1 - Σ_{j: x in cands[j]} P(t_{j-1} < x < t_j))``, and the range."""
    cands = cands or [[] for _ in m]
    spoilers: list[IEvent] = []
    for xs in cands:
        for x in xs:
            if all(x is not y for y in spoilers):
                spoilers.append(x)
    total = Fraction(0)
    first: int | None = None
    last: int | None = None
    for t in itertools.product(*(range(a, b + 1) for a, b in zip(lo, hi))):
        if any(t[j] >= t[j + 1] for j in range(len(t) - 1)):
            continue
        if span is not None and t[-1] - t[0] > span:
            continue
        w = math.prod((p(e, tt) for e, tt in zip(m, t)), start=Fraction(1))
        for x in spoilers:
            inside = sum(sum((p(x, s) for s in range(t[j - 1] + 1, t[j])), start=Fraction(0))
                         for j in range(1, len(m)) if any(x is y for y in cands[j]))
            w *= 1 - inside
        if w:
            total += w
            first = t[0] if first is None else min(first, t[0])
            last = t[-1] if last is None else max(last, t[-1])
    return total, (None if first is None else (first, last))  # type: ignore[return-value]


def bounds(m: Sequence[IEvent]) -> tuple[list[int], list[int]]:
    return [e.lo for e in m], [e.hi for e in m]


# ------------------------------------------------------------------ Eq. 1: skip-till-any-match

def test_two_uniform_events_without_window() -> None:
    # A in [1,2], B in [2,3]: of the 4 equally likely point pairs, (1,2) (1,3) (2,3) are ordered
    m = [ev(1, 2), ev(2, 3)]
    c = conf_any(m, *bounds(m), None)
    assert c is not None
    assert c.value == Fraction(3, 4)
    assert (c.num, c.den) == (3, 4)
    assert c.range == (1, 3)


def test_window_drops_the_wide_pair() -> None:
    m = [ev(1, 2), ev(2, 3)]
    c = conf_any(m, *bounds(m), 1)  # (1,3) spans 2 > 1
    assert c is not None and c.value == Fraction(1, 2) and c.range == (1, 3)


def test_window_zero_gives_no_confidence() -> None:
    m = [ev(1, 2), ev(2, 3)]
    assert conf_any(m, *bounds(m), 0) is None


def test_disjoint_in_the_wrong_order_gives_none() -> None:
    m = [ev(5, 6), ev(1, 2)]
    assert conf_any(m, *bounds(m), None) is None


def test_weighted_pmfs() -> None:
    # A [1,2] weights 1:3, B [2,3] weights 2:1 -> (1,2) 1*2 + (1,3) 1*1 + (2,3) 3*1 = 6 over 4*3
    m = [ev(1, 2, (1, 3)), ev(2, 3, (2, 1))]
    c = conf_any(m, *bounds(m), None)
    assert c is not None and c.value == Fraction(1, 2) and (c.num, c.den) == (1, 2)
    assert c.range == (1, 3)


def test_three_events_and_the_range_of_positive_matches() -> None:
    # A [0,2], B [1,3], C [3,4] uniform: ordered triples counted by hand
    # t1=0: t2 in {1,2,3}: t2=1,2 -> t3 in {3,4} (2 each), t2=3 -> t3=4 (1): 5
    # t1=1: t2 in {2,3}: 2 + 1 = 3;  t1=2: t2=3: 1   -> 9 of 3*3*2 = 18
    m = [ev(0, 2), ev(1, 3), ev(3, 4)]
    c = conf_any(m, *bounds(m), None)
    assert c is not None and c.value == Fraction(9, 18) and c.range == (0, 4)
    # window 3: drop t1=0,t3=4 (t2=1,2,3: 3 triples) -> 6/18, range still (0, 4)? t1=0 keeps t3=3
    c3 = conf_any(m, *bounds(m), 3)
    assert c3 is not None and c3.value == Fraction(6, 18) and c3.range == (0, 4)
    # window 2: t1=0 needs t3 <= 2: none; t1=1: (1,2,3) ; t1=2: (2,3,4) -> 2/18, range (1, 4)
    c2 = conf_any(m, *bounds(m), 2)
    assert c2 is not None and c2.value == Fraction(2, 18) and c2.range == (1, 4)


def test_tight_bounds_restrict_the_instants() -> None:
    # the same A, B as above but B's bound cut to [3,3]: (1,3) (2,3) -> 2 of 4
    m = [ev(1, 2), ev(2, 3)]
    c = conf_any(m, [1, 3], [2, 3], None)
    assert c is not None and c.value == Fraction(1, 2) and c.range == (1, 3)


def test_zero_weight_instants_narrow_the_range() -> None:
    # A's only positive instant is 2: the range starts at 2, not at A's lower bound 1
    m = [ev(1, 2, (0, 1)), ev(3, 5, (1, 1, 0))]
    c = conf_any(m, *bounds(m), None)
    assert c is not None and c.value == Fraction(1) and c.range == (2, 4)


# ------------------------------------------------------------------ Eq. 2/3: skip-till-next-match

def test_one_spoiler_of_one_component() -> None:
    # A at 1, B at 3, X uniform on [1,3] can take B's place: spoils when X = 2 -> 1 - 1/3
    a, b, x = ev(1, 1), ev(3, 3), ev(1, 3)
    c = conf_next([a, b], [1, 3], [1, 3], None, [[], [x]])
    assert c is not None and c.value == Fraction(2, 3) and c.range == (1, 3)


def test_spoiler_outside_the_gap_changes_nothing() -> None:
    a, b, x = ev(1, 1), ev(3, 3), ev(4, 6)
    c = conf_next([a, b], [1, 3], [1, 3], None, [[], [x]])
    assert c is not None and c.value == Fraction(1)


def test_spoiler_certainly_inside_gives_none() -> None:
    a, b, x = ev(1, 1), ev(3, 3), ev(2, 2)
    assert conf_next([a, b], [1, 3], [1, 3], None, [[], [x]]) is None


def test_pairwise_factor_depends_on_both_instants() -> None:
    # A [1,2], B [3,4] uniform, X uniform [1,4] spoils B: factor (4 - #X-instants in (t1,t2)) / 4
    # (1,3): 1 inside -> 3/4; (1,4): 2 -> 2/4; (2,3): 0 -> 1; (2,4): 1 -> 3/4
    # sum of 1/4 * factor = (3/4 + 1/2 + 1 + 3/4) / 4 = 3/4
    a, b, x = ev(1, 2), ev(3, 4), ev(1, 4)
    c = conf_next([a, b], [1, 3], [2, 4], None, [[], [x]])
    assert c is not None and c.value == Fraction(3, 4) and c.range == (1, 4)
    # window 2 drops (1,4): (3/4 + 1 + 3/4) / 4 = 5/8
    c2 = conf_next([a, b], [1, 3], [2, 4], 2, [[], [x]])
    assert c2 is not None and c2.value == Fraction(5, 8)


def test_one_spoiler_of_two_components_uses_the_union() -> None:
    # A at 1, B at 3, C at 5; X uniform [1,5] candidate of B and of C (case 2):
    # X at 2 or 4 spoils: 1 - 2/5 = 3/5 (a product of the two factors would give (4/5)^2)
    a, b, cc, x = ev(1, 1), ev(3, 3), ev(5, 5), ev(1, 5)
    c = conf_next([a, b, cc], [1, 3, 5], [1, 3, 5], None, [[], [x], [x]])
    assert c is not None and c.value == Fraction(3, 5) and c.range == (1, 5)
    assert c.paths == 1  # one point match enumerated


def test_two_spoilers_multiply() -> None:
    # A at 1, B at 4, both spoiling B: Y uniform [0,3] is inside (1,4) at 2 or 3 -> 1 - 2/4;
    # X uniform [3,6] is inside at 3 -> 1 - 1/4; the factors multiply
    a, b = ev(1, 1), ev(4, 4)
    y, x = ev(0, 3), ev(3, 6)
    c = conf_next([a, b], [1, 4], [1, 4], None, [[], [y, x]])
    assert c is not None and c.value == Fraction(1, 2) * Fraction(3, 4)


# ------------------------------------------------------------------ point_weight

def test_point_weight_is_the_integer_numerator() -> None:
    a, b, cc, x = ev(1, 2, (1, 3)), ev(3, 4), ev(5, 6, (2, 5)), ev(1, 6)
    # t = (2, 3, 6): w = 3 * 1 * 5 = 15; X inside (2,3) none, inside (3,6) = {4,5}: 6 - 2 = 4
    assert point_weight([a, b, cc], (2, 3, 6), []) == 15
    assert point_weight([a, b, cc], (2, 3, 6), [x]) == 15 * 4
    # X a candidate of component 1 only: (2,3) holds no instant -> factor 6
    assert point_weight([a, b, cc], (2, 3, 6), [x], [[False, True, False]]) == 15 * 6
    # X a candidate of both: inside (1,3) = {2}, (3,6) = {4,5} -> 6 - 3
    assert point_weight([a, b, cc], (1, 3, 6), [x]) == 1 * 1 * 5 * 3


def test_point_weight_zero_outside_an_interval() -> None:
    a, b = ev(1, 2), ev(3, 4)
    assert point_weight([a, b], (0, 3), []) == 0
    assert point_weight([a, b], (1, 3), [ev(2, 2)]) == 0  # the spoiler is certainly inside


def test_conf_value_is_the_fraction() -> None:
    assert Conf(2, 6, (0, 1)).value == Fraction(1, 3)


# ------------------------------------------------------------------ against a brute force

def random_event(rng: random.Random, base: int, big: bool = False) -> IEvent:
    lo = base + rng.randint(0, 2)
    hi = lo + rng.randint(0, 3)
    if rng.random() < 0.5:
        return ev(lo, hi)
    top = 10 ** 20 if big else 4
    weights = [rng.randint(0, top) for _ in range(hi - lo + 1)]
    if not any(weights):
        weights[0] = 1
    return ev(lo, hi, weights)


def random_bounds(rng: random.Random, m: Sequence[IEvent]) -> tuple[list[int], list[int]]:
    lo, hi = [], []
    for e in m:
        a = rng.randint(e.lo, e.hi)
        b = rng.randint(a, e.hi)
        if rng.random() < 0.6:
            a, b = e.lo, e.hi
        lo.append(a)
        hi.append(b)
    return lo, hi


@pytest.mark.parametrize("seed", range(60))
def test_conf_any_matches_the_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    m = [random_event(rng, 2 * j) for j in range(n)]
    lo, hi = random_bounds(rng, m)
    span = rng.choice([None, 0, 1, 2, 3, 5, 8])
    want, rng_want = brute(m, lo, hi, span)
    got = conf_any(m, lo, hi, span)
    if want == 0:
        assert got is None
    else:
        assert got is not None and got.value == want and got.range == rng_want
        assert math.gcd(got.num, got.den) == 1


@pytest.mark.parametrize("seed", range(80))
def test_conf_next_matches_the_brute_force(seed: int) -> None:
    rng = random.Random(1000 + seed)
    n = rng.randint(2, 4)
    m = [random_event(rng, 2 * j) for j in range(n)]
    lo, hi = random_bounds(rng, m)
    span = rng.choice([None, None, 1, 2, 4, 6])
    big = seed % 4 == 0  # totals past 62 bits: the Python-integer transition table
    pool = [random_event(rng, rng.randint(0, 2 * n), big) for _ in range(rng.randint(1, 3))]
    shared = seed % 3 == 0  # one candidate of several components (case 2)
    cands: list[list[IEvent]] = [[]]
    for j in range(1, n):
        if shared:
            cands.append([x for x in pool if rng.random() < 0.7])
        else:
            cands.append([pool[(j - 1) % len(pool)]] if j - 1 < len(pool) else [])
    want, rng_want = brute(m, lo, hi, span, cands)
    got = conf_next(m, lo, hi, span, cands)
    if want == 0:
        assert got is None
    else:
        assert got is not None and got.value == want and got.range == rng_want
