"""Algorithm 1's buffered step for a whole batch, where the window's necessary conditions can
be read off arrays: one window (no partition key), one clause whose variables have no
predecessor (an event set: the paper's P_set, ``AND(v1, ..., vk)``), no negated variable, the
NMC on, no trace and no per-window report.

There the summary statistic is exact and never reset (notes §4.5: the counters of B1 are never
reset), so cnt_v of a window is the number of its events whose β_e has bit v, and conditions
(6)+(7) hold iff every variable has a candidate in the window (a failure is always (6)). For the
events of a batch (after the filter) and the events the window already holds:

- the window of the i-th buffered event completes at the first later arrival ``a`` with
  ``coord(a) - coord(i) >= WITHIN`` (the per-event test, the same float subtraction; coordinates
  never decrease, so that arrival is found by ``searchsorted`` and then checked exactly);
- the window is then the events ``i .. a-1``; (4) is ``a - i >= m``, (5) the first event's bits,
  (6) per variable the next candidate at or after ``i`` coming before ``a``;
- A is called, in stream order, only on the windows that pass; the statistics (windows completed,
  each condition's failures, passes, peak buffered, events kept) are counted as the per-event
  step counts them, and the window and its statistic are left as that step leaves them.

This inlines ``MatchWindows._buffer_fast`` / ``_evict_fast`` (window append, counters, the NMC of
each completed window, removal of first(W)) for such patterns; parity with feeding event by
event (matches in order, statistics, the window left behind) and with the oracle:
tests/engines/windows/test_batch.py. A batch that would raise the buffer guard is left to the
per-event step (the guard then fires at the same event).

``feed_columns`` does the same for rows still held as columns (``EventColumns``: ``cep run``'s
lazy load), where β_e reads one attribute: β_e once per distinct (type, value), and ``Event``
objects built only for the windows A is called on and the events the window keeps.
"""
from __future__ import annotations

from collections import deque
from itertools import compress
from time import perf_counter
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from engine.engines.windows.statistic import ClauseStat

if TYPE_CHECKING:  # pragma: no cover
    from engine.engines.windows.algorithm import MatchWindows
    from engine.events import Event
    from engine.match import Match

__all__ = ["batch_applies", "feed_batch", "feed_columns", "only_attribute"]

#: coordinates whose differences float64 computes as Python does (integers beyond it may round)
_EXACT = 2.0 ** 53


def batch_applies(algo: MatchWindows) -> bool:
    """Whether ``feed_batch`` may replace the per-event buffered step of ``algo`` (see the module)."""
    plan, t = algo.plan, algo.t
    if algo.tracer is not None or not algo._fast or algo._key_of is not None or t.literal or not t.filter:
        return False
    if len(plan.clauses) != 1 or any(v.negated for v in plan.vars) or len(plan.vars) > 62:
        return False
    cl = plan.clauses[0]
    return not any(cl.pred_of_bit.values()) and not any(cl.succ_of_bit.values())


def feed_batch(algo: MatchWindows, keep: Sequence[Event], out: list[Match]) -> int | None:
    """Steps 1-4 of Algorithm 1 for the events ``keep`` (those the batch prefilter kept) on the
    one window: β_e of each, then the windows they complete, as the per-event step does them.
    Returns the number of events β_e filtered out, or None (nothing done) when the batch must go
    event by event (a coordinate that is not a number, coordinates that decrease, or the buffer
    guard's limit reached inside the batch)."""
    flags = list(map(algo._beta, keep))
    events = list(compress(keep, flags))
    filtered = len(keep) - len(events)
    if not events:
        return filtered
    done = _run_batch(algo, list(map(algo._coord, events)), [b for b in flags if b],
                      lambda positions: [events[p] for p in positions], out)
    return None if done is None else filtered


