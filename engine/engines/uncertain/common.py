"""What the point-based and the event-based engines share (imprecise-timestamps notes §1.3,
§2.3, §3.4, §3.7): interval events in arrival order, the arrival assumption and ``U_max``,
the frontier ``F = now.lower - U_max`` (every unseen event has ``lower >= F``), the event
index, NELT, and finalising a signature into ``(signature, range, confidence)``.

Emission (§3.7): under skip_till_any_match a signature depends only on its own events and is
emitted as soon as it is complete; under skip_till_next_match it also depends on the spoilers,
which are all seen once ``F > e_l.upper`` (the notes' exact rule; ``paper_finalization=True``
waits ``+ W`` more, the paper's conservative rule). Without ``u_max`` nothing is known about
unseen events: skip_till_next_match results then wait for the end of the stream.
"""
from __future__ import annotations

import heapq
import math
from fractions import Fraction
from typing import Any, Sequence

from engine.match import MatcherBase, StateExplosion
from engine.memory import NO_GUARD, current_guard
from engine.model import Pattern
from engine.engines.uncertain.bounds import tighten
from engine.engines.uncertain.confidence import Conf, conf_any, conf_next
from engine.engines.uncertain.index import EventIndex
from engine.engines.uncertain.pmf import IEvent, show_instant
from engine.engines.uncertain.query import UQuery, compile_query
from engine.engines.uncertain.result import UncertainMatch, make_umatch

__all__ = ["UncertainBase", "DEFAULT_MAX_RUNS", "DEFAULT_MAX_WORK", "ArrivalError"]

DEFAULT_MAX_RUNS = 2_000_000
DEFAULT_MAX_WORK = 20_000_000  # DP cells / point matches one input event may cost


class ArrivalError(ValueError):
    """An event breaks the arrival assumption (§1.3) or is wider than ``U_max``."""


