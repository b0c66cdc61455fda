"""The point-based evaluation framework (imprecise-timestamps notes §2; paper §3, App. B).

Three stages (Fig. 2(a)):

1. **Stream expansion** (§2.1): on arrival, every instant t of an event's interval becomes a
   *point event* ``e^t`` in a min-heap keyed by (t, arrival); points with ``t < F`` (the
   frontier, ``F = now.lower - U_max``) are popped in time order; the end of the stream
   flushes the heap.
2. **Pattern matching over points** (§2.2): a skip_till_any_match NFA over the point stream,
   whatever the query's strategy, with the **id check** (a point of an event already in the
   run is ignored), strict order, the window, and for skip_till_next_match the **NELT** cut:
   a point ``x^t`` with ``t > NELT(e_mi)`` never extends a run ending at ``e_mi`` (NELT over
   every event seen so far, given the run's bindings; candidates that start after
   ``e_mi.upper`` only, resolution 8).
3. **Match collapsing** (§2.3): point matches are grouped by signature; a signature is final
   once ``F > e_ml.upper`` (every point of every member and every possible spoiler is then
   seen; ``paper_finalization=True`` waits ``+ W`` as the paper does). Its confidence is
   Eq. 1 (STAM) or Eq. 2 with the per-event union form (STNM, case 1 and case 2), its range
   is taken over the point matches of positive weight, and confidence-0 signatures are dropped.
"""
from __future__ import annotations

import heapq
import math
from fractions import Fraction
from typing import Any, Iterable

from engine.events import Event
from engine.memory import current_guard
from engine.model import Pattern
from engine.engines.uncertain.common import DEFAULT_MAX_RUNS, DEFAULT_MAX_WORK, UncertainBase
from engine.engines.uncertain.confidence import Conf, point_weight
from engine.engines.uncertain.pmf import IEvent, show_instant
from engine.engines.uncertain.result import UncertainMatch

__all__ = ["PointBasedMatcher", "run_point_based"]

PointRun = tuple[tuple[IEvent, int], ...]


