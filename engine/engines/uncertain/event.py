"""The event-based evaluation framework (imprecise-timestamps notes §3; paper §4, App. C).

Runs select whole events and keep a *valid interval* ``[lo, hi]`` per filled component,
shrunk by the order and window constraints (:func:`engine.engines.uncertain.bounds.tighten`, the
fixpoint of §3.1, gap-aware for partial runs). Three evaluation orders, one result:

``any-state`` (§3.3, arrival order)
    A run is any subset of filled components. On arrival of e, every run with an unfilled
    component j that e can take (type, the predicates decidable on the filled components,
    the id check) is cloned with e at j if the valid intervals stay non-empty and the window
    between the extreme filled components still fits; e also starts a run alone at every j.
``sorted`` (§3.6 optimisation 1, only when every event can match one component only)
    E_1 events pass at once; an E_j event (j > 1) waits in a reorder buffer until it is safe
    (``upper < F``) **and** no buffered earlier-component event with ``lower < upper`` is
    left (the notes' nested-interval fix). Released events extend prefix runs only.
``selectivity`` (§3.6 optimisation 2)
    One buffer per component; when all are non-empty they are flushed to the any-state
    runs rarest component first. A buffered event whose window has closed
    (``upper + W - 1 < F``) is fed at once instead of dropped (dropping, as the notes
    suggest, loses matches with events fed earlier; feeding such an event starts no run
    that can live, so it costs little).

``auto`` picks ``sorted`` when the components are exclusive, else ``any-state``.

Pruning (C.2) with ``F' = min(F, lower of every event still buffered)``: a run expires when
its first possible instant plus the window is before ``F'`` (TTL), or when a component before
a filled one is unfilled and could only be filled before ``F'`` (gap). A complete run is a
signature: under skip_till_any_match its exact confidence and range are computed at once
(the DP with the window, §3.5) and it is emitted; under skip_till_next_match the NELT check
(§3.4) prunes it or it waits until ``F > e_l.upper`` for the Θ-factor confidence.
"""
from __future__ import annotations

import heapq
import math
from typing import Any, Iterable

from engine.events import Event
from engine.memory import current_guard
from engine.model import Pattern
from engine.engines.uncertain.bounds import tighten
from engine.engines.uncertain.common import DEFAULT_MAX_RUNS, DEFAULT_MAX_WORK, UncertainBase
from engine.engines.uncertain.pmf import IEvent, show_instant
from engine.engines.uncertain.result import UncertainMatch

__all__ = ["EventBasedMatcher", "MODES"]

MODES = ("auto", "any-state", "sorted", "selectivity")


class Run:
    """A run: the event at each component (None: unfilled), the valid intervals, the filled
    mask, and the instant after which it can no longer complete (``deadline``)."""

    __slots__ = ("rid", "slots", "lo", "hi", "mask", "deadline", "why", "parent")

    def __init__(self, rid: int, slots: list[IEvent | None], lo: list[int], hi: list[int], mask: int,
                 deadline: float, why: str, parent: int | None) -> None:
        self.rid, self.slots, self.lo, self.hi, self.mask = rid, slots, lo, hi, mask
        self.deadline, self.why, self.parent = deadline, why, parent