class UncertainBase(MatcherBase):
    """Shared state: the compiled query, the index, ``now``, ``U_max``, the frontier, the
    pending skip_till_next_match signatures and the guard."""

    unit = "runs"

    def __init__(self, pattern: Pattern, tracer: Any = None, *, pmf: str | None = None,
                 u_max: int | None = None, max_runs: int = DEFAULT_MAX_RUNS, max_work: int = DEFAULT_MAX_WORK,
                 paper_finalization: bool = False, check_arrival: bool = True) -> None:
        super().__init__(pattern, tracer)
        self.q: UQuery = compile_query(pattern)
        self.ell = self.q.length
        self.span = self.q.span
        self.pmf = pmf
        self.u_max = u_max
        self.max_runs = max_runs
        self.max_work = max_work
        self.paper_finalization = paper_finalization
        self.check_arrival = check_arrival
        self.index = EventIndex()
        self.now_lo = -math.inf
        self.now_hi = -math.inf
        self.n = 0
        self.types = {c.type for c in self.q.comps}
        self.any_type = "ANY" in self.types
        self.pending: list[tuple[int, int, tuple[IEvent, ...], tuple[int, ...], tuple[int, ...]]] = []
        self._pend_seq = 0
        self.work = 0
        self.tick = NO_GUARD.tick  # the run's guard (engine.memory), taken up at each event and at close
        self._forget_at = 0
        self.stats.extra.update(signatures_checked=0, dropped_zero=0, nelt_pruned=0, confidence_work=0)

    # ------------------------------------------------------------------ arrival and frontier

    def admit(self, event: Any) -> IEvent | None:
        """The arriving event as an IEvent (None when no component can use it); checks the
        arrival assumption and ``U_max``; advances ``now``."""
        self.tick = current_guard().tick
        x = IEvent.of(event, self.n, self.pmf)
        self.n += 1
        self.stats.events += 1
        if self.u_max is not None and x.hi - x.lo > self.u_max:
            raise ArrivalError(f"event {x.id!r}: interval [{x.lo}, {x.hi}] is wider than U_max = {self.u_max} "
                               "(give a larger --u-max, or let it be derived from the data)")
        if self.check_arrival and x.hi < self.now_lo:
            raise ArrivalError(f"event {x.id!r} [{x.lo}, {x.hi}] arrives after an event with lower bound "
                               f"{show_instant(self.now_lo)}: the arrival assumption (an event seen before another has "
                               "lower <= the other's upper) does not hold")
        self.now_lo = max(self.now_lo, x.lo)
        self.now_hi = max(self.now_hi, x.hi)
        self.work = 0
        if not self.any_type and x.type not in self.types:
            return None
        self.index.add(x)
        return x

    @property
    def frontier(self) -> float:
        """``F = now.lower - U_max``: every unseen event has ``lower >= F`` (-inf without U_max)."""
        if self.u_max is None:
            return -math.inf
        return self.now_lo - self.u_max

    def forget(self, horizon: float) -> None:
        """Drop indexed events that no live run or pending signature can reach (``hi < horizon``)."""
        if horizon == -math.inf or self.index.size < 2 * self._forget_at + 1024:
            return
        self.index.forget_before(horizon)
        self._forget_at = self.index.size

    def horizon(self, f: float) -> float:
        """Instants before this are irrelevant to every live run and pending signature: their
        first point is at least ``F - U_max - span`` (see docs/semantics.md)."""
        if self.span is None or self.u_max is None or f == -math.inf:
            return -math.inf
        return f - self.u_max - self.span - 1

    # ------------------------------------------------------------------ NELT

    def nelt(self, members: Sequence[IEvent], i: int) -> float:
        """NELT of ``members[i]`` for component i+1 given ``members[0..i]`` (notes §2.2)."""
        prefix = list(members[: i + 1])
        j = i + 1
        types = None if self.q.comps[j].type == "ANY" else [self.q.comps[j].type]
        return self.index.nelt(types, members[i].hi, lambda x: self.q.admits(j, x, prefix))

    def nelt_ok(self, members: Sequence[IEvent], upto: int, start: int = 0) -> tuple[bool, str | None]:
        """The event-level NELT check on the adjacent pairs (i, i+1), ``start <= i < upto``:
        ``e_{i+1}.lower <= NELT(e_i)``; False with the reason when a pair fails."""
        for i in range(start, upto):
            nl = self.nelt(members, i)
            if members[i + 1].lo > nl:
                v = self.q.vars
                return False, (f"NELT({v[i]}={members[i].id}) = {show_instant(nl)} < "
                               f"{v[i + 1]}.lower = {members[i + 1].lo}: "
                               f"a {self.q.comps[i + 1].type} event always lies in between (skip_till_next_match)")
        return True, None

    # ------------------------------------------------------------------ finalising

    def bounds_of(self, members: Sequence[IEvent]) -> tuple[list[int], list[int]] | None:
        lo = [m.lo for m in members]
        hi = [m.hi for m in members]
        if not tighten(lo, hi, list(range(self.ell)), self.span, self.ell):
            return None
        return lo, hi

    def confidence(self, members: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int]) -> Conf | None:
        """Exact confidence and range (STAM: Eq. 1 DP; STNM: Θ factors over the index)."""
        self.stats.extra["signatures_checked"] += 1
        self.tick()
        if not self.q.next:
            c = conf_any(members, lo, hi, self.span)
        else:
            cands: list[list[IEvent]] = [[]]
            for j in range(1, self.ell):
                types = None if self.q.comps[j].type == "ANY" else [self.q.comps[j].type]
                pool = list(self.index.overlapping(types, lo[j - 1] + 1, hi[j] - 1))
                cands.append(self.q.candidates(j, members, pool))
            c = conf_next(members, lo, hi, self.span, cands)
        if c is not None:
            self.stats.extra["confidence_work"] += c.paths
            self.work += c.paths
            if self.work > self.max_work:
                self.explode(f"computing confidences cost {self.work:,} steps for one event",
                             f"{self.max_work:,} steps per event")
        else:
            self.stats.extra["dropped_zero"] += 1
        return c

    def emit(self, members: Sequence[IEvent], c: Conf) -> UncertainMatch:
        m = make_umatch(self.q.vars, members, c.range, Fraction(c.num, c.den))
        self.stats.matches += 1
        if self.tracer is not None:
            self.tracer.act("match", event=members[-1].id, detail={"match": m.to_json(), "work": c.paths})
        return m

    def complete(self, members: tuple[IEvent, ...], lo: Sequence[int], hi: Sequence[int],
                 run: str | None = None) -> list[UncertainMatch]:
        """A complete signature: emitted now (STAM) or held until its spoilers are all seen (STNM)."""
        if not self.q.next:
            c = self.confidence(members, lo, hi)
            if c is None:
                return []
            return [self.emit(members, c)]
        ok, why = self.nelt_ok(members, self.ell - 1)
        if not ok:
            self.stats.extra["nelt_pruned"] += 1
            if self.tracer is not None:
                self.tracer.act("discard", run=run, event=members[-1].id, reason=why)
            return []
        due = members[-1].hi + ((self.q.window or 0) if self.paper_finalization else 0)
        self._pend_seq += 1
        heapq.heappush(self.pending, (due, self._pend_seq, members, tuple(lo), tuple(hi)))
        if self.tracer is not None:
            self.tracer.act("wait", run=run, event=members[-1].id,
                            detail={"signature": [m.id for m in members], "until": f"F > {due}",
                                    "why": "skip_till_next_match: spoilers may still arrive"})
        return []

    def release_pending(self, f: float, final: bool = False) -> list[UncertainMatch]:
        """STNM signatures whose spoilers are all seen (``F > due``), or all at the end."""
        out: list[UncertainMatch] = []
        if final:
            self.tick = current_guard().tick
        while self.pending and (final or self.pending[0][0] < f):
            _due, _s, members, lo, hi = heapq.heappop(self.pending)
            if final:
                self.work = 0  # the end of the stream: the guard counts per signature
            ok, why = self.nelt_ok(members, self.ell - 1)
            if not ok:
                self.stats.extra["nelt_pruned"] += 1
                if self.tracer is not None:
                    self.tracer.act("discard", event=members[-1].id, reason=why,
                                    detail={"signature": [m.id for m in members]})
                continue
            c = self.confidence(members, lo, hi)
            if c is None:
                if self.tracer is not None:
                    self.tracer.act("discard", event=members[-1].id,
                                    reason="confidence 0: in every world a spoiler lies in between",
                                    detail={"signature": [m.id for m in members]})
                continue
            out.append(self.emit(members, c))
        return out

    # ------------------------------------------------------------------ guard

    def explode(self, what: str, limits: str) -> None:
        w = self.q.window
        cause = (f"wide uncertainty intervals (up to {self.index.max_width + 1} instants) and "
                 + (f"WITHIN {w} instants" if w else "no WITHIN (runs never expire)")
                 + " give many simultaneous runs and point matches; tighten WITHIN, add predicates, "
                   "or partition with [attr]")
        raise StateExplosion(f"state explosion in `{self.name}`: {what} (limit {limits}). Likely cause: {cause}.")