def _run_batch(algo: MatchWindows, coords_new: list[Any], bits_new: list[int],
               events_at: Any, out: list[Match]) -> bool | None:
    """The windows the new buffered events (their coordinates and β_e) complete, as the per-event
    step does them; ``events_at(positions)`` gives the new events at these positions (made when
    A or the window needs them). None (nothing done) where the batch must go event by event."""
    t0 = perf_counter()
    st = algo._stats
    in_matcher = st.seconds_matcher
    kw = algo.windows.get(None)
    held = len(kw.events) if kw is not None else 0
    coords_list = (list(kw.coords) if kw is not None else []) + coords_new
    try:
        coords = np.fromiter(coords_list, dtype=np.float64, count=len(coords_list))
    except (TypeError, ValueError, OverflowError):
        return None
    total = len(coords)
    if not np.all(np.abs(coords) < _EXACT) or (total > 1 and not np.all(coords[1:] >= coords[:-1])):
        return None
    size = algo.plan.size
    ends = _completions(coords, size, held)
    done = int(np.count_nonzero(ends < total))  # windows completed in this batch: the first ``done``
    # buffered after each arrival: the arrivals so far minus the windows completed by then
    arrivals = np.arange(held, total)
    buffered = arrivals + 1 - np.searchsorted(ends[:done], arrivals, side="right")
    peak = int(buffered.max())
    if peak > algo.limit:
        return None
    if kw is None:
        kw = _new_window(algo)
    all_bits_list = list(kw.bits) + bits_new
    bits = np.fromiter(all_bits_list, dtype=np.int64, count=total)
    cl = kw.one.clause  # type: ignore[union-attr]
    starts = np.arange(done)
    ends_done = ends[:done]
    sizes = ends_done - starts
    too_few = sizes < cl.m
    first_fails = (bits[:done] & cl.first_mask) == 0
    every = np.ones(done, dtype=bool)
    index = np.arange(total)
    for v in _bit_positions(cl.mask):
        at = np.where(bits & (1 << v), index, total)
        following = np.minimum.accumulate(at[::-1])[::-1]  # the next candidate of v at or after each event
        every &= following[:done] < ends_done
    fails = st.nmc_fail
    fails["4"] += int(np.count_nonzero(too_few))
    fails["5"] += int(np.count_nonzero(~too_few & first_fails))
    fails["6"] += int(np.count_nonzero(~too_few & ~first_fails & ~every))
    passed = np.flatnonzero(~too_few & ~first_fails & every)
    st.windows_completed += done
    st.nmc_pass += len(passed)
    algo._kept += len(coords_new)
    algo._since_sweep += len(coords_new)  # (one window: never swept)
    if peak > st.peak_buffered:
        st.peak_buffered = peak
    # the events read: those of the windows A is called on, and those the window keeps
    read = np.zeros(total + 1, dtype=np.int64)
    np.add.at(read, passed, 1)
    np.add.at(read, ends_done[passed], -1)
    read[done] += 1
    needed = np.flatnonzero(np.cumsum(read[:total]) > 0)
    new = needed[needed >= held]
    all_events: list[Any] = list(kw.events) + [None] * len(coords_new)
    for p, e in zip(new.tolist(), events_at((new - held).tolist())):
        all_events[p] = e
    head = 0
    try:
        call = algo._call_on
        for i in passed.tolist():
            head = i
            end = int(ends_done[i])
            out.extend(call(all_events[i:end], all_bits_list[i:end], end - i))
        head = done
    finally:  # the window as the per-event step leaves it (after an exception: from the window being called)
        kept = all_events[head:]
        if any(e is None for e in kept):  # (after an exception only) the rest of the batch's events
            missing = [p for p in range(head, total) if all_events[p] is None]
            for p, e in zip(missing, events_at([p - held for p in missing])):
                all_events[p] = e
            kept = all_events[head:]
        _refill(kw, kept, coords_list[head:], all_bits_list[head:])
        algo.buffered = total - head
        st.seconds_pre += perf_counter() - t0 - (st.seconds_matcher - in_matcher)
    return True


def _completions(coords: np.ndarray, size: float, held: int) -> np.ndarray:
    """Per buffered event i, the first arrival a (a >= held, a > i) with ``coords[a] - coords[i]
    >= size``, or ``len(coords)`` when no arrival of the batch completes its window. The
    difference is monotone in a (coordinates never decrease): ``searchsorted`` finds the place
    up to rounding, then the exact test moves it."""
    total = len(coords)
    i = np.arange(total)
    low = np.maximum(i + 1, held)
    with np.errstate(invalid="ignore", over="ignore"):
        ends = np.maximum(np.searchsorted(coords, coords + size, side="left"), low)
    while True:  # back while the arrival before also completes the window
        prev = np.maximum(ends - 1, 0)
        back = (ends > low) & (coords[prev] - coords >= size)
        if not back.any():
            break
        ends = np.where(back, ends - 1, ends)
    while True:  # on while the arrival does not complete it
        cur = np.minimum(ends, total - 1)
        on = (ends < total) & ~(coords[cur] - coords >= size)
        if not on.any():
            break
        ends = np.where(on, ends + 1, ends)
    return ends


