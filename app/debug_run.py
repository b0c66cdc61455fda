"""The Debug page's run: one untraced pre-pass (``engine.checkpoints.CheckpointedRun``) and
windows of traced steps read on demand.

Nothing here walks the whole trace: what the page shows about the whole run (the matches so
far, their numbers, the step that emitted each, the next step with output) comes from the
pre-pass (``run.matches``) through lists computed once and searched by bisection; what it
shows about a step comes from a window of :data:`WINDOW` traced steps around it, traced
again only when the step leaves the window. A match's path needs the steps from its first
event to its emission: that window is traced on its own (at most :data:`PATH_CAP` steps).

No streamlit here: the page keeps a :class:`DebugRun` in session state (``dbg_traced``).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.checkpoints import CheckpointedRun, MatchMark
from engine.events import Event
from engine.model import Pattern
from engine.trace import Action, Step, event_label
from visualizers import trace_view as TV

__all__ = ["DebugRun", "MatchPath", "WINDOW", "PATH_CAP", "window_bounds"]

WINDOW = 100        # traced steps kept around the current step (a new window traces a chunk or two:
BEHIND = 40         # the run keeps the chunks it traced) of which before it (stepping forward is common)
PATH_CAP = 2_000    # steps traced for one match's path (its first event .. its emission)
PATHS_KEPT = 16     # match paths cached per run


def window_bounds(k: int, total: int, size: int = WINDOW, behind: int = BEHIND) -> tuple[int, int]:
    """The window ``[a, b)`` of ``size`` steps holding step ``k``: ``behind`` steps before it
    (fewer at the start), the rest ahead; clipped to ``[0, total)``."""
    a = max(0, k - min(behind, size - 1))
    b = min(total, a + size)
    a = max(0, min(a, b - size))
    return a, b


@dataclass
class MatchPath:
    """The traced steps from a match's first event to the step that emitted it."""

    start: int                              # step index of steps[0]
    steps: list[Step]
    found: tuple[int, int, Action] | None   # the match action (index into ``steps``)
    moves: list[Action]                     # begin / take / proceed that built the match
    cut: bool                               # True when the span was longer than PATH_CAP


