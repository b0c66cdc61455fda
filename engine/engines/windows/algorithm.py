"""Algorithm 1 of the match-windows paper, Match(P, E, A) (§4.7 of the notes).

For every event e in stream order:

1. **filter** (Thm 1): drop e if it satisfies no variable's properties (β_e = 0);
2. **partition** (Def. 6): look up the window W of e's key (the values of the partitioning
   attributes X), created empty on first use;
3. **evict**: while W is not empty and e is out of first(W)'s reach (``coord(e) -
   coord(first(W)) >= WITHIN``), W is *complete* for matches that start at first(W): if the
   **necessary match conditions** hold (NMC: (4) |W| >= m, (5) first(W) fits a first
   variable, (6)+(7) all counters > 0), call **A(P', W)** lazily and collect the matches it
   returns (those that start at first(W)); then remove first(W) and update the statistic;
4. append e to W and update the statistic.

At the end of the input every window is **drained**: the same evaluation for each
remaining start event; the drain of a window stops early only on the monotone failures
(|W| < m, or a zero counter), never because (5) fails (notes §4.7).

WITHIN is strict in this project (a match spans ``last - first < W``), so the match
window of e holds the events with ``0 <= coord - coord(e) < W``: the paper's inclusive
duration τ is ``WITHIN τ + 1 tick`` for whole-tick times (docs/semantics.md).

Each technique can be switched off (``Techniques``): without filtering every event is
buffered; without partitioning there is one window; without the NMC every complete
window is passed to A. All off is the paper's baseline, "a plain match window without
pruning": one call of A per event. Statistics are counted in ``WindowStats``.
"""
from __future__ import annotations

import math
from collections import deque
from operator import attrgetter
from time import perf_counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from engine.events import Event
from engine.match import Match
from engine.memory import current_guard
from engine.engines.windows.analysis import WindowPlan
from engine.engines.windows.beta import Prefilter
from engine.engines.windows.statistic import PASSED, ClauseStat, Verdict, first_failed, nmc

__all__ = ["Techniques", "WindowStats", "KeyWindow", "MatchWindows", "Call"]

SWEEP_EVERY = 4096  # events between sweeps that complete the windows of idle keys (a watermark)

#: A(P', W, bits) -> the matches of W that start at W's first event (W and bits are read, never changed;
#: bits is None when nothing was pre-computed, the plain-window baseline).
Call = Callable[[Sequence[Event], "Sequence[int] | None"], list[Match]]


@dataclass(frozen=True)
class Techniques:
    """Which pre-processing techniques are on (the paper's f, p, c)."""

    filter: bool = True
    partition: bool = True
    nmc: bool = True
    literal: bool = False   # the paper's literal counter decrement (teaching only; can lose matches)

    @property
    def label(self) -> str:
        parts = [k for k, on in (("f", self.filter), ("p", self.partition), ("c", self.nmc)) if on]
        return "+".join(parts) or "baseline"


@dataclass
class WindowStats:
    """What Algorithm 1 did (notes §7, metrics)."""

    events_in: int = 0
    events_filtered: int = 0
    partitions: int = 0            # distinct keys seen
    windows_completed: int = 0     # windows evaluated (one per buffered event that became first(W))
    nmc_pass: int = 0
    nmc_fail: dict[str, int] = field(default_factory=lambda: {"4": 0, "5": 0, "6": 0, "7": 0})
    drain_stopped: int = 0         # windows not evaluated because the drain stopped on a monotone failure
    calls: int = 0                 # calls of A
    events_to_matcher: int = 0     # Σ |W| over the calls
    matches: int = 0
    false_positives: int = 0       # calls that returned no match
    peak_buffered: int = 0
    seconds_pre: float = 0.0       # pre-processing of the buffered events (filtered ones are not timed)
    seconds_matcher: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {k: getattr(self, k) for k in (
            "events_in", "events_filtered", "partitions", "windows_completed", "nmc_pass", "drain_stopped",
            "calls", "events_to_matcher", "matches", "false_positives", "peak_buffered")}
        for c, n in self.nmc_fail.items():
            d[f"nmc_fail_{c}"] = n
        return d


