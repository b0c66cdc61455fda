"""Any point of a long run, fast: an untraced run with matcher snapshots, traced on demand.

A trace costs 10-80x the untraced run, so a debugger cannot trace 100k events to show
event 81,200. :class:`CheckpointedRun` runs the matcher **untraced** once over the whole
stream (the *pre-pass*), keeps every match with the step that emitted it, and keeps a
snapshot of the matcher (``copy.deepcopy``) every ``every`` events. To show steps
``start..stop`` it restores the snapshot at or before ``start``, feeds the events between
untraced, attaches a :class:`~engine.trace.Recorder` (``Matcher.attach_tracer``) and
records the window. The steps equal the same steps of a trace from the start
(tests/test_checkpoints.py checks it for every engine on random cases).

Indices: a step index ``k`` is 0-based (``Step.step``); ``k == len(events)`` is the close
step. People read ``event #k+1 (id X)`` (:func:`engine.trace.event_label`).
"""
from __future__ import annotations

import bisect
import copy
import threading
import time
import types
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

from engine.events import Event
from engine.memory import current_guard, guarding
from engine.model import Pattern
from engine.trace import Recorder, Step, apply_buffer_changes, record

__all__ = ["CheckpointedRun", "MatchMark", "snapshot"]

_COPYING = threading.Lock()


def _copy_function(f: types.FunctionType, memo: dict[int, Any]) -> Any:
    """A closure copied with its cells (a module-level function, which has none, is itself)."""
    if not f.__closure__:
        return f
    cells = tuple(types.CellType(copy.deepcopy(c.cell_contents, memo)) if _filled(c) else types.CellType()
                  for c in f.__closure__)
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, cells)
    g.__kwdefaults__ = f.__kwdefaults__
    g.__dict__.update(f.__dict__)
    memo[id(f)] = g
    return g


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def snapshot(matcher: Any) -> Any:
    """An independent copy of ``matcher``'s whole state. ``copy.deepcopy`` shares functions, but
    engines keep closures over their own state (a compiled gate that appends to the matcher's
    windows, a counter in a cell): those are copied with their cells, so that feeding the copy
    never touches the original (tests/test_checkpoints.py feeds two copies of one snapshot)."""
    with _COPYING:
        table = copy._deepcopy_dispatch  # type: ignore[attr-defined]
        before = table[types.FunctionType]
        table[types.FunctionType] = _copy_function
        try:
            return copy.deepcopy(matcher)  # a run's guard is shared, not copied (engine.memory)
        finally:
            table[types.FunctionType] = before


class MatchMark:
    """A match of the pre-pass: its 1-based number in ``cep run``'s output, the step index
    that emitted it (``len(events)`` for the close step) and ``match``, the match in ``cep run
    --format jsonl`` form (``{"match": {var: [ids]}, ...}``; an AGG row for A-Seq), made when
    first read (a run of 100k events may hold 300k matches; most are never looked at)."""

    __slots__ = ("number", "step", "_raw", "_json")

    def __init__(self, number: int, step: int, raw: Any) -> None:
        self.number = number
        self.step = step
        self._raw = raw
        self._json: dict[str, Any] | None = None

    @property
    def match(self) -> dict[str, Any]:
        if self._json is None:
            self._json = self._raw.to_json()
        return self._json

    @property
    def raw(self) -> Any:
        """The engine's own match object (``engine.match.Match`` or an AGG row)."""
        return self._raw

    def __repr__(self) -> str:
        return f"MatchMark(#{self.number} at step {self.step})"


CHUNK = 50              # steps traced at a time (a window is read in whole chunks), at most
MIN_CHUNK = 10          # and at least
CHUNK_SECONDS = 0.06    # the chunk's size aims at tracing it in this time (a step of the page is bounded)
CACHED_CHUNKS = 64      # traced chunks kept (the steps around the places last visited)
CURSORS = 4             # traced matchers kept where a chunk ended (reading on continues one)
PROBE_STEPS = 20        # steps traced after the pre-pass to measure what a traced step costs
FIRST_EVERY = 1_000     # events between the first snapshots; then chosen from their cost
SNAPSHOT_SHARE = 0.15   # snapshots may cost this share of the pre-pass's feeding time
MAX_EVERY = 20_000      # at most this many events are fed untraced to reach a window


