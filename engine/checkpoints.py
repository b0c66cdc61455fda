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
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.events import Event
from engine.model import Pattern
from engine.trace import Recorder, Step, record

__all__ = ["CheckpointedRun", "MatchMark"]


@dataclass(frozen=True, slots=True)
class MatchMark:
    """A match of the pre-pass: its 1-based number in ``cep run``'s output, the step index
    that emitted it (``len(events)`` for the close step) and the match in ``cep run --format
    jsonl`` form (``{"match": {var: [ids]}, ...}``; an AGG row for A-Seq)."""

    number: int
    step: int
    match: dict[str, Any]


@dataclass
class CheckpointedRun:
    """One run of ``choice`` (an ``engine.run_choice.RunChoice``) over ``events``.

    ``matches``: every match in emission order (``cep run``'s order and numbering).
    ``seconds``: the pre-pass's time. ``steps(start, stop)`` traces a window.
    """

    choice: Any
    pattern: Pattern
    events: Sequence[Event]
    every: int = 0                       # events between snapshots; 0 = chosen from the pre-pass's cost
    max_runs: int | None = None
    guard: Any = None
    matches: list[MatchMark] = field(default_factory=list)
    seconds: float = 0.0
    _snapshots: list[tuple[int, Any]] = field(default_factory=list)  # (events fed, matcher) ascending
    _match_steps: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        t0 = time.perf_counter()
        self._prepass()
        self.seconds = time.perf_counter() - t0

    # ------------------------------------------------------------------ pre-pass
    def _build(self, tracer: Any = None) -> Any:
        return self.choice.build(self.pattern, tracer=tracer, max_runs=self.max_runs, guard=self.guard)

    def _prepass(self) -> None:
        # naive first version: one traced run, kept whole (replaced by snapshots below)
        steps = list(record(self._build(Recorder()), self.events, limit=None))
        self._all = steps
        n = 0
        for k, s in enumerate(steps):
            for m in s.matches:
                n += 1
                self.matches.append(MatchMark(n, k, m))
        self._match_steps = [m.step for m in self.matches]

    # ------------------------------------------------------------------ reading
    @property
    def total_steps(self) -> int:
        """Event steps plus the close step."""
        return len(self.events) + 1

    def steps(self, start: int, stop: int) -> list[Step]:
        """Steps ``start .. stop-1`` of the trace from the start (``stop`` at most
        ``total_steps``)."""
        start, stop = max(0, start), min(stop, self.total_steps)
        return self._all[start:stop]

    def matches_until(self, k: int) -> list[MatchMark]:
        """The matches emitted at or before step ``k``."""
        return self.matches[: bisect.bisect_right(self._match_steps, k)]

    def matches_at(self, k: int) -> list[MatchMark]:
        """The matches step ``k`` emitted."""
        lo = bisect.bisect_left(self._match_steps, k)
        hi = bisect.bisect_right(self._match_steps, k)
        return self.matches[lo:hi]
