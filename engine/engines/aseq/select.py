"""How the planner runs an AGG pattern (engine/engines/planner.py calls these two hooks).

- ``auto`` -> ``aseq`` (which falls back to ``aseq-baseline`` by itself, with the reason,
  for what it cannot aggregate without matches);
- ``aseq`` / ``aseq-baseline`` / a match engine -> chosen as usual. A match engine
  (``nfab``, ``lazy-chain`` ...) returns the matches the aggregate is over (the Debug page,
  the match pipeline); ``cep run`` aggregates them (:func:`~engine.engines.aseq.engine.make_aggregator`),
  so that ``cep run`` prints aggregate rows for an AGG pattern whatever the engine.

A pattern no AGG engine can run (a trailing negation; interval data) is refused here,
whatever the engine (and ``planner.reasons`` says so for every engine).
"""
from __future__ import annotations

from typing import Any

from engine.match import EngineUnsupported
from engine.model import Pattern
from engine.engines.aseq.plan import refusal

__all__ = ["AGG_ENGINES", "choose_aggregate", "supports"]

AGG_ENGINES = ("aseq", "aseq-baseline")


def supports(pattern: Pattern) -> str | None:
    """The planner's ``supports`` for aseq and aseq-baseline: None when A-Seq aggregates the
    pattern, or its fallback can: the SASE stacks, or a match engine that builds its
    matches (the planner's reasons for the pattern without AGG)."""
    why = refusal(pattern)
    if why:
        return why
    from engine.engines.aseq.baseline import stack_unsupported
    from engine.engines.aseq.plan import AseqUnsupported, compile_query

    try:
        compile_query(pattern)
        return None
    except AseqUnsupported as err:
        aseq_why = str(err)
    if stack_unsupported(pattern) is None:
        return None
    from engine.engines import planner

    stripped = pattern.model_copy(update={"aggregate": None})
    others = planner.reasons(stripped)
    if any(w is None for w in others.values()):
        return None
    detail = "; ".join(f"{n}: {w}" for n, w in others.items() if n not in AGG_ENGINES
                       and not planner.ENGINES[n].interval)
    return f"A-Seq cannot aggregate it without its matches ({aseq_why}), and no engine builds them ({detail})"


def choose_aggregate(pattern: Pattern, engine: str = "auto", interval: bool = False) -> Any:
    """For an AGG pattern: ``auto`` -> the ``aseq`` EngineInfo; a refusal (trailing
    negation, interval data) -> EngineUnsupported whatever the engine; otherwise None (the
    named engine is chosen as usual: a match engine then returns the matches the aggregate
    is over, and ``cep run`` aggregates them, engine/commands/run_aggregate.py)."""
    from engine.engines import planner

    why = refusal(pattern)
    if why:
        raise EngineUnsupported(why)
    if interval:
        raise EngineUnsupported("AGG patterns are aggregated over point timestamps; this data has uncertainty "
                                "intervals")
    if engine == "auto":
        why = supports(pattern)
        if why:
            raise EngineUnsupported(why)
        return planner.ENGINES["aseq"]
    return None