class KeyWindow:
    """The window of one key: its events, their coordinates and β_e, per clause the
    counted mask and epochs of each event, and the clauses' statistics."""

    __slots__ = ("key", "events", "coords", "bits", "marks", "stats", "one", "counting", "count")

    def __init__(self, key: Any, plan: WindowPlan, literal: bool, counting: bool = True) -> None:
        self.key = key
        self.events: deque[Event] = deque()
        self.coords: deque[float] = deque()
        self.bits: deque[int] = deque()
        self.marks: deque[tuple[Any, ...]] = deque()
        self.stats = [ClauseStat(cl, len(plan.vars), literal) for cl in plan.clauses]
        self.one = self.stats[0] if len(self.stats) == 1 else None  # one clause: marks hold its pair only
        self.counting = counting  # the statistic is kept only for the NMC
        self.count = plan.count   # coordinates are stream positions (WITHIN n events)

    def __len__(self) -> int:
        return len(self.events)

    def add(self, e: Event, bits: int, coord: float | None = None) -> None:
        """Append e with β_e = ``bits`` (``coord``: e's seq or ts, computed when not given)."""
        self.events.append(e)
        self.coords.append(coord if coord is not None else (e.seq if self.count else e.ts))
        self.bits.append(bits)
        if self.counting:
            one = self.one
            self.marks.append(one.add(bits) if one is not None else tuple(st.add(bits) for st in self.stats))

    def pop(self) -> tuple[Event, int]:
        e = self.events.popleft()
        self.coords.popleft()
        bits = self.bits.popleft()
        if self.counting:
            marks = self.marks.popleft()
            one = self.one
            if one is not None:
                one.remove(bits, marks[0], marks[1])
            else:
                for st, (counted, epochs) in zip(self.stats, marks):
                    st.remove(bits, counted, epochs)
        return e, bits

    def counters(self, plan: WindowPlan) -> dict[str, int]:
        """cnt_v of the first clause (the SES pattern's only one)."""
        st = self.stats[0]
        return {v: st.cnt[plan.by_name[v].bit] for v in st.clause.vars}


