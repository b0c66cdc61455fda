"""How the planner runs an AGG pattern (engine/planner.py calls these two hooks).

- ``auto`` -> ``aseq`` (which falls back to ``aseq-baseline`` by itself, with the reason,
  for what it cannot aggregate without matches);
- ``aseq`` / ``aseq-baseline`` -> themselves;
- a match engine (``nfab``, ``lazy-chain`` ...) -> that engine builds the matches of the
  pattern without AGG and :class:`~engine.aseq.baseline.MatchAggregator` aggregates them,
  so that an AGG pattern returns aggregate rows whatever the engine, never matches.

A pattern no AGG engine can run (a trailing negation; interval data) is refused here,
whatever the engine.
"""
from __future__ import annotations

from typing import Any

from ..matchers.base import EngineUnsupported
from ..model import Pattern
from .plan import refusal

__all__ = ["AGG_ENGINES", "choose_aggregate", "wrap_matcher", "supports"]

AGG_ENGINES = ("aseq", "aseq-baseline")


def supports(pattern: Pattern) -> str | None:
    """The planner's ``supports`` for aseq and aseq-baseline."""
    return refusal(pattern)


def choose_aggregate(pattern: Pattern, engine: str = "auto", interval: bool = False) -> Any:
    """The EngineInfo that runs an AGG pattern (see the module docstring)."""
    from .. import planner

    why = refusal(pattern)
    if why:
        raise EngineUnsupported(why)
    if interval:
        raise EngineUnsupported("AGG patterns are aggregated over point timestamps; this data has uncertainty "
                                "intervals")
    if engine == "auto":
        return planner.ENGINES["aseq"]
    if engine in AGG_ENGINES:
        return planner.ENGINES[engine]
    info = planner.ENGINES.get(engine)
    if info is not None and info.interval == interval:
        own = info.supports(pattern)  # an engine may refuse AGG patterns itself (e.g. ses, windows)
        if own:
            raise EngineUnsupported(f"engine `{engine}` cannot run this pattern: {own}")
    return planner.choose(pattern.model_copy(update={"aggregate": None}), engine, interval=interval)


def wrap_matcher(pattern: Pattern, engine_name: str, options: dict[str, Any]) -> Any:
    """A match engine's matches, aggregated (an AGG pattern on ``--engine nfab`` etc.)."""
    from .baseline import MatchAggregator

    return MatchAggregator(pattern, source=engine_name, **options)
