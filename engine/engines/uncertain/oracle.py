"""The possible-worlds semantics by brute force: the ground truth for interval data
(imprecise-timestamps notes §1.4, "Reference oracle").

A *world* picks one instant ``t_i`` of every event's interval, with probability
``Π p_i(t_i)``. In a world, a tuple of distinct events ``(e_1..e_l)`` is a point match iff

1. ``e_j ⊨ E_j`` (type, and the predicates whose latest variable is j, given e_1..e_{j-1});
2. ``t_1 < t_2 < ... < t_l`` (strict);
3. ``t_l - t_1 < W`` (no window: always);
4. skip_till_next_match only: for every j >= 2, no other event x with ``x ⊨ E_j`` (given
   e_1..e_{j-1}) lies strictly between ``t_{j-1}`` and ``t_j`` (ties do not spoil).

Collapsing: a signature's confidence is the probability mass of the worlds in which it is a
point match, its range ``[min t_1, max t_l]`` over those worlds (of positive probability).
Exact ``Fraction`` s; guarded by the number of worlds (``MAX_WORLDS``).

Whether a tuple is a point match in a world depends only on the instants of its own events
and of its spoiler candidates; the other events' instants sum out (their masses total 1).
By default the oracle therefore enumerates, per candidate tuple, the worlds of those events
only: the same sums, in far fewer steps. ``joint=True`` enumerates the worlds of all relevant
events together, literally as the notes' reference code does (the tests check both agree).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Iterator, Sequence

from engine.events import Event
from engine.match import MatcherBase, Stats
from engine.memory import current_guard
from engine.model import Pattern
from engine.engines.uncertain.pmf import IEvent
from engine.engines.uncertain.query import UQuery, compile_query, make_ievents
from engine.engines.uncertain.result import UncertainMatch, make_umatch, sort_uncertain

__all__ = ["run_uncertain", "world_count", "possible_worlds", "world_matches", "candidate_tuples",
           "UncertainOracleTooLarge", "UncertainOracleMatcher", "MAX_WORLDS", "MAX_EVENTS"]

MAX_WORLDS = 2_000_000
MAX_EVENTS = 64  # joint enumeration
MAX_EVENTS_PER_SIGNATURE = 2_000
MAX_WORK = 20_000_000


class UncertainOracleTooLarge(ValueError):
    """Too many possible worlds to enumerate; the message gives the count."""


def world_count(events: Sequence[IEvent]) -> int:
    """The number of possible worlds ``Π |UI_i|`` (zero-weight instants included)."""
    return math.prod(e.size for e in events)


def _guard_tick() -> Any:
    """The possible-worlds oracle's guard (``engine.engines.oracle.oracle.OracleGuard``: its own time and
    memory limits, and the run's guard)."""
    from engine.engines.oracle.oracle import OracleGuard

    return OracleGuard("the possible-worlds oracle").tick


def possible_worlds(events: Sequence[IEvent], tick: Any = None) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every world of positive probability: (instant per event, integer weight). The weight
    over ``Π total_i`` is the world's probability."""
    ranges = [[(t, e.w(t)) for t in range(e.lo, e.hi + 1) if e.w(t) > 0] for e in events]
    tick = tick or current_guard().tick  # one tick per world
    for combo in itertools.product(*ranges):
        tick()
        w = 1
        for _t, x in combo:
            w *= x
        yield tuple(t for t, _x in combo), w


def candidate_tuples(q: UQuery, events: Sequence[IEvent],
                     tick: Any = None) -> list[tuple[tuple[IEvent, ...], list[list[IEvent]]]]:
    """Every tuple of distinct events satisfying types and predicates (rule 1) that some world
    could order (``lower_j < upper_{j+1}``), with its spoiler candidates per component
    (rule 4; empty lists under skip_till_any_match)."""
    out: list[tuple[tuple[IEvent, ...], list[list[IEvent]]]] = []
    ell = q.length
    steps = 0
    tick = tick or current_guard().tick

    def rec(prefix: list[IEvent]) -> None:
        nonlocal steps
        j = len(prefix)
        if j == ell:
            tup = tuple(prefix)
            spoil = [[] for _ in range(ell)]
            if q.next:
                for k in range(1, ell):
                    # only an event that can fall strictly between t_{k-1} and t_k can spoil
                    near = [x for x in events if x.hi > tup[k - 1].lo and x.lo < tup[k].hi]
                    spoil[k] = q.candidates(k, tup, near)
            out.append((tup, spoil))
            return
        for x in events:
            if j and prefix[-1].lo >= x.hi:
                continue  # no world has t_{j-1} < t_j
            if j and q.span is not None and x.lo > prefix[0].hi + q.span:
                continue  # no world has t_j - t_1 <= span
            steps += 1
            tick()
            if steps > MAX_WORK:
                raise UncertainOracleTooLarge(
                    f"the possible-worlds oracle checked {steps:,} candidate tuples and gave up; use a smaller "
                    "input or --engine uncertain-event")
            if q.admits(j, x, prefix):
                prefix.append(x)
                rec(prefix)
                prefix.pop()

    rec([])
    return out