class MatchWindows:
    """Algorithm 1 over a stream; ``call`` is A. ``feed`` returns the matches of the
    windows that ``e`` completed; ``close`` drains every window. ``guard(n)`` is called
    when more than ``limit`` events are buffered, with their number (it may raise).

    Cost per event: an event that fits no variable (the common case of a selective
    pattern) costs one call of the compiled β_e (``beta``) and a counter; the buffered
    ones go through the window of their key, the statistic and the NMC."""

    def __init__(self, plan: WindowPlan, call: Call, techniques: Techniques = Techniques(),
                 tracer: Any = None, on_window: Callable[[KeyWindow, Verdict | None, list[Match] | None], None]
                 | None = None, guard: Callable[[int], None] | None = None, limit: float = math.inf) -> None:
        self.plan = plan
        self.call = call
        self.t = techniques
        self.tracer = tracer
        self.on_window = on_window
        self.guard = guard
        self.limit = limit if guard is not None else math.inf
        self.windows: dict[Any, KeyWindow] = {}
        self._stats = WindowStats()
        self._filtered = 0   # events_in = _filtered + _kept (one counter on the filtered path)
        self._kept = 0
        self.buffered = 0
        self._seen_keys: set[Any] = set()
        self._since_sweep = 0
        self.changed: set[Any] = set()   # keys whose window changed in the current step (trace)
        # Without filtering and NMC there is no pre-processing: A tests the properties itself
        # (the paper's baseline, a plain match window); else β_e is computed once per event.
        self._needs_bits = techniques.filter or techniques.nmc
        self._beta = plan.beta
        self._filtering = techniques.filter
        self._coord = attrgetter("seq" if plan.count else "ts")
        self._key_of = plan.key.of if techniques.partition and plan.key is not None else None
        self._gate_count: Callable[[], int] | None = None
        # One clause, the NMC on, no trace: the buffered events take the inlined path
        # (``_buffer_fast``: window append, counters and eviction in one frame) while nothing
        # is reported per window (``on_window`` may be set later: then the general path).
        self._fast = tracer is None and techniques.nmc and len(plan.clauses) == 1
        self._buffer = self._buffer_fast if self._fast else self._buffer_general  # type: ignore[method-assign]
        self._prefilter: Prefilter | None = None
        if tracer is None and techniques.filter:
            # The step without a trace: filtering and the counter in one call (``beta.compile_gate``).
            self.feed, self._gate_count = plan.gate(self._buffer)  # type: ignore[method-assign]
            self._prefilter = plan.prefilter()
        from engine.engines.windows.batch import batch_applies

        self._batch = batch_applies(self)  # feed_many's batches as arrays (``batch.feed_batch``)

    def attach_tracer(self, tracer: Any) -> None:
        """Trace from the next event on (engine/checkpoints.py): the general step replaces the
        compiled gate and the inlined buffering ``__init__`` chose for a run without a trace."""
        if self._gate_count is not None:
            self._filtered += self._gate_count()
            self._gate_count = None
        self.__dict__.pop("feed", None)
        self._prefilter = None
        self._fast = False
        self._batch = False
        self._buffer = self._buffer_general  # type: ignore[method-assign]
        self.tracer = tracer

    @property
    def stats(self) -> WindowStats:
        """The statistics (brought up to date when read)."""
        st = self._stats
        st.events_filtered = self._filtered + (self._gate_count() if self._gate_count is not None else 0)
        st.events_in = st.events_filtered + self._kept
        return st

    # ------------------------------------------------------------------ the loop

    def feed(self, e: Event) -> list[Match]:
        bits = self._beta(e) if self._needs_bits else 0
        if not bits and self._filtering:
            self._filtered += 1
            if self.tracer is not None:
                self.tracer.act("discard", event=e.id,
                                reason="filtered: the event fits no variable of the pattern",
                                detail={"filtered": True})
            return []
        return self._buffer(e, bits)

    def feed_many(self, events: Sequence[Event], out: list[Match] | None = None) -> list[Match]:
        """``feed`` for each event in turn (the same matches in the same order, the same
        statistics), with the filter's necessary condition evaluated for the whole batch
        at C level (``beta.compile_prefilter``): only the events it keeps cost a Python call.
        Matches are appended to ``out`` (a new list when None) as they are found; returns it."""
        if out is None:
            out = []
        feed = self.feed
        if self._prefilter is None:
            for e in events:
                out.extend(feed(e))
            return out
        keep = self._prefilter(events)
        filtered = len(events) - len(keep)
        if self._batch and self.on_window is None and keep:
            # one window of an event set: the whole batch's windows at once (``batch.feed_batch``)
            from engine.engines.windows.batch import feed_batch

            try:
                by_beta = feed_batch(self, keep, out)
            except BaseException:
                self._filtered += filtered + sum(1 for e in keep if not self._beta(e))
                raise
            if by_beta is not None:
                self._filtered += filtered + by_beta
                return out
        # the kept events: β_e exactly (what the gate would compute after the same necessary
        # condition), then the buffered step, without the gate's call
        beta, buffer = self._beta, self._buffer
        try:
            for e in keep:
                b = beta(e)
                if b:
                    out.extend(buffer(e, b))
                else:
                    filtered += 1
        finally:
            self._filtered += filtered
        return out

    def _buffer_general(self, e: Event, bits: int) -> list[Match]:
        """Steps 2-4 of Algorithm 1 for an event that passed the filter (``_buffer``)."""
        t0 = perf_counter()
        st = self._stats
        in_matcher = st.seconds_matcher
        self._kept += 1
        plan = self.plan
        key = self._key_of(e) if self._key_of is not None else None
        kw = self.windows.get(key)
        if kw is None:
            kw = self.windows[key] = KeyWindow(key, plan, self.t.literal, self.t.nmc)
            if key not in self._seen_keys:
                self._seen_keys.add(key)
                st.partitions += 1
        now = self._coord(e)
        out: list[Match] = []
        coords = kw.coords
        if coords and now - coords[0] >= plan.size:
            out = self._evict(kw, now, e)
        kw.add(e, bits, now)
        self.buffered += 1
        if self.buffered > st.peak_buffered:
            st.peak_buffered = self.buffered
        tr = self.tracer
        if tr is not None:
            self.changed.add(key)
            tr.act("store", state=f"window {key_text(key)}", event=e.id,
                   detail={"key": key_text(key), "beta_e": plan.bitstring(bits), "window": [x.id for x in kw.events],
                           "counters": kw.counters(plan), "beta_s": plan.bitstring(kw.stats[0].beta_s)})
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY and len(self.windows) > 1:
            out.extend(self._sweep(now, e))
        st.seconds_pre += perf_counter() - t0 - (st.seconds_matcher - in_matcher)
        if self.buffered > self.limit:
            self.guard(self.buffered)  # type: ignore[misc]
        return out

    def _buffer_fast(self, e: Event, bits: int) -> list[Match]:
        """``_buffer`` for one clause with the NMC on, no trace and no ``on_window``: the same
        steps, statistics and matches, with the window's append, the counters' update, the
        NMC of each completed window and the removal of first(W) inlined."""
        if self.on_window is not None:
            return self._buffer_general(e, bits)
        t0 = perf_counter()
        st = self._stats
        in_matcher = st.seconds_matcher
        self._kept += 1
        key = self._key_of(e) if self._key_of is not None else None
        kw = self.windows.get(key)
        if kw is None:
            kw = self.windows[key] = KeyWindow(key, self.plan, self.t.literal, True)
            if key not in self._seen_keys:
                self._seen_keys.add(key)
                st.partitions += 1
        now = self._coord(e)
        out: list[Match] = []
        coords = kw.coords
        one = kw.one
        if coords and now - coords[0] >= self.plan.size:
            out = self._evict_fast(kw, now)
        kw.events.append(e)
        coords.append(now)
        kw.bits.append(bits)
        kw.marks.append(one.add(bits))  # type: ignore[union-attr]
        self.buffered += 1
        if self.buffered > st.peak_buffered:
            st.peak_buffered = self.buffered
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY and len(self.windows) > 1:
            out.extend(self._sweep(now, e))
        st.seconds_pre += perf_counter() - t0 - (st.seconds_matcher - in_matcher)
        if self.buffered > self.limit:
            self.guard(self.buffered)  # type: ignore[misc]
        return out

    def _evict_fast(self, kw: KeyWindow, now: float) -> list[Match]:
        """``_evict`` on the fast path: per window completed by ``now``, the NMC of the one
        clause ((4), (5), then the counters; ``ClauseStat.failed`` names a failure of (6)/(7)),
        maybe A (``_call``), then first(W) removed and the counters updated."""
        size = self.plan.size
        st = self._stats
        fails = st.nmc_fail
        one = kw.one
        assert one is not None
        cl = one.clause
        m, first_mask, mask = cl.m, cl.first_mask, cl.mask
        events, coords, bits, marks = kw.events, kw.coords, kw.bits, kw.marks
        remove = one.remove
        out: list[Match] = []
        n = len(events)
        while n and now - coords[0] >= size:
            st.windows_completed += 1
            b0 = bits[0]
            if n < m:
                fails["4"] += 1
            elif not b0 & first_mask:
                fails["5"] += 1
            elif one.beta_s & mask:
                fails[one.failed(n, b0)] += 1  # type: ignore[index]
            else:
                st.nmc_pass += 1
                out.extend(self._call(kw, n))
            events.popleft()
            coords.popleft()
            bits.popleft()
            counted, epochs = marks.popleft()
            if b0 & mask:
                remove(b0, counted, epochs)
            n -= 1
            self.buffered -= 1
        return out

    def _call(self, kw: KeyWindow, n: int) -> list[Match]:
        """A(P', W) on the window ``kw`` of ``n`` events, with its statistics."""
        return self._call_on(kw.events, kw.bits if self._needs_bits else None, n)  # A reads W in place (no copy)

    def _call_on(self, events: Sequence[Event], bits: Sequence[int] | None, n: int) -> list[Match]:
        """A(P', W) on the window of these ``n`` events and their β_e, with its statistics."""
        st = self._stats
        current_guard().tick()  # the run's guard (engine.memory): one tick per call of A
        t1 = perf_counter()
        found = self.call(events, bits)
        st.seconds_matcher += perf_counter() - t1
        st.calls += 1
        st.events_to_matcher += n
        st.matches += len(found)
        if not found:
            st.false_positives += 1
        return found

    def _evict(self, kw: KeyWindow, now: float, e: Event | None) -> list[Match]:
        size = self.plan.size
        out: list[Match] = []
        coords = kw.coords
        while coords and now - coords[0] >= size:
            out.extend(self._complete(kw, e))
            kw.pop()
            self.buffered -= 1
        return out

    def _sweep(self, now: float, e: Event) -> list[Match]:
        """Complete the windows of keys that received no event for a whole window (results
        are unchanged; memory and latency are bounded; notes §7.12)."""
        self._since_sweep = 0
        out: list[Match] = []
        for kw in list(self.windows.values()):
            if kw.coords and now - kw.coords[0] >= self.plan.size:
                if self.tracer is not None:
                    self.changed.add(kw.key)
                out.extend(self._evict(kw, now, e))
                if not kw.events:
                    del self.windows[kw.key]
        return out

    def _complete(self, kw: KeyWindow, e: Event | None) -> list[Match]:
        """W = kw is complete for matches starting at first(W): NMC, then maybe A."""
        st = self._stats
        st.windows_completed += 1
        n = len(kw.events)
        verdict: Verdict | None = None
        reporting = self.tracer is not None or self.on_window is not None
        if self.t.nmc:
            one = kw.one
            failed = one.failed(n, kw.bits[0]) if one is not None else first_failed(kw.stats, n, kw.bits[0])
            if failed is not None:
                st.nmc_fail[failed] += 1
                if reporting:
                    self._report(kw, nmc(self.plan, kw.stats, n, kw.bits[0], kw.events[0].id), None, e)
                return []
            st.nmc_pass += 1
            if reporting:
                verdict = PASSED
        t1 = perf_counter()
        found = self.call(kw.events, kw.bits if self._needs_bits else None)  # A reads W in place (no copy)
        st.seconds_matcher += perf_counter() - t1
        st.calls += 1
        st.events_to_matcher += n
        st.matches += len(found)
        if not found:
            st.false_positives += 1
        if reporting:
            self._report(kw, verdict, found, e)
        return found

    def _report(self, kw: KeyWindow, verdict: Verdict | None, found: list[Match] | None, e: Event | None) -> None:
        if self.on_window is not None:
            self.on_window(kw, verdict, found)
        tr = self.tracer
        if tr is None:
            return
        plan = self.plan
        first = kw.events[0]
        detail = {"key": key_text(kw.key), "window": [x.id for x in kw.events], "first": first.id,
                  "counters": kw.counters(plan), "beta_s": plan.bitstring(kw.stats[0].beta_s),
                  "beta_first": plan.bitstring(kw.bits[0]),
                  "verdict": verdict.to_json() if verdict else {"passed": True, "failed": None,
                                                                 "reason": "necessary conditions not checked"},
                  "called": found is not None, "matches": len(found) if found is not None else 0}
        run = f"W{first.id}"
        state = f"window {key_text(kw.key)}"
        ev = e.id if e is not None else None
        if found is None:
            tr.act("expire", run=run, state=state, event=ev, reason=verdict.reason if verdict else None, detail=detail)
            return
        tr.act("search", run=run, state=state, event=ev, detail=detail)
        for m in found:
            tr.act("match", run=run, state=state, event=ev, detail={"match": m.to_json()})
        tr.act("expire", run=run, state=state, event=ev,
               reason=f"first event e{first.id} removed after the call ({len(found)} match(es))", detail=detail)

    # ------------------------------------------------------------------ end of input

    def close(self) -> list[Match]:
        t0 = perf_counter()
        in_matcher = self._stats.seconds_matcher
        out: list[Match] = []
        for kw in list(self.windows.values()):
            out.extend(self._drain(kw))
        self.windows.clear()
        self._stats.seconds_pre += perf_counter() - t0 - (self._stats.seconds_matcher - in_matcher)
        return out

    def _drain(self, kw: KeyWindow) -> list[Match]:
        out: list[Match] = []
        if self.tracer is not None:
            self.changed.add(kw.key)
        tick = current_guard().tick  # the run's guard: one tick per window drained
        while kw.events:
            tick()
            if self.t.nmc and all(s.dead(len(kw.events)) for s in kw.stats):
                self._stats.drain_stopped += len(kw.events)
                if self.tracer is not None:
                    self.tracer.act("discard", state=f"window {key_text(kw.key)}",
                                    reason=f"drain stopped: {len(kw.events)} window(s) cannot hold a match "
                                           "(too few events or a zero counter, and removing events cannot change that)",
                                    detail={"key": key_text(kw.key), "window": [x.id for x in kw.events]})
                self.buffered -= len(kw.events)
                while kw.events:
                    kw.pop()
                break
            out.extend(self._complete(kw, None))
            kw.pop()
            self.buffered -= 1
        return out

    # ------------------------------------------------------------------ state for views

    def snapshot(self, key: Any) -> dict[str, Any]:
        """The window of ``key`` now: events, counters and β_s (for the trace buffer)."""
        kw = self.windows.get(key)
        if kw is None:
            return {"window": [], "counters": {}, "beta_s": None}
        return {"window": [e.id for e in kw.events], "counters": kw.counters(self.plan),
                "beta_s": self.plan.bitstring(kw.stats[0].beta_s)}

    def live_windows(self) -> Iterator[KeyWindow]:
        return iter(self.windows.values())


def key_text(key: Any) -> str:
    """A partition key for people: ``PID=1`` style values joined, ``all`` without a key."""
    if key is None:
        return "all"
    if isinstance(key, tuple):
        return ",".join(str(k) for k in key)
    return str(key)