class PointBasedMatcher(UncertainBase):
    """``--engine uncertain-point``: the point-based framework (see the module docstring).
    Options as :class:`engine.engines.uncertain.event.EventBasedMatcher` (``pmf``, ``u_max``,
    ``max_runs``, ``max_work``, ``paper_finalization``)."""

    name = "uncertain-point"

    def __init__(self, pattern: Pattern, tracer: Any = None, *, pmf: str | None = None,
                 u_max: int | None = None, max_runs: int = DEFAULT_MAX_RUNS, max_work: int = DEFAULT_MAX_WORK,
                 paper_finalization: bool = False, **_: Any) -> None:
        super().__init__(pattern, tracer, pmf=pmf, u_max=u_max, max_runs=max_runs, max_work=max_work,
                         paper_finalization=paper_finalization)
        self.heap: list[tuple[int, int, IEvent]] = []
        self.runs: list[list[PointRun]] = [[] for _ in range(self.ell)]  # by the component awaited
        self.groups: dict[tuple[int, ...], tuple[tuple[IEvent, ...], list[tuple[int, ...]]]] = {}
        self.due: list[tuple[int, tuple[int, ...]]] = []
        self._nelt: dict[tuple[int, ...], float] = {}
        self.points_emitted = 0
        self._held_points = 0  # point matches waiting in ``groups`` (the state guard counts them)
        self._tick = self.tick
        self.stats.extra.update(points=0, point_matches=0)
        self._step_points: list[tuple[Any, int]] = []

    # ------------------------------------------------------------------ the Matcher contract

    def feed(self, event: Event) -> list[UncertainMatch]:
        x = self.admit(event)
        self._tick = self.tick  # the run's guard (taken up by ``admit``): ticked per point, run step and point match
        self._nelt.clear()  # the index changed: NELT may have shrunk
        self._step_points = []
        if x is not None:
            if x.hi - x.lo + 1 > self.max_work:  # each instant becomes a point event: refused before any is made
                self.explode(f"event {x.id!r} holds {x.hi - x.lo + 1:,} instants, each a point event",
                             f"{self.max_work:,} steps per event")
            tick = self._tick
            for t in range(x.lo, x.hi + 1):
                if x.w(t) > 0:
                    tick()  # (the guard: --max-memory and the state limits stop a wide interval here too)
                    heapq.heappush(self.heap, (t, x.idx, x))
            self.stats.buffer_entries = len(self.heap)
            self.stats.buffer_peak = max(self.stats.buffer_peak, len(self.heap))
        f = self.frontier
        if self.tracer is not None:
            self.tracer.act("store", event=event.id, detail={
                "points": 0 if x is None else x.size, "frontier": None if f == -math.inf else f})
        while self.heap and self.heap[0][0] < f:
            t, _s, y = heapq.heappop(self.heap)
            self._on_point(y, t)
        out = self._collapse(f)
        out += self.release_pending(f)
        self.forget(self.horizon(f))
        return out

    def close(self) -> list[UncertainMatch]:
        self._tick = self.tick = current_guard().tick
        self._step_points = []
        while self.heap:
            t, _s, y = heapq.heappop(self.heap)
            self._on_point(y, t)
        out = self._collapse(math.inf, final=True)
        out += self.release_pending(math.inf, final=True)
        self.runs = [[] for _ in range(self.ell)]
        self.stats.runs_alive = 0
        return out

    # ------------------------------------------------------------------ step 2: the point NFA

    def _nelt_of(self, run: PointRun) -> float:
        key = tuple(e.idx for e, _t in run)
        v = self._nelt.get(key)
        if v is None:
            members = [e for e, _t in run]
            v = self.nelt(members, len(members) - 1)
            self._nelt[key] = v
        return v

    def _on_point(self, x: IEvent, t: int) -> None:
        self.stats.extra["points"] += 1
        if self.tracer is not None:
            self._step_points.append((x.id, t))
        q, span, tr, tick = self.q, self.span, self.tracer, self._tick
        tick()
        # window expiry: points come in time order, so a run whose first point is too old is dead
        if span is not None:
            for k in range(1, self.ell):
                rs = self.runs[k]
                if rs and any(r[0][1] + span < t for r in rs):
                    keep = [r for r in rs if r[0][1] + span >= t]
                    if tr is not None:
                        for r in rs:
                            if r[0][1] + span < t:
                                tr.act("expire", run=_rid(r), state=q.vars[k],
                                       reason=f"window: {t} - {r[0][1]} > {span}")
                    self.runs[k] = keep
        new: list[PointRun] = []
        for k in range(self.ell - 1, 0, -1):
            if not q.type_ok(k, x):
                continue
            for r in self.runs[k]:
                tick()
                if t <= r[-1][1] or (span is not None and t - r[0][1] > span):
                    continue
                prefix = [e for e, _t in r]
                self.stats.predicate_evals += 1
                if not q.admits(k, x, prefix):  # predicates and the id check
                    continue
                if q.next and t > self._nelt_of(r):
                    if tr is not None:
                        tr.act("discard", run=_rid(r), state=q.vars[k], event=x.id,
                               reason=f"NELT: {x.id}^{t} is after NELT = {show_instant(self._nelt_of(r))}")
                    continue
                r2 = r + ((x, t),)
                if k + 1 == self.ell:
                    self._point_match(r2)
                else:
                    new.append(r2)
                if tr is not None:
                    tr.act("take", run=_rid(r2), state=q.vars[k], to=q.vars[k + 1] if k + 1 < self.ell else "F",
                           event=x.id, detail={"point": t})
        if q.type_ok(0, x) and q.admits(0, x, []):
            r1: PointRun = ((x, t),)
            if self.ell == 1:
                self._point_match(r1)
            else:
                new.append(r1)
            if tr is not None:
                tr.act("begin", run=_rid(r1), state=q.vars[0], to=q.vars[1] if self.ell > 1 else "F",
                       event=x.id, detail={"point": t})
        for r in new:
            self.runs[len(r)].append(r)
        alive = sum(len(rs) for rs in self.runs)
        self.stats.runs_created += len(new)
        self.stats.runs_alive = alive
        self.stats.runs_peak = max(self.stats.runs_peak, alive)
        if alive + len(self.heap) + self._held_points > self.max_runs:
            self.explode(f"{alive:,} point runs, {len(self.heap):,} buffered points and {self._held_points:,} "
                         "point matches waiting to be collapsed", f"{self.max_runs:,}")

    def _point_match(self, r: PointRun) -> None:
        members = tuple(e for e, _t in r)
        key = tuple(e.idx for e in members)
        g = self.groups.get(key)
        if g is None:
            g = (members, [])
            self.groups[key] = g
            due = members[-1].hi + ((self.q.window or 0) if self.paper_finalization else 0)
            heapq.heappush(self.due, (due, key))
        g[1].append(tuple(t for _e, t in r))
        self._held_points += 1
        self.stats.extra["point_matches"] += 1
        self.work += 1
        if self.work > self.max_work:
            self.explode(f"{self.work:,} point matches for one event", f"{self.max_work:,} per event")

    # ------------------------------------------------------------------ step 3: collapsing

    def _collapse(self, f: float, final: bool = False) -> list[UncertainMatch]:
        out: list[UncertainMatch] = []
        while self.due and (final or self.due[0][0] < f):
            _d, key = heapq.heappop(self.due)
            members, pms = self.groups.pop(key)
            self._held_points -= len(pms)
            c = self._weigh(members, pms)
            self.stats.extra["signatures_checked"] += 1
            if c is None:
                self.stats.extra["dropped_zero"] += 1
                if self.tracer is not None:
                    self.tracer.act("discard", event=members[-1].id, reason="confidence 0: in every world a "
                                    "spoiler lies in between", detail={"signature": [m.id for m in members]})
                continue
            out.append(self.emit(members, c))
        return out

    def _weigh(self, members: tuple[IEvent, ...], pms: list[tuple[int, ...]]) -> Conf | None:
        """Eq. 1 (STAM) or Eq. 2 with the union form (STNM) over the point matches."""
        spoilers: list[IEvent] = []
        spoils: list[list[bool]] = []
        if self.q.next:
            pos: dict[int, int] = {}
            for j in range(1, self.ell):
                a = min(pm[j - 1] for pm in pms) + 1
                b = max(pm[j] for pm in pms) - 1
                types = None if self.q.comps[j].type == "ANY" else [self.q.comps[j].type]
                for x in self.q.candidates(j, members, list(self.index.overlapping(types, a, b))):
                    if id(x) not in pos:
                        pos[id(x)] = len(spoilers)
                        spoilers.append(x)
                        spoils.append([False] * self.ell)
                    spoils[pos[id(x)]][j] = True
        total, rlo, rhi = 0, None, None
        tick = self._tick
        for pm in pms:
            tick()
            w = point_weight(members, pm, spoilers, spoils)
            if w:
                total += w
                rlo = pm[0] if rlo is None else min(rlo, pm[0])
                rhi = pm[-1] if rhi is None else max(rhi, pm[-1])
        if total == 0 or rlo is None or rhi is None:
            return None
        den = math.prod(e.total for e in members) * math.prod(x.total for x in spoilers)
        fr = Fraction(total, den)
        return Conf(fr.numerator, fr.denominator, (rlo, rhi), len(pms))

    # ------------------------------------------------------------------ trace

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        from engine.trace import RunView

        views = []
        for k in range(1, self.ell):
            for r in self.runs[k]:
                views.append(RunView(id=_rid(r), state=self.q.vars[k],
                                     bindings={self.q.vars[i]: [e.id] for i, (e, _t) in enumerate(r)},
                                     start=r[0][1]))
        f = self.frontier
        buf = {"kind": "uncertain", "engine": self.name, "now": [_n(self.now_lo), _n(self.now_hi)],
               "frontier": _n(f), "u_max": self.u_max, "heap": len(self.heap),
               "points": [[i, t] for i, t in self._step_points[:500]],
               "points_total": self.stats.extra["points"],
               "run_points": {_rid(r): [t for _e, t in r] for k in range(1, self.ell) for r in self.runs[k][:500]},
               "waiting": [{"signature": [m.id for m in self.groups[key][0]], "until": d,
                            "point_matches": len(self.groups[key][1])} for d, key in sorted(self.due)[:200]]}
        return views, buf


def _rid(r: PointRun) -> str:
    return "·".join(f"{e.id}^{t}" for e, t in r)


def _n(v: float) -> Any:
    if isinstance(v, int):
        return v
    return None if v in (math.inf, -math.inf) else (int(v) if float(v).is_integer() else v)


def run_point_based(pattern: Pattern, events: Iterable[Event], **options: Any) -> list[UncertainMatch]:
    """Feed a whole stream and close (tests, benchmarks)."""
    m = PointBasedMatcher(pattern, **options)
    out: list[UncertainMatch] = []
    for e in events:
        out += m.feed(e)
    out += m.close()
    return out