@dataclass
class _Chunk:
    steps: list[Step]
    buffer: dict[str, dict[str, Any]] | None  # the whole buffer before its first step (engines that have one)


class CheckpointedRun:
    """One run of ``choice`` (an ``engine.run_choice.RunChoice``) over ``events``.

    ``matches``: every match in emission order (``cep run``'s order and numbering).
    ``seconds``: the pre-pass's time; ``snapshots``: how many were kept. ``options`` go to the
    engine as ``cep run`` gives them (``RunChoice.build``). ``steps(start, stop)``
    traces a window; ``buffer_at(k)`` the NFA^b shared buffer after step ``k``. ``guard`` (an
    ``engine.memory`` guard) is the current guard while the pre-pass runs; a window runs under
    the guard current where it is asked for (``engine.memory.guarding``), since a page reads
    windows long after the job that made the pre-pass has ended.
    """

    def __init__(self, choice: Any, pattern: Pattern, events: Sequence[Event], *, max_runs: int | None = None,
                 guard: Any = None, every: int | None = None, chunk: int | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.choice = choice
        self.pattern = pattern
        self.events = events
        self.max_runs = max_runs
        self.guard = guard
        self.options = dict(options or {})  # the engine's own options (e.g. the interval engines' u_max)
        self.matches: list[MatchMark] = []
        self._match_steps: list[int] = []
        self._snapshots: list[tuple[int, Any]] = []   # (events fed, matcher) ascending
        self._chunks: OrderedDict[int, _Chunk] = OrderedDict()
        # traced matchers left at the end of the chunks last traced (next step -> matcher): reading
        # on from one continues it instead of restoring a snapshot
        self._cursors: OrderedDict[int, Any] = OrderedDict()
        self._fixed_every = every
        self.chunk = chunk or CHUNK
        t0 = time.perf_counter()
        with guarding(guard):
            self._prepass()
            if chunk is None:
                self.chunk = self._chunk_size()
        self.seconds = time.perf_counter() - t0

    # ------------------------------------------------------------------ pre-pass
    def _build(self) -> Any:
        return self.choice.build(self.pattern, max_runs=self.max_runs, **self.options)

    def _prepass(self) -> None:
        m = self._build()
        events = self.events
        n = len(events)
        every = self._fixed_every or FIRST_EVERY
        tick = current_guard().tick
        count = 0
        k = 0
        feed_seconds = snap_seconds = 0.0
        while True:
            t = time.perf_counter()
            self._snapshots.append((k, snapshot(m)))
            snap_seconds += time.perf_counter() - t
            stop = min(n, k + every)
            t = time.perf_counter()
            for j in range(k, stop):
                tick()
                for x in m.feed(events[j]):
                    count += 1
                    self.matches.append(MatchMark(count, j, x))
            feed_seconds += time.perf_counter() - t
            k = stop
            if k >= n:
                break
            if self._fixed_every is None and feed_seconds > 0:
                # keep the snapshots' cost near SNAPSHOT_SHARE of the feeding's
                per_event = feed_seconds / k
                per_snapshot = snap_seconds / len(self._snapshots)
                every = int(min(MAX_EVERY, max(FIRST_EVERY, per_snapshot / (SNAPSHOT_SHARE * per_event))))
        for x in m.close():
            count += 1
            self.matches.append(MatchMark(count, n, x))
        self._match_steps = [mk.step for mk in self.matches]
        self._snapshot_at = [k for k, _m in self._snapshots]  # their positions, for bisect

    def _chunk_size(self) -> int:
        """Steps per chunk: as many as trace in about CHUNK_SECONDS, measured on PROBE_STEPS
        steps from the middle snapshot (between MIN_CHUNK and CHUNK)."""
        at, snap = self._snapshots[len(self._snapshots) // 2]
        stop = min(len(self.events), at + PROBE_STEPS)
        if stop <= at:
            return CHUNK
        m = snapshot(snap)
        m.attach_tracer(Recorder(), self.events[at - 1] if at else None)
        t = time.perf_counter()
        for _step in record(m, self.events[at:stop], limit=None, start=at, close=False):
            pass
        per_step = (time.perf_counter() - t) / (stop - at)
        return max(MIN_CHUNK, min(CHUNK, int(CHUNK_SECONDS / per_step) if per_step > 0 else CHUNK))

    # ------------------------------------------------------------------ reading
    @property
    def total_steps(self) -> int:
        """Event steps plus the close step."""
        return len(self.events) + 1

    @property
    def snapshots(self) -> int:
        return len(self._snapshots)

    def matches_until(self, k: int) -> list[MatchMark]:
        """The matches emitted at or before step ``k``."""
        return self.matches[: bisect.bisect_right(self._match_steps, k)]

    def matches_at(self, k: int) -> list[MatchMark]:
        """The matches step ``k`` emitted."""
        lo = bisect.bisect_left(self._match_steps, k)
        hi = bisect.bisect_right(self._match_steps, k)
        return self.matches[lo:hi]

    def count_until(self, k: int) -> int:
        """How many matches were emitted at or before step ``k``."""
        return bisect.bisect_right(self._match_steps, k)

    def steps(self, start: int, stop: int) -> list[Step]:
        """Steps ``start .. stop-1`` of the trace from the start (clipped to ``0 .. total_steps``)."""
        start, stop = max(0, start), min(stop, self.total_steps)
        if start >= stop:
            return []
        out: list[Step] = []
        size = self.chunk
        for c in range(start // size, (stop - 1) // size + 1):
            chunk = self._chunk(c)
            lo = c * size
            out.extend(chunk.steps[max(0, start - lo): stop - lo])
        return out

    def step(self, k: int) -> Step:
        """Step ``k`` (0-based; ``len(events)`` is the close step)."""
        got = self.steps(k, k + 1)
        if not got:
            raise IndexError(f"step {k} is outside 0..{self.total_steps - 1}")
        return got[0]

    def buffer_at(self, k: int) -> dict[str, dict[str, Any]]:
        """The NFA^b shared buffer after step ``k`` (``engine.trace.buffer_at``'s form): the
        buffer before ``k``'s chunk, read from the matcher, with the chunk's changes applied."""
        c = k // self.chunk
        chunk = self._chunk(c)
        entries = {eid: {**e, "preds": list(e["preds"])} for eid, e in (chunk.buffer or {}).items()}
        return apply_buffer_changes(entries, chunk.steps[: k - c * self.chunk + 1])

    # ------------------------------------------------------------------ tracing a chunk
    def _chunk(self, c: int) -> _Chunk:
        got = self._chunks.get(c)
        if got is not None:
            self._chunks.move_to_end(c)
            return got
        got = self._trace_chunk(c)
        self._chunks[c] = got
        while len(self._chunks) > CACHED_CHUNKS:
            self._chunks.popitem(last=False)
        return got

    def _trace_chunk(self, c: int) -> _Chunk:
        lo, hi = c * self.chunk, min((c + 1) * self.chunk, self.total_steps)
        n = len(self.events)
        m = self._cursors.pop(lo, None)
        if m is not None:
            rec = m.tracer
        else:
            i = bisect.bisect_right(self._snapshot_at, lo) - 1
            at, snap = self._snapshots[i]
            m = snapshot(snap)
            tick = current_guard().tick
            for j in range(at, min(lo, n)):
                tick()
                m.feed(self.events[j])
            rec = Recorder()
            m.attach_tracer(rec, self.events[lo - 1] if lo else None)
        buffer_fn = getattr(m, "trace_buffer", None)
        buffer = buffer_fn() if buffer_fn is not None else None
        steps = list(record(m, self.events[lo:min(hi, n)], limit=None, start=lo, close=hi > n))
        if hi <= n:
            self._cursors[hi] = m
            while len(self._cursors) > CURSORS:
                self._cursors.popitem(last=False)
        return _Chunk(steps, buffer)