class EventBasedMatcher(UncertainBase):
    """``--engine uncertain-event``: the event-based framework (see the module docstring).

    Options: ``pmf`` (attribute with per-event pmf weights), ``u_max`` (max ``upper - lower``;
    None: nothing is final before the end of the stream), ``mode`` (``MODES``),
    ``max_runs`` (the state guard: live runs + buffered events + waiting signatures),
    ``max_work`` (confidence work per event), ``paper_finalization`` (STNM waits ``+W``)."""

    name = "uncertain-event"

    def __init__(self, pattern: Pattern, tracer: Any = None, *, pmf: str | None = None,
                 u_max: int | None = None, mode: str = "auto", max_runs: int = DEFAULT_MAX_RUNS,
                 max_work: int = DEFAULT_MAX_WORK, paper_finalization: bool = False, **_: Any) -> None:
        super().__init__(pattern, tracer, pmf=pmf, u_max=u_max, max_runs=max_runs, max_work=max_work,
                         paper_finalization=paper_finalization)
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        if mode == "auto":
            mode = "sorted" if self.q.exclusive() else "any-state"
        elif mode == "sorted" and not self.q.exclusive():
            mode = "any-state"  # sorting needs exclusive components (notes §3.6)
        self.mode = mode
        self.stats.extra["mode"] = mode
        self.full = (1 << self.ell) - 1
        self.runs: dict[int, Run] = {}
        self.by_mask: dict[int, dict[int, Run]] = {}
        self.expiry: list[tuple[float, int]] = []
        self.next_rid = 0
        self.buffers: list[list[IEvent]] = [[] for _ in range(self.ell)]
        self.counts = [0] * self.ell
        self.floor = math.inf  # lower bound of every event buffered or being fed
        self._filled: dict[int, list[int]] = {}
        self._step_pruned: list[dict[str, Any]] = []
        self.stats.extra.update(runs_pruned_ttl=0, runs_pruned_gap=0, rejected_temporal=0, released=0)

    # ------------------------------------------------------------------ the Matcher contract

    def feed(self, event: Event) -> list[UncertainMatch]:
        out: list[UncertainMatch] = []
        x = self.admit(event)
        if self.tracer is not None:
            self.tracer.act("store", event=event.id, detail={"lower": event.lower, "upper": event.upper,
                                                             "frontier": _num(self.frontier)})
        if x is not None:
            if self.mode == "any-state":
                self.floor = x.lo
                out += self._insert(x)
                self.floor = math.inf
            elif self.mode == "sorted":
                out += self._arrive_sorted(x)
            else:
                out += self._arrive_selective(x)
        if self.mode == "sorted":  # the frontier moved: buffered events may be safe now
            out += self._release_sorted()
        elif self.mode == "selectivity":
            out += self._release_stale()
        f = self.frontier
        self._prune(self.effective(f))
        out += self.release_pending(f)
        self.forget(self.horizon(min(f, self.floor_buffered())))
        self._guard()
        return out

    def close(self) -> list[UncertainMatch]:
        out: list[UncertainMatch] = []
        self.tick = current_guard().tick
        if self.mode != "any-state":
            batch = [x for j in self._order() for x in self.buffers[j]]
            if self.mode == "sorted":
                batch = [x for j in range(self.ell) for x in sorted(self.buffers[j], key=lambda e: (e.lo, e.idx))]
            self.buffers = [[] for _ in range(self.ell)]
            out += self._feed_batch(batch)
        out += self.release_pending(math.inf, final=True)
        if self.tracer is not None:
            for r in list(self.runs.values()):
                self.tracer.act("discard", run=f"r{r.rid}", state=self.state_name(r.mask),
                                reason="end of stream: no event will fill the rest",
                                detail={"intervals": self._intervals(r),
                                        "events": {self.q.vars[k]: r.slots[k].id  # type: ignore[union-attr]
                                                   for k in self.filled(r.mask)}})
        self.runs.clear()
        self.by_mask.clear()
        self.stats.runs_alive = 0
        return out

    # ------------------------------------------------------------------ frontier

    def floor_buffered(self) -> float:
        lows = [x.lo for b in self.buffers for x in b]
        return min(lows) if lows else math.inf

    def effective(self, f: float) -> float:
        """``F'``: no event fed later has a lower bound before it."""
        return min(f, self.floor, self.floor_buffered())

    # ------------------------------------------------------------------ runs

    def state_name(self, mask: int) -> str:
        return "q{" + ",".join(v for k, v in enumerate(self.q.vars) if mask >> k & 1) + "}"

    def filled(self, mask: int) -> list[int]:
        f = self._filled.get(mask)
        if f is None:
            f = [k for k in range(self.ell) if mask >> k & 1]
            self._filled[mask] = f
        return f

    def _deadline(self, lo: list[int], hi: list[int], mask: int) -> tuple[float, str]:
        """The last frontier at which the run may still complete, and the pruning rule it
        would fall to (TTL or gap)."""
        filled = self.filled(mask)
        best, why = math.inf, ""
        if self.span is not None:
            best, why = hi[filled[0]] + self.span, "ttl"
        c = next(k for k in range(self.ell) if not mask >> k & 1)
        k = next((k for k in filled if k > c), None)
        if k is not None and hi[k] - (k - c) < best:
            best, why = hi[k] - (k - c), "gap"
        return best, why

    def _add(self, run: Run) -> None:
        self.runs[run.rid] = run
        self.by_mask.setdefault(run.mask, {})[run.rid] = run
        if run.deadline != math.inf:
            heapq.heappush(self.expiry, (run.deadline, run.rid))
        self.stats.runs_created += 1

    def _drop(self, run: Run) -> None:
        del self.runs[run.rid]
        d = self.by_mask[run.mask]
        del d[run.rid]
        if not d:
            del self.by_mask[run.mask]

    def _prune(self, fe: float) -> None:
        """TTL and gap pruning (C.2) against ``F'``."""
        while self.expiry and self.expiry[0][0] < fe:
            _d, rid = heapq.heappop(self.expiry)
            run = self.runs.get(rid)
            if run is None:
                continue
            self._drop(run)
            if run.why == "ttl":
                self.stats.extra["runs_pruned_ttl"] += 1
            else:
                self.stats.extra["runs_pruned_gap"] += 1
            if self.tracer is not None:
                self.tracer.act("expire" if run.why == "ttl" else "discard", run=f"r{rid}",
                                state=self.state_name(run.mask), reason=self._why_text(run, fe),
                                detail={"intervals": self._intervals(run),
                                        "events": {self.q.vars[k]: run.slots[k].id  # type: ignore[union-attr]
                                                   for k in self.filled(run.mask)}})

    def _why_text(self, run: Run, fe: float) -> str:
        v = self.q.vars
        filled = self.filled(run.mask)
        if run.why == "ttl":
            f0 = filled[0]
            return (f"TTL: every event still to come is at or after F = {show_instant(fe)}, but the window closes at "
                    f"{v[f0]}.vub + W - 1 = {run.hi[f0]} + {self.span} = {show_instant(run.deadline)}")
        c = next(k for k in range(self.ell) if not run.mask >> k & 1)
        return (f"gap: `{v[c]}` is unfilled and must come before the filled ones, "
                f"by {show_instant(run.deadline)} at the "
                f"latest, but every event still to come is at or after F = {show_instant(fe)}")

    def _extend(self, run: Run | None, j: int, x: IEvent, fe: float) -> tuple[Run | None, str | None]:
        """``run`` with x at j (None: a new run), or (None, why it is refused)."""
        if run is None:
            slots: list[IEvent | None] = [None] * self.ell
            lo, hi, mask = [0] * self.ell, [0] * self.ell, 0
        else:
            slots, lo, hi, mask = list(run.slots), list(run.lo), list(run.hi), run.mask
        slots[j] = x
        lo[j], hi[j] = x.lo, x.hi
        new_mask = mask | (1 << j)
        filled = self.filled(new_mask)
        if not tighten(lo, hi, filled, self.span, self.ell):
            return None, "valid intervals empty (order or window)"
        if self.q.next:
            p_old = _prefix_len(mask, self.ell)
            p_new = _prefix_len(new_mask, self.ell)
            if p_new > p_old and p_new >= 2:
                ok, why = self.nelt_ok(slots, p_new - 1, start=max(0, p_old - 1))  # type: ignore[arg-type]
                if not ok:
                    self.stats.extra["nelt_pruned"] += 1
                    return None, why
        if new_mask == self.full:
            deadline, why = math.inf, ""
        else:
            deadline, why = self._deadline(lo, hi, new_mask)
            if deadline < fe:
                return None, f"could never complete ({why}: by {show_instant(deadline)}, but F' = {show_instant(fe)})"
        self.next_rid += 1
        return Run(self.next_rid, slots, lo, hi, new_mask, deadline, why,
                   None if run is None else run.rid), None

    def _insert(self, x: IEvent) -> list[UncertainMatch]:
        """Any-state insertion of x (notes §3.3)."""
        q = self.q
        js = [j for j in range(self.ell) if q.type_ok(j, x)]
        if not js:
            return []
        fe = self.effective(self.frontier)
        out: list[UncertainMatch] = []
        made: list[Run] = []
        tr = self.tracer
        for mask, group in list(self.by_mask.items()):
            free = [j for j in js if not mask >> j & 1]
            if not free:
                continue
            for run in list(group.values()):
                self.tick()
                for j in free:
                    if not q.partial_ok(j, x, run.slots):
                        continue
                    self.stats.predicate_evals += 1
                    new, why = self._extend(run, j, x, fe)
                    if new is None:
                        self.stats.extra["rejected_temporal"] += 1
                        if tr is not None:
                            tr.act("ignore", run=f"r{run.rid}", state=self.state_name(mask), event=x.id,
                                   reason=why, detail={"var": q.vars[j]})
                        continue
                    if tr is not None:
                        tr.act("take", run=f"r{new.rid}", state=self.state_name(mask),
                               to=self.state_name(new.mask), event=x.id,
                               detail={"from": f"r{run.rid}", "var": q.vars[j], "intervals": self._intervals(new)})
                    made.append(new)
                if len(made) + len(self.runs) > self.max_runs:
                    self._guard(extra=len(made))
        for j in js:
            if not q.local_ok(j, x):
                continue
            new, why = self._extend(None, j, x, fe)
            if new is None:
                continue
            if tr is not None:
                tr.act("begin", run=f"r{new.rid}", to=self.state_name(new.mask), event=x.id,
                       detail={"var": q.vars[j], "intervals": self._intervals(new)})
            made.append(new)
        for new in made:
            if new.mask == self.full:
                out += self.complete(tuple(new.slots), new.lo, new.hi, run=f"r{new.rid}")  # type: ignore[arg-type]
            else:
                self._add(new)
        self.stats.runs_alive = len(self.runs)
        self.stats.runs_peak = max(self.stats.runs_peak, len(self.runs))
        return out

    def _insert_prefix(self, x: IEvent, j: int) -> list[UncertainMatch]:
        """Query-order insertion (sorted mode): x extends the prefix runs of length j."""
        q = self.q
        fe = self.effective(self.frontier)
        out: list[UncertainMatch] = []
        made: list[Run] = []
        tr = self.tracer
        if j == 0:
            if q.local_ok(0, x):
                new, _why = self._extend(None, 0, x, fe)
                if new is not None:
                    made.append(new)
                    if tr is not None:
                        tr.act("begin", run=f"r{new.rid}", to=self.state_name(new.mask), event=x.id,
                               detail={"var": q.vars[0], "intervals": self._intervals(new)})
        else:
            group = self.by_mask.get((1 << j) - 1, {})
            for run in list(group.values()):
                self.tick()
                if not q.admits(j, x, run.slots[:j]):  # type: ignore[arg-type]
                    continue
                self.stats.predicate_evals += 1
                new, why = self._extend(run, j, x, fe)
                if new is None:
                    self.stats.extra["rejected_temporal"] += 1
                    if tr is not None:
                        tr.act("ignore", run=f"r{run.rid}", state=self.state_name(run.mask), event=x.id,
                               reason=why, detail={"var": q.vars[j]})
                    continue
                if tr is not None:
                    tr.act("take", run=f"r{new.rid}", state=self.state_name(run.mask), to=self.state_name(new.mask),
                           event=x.id, detail={"from": f"r{run.rid}", "var": q.vars[j],
                                               "intervals": self._intervals(new)})
                made.append(new)
                if len(made) + len(self.runs) > self.max_runs:
                    self._guard(extra=len(made))
        for new in made:
            if new.mask == self.full:
                out += self.complete(tuple(new.slots), new.lo, new.hi, run=f"r{new.rid}")  # type: ignore[arg-type]
            else:
                self._add(new)
        self.stats.runs_alive = len(self.runs)
        self.stats.runs_peak = max(self.stats.runs_peak, len(self.runs))
        return out

    # ------------------------------------------------------------------ reordering (optimisations 1-2)

    def _feed_batch(self, batch: list[IEvent]) -> list[UncertainMatch]:
        out: list[UncertainMatch] = []
        if not batch:
            return out
        self.floor = min(x.lo for x in batch)
        for x in batch:
            self.work = 0  # the guard counts per released event
            self.stats.extra["released"] += 1
            if self.tracer is not None:
                self.tracer.act("search", event=x.id, detail={"released": True})
            if self.mode == "sorted":
                out += self._insert_prefix(x, self._component(x))
            else:
                out += self._insert(x)
        self.floor = math.inf
        return out

    def _component(self, x: IEvent) -> int:
        return next(j for j in range(self.ell) if self.q.type_ok(j, x))

    def _arrive_sorted(self, x: IEvent) -> list[UncertainMatch]:
        j = self._component(x)
        out: list[UncertainMatch] = []
        if j == 0:
            out += self._feed_batch([x])
        else:
            self.buffers[j].append(x)
            self.stats.buffer_entries += 1
        return out

    def _release_sorted(self) -> list[UncertainMatch]:
        """Release the safe buffered events (``upper < F``, nothing earlier-component and
        overlapping still buffered), in component order."""
        out: list[UncertainMatch] = []
        f = self.frontier
        batch: list[IEvent] = []
        for k in range(1, self.ell):
            keep = []
            for e in sorted(self.buffers[k], key=lambda e: (e.lo, e.idx)):
                blocked = any(y.lo < e.hi for kk in range(1, k) for y in self.buffers[kk])
                if e.hi < f and not blocked:
                    batch.append(e)
                else:
                    keep.append(e)
            self.buffers[k] = keep
        out += self._feed_batch(batch)
        return out

    def _order(self) -> list[int]:
        return sorted(range(self.ell), key=lambda j: (self.counts[j], j))

    def _arrive_selective(self, x: IEvent) -> list[UncertainMatch]:
        js = [j for j in range(self.ell) if self.q.local_ok(j, x)]
        if not js:
            return []
        for j in js:
            self.counts[j] += 1
        home = min(js, key=lambda j: (self.counts[j], j))
        self.buffers[home].append(x)
        self.stats.buffer_entries += 1
        if all(self.buffers):
            batch = [e for j in self._order() for e in self.buffers[j]]
            self.buffers = [[] for _ in range(self.ell)]
            return self._feed_batch(batch)
        return []

    def _release_stale(self) -> list[UncertainMatch]:
        """Feed the buffered events whose window has closed (``upper + W - 1 < F``)."""
        if self.span is None:
            return []
        f = self.frontier
        stale = [e for b in self.buffers for e in b if e.hi + self.span < f]
        if not stale:
            return []
        ids = set(map(id, stale))
        self.buffers = [[e for e in b if id(e) not in ids] for b in self.buffers]
        return self._feed_batch(sorted(stale, key=lambda e: e.idx))

    # ------------------------------------------------------------------ guard and trace

    def _guard(self, extra: int = 0) -> None:
        live = len(self.runs) + extra + sum(map(len, self.buffers)) + len(self.pending)
        if live > self.max_runs:
            self.explode(f"{live:,} live runs, buffered events and waiting signatures", f"{self.max_runs:,}")

    def _intervals(self, run: Run) -> dict[str, list[int]]:
        return {self.q.vars[k]: [run.lo[k], run.hi[k]] for k in self.filled(run.mask)}

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        from engine.trace import RunView

        runs = sorted(self.runs.values(), key=lambda r: r.rid)
        views = [RunView(id=f"r{r.rid}", state=self.state_name(r.mask),
                         bindings={self.q.vars[k]: [r.slots[k].id] for k in self.filled(r.mask)},  # type: ignore[union-attr]
                         start=r.lo[self.filled(r.mask)[0]]) for r in runs]
        buf: dict[str, Any] = {
            "kind": "uncertain", "engine": self.name, "mode": self.mode,
            "now": [_num(self.now_lo), _num(self.now_hi)], "frontier": _num(self.frontier),
            "u_max": self.u_max,
            "intervals": {f"r{r.rid}": self._intervals(r) for r in runs[:500]},
            "deadlines": {f"r{r.rid}": _num(r.deadline) for r in runs[:500]},
            "pending": [{"signature": [m.id for m in p[2]], "until": p[0]} for p in sorted(self.pending)[:200]],
        }
        if self.mode != "any-state":
            buf["reorder"] = {self.q.vars[j]: [x.id for x in b] for j, b in enumerate(self.buffers) if b}
        return views, buf


def _prefix_len(mask: int, ell: int) -> int:
    k = 0
    while k < ell and mask >> k & 1:
        k += 1
    return k


def _num(v: float) -> Any:
    if v in (math.inf, -math.inf):
        return None
    if isinstance(v, int):
        return v
    return int(v) if float(v).is_integer() else v


def run_event_based(pattern: Pattern, events: Iterable[Event], **options: Any) -> list[UncertainMatch]:
    """Feed a whole stream and close (tests, benchmarks)."""
    m = EventBasedMatcher(pattern, **options)
    out: list[UncertainMatch] = []
    for e in events:
        out += m.feed(e)
    out += m.close()
    return out
