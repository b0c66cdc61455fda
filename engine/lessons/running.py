"""Running a lesson's pattern, guarded: the matches (or an AGG pattern's rows) as ``cep run``
finds them, or a plain message when the run cannot be made or was stopped.

Every run here has a guard (``engine.memory.MemoryGuard``) with a time limit and a memory
limit, current for the whole run (``engine.memory.guarding``), and the engine's own state
limit: a runaway pattern stops with a message, never hangs.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.events import Event
from engine.model import Pattern

__all__ = ["Limits", "RunOutcome", "run_pattern", "DEFAULT_LIMITS"]


@dataclass(frozen=True)
class Limits:
    """A run's limits: seconds, resident memory in bytes (None: the default) and live runs."""

    seconds: float = 10.0
    memory: int | None = None
    max_runs: int | None = 200_000


DEFAULT_LIMITS = Limits()


@dataclass
class RunOutcome:
    """One run: the engine that ran, the matches (``cep run``'s order) or the AGG rows, the
    matcher's statistics, and ``error`` (a message) when it could not run or was stopped."""

    engine: str
    matches: list[Any] = field(default_factory=list)
    rows: list[Any] | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    requested: str = "auto"
    match_windows: str = "auto"
    inner: str | None = None
    rates: Any = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def match_dicts(self) -> list[dict[str, list[Any]]]:
        """The matches as ``{var: [ids]}``."""
        return [m.as_dict() for m in self.matches]

    def engine_run(self) -> Any:
        """This run as ``engine.explain.common.EngineRun`` (so explanations reuse it)."""
        from engine.explain.common import EngineRun

        return EngineRun(self.engine, list(self.matches), self.error, self.rates, self.requested,
                         self.match_windows, self.inner)


def _guard(limits: Limits, holds: Any) -> Any:
    from engine.memory import MemoryGuard, default_limit

    return MemoryGuard(limits.memory or default_limit(), time_limit=limits.seconds, every=64, holds=holds,
                       interval=0.05)


def run_pattern(pattern: Any, events: Sequence[Event], engine: str = "auto", match_windows: str = "auto",
                limits: Limits = DEFAULT_LIMITS) -> RunOutcome:
    """Run ``pattern`` over ``events`` as ``cep run`` runs it (a MATCH_RECOGNIZE query, an
    ``engine.lessons.sql.LessonQuery``, on the events as a table; else ``engine.run_choice.choose_run``
    with the data's type rates for ``auto``; interval data on the interval engines; an AGG
    pattern's rows by ``engine.engines.aseq``), under ``limits``."""
    from engine.match import EngineUnsupported, StateExplosion
    from engine.memory import RunStopped, guarding
    from engine.run_choice import choose_run

    events = list(events)
    from engine.lessons.sql import LessonQuery, run_query_outcome

    if isinstance(pattern, LessonQuery):
        return run_query_outcome(pattern, events, engine, limits)
    interval = any(e.lower is not None for e in events)
    rates = dict(Counter(e.type for e in events)) if engine == "auto" else None
    state: dict[str, Any] = {}
    guard = _guard(limits, lambda: f"{len(state.get('out', []))} results so far")
    if pattern.aggregate is not None:
        from engine.engines.aseq.engine import make_aggregator

        out = RunOutcome("aseq" if engine == "auto" else engine, rows=[], requested=engine,
                         match_windows=match_windows, rates=rates)
        try:
            with guarding(guard):
                m: Any = make_aggregator(pattern, engine)
                rows: list[Any] = state.setdefault("out", [])
                for e in events:
                    rows.extend(m.feed(e))
                    guard.tick()
                rows.extend(m.close())
            out.rows = rows
            out.stats = m.stats.as_dict()
        except (EngineUnsupported, StateExplosion, RunStopped, ValueError) as err:
            out.error = _stopped(err)
        return out
    try:
        choice = choose_run(pattern, engine, match_windows, rates=rates, interval=interval)
    except EngineUnsupported as err:
        return RunOutcome(engine, error=str(err), requested=engine, match_windows=match_windows)
    out = RunOutcome(choice.engine, requested=engine, match_windows=match_windows, inner=choice.inner, rates=rates)
    matcher: Any = None
    try:
        with guarding(guard):
            matcher = choice.build(pattern, max_runs=limits.max_runs) if _takes_max_runs(choice) \
                else choice.build(pattern)
            found: list[Any] = state.setdefault("out", [])
            for e in events:
                got = matcher.feed(e)
                found.extend(got)
                guard.tick()
            found.extend(matcher.close())
        out.matches = found
    except (EngineUnsupported, StateExplosion, RunStopped, ValueError, RecursionError) as err:
        out.error = _stopped(err)
        out.matches = []
    if matcher is not None:
        out.stats = matcher.stats.as_dict()
    return out


def _takes_max_runs(choice: Any) -> bool:
    import inspect

    if choice.windows:
        return True
    try:
        params = inspect.signature(choice.spec.load()).parameters
    except (TypeError, ValueError, AttributeError):
        return False
    return "max_runs" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _stopped(err: BaseException) -> str:
    from engine.match import EngineUnsupported

    if isinstance(err, EngineUnsupported):
        return f"the engine cannot run this: {err}"
    if isinstance(err, RecursionError):
        return "stopped: the run nested too deeply"
    return f"stopped: {err}"
