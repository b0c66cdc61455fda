"""Which engine runs a pattern: the engines' specs in one ordered list, and the ``auto`` choice.

Every engine declares itself in its folder's ``spec.py`` (an ``EngineSpec``,
engine/engines/spec.py): its factory, a ``supports(pattern)`` that returns None when it can run
the pattern or the reason it cannot, the data it runs (point or interval), the selections it
implements and its abilities. :data:`SPECS` lists them **in auto's order of preference**; the
order means that and nothing else: ``auto`` walks the list and takes the first engine that
runs the pattern (when none does, the error lists every engine's reason), and listings
(:func:`engine_names`, :func:`reasons`, the app's menus) show the engines in this order.
Adding an engine is one folder and one entry here (docs/engines.md).

What the planner decides before ``supports``, for every engine alike:

1. the data: an engine runs point data or interval data, never the other
   (``EngineSpec.data``);
2. the selection: an engine that does not implement the pattern's ``earliest``/``maximal``
   selection (``EngineSpec.selections``) refuses it first (a clear error, never all matches);
3. AGG patterns: the A-Seq chooser (an AGG engine's ``choose``) decides before the walk;
4. with the data's type rates known, ``auto`` takes an engine that ``prefer_with_rates`` (the
   lazy chain: evaluation in ascending frequency order) for patterns without Kleene components.

An unsupported combination is a clear error, never a wrong answer.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.engines.aseq import spec as aseq
from engine.engines.lazy import spec as lazy
from engine.engines.nfab import spec as nfab
from engine.engines.oracle import spec as oracle
from engine.engines.ses import spec as ses
from engine.engines.sql import spec as sql
from engine.engines.spec import EngineSpec
from engine.engines.uncertain import spec as uncertain
from engine.engines.windows import spec as windows
from engine.match import EngineUnsupported, Matcher
from engine.model import Pattern

__all__ = ["ENGINES", "EXPLAIN_ENGINE", "SPECS", "EngineInfo", "EngineSpec", "choose", "choose_query", "data_reason", "engine_names", "estimated_rates", "make_matcher",
           "reasons", "spec"]

#: Every engine, in auto's order of preference (the first that runs a pattern is chosen).
SPECS: tuple[EngineSpec, ...] = (
    aseq.ENGINE,         # AGG patterns without building matches
    nfab.ENGINE,         # every strategy, shared buffer
    lazy.TREE,           # AND with Kleene, where NFA^b refuses
    lazy.CHAIN,          # preferred with known type rates (prefer_with_rates)
    uncertain.EVENT,     # interval data
    ses.ENGINE,          # earliest / maximal selections
    uncertain.POINT,
    lazy.EAGER,          # the lazy engines' baseline
    aseq.BASELINE,       # A-Seq's construct-then-aggregate baseline
    windows.ENGINE,      # Algorithm 1 around a matcher (cep run --match-windows decides when)
    oracle.ENGINE,       # references: small inputs only
    uncertain.ORACLE,
    sql.ENGINE,          # MATCH_RECOGNIZE queries (language="sql"): auto's choice for SQL
    sql.ORACLE,
)
SPECS = tuple(replace(s, preference=10 * (i + 1)) for i, s in enumerate(SPECS))
ENGINES: dict[str, EngineSpec] = {s.name: s for s in SPECS}
#: The engine whose run-by-run trace (without run merging) explains why a candidate is not a
#: match (``cep explain --why-not``, the Debug page): its runs are the SASE+ semantics' own.
EXPLAIN_ENGINE = nfab.ENGINE.name
EngineInfo = EngineSpec  # the name this module gave an engine's entry before the specs

#: What an engine without a selection says (the engines that select are the SES automaton,
#: match windows and the oracle).
SELECTION_REFUSAL = ("finds all matches, not `{selection}` ones; use ses, match-windows "
                     "(cep run --match-windows on) or the oracle")


def spec(name: str) -> EngineSpec:
    """The spec of engine ``name`` (EngineUnsupported names the known ones)."""
    try:
        return ENGINES[name]
    except KeyError:
        from engine.model import suggest

        hint = suggest(name, list(ENGINES))
        raise EngineUnsupported(f"unknown engine `{name}`; known: {', '.join(engine_names())}"
                                + (f"; {hint}" if hint else "")) from None


def engine_names() -> list[str]:
    return ["auto", *ENGINES]


def _refusal(info: EngineSpec, pattern: Pattern, answers: dict[Any, str | None] | None = None) -> str | None:
    """Why ``info`` cannot run ``pattern`` (its selection first, then its ``supports``), or None.
    ``answers`` caches ``supports`` per function: engines sharing one are asked once."""
    selection = pattern.selection.value
    if selection not in info.selections:
        return SELECTION_REFUSAL.format(selection=selection)
    if answers is None:
        return info.supports(pattern)
    if info.supports not in answers:
        answers[info.supports] = info.supports(pattern)
    return answers[info.supports]


def reasons(pattern: Pattern, interval: bool = False) -> dict[str, str | None]:
    """Engine name -> None if it supports the pattern, else why not, in auto's order.

    A pattern beyond the language's size limits (``Pattern.check_limits``: nesting,
    components, alternatives, numbers) is a PatternError here, before any engine's
    (recursive) analysis sees it. Engines that share one ``supports`` function (the lazy
    chain, the lazy tree and the eager baseline) are asked once."""
    pattern.check_limits()
    answers: dict[Any, str | None] = {}
    out: dict[str, str | None] = {}
    for info in SPECS:
        out[info.name] = data_reason(info) if info.interval != interval else _refusal(info, pattern, answers)
    if pattern.aggregate is not None:  # an AGG pattern no AGG engine can run is refused by all, with A-Seq's reason
        agg_why = aseq.SUPPORTS(pattern)
        if agg_why:
            out = {n: w or agg_why for n, w in out.items()}
    return out


def choose(pattern: Pattern, engine: str = "auto", rates: Any = None, interval: bool = False) -> EngineSpec:
    """The engine to run ``pattern``: the named one (refused with the reason when it cannot),
    or for ``auto`` the preferred engine that supports it. With event ``rates`` (by type or
    variable), ``auto`` prefers an engine that ``prefer_with_rates`` (the lazy chain) for
    patterns without Kleene components.
    A pattern beyond the size limits is a PatternError (see :func:`reasons`)."""
    pattern.check_limits()
    if pattern.aggregate is not None:  # AGG patterns: the A-Seq chooser (engine/engines/aseq/select.py) decides
        agg = aseq.CHOOSE(pattern, engine, interval)
        if agg is not None:
            return agg
    if engine != "auto":
        info = spec(engine)
        if info.interval != interval:
            raise EngineUnsupported(f"engine `{engine}` cannot run this data: {data_reason(info)}")
        why = _refusal(info, pattern)
        if why:
            raise EngineUnsupported(f"engine `{engine}` cannot run this pattern: {why}")
        return info
    # With the data's type rates known, the lazy chain (evaluation in ascending frequency
    # order) is the fastest engine for patterns without Kleene components, skewed or not
    # (benchmarks/opencep_patterns.py: 1.3-2x NFA^b at uniform rates, 5x at 10:1). With
    # Kleene components the chain enumerates every subset of a long run while NFA^b merges
    # the runs: auto picks the engine that can finish.
    if rates and not interval and not any(c.kleene for c in pattern.positive):
        for info in SPECS:
            if info.prefer_with_rates and not info.interval and _refusal(info, pattern) is None:
                return info
    why_not = reasons(pattern, interval)
    for name, why in why_not.items():
        if why is None:
            return ENGINES[name]
    lines = "; ".join(f"{n}: {w}" for n, w in why_not.items() if ENGINES[n].interval == interval)
    if interval:
        raise EngineUnsupported(f"no engine runs this pattern over interval data ({lines})")
    raise EngineUnsupported(f"no engine supports this pattern ({lines})")


def estimated_rates(rates: Any) -> dict[str, float]:
    """Event counts as the lazy chain's evaluation order reads them: two significant digits, so
    that near-equal counts tie and keep the pattern's order. The same data then gets the same
    plan whether its counts come from the whole file or from a first batch (6,667 against 6,666
    events of a 20,000-row batch had put GOOG first in momentum3: a 1.5x slower chain), in
    ``cep run``, ``cep trace``, ``cep explain`` and the app alike."""
    return {k: float(f"{float(n):.2g}") for k, n in dict(rates).items()}


def make_matcher(pattern: Pattern, engine: str = "auto", rates: Any = None, interval: bool = False,
                 **options: Any) -> Matcher:
    """Build the chosen matcher; options (tracer, max_runs, ...) go to its constructor, and
    ``rates`` to an engine that ``takes_rates`` (the lazy chain: its evaluation order).
    ``interval``: the data has uncertainty intervals (only the interval engines run it). A
    point engine refuses an interval event fed to it (a caller that did not say
    ``interval=True``) instead of matching it as a point (``MatcherBase.points_only``)."""
    info = choose(pattern, engine, rates=rates, interval=interval)
    if rates is not None and info.takes_rates:
        options.setdefault("rates", estimated_rates(rates))
    matcher = info.load()(pattern, **options)
    if not info.interval:
        matcher.points_only(f"engine `{info.name}` {data_reason(info)}")
    return matcher


def choose_query(engine: str = "auto") -> EngineSpec:
    """The engine to run a MATCH_RECOGNIZE query: the named SQL engine, or for ``auto`` the first
    SQL engine in the list that is not a reference; a pattern engine is refused with the reason."""
    if engine == "auto":
        return next(s for s in SPECS if s.language == "sql" and not s.reference)
    info = spec(engine)
    if info.language != "sql":
        raise EngineUnsupported(f"engine `{engine}` runs studio patterns, not MATCH_RECOGNIZE queries; use "
                                + " or ".join(f"`{s.name}`" for s in SPECS if s.language == "sql") + " (or auto)")
    return info


def data_reason(info: EngineSpec) -> str:
    """Why ``info`` cannot run data of the other kind (point vs interval timestamps)."""
    if info.interval:
        return ("runs events with uncertainty intervals only (map the file's interval columns as lower and upper); "
                "this data has point timestamps")
    runners = [s.name for s in SPECS if s.interval]
    return ("matches point timestamps, and this data has uncertainty intervals [lower, upper]: interval data is "
            f"matched under the possible-worlds semantics by `{runners[0]}` (what auto picks), "
            + " or ".join(f"`{n}`" for n in runners[1:]) + ", never as points")