def _bit_positions(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def _new_window(algo: MatchWindows) -> Any:
    """The window of the one key (None), created as the per-event step creates it."""
    from engine.engines.windows.algorithm import KeyWindow

    kw = algo.windows[None] = KeyWindow(None, algo.plan, algo.t.literal, True)
    if None not in algo._seen_keys:
        algo._seen_keys.add(None)
        algo._stats.partitions += 1
    return kw


def _refill(kw: Any, events: list[Any], coords: list[Any], bits: list[int]) -> None:
    """The window holding ``events`` and a statistic counted afresh over them: for a clause
    without predecessors that is the state the per-event additions and removals leave (counters
    = candidates, never reset, every epoch 0)."""
    stat = ClauseStat(kw.one.clause, len(kw.one.cnt), kw.one.literal)
    kw.stats = [stat]
    kw.one = stat
    kw.events = deque(events)
    kw.coords = deque(coords)
    kw.bits = deque(bits)
    kw.marks = deque(map(stat.add, bits))


def only_attribute(algo: MatchWindows) -> str | None:
    """The one attribute every variable's properties read (none of the built-in fields), when β_e
    of an event depends only on its type and that attribute's value; else None."""
    from engine.engines.ses.event_sets import local_conjuncts
    from engine.events.records import BUILTIN_FIELDS
    from engine.expr import Ref

    from engine.model import ANY_TYPE

    plan = algo.plan
    if any(v.type == ANY_TYPE for v in plan.vars):
        return None
    read = {n.attr for nodes in local_conjuncts(plan.pattern).values() for e in nodes for n in e.walk()
            if isinstance(n, Ref)}
    if len(read) != 1 or read & set(BUILTIN_FIELDS):
        return None
    return next(iter(read))


def feed_columns(algo: MatchWindows, columns: Any, start: int, stop: int, attr: str, out: list[Match]) -> bool:
    """``feed_batch`` for the rows ``start:stop`` of an ``EventColumns`` without building their
    events first: β_e once per distinct (type, value of ``attr``) on one event built for it (β_e
    depends on nothing else: ``only_attribute``), then only the events that A reads (the windows
    that pass the NMC) and that the window keeps are built, all in one ``assemble_events``. False
    (nothing done) where ``feed_batch`` would go event by event."""
    from engine.events.records import assemble_events

    types = columns.types[start:stop]
    values = columns.attribute(attr, start, stop)
    beta = algo._beta
    keys = list(zip(types, map(type, values), values))
    try:  # the first row of each distinct key (the last assignment of a key wins: rows reversed)
        first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))
    except TypeError:  # an unhashable value: each row's own event
        flags = [beta(columns.event(start + k)) for k in range(len(keys))]
    else:
        memo = {key: beta(columns.event(start + k)) for key, k in first.items()}
        flags = list(map(memo.__getitem__, keys))
    rows = list(compress(range(start, stop), flags))
    filtered = len(flags) - len(rows)
    if not rows:
        algo._filtered += filtered
        return True
    coord_of = columns.seqs if algo.plan.count else columns.ts
    coords_new = list(map(coord_of.__getitem__, rows))
    bits_new = list(filter(None, flags))

    def build(positions: list[int]) -> list[Any]:
        picked = [rows[p] for p in positions]
        return assemble_events([columns.ids[r] for r in picked], [columns.types[r] for r in picked],
                               [columns.ts[r] for r in picked], columns.names,
                               [[col[r] for r in picked] for col in columns.values],
                               seqs=[columns.seqs[r] for r in picked])

    done = _run_batch(algo, coords_new, bits_new, build, out)
    if done is None:
        return False
    algo._filtered += filtered
    return True