@dataclass
class DebugRun:
    """One pre-pass and what the views need from it (see the module)."""

    sig: tuple
    run: CheckpointedRun
    events: Sequence[Event]
    engine: str                 # the engine that ran (auto resolved; match-windows for Algorithm 1)
    requested: str              # the engine asked for (explanations run it the same way)
    seconds: float
    pattern: Pattern            # as run (window in the unit of ts)
    total_events: int           # events in the data (more than ``events`` when capped)
    time_is_datetime: bool = False
    seconds_to_ts: Any = 1      # the data's factor from seconds to its ts unit (another pattern is scaled by it)
    interval: bool = False
    match_windows: str = "auto"
    windows_reason: str = ""
    inner: str | None = None
    graph: Any = None
    buffer_kind: str | None = None
    explained: dict[Any, Any] = field(default_factory=dict)
    index_of: dict[Any, int] = field(default_factory=dict)       # event id -> step index
    seq_of: dict[Any, int] = field(default_factory=dict)         # event id -> seq (buffer drawing)
    canon: dict[Any, int] = field(default_factory=dict)          # match identity -> cep run's number
    marks: list[MatchMark] = field(default_factory=list)         # matches (not aggregate rows), in order
    rows: int = 0                                                # aggregate rows (AGG under A-Seq)
    _mark_steps: list[int] = field(default_factory=list)
    _by_number: dict[int, MatchMark] = field(default_factory=dict)
    _output_steps: list[int] = field(default_factory=list)       # steps that emitted anything, ascending
    _window: tuple[int, int, list[Step]] = (0, 0, [])
    _paths: dict[int, MatchPath] = field(default_factory=dict)
    traced_windows: int = 0                                       # how many windows were traced (tests)

    def __post_init__(self) -> None:
        self.index_of = {e.id: k for k, e in enumerate(self.events)}
        self.seq_of = {e.id: e.seq for e in self.events}
        for mk in self.run.matches:
            if TV.is_match(mk.match):
                self.marks.append(mk)
                self.canon.setdefault(TV.match_key(mk.match), mk.number)
                self._by_number[mk.number] = mk
            else:
                self.rows += 1
        self._mark_steps = [mk.step for mk in self.marks]
        self._output_steps = sorted({mk.step for mk in self.run.matches})

    # ------------------------------------------------------------------ the whole run
    @property
    def total_steps(self) -> int:
        """Event steps plus the close step (the slider's range)."""
        return self.run.total_steps

    @property
    def close_step(self) -> int:
        return self.total_steps - 1

    def label(self, k: int) -> str:
        """``event #812 (id 4711)``, or ``end of stream`` for the close step."""
        if k >= len(self.events):
            return "end of stream"
        return event_label(k, self.events[k].id)

    def event_name(self, event_id: Any) -> str:
        """``#812 (id 4711)`` for an event id (``e4711`` for an id not in the stream)."""
        k = self.index_of.get(event_id)
        return f"#{k + 1:,} (id {event_id})" if k is not None else f"e{event_id}"

    def number(self, m: dict[str, Any]) -> int | None:
        """cep run's number of match ``m``."""
        return self.canon.get(TV.match_key(m))

    @property
    def by_number(self) -> dict[int, dict[str, Any]]:
        """cep run's number -> match, for every match (a new dict: for tests and exports, not
        for the step views)."""
        return {mk.number: mk.match for mk in self.marks}

    def mark(self, number: int) -> MatchMark | None:
        return self._by_number.get(number)

    def so_far(self, k: int) -> list[MatchMark]:
        """The matches emitted at or before step ``k`` (a slice: no copy of the events)."""
        return self.marks[: bisect.bisect_right(self._mark_steps, k)]

    def count_so_far(self, k: int) -> int:
        return bisect.bisect_right(self._mark_steps, k)

    def at(self, k: int) -> list[MatchMark]:
        """The matches step ``k`` emitted."""
        return self.marks[bisect.bisect_left(self._mark_steps, k): bisect.bisect_right(self._mark_steps, k)]

    def next_output(self, k: int, direction: int) -> int | None:
        """The next (``direction`` 1) or previous (-1) step after / before ``k`` that emitted a
        match or an aggregate row; None when there is none."""
        out = self._output_steps
        if direction > 0:
            i = bisect.bisect_right(out, k)
            return out[i] if i < len(out) else None
        i = bisect.bisect_left(out, k) - 1
        return out[i] if i >= 0 else None

    def step_of_id(self, event_id: Any) -> int | None:
        """The step index of the event with id ``event_id`` (ids compared as text as well:
        a person types them)."""
        if event_id in self.index_of:
            return self.index_of[event_id]
        text = str(event_id).strip()
        for cand in (text, _int_or_none(text)):
            if cand is not None and cand in self.index_of:
                return self.index_of[cand]
        return None

    # ------------------------------------------------------------------ windows of steps
    def window(self, k: int) -> tuple[int, list[Step]]:
        """``(a, steps)``: traced steps ``a .. a+len(steps)-1`` holding step ``k`` (the cached
        window when it holds ``k``, else a new one)."""
        a, b, steps = self._window
        if not (a <= k < b):
            a, b = window_bounds(k, self.total_steps, WINDOW, BEHIND)
            steps = self.run.steps(a, b)
            self._window = (a, b, steps)
            self.traced_windows += 1
        return a, steps

    def step(self, k: int) -> Step:
        a, steps = self.window(k)
        return steps[k - a]

    def first_step(self, m: dict[str, Any]) -> int | None:
        """The step of the match's first event (in stream order)."""
        ks = [self.index_of[i] for i in TV.match_ids(m) if i in self.index_of]
        return min(ks) if ks else None

    def path(self, number: int) -> MatchPath | None:
        """The traced steps of match ``number`` (from its first event, at most PATH_CAP steps,
        to its emission), its match action and its moves; cached."""
        got = self._paths.get(number)
        if got is not None:
            return got
        mk = self.mark(number)
        if mk is None:
            return None
        first = self.first_step(mk.match)
        end = mk.step + 1
        start = first if first is not None and first < end else mk.step
        cut = end - start > PATH_CAP
        start = max(start, end - PATH_CAP)
        a, b, wsteps = self._window
        steps = wsteps[start - a: end - a] if a <= start and end <= b else self.run.steps(start, end)
        found = TV.match_action(steps, mk.match)
        moves = TV.match_path(steps, mk.match, found) if found is not None else []
        got = MatchPath(start, steps, found, moves, cut)
        if len(self._paths) >= PATHS_KEPT:
            self._paths.pop(next(iter(self._paths)))
        self._paths[number] = got
        return got

    def events_frame_rows(self, a: int, b: int) -> list[dict[str, Any]]:
        """Rows of the events ``a .. b-1``: event #, id, type, ts, the attributes (full values)."""
        rows = []
        for k in range(max(0, a), min(b, len(self.events))):
            e = self.events[k]
            r: dict[str, Any] = {"event #": k + 1, "id": str(e.id), "type": e.type, "ts": e.ts}
            r.update({str(n): v for n, v in e.attrs.items() if n not in r})
            rows.append(r)
        return rows


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None