def _point_match(q: UQuery, tup: Sequence[IEvent], spoil: Sequence[Sequence[IEvent]],
                 w: dict[int, int]) -> bool:
    t = [w[id(e)] for e in tup]
    for j in range(len(t) - 1):
        if t[j] >= t[j + 1]:
            return False
    if q.span is not None and t[-1] - t[0] > q.span:
        return False
    for j in range(1, len(t)):
        a, b = t[j - 1], t[j]
        for x in spoil[j]:
            if a < w[id(x)] < b:
                return False
    return True


def world_matches(q: UQuery, events: Sequence[IEvent], times: Sequence[int],
                  tuples: list[Any] | None = None) -> list[tuple[IEvent, ...]]:
    """The point matches of one world (``times[i]`` is the instant of ``events[i]``)."""
    w = {id(e): t for e, t in zip(events, times)}
    tuples = candidate_tuples(q, events) if tuples is None else tuples
    return [tup for tup, spoil in tuples if _point_match(q, tup, spoil, w)]


def run_uncertain(pattern: Pattern, events: Sequence[Event], *, pmf: str | None = None,
                  max_worlds: int = MAX_WORLDS, stats: Stats | None = None, joint: bool = False
                  ) -> list[UncertainMatch]:
    """All ``(signature, range, confidence)`` of ``pattern`` over interval ``events`` by
    enumerating the possible worlds; raises UncertainOracleTooLarge past ``max_worlds``."""
    q = compile_query(pattern)
    iev = make_ievents(events, pmf)
    if joint:
        return collapse_worlds(q, iev, max_worlds=max_worlds, stats=stats)
    return collapse_per_signature(q, iev, max_worlds=max_worlds, stats=stats)


def collapse_per_signature(q: UQuery, iev: Sequence[IEvent], *, max_worlds: int = MAX_WORLDS,
                           stats: Stats | None = None) -> list[UncertainMatch]:
    """The oracle, one candidate tuple at a time over the worlds of its events and spoilers."""
    if len(iev) > MAX_EVENTS_PER_SIGNATURE:
        raise UncertainOracleTooLarge(
            f"the possible-worlds oracle is for small inputs: {len(iev)} events is more than its limit of "
            f"{MAX_EVENTS_PER_SIGNATURE}; use --engine uncertain-event")
    tick = _guard_tick()
    tuples = candidate_tuples(q, iev, tick)
    out: list[UncertainMatch] = []
    enumerated = 0
    for tup, spoil in tuples:
        rel: dict[int, IEvent] = {id(e): e for e in tup}
        for xs in spoil:
            for x in xs:
                rel[id(x)] = x
        evs = list(rel.values())
        n = world_count(evs)
        if n > max_worlds:
            raise UncertainOracleTooLarge(
                f"the possible-worlds oracle would enumerate {n:,} worlds for the signature "
                f"({', '.join(str(e.id) for e in tup)}) (more than {max_worlds:,}); use --engine uncertain-event")
        enumerated += n
        if enumerated > MAX_WORK:
            raise UncertainOracleTooLarge(
                f"the possible-worlds oracle gave up after {enumerated:,} worlds; use --engine uncertain-event")
        acc, lo, hi = 0, None, None
        for times, weight in possible_worlds(evs, tick):
            w = {id(e): t for e, t in zip(evs, times)}
            if _point_match(q, tup, spoil, w):
                acc += weight
                t0, tl = w[id(tup[0])], w[id(tup[-1])]
                lo = t0 if lo is None else min(lo, t0)
                hi = tl if hi is None else max(hi, tl)
        if acc and lo is not None and hi is not None:
            out.append(make_umatch(q.vars, tup, (lo, hi), Fraction(acc, math.prod(e.total for e in evs))))
    if stats is not None:
        stats.events = len(iev)
        stats.matches = len(out)
        stats.extra["worlds"] = world_count(iev)
        stats.extra["worlds_enumerated"] = enumerated
        stats.extra["candidate_tuples"] = len(tuples)
    return sort_uncertain(out)


