"""Which matcher a run uses: one answer for ``cep run``, ``cep trace``, ``cep explain`` and
the app's Run and Debug pages, so that "match #K" names the same match everywhere.

A run is chosen from the pattern, ``--engine``, ``--match-windows auto|on|off``, the data's
type rates (for ``auto``), whether the data has uncertainty intervals, and whether the
matches are only counted:

- **match windows** (Algorithm 1 of the match-windows paper, ``engine.engines.windows``) around the
  engine when ``engine.engines.windows.decide`` says so for the mode: ``auto`` (the default of every
  command) is on for event-set patterns where it is sound, ``on`` wherever it is sound (an
  error elsewhere), ``off`` never. Interval data never runs in match windows (they match
  point events); ``on`` is then an error.
- otherwise the **planner's** engine (``engine.engines.planner.choose``: the named engine, or for
  ``auto`` the preferred one, with the type rates steering it to the lazy chain).

A match-windows run emits the matches per completed window (the windows' order), the
planner's engine in its own order; both are what the matcher's ``feed``/``close`` return,
so every caller that feeds the events the same way numbers the matches the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from engine.engines.windows.spec import ENGINE as WINDOWS_SPEC
from engine.events import Event
from engine.match import EngineUnsupported, Matcher
from engine.model import Pattern
from engine.trace import DEFAULT_LIMIT, Recorder, Step, record, type_rates

__all__ = ["RunChoice", "choose_run", "trace", "MATCH_WINDOW_MODES", "WINDOWS_ENGINE", "INTERVAL_REASON"]

MATCH_WINDOW_MODES = ("auto", "on", "off")
WINDOWS_ENGINE = WINDOWS_SPEC.name
INTERVAL_REASON = "match windows run on point events; this data has uncertainty intervals"


@dataclass(frozen=True)
class RunChoice:
    """The matcher of a run: ``engine`` is what runs (``match-windows`` for Algorithm 1
    around ``inner``, else the planner's engine), ``requested`` the ``--engine`` asked for,
    ``mode`` the ``--match-windows`` mode and ``reason`` why windows are on or off."""

    engine: str
    requested: str
    mode: str
    windows: bool
    reason: str
    inner: str | None = None
    rates: dict[str, int] | None = None
    interval: bool = False
    count_only: bool = False

    @property
    def spec(self) -> Any:
        """The ``EngineSpec`` of what runs (match windows' own spec when windows are on)."""
        from engine.engines.planner import ENGINES

        return ENGINES[self.engine]

    def build(self, pattern: Pattern, tracer: Any = None, max_runs: int | None = None,
              guard: Any = None, **options: Any) -> Matcher:
        """A fresh matcher of this choice for ``pattern`` (the pattern it was chosen for).
        ``tracer`` (an ``engine.trace.Recorder``) and ``max_runs`` (the state guard) go to
        the matcher; ``options`` to the planner's engine (e.g. ``merge`` of NFA^b).
        ``guard`` (an ``engine.memory.MemoryGuard``): the matcher's ``feed``/``close`` run
        with it as the current guard, so the engine's inner loops (a window's drain, an
        SES step, an interval engine's confidences) tick it (``engine.memory.guarded``)."""
        if guard is not None:
            from engine.memory import guarded

            return guarded(self.build(pattern, tracer, max_runs, **options), guard)  # type: ignore[return-value]
        if max_runs is not None:
            options["max_runs"] = max_runs
        if tracer is not None:
            options["tracer"] = tracer
        if self.windows:
            from engine.engines.windows.matcher import MatchWindowMatcher

            kept = {k: v for k, v in options.items() if k in ("max_runs", "max_work", "tracer")}
            return MatchWindowMatcher(pattern, inner=self.requested, **kept)
        from engine.engines.planner import make_matcher

        if self.count_only:
            options["count_only"] = True
        return make_matcher(pattern, self.engine, rates=self.rates, interval=self.interval, **options)


def choose_run(pattern: Pattern, engine: str = "auto", match_windows: str = "auto",
               rates: dict[str, int] | None = None, interval: bool = False,
               count_only: bool = False) -> RunChoice:
    """The matcher a run of ``pattern`` uses (see the module). ``rates``: the data's event
    counts by type, given to the planner for ``auto`` only (as ``engine.trace.type_rates``
    computes them). ``count_only``: the matches are only counted (``cep run --format
    count``), which NFA^b can do without building them. EngineUnsupported names why the
    engine (or ``--match-windows on``) cannot run the pattern."""
    from engine.engines.planner import choose

    if match_windows not in MATCH_WINDOW_MODES:
        raise EngineUnsupported(f"--match-windows must be one of {', '.join(MATCH_WINDOW_MODES)}, "
                                f"not `{match_windows}`")
    rates = rates if engine == "auto" else None
    on, why = _windows(pattern, engine, match_windows, interval)
    if on:
        from engine.engines.windows.matcher import choose_inner

        return RunChoice(WINDOWS_ENGINE, engine, match_windows, True, why, inner=choose_inner(pattern, engine),
                         interval=False)
    info = choose(pattern, engine, rates=rates, interval=interval)
    return RunChoice(info.name, engine, match_windows, False, why, rates=rates, interval=interval,
                     count_only=count_only and info.counts_only)


def _windows(pattern: Pattern, engine: str, mode: str, interval: bool) -> tuple[bool, str]:
    if mode == "off":
        return False, "off"
    if interval:
        if mode == "on":
            raise EngineUnsupported(f"--match-windows on: {INTERVAL_REASON}")
        return False, INTERVAL_REASON
    from engine.engines.windows.matcher import decide

    return decide(pattern, mode, engine)


def trace(pattern: Pattern, events: Sequence[Event], engine: str = "auto", limit: int | None = DEFAULT_LIMIT,
          rates: Any = None, match_windows: str = "off", **options: Any) -> list[Step]:
    """The whole trace of ``pattern`` over ``events`` with ``engine`` as ``cep run`` chooses
    it (for ``auto`` with the data's type rates unless ``rates`` are given). ``match_windows``
    is ``cep run --match-windows``; ``off`` here by default, so that a named engine traces
    itself (``cep trace`` and the Debug page pass ``cep run``'s default, ``auto``)."""
    from engine.engines.planner import make_matcher

    if rates is None:
        rates = type_rates(engine, events)
    rec = Recorder()
    if match_windows == "off":
        m = make_matcher(pattern, engine, rates=rates, tracer=rec, **options)
    else:
        m = choose_run(pattern, engine, match_windows, rates=rates).build(pattern, tracer=rec, **options)
    return list(record(m, events, limit))