def collapse_worlds(q: UQuery, iev: Sequence[IEvent], *, max_worlds: int = MAX_WORLDS,
                    stats: Stats | None = None) -> list[UncertainMatch]:
    """The oracle on IEvents, every world of the relevant events enumerated jointly."""
    if len(iev) > MAX_EVENTS:
        raise UncertainOracleTooLarge(
            f"the possible-worlds oracle enumerates every world: {len(iev)} events is more than its limit of "
            f"{MAX_EVENTS}; use --engine uncertain-event")
    n = world_count(iev)
    # events that occur in no candidate tuple or spoiler list cannot change any result:
    # enumerate only the worlds of the relevant ones (the others' mass sums to 1)
    tick = _guard_tick()
    tuples = candidate_tuples(q, iev, tick)
    relevant: dict[int, IEvent] = {}
    for tup, spoil in tuples:
        for e in tup:
            relevant[id(e)] = e
        for xs in spoil:
            for x in xs:
                relevant[id(x)] = x
    rel = sorted(relevant.values(), key=lambda e: e.idx)
    if world_count(rel) > max_worlds:
        raise UncertainOracleTooLarge(
            f"the possible-worlds oracle would enumerate {world_count(rel):,} worlds of the {len(rel)} events "
            f"that can take part in a match (more than {max_worlds:,}); use a smaller input or "
            "--engine uncertain-event")
    if len(tuples) * world_count(rel) > MAX_WORK:
        raise UncertainOracleTooLarge(
            f"the possible-worlds oracle would check {len(tuples):,} candidate tuples in {world_count(rel):,} "
            "worlds; use a smaller input or --engine uncertain-event")
    denom = math.prod(e.total for e in rel)
    acc: dict[tuple[int, ...], list[int]] = {}  # signature (positions) -> [weight, lo, hi]
    worlds = 0
    for times, weight in possible_worlds(rel, tick):
        worlds += 1
        w = {id(e): t for e, t in zip(rel, times)}
        for tup, spoil in tuples:
            if _point_match(q, tup, spoil, w):
                key = tuple(e.idx for e in tup)
                r = acc.get(key)
                t0, tl = w[id(tup[0])], w[id(tup[-1])]
                if r is None:
                    acc[key] = [weight, t0, tl]
                else:
                    r[0] += weight
                    r[1] = min(r[1], t0)
                    r[2] = max(r[2], tl)
    by_idx = {e.idx: e for e in iev}
    out = [make_umatch(q.vars, [by_idx[i] for i in key], (lo, hi), Fraction(wt, denom))
           for key, (wt, lo, hi) in acc.items()]
    if stats is not None:
        stats.events = len(iev)
        stats.matches = len(out)
        stats.extra["worlds"] = n
        stats.extra["worlds_enumerated"] = worlds
        stats.extra["candidate_tuples"] = len(tuples)
    return sort_uncertain(out)


class UncertainOracleMatcher(MatcherBase):
    """The possible-worlds oracle behind the Matcher interface: buffers the stream and
    answers at ``close()`` (small inputs only)."""

    name = "uncertain-oracle"

    def __init__(self, pattern: Pattern, tracer: Any = None, pmf: str | None = None,
                 max_worlds: int = MAX_WORLDS, joint: bool = False, **_: Any):
        super().__init__(pattern, tracer)
        self.q = compile_query(pattern)
        self.pmf = pmf
        self.max_worlds = max_worlds
        self.joint = joint
        self._events: list[Event] = []

    def feed(self, event: Event) -> list[UncertainMatch]:
        if len(self._events) >= (MAX_EVENTS if self.joint else MAX_EVENTS_PER_SIGNATURE):
            raise UncertainOracleTooLarge(
                f"the possible-worlds oracle is for small inputs: more than {len(self._events)} events; "
                "use --engine uncertain-event")
        self._events.append(event)
        self.stats.events += 1
        return []

    def close(self) -> list[UncertainMatch]:
        iev = make_ievents(self._events, self.pmf)
        run = collapse_worlds if self.joint else collapse_per_signature
        out = run(self.q, iev, max_worlds=self.max_worlds, stats=self.stats)
        if self.tracer is not None:
            for m in out:
                self.tracer.act("match", detail={"match": m.to_json()})
        return out
