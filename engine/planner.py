"""Which matcher supports which pattern features, and the ``auto`` choice.

Each engine registers a :class:`EngineInfo` with a ``supports(pattern)`` function that
returns ``None`` when it can run the pattern or the reason it cannot. ``auto`` walks
the engines in order of preference and takes the first that supports the pattern; when
none does, the error lists every engine's reason. An unsupported combination is a
clear error, never a wrong answer.

The table, in the order this module registers it:

1. ``nfab`` and ``oracle``: SASE+ NFA^b (every strategy) and the brute-force reference.
2. ``lazy-tree``, ``lazy-chain``, ``eager``: the lazy NFAs of Kolchinsky & Schuster and their
   eager baseline, sharing one ``supports``.
3. ``aseq``, ``aseq-baseline``: AGG patterns (A-Seq, and construct-then-aggregate).
4. ``uncertain-event``, ``uncertain-point``, ``uncertain-oracle``: interval data only
   (``interval=True``); every other engine runs point data only.
5. The selection wrap: every engine registered so far except ``oracle`` is registered again
   with a ``supports`` that refuses ``earliest``/``maximal`` selections first (they find all
   matches); ``dataclasses.replace`` keeps every other field, ``interval`` included.
6. ``ses`` and ``match-windows``: the engines that know the selections, registered after the
   wrap so that they are not wrapped.

Registration order decides which engines the wrap in step 5 covers, and otherwise only the
order of listings that read ``ENGINES`` directly (the Uncertain time page's engine menu, the
near-name hint for an unknown engine); ``auto``, :func:`reasons` and :func:`engine_names` order
the engines by ``preference``, and a re-registration keeps an engine's place in ``ENGINES``.
An engine added before step 5 refuses selections; one added after it must refuse them itself
if it cannot run them.

AGG patterns and the lazy chain are decided in :func:`choose` before the preference walk:
an AGG pattern goes to the A-Seq chooser (``engine/engines/aseq/select.py``), and with known type
rates a pattern without Kleene components goes to the lazy chain.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from engine.match import EngineUnsupported, Matcher
from engine.model import Pattern, Strategy


@dataclass(frozen=True)
class EngineInfo:
    name: str
    summary: str
    factory: str  # "module:Class", imported lazily
    supports: Callable[[Pattern], str | None]
    preference: int  # lower is preferred by auto
    interval: bool = False  # True: runs interval data (imprecise timestamps) only; False: point data only

    def load(self) -> Callable[..., Matcher]:
        mod, cls = self.factory.split(":")
        return getattr(importlib.import_module(mod), cls)


def plugin(ref: str) -> Callable[..., Any]:
    """A function of an engine's own package, named ``"module:function"`` and imported on the
    first call, like the factories: the engines depend on the planner (they ask it to choose
    an inner engine), never the planner on them at import."""
    fn: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not fn:
            mod, name = ref.split(":")
            fn.append(getattr(importlib.import_module(mod), name))
        return fn[0](*args, **kwargs)

    call.__qualname__ = call.__name__ = ref
    return call


def _oracle_supports(p: Pattern) -> str | None:
    if p.strategy != Strategy.ANY:
        return f"defines skip_till_any_match only, not {p.strategy.value}"
    return None


def _nfab_supports(p: Pattern) -> str | None:
    try:
        from engine.engines.nfab.compiler import unsupported_reason
    except ImportError:  # pragma: no cover - during development
        return "not available"
    return unsupported_reason(p)


ENGINES: dict[str, EngineInfo] = {}


def register(info: EngineInfo) -> None:
    ENGINES[info.name] = info


register(EngineInfo("nfab", "SASE+ NFA^b with shared versioned buffer and run merging (all strategies)",
                    "engine.engines.nfab.matcher:NfabMatcher", _nfab_supports, 10))
register(EngineInfo("oracle", "brute-force reference semantics (small inputs only)",
                    "engine.engines.oracle.oracle:OracleMatcher", _oracle_supports, 100))


def engine_names() -> list[str]:
    return ["auto", *sorted(ENGINES, key=lambda n: ENGINES[n].preference)]


def reasons(pattern: Pattern, interval: bool = False) -> dict[str, str | None]:
    """Engine name -> None if it supports the pattern, else why not.

    A pattern beyond the language's size limits (``Pattern.check_limits``: nesting,
    components, alternatives, numbers) is a PatternError here, before any engine's
    (recursive) analysis sees it. Engines that share one ``supports`` function (the lazy
    chain, the lazy tree and the eager baseline) are asked once."""
    pattern.check_limits()
    answers: dict[Any, str | None] = {}
    out: dict[str, str | None] = {}
    for name, info in sorted(ENGINES.items(), key=lambda kv: kv[1].preference):
        if info.interval != interval:
            out[name] = data_reason(info)
            continue
        if info.supports not in answers:
            answers[info.supports] = info.supports(pattern)
        out[name] = answers[info.supports]
    if pattern.aggregate is not None:  # an AGG pattern no AGG engine can run is refused by all, with A-Seq's reason
        agg_why = _aseq_supports(pattern)
        if agg_why:
            out = {n: w or agg_why for n, w in out.items()}
    return out


def choose(pattern: Pattern, engine: str = "auto", rates: Any = None, interval: bool = False) -> EngineInfo:
    """The engine to run ``pattern``: the named one (refused with the reason when it cannot),
    or for ``auto`` the preferred engine that supports it. With event ``rates`` (by type or
    variable), ``auto`` prefers the lazy chain (Kolchinsky & Schuster) for patterns without
    Kleene components.
    A pattern beyond the size limits is a PatternError (see :func:`reasons`)."""
    pattern.check_limits()
    if pattern.aggregate is not None:  # AGG patterns: the A-Seq chooser (engine/engines/aseq/select.py) decides
        agg = _choose_aggregate(pattern, engine, interval)
        if agg is not None:
            return agg
    if engine != "auto":
        if engine not in ENGINES:
            from engine.model import suggest

            hint = suggest(engine, list(ENGINES))
            raise EngineUnsupported(f"unknown engine `{engine}`; known: {', '.join(engine_names())}"
                                    + (f"; {hint}" if hint else ""))
        info = ENGINES[engine]
        if info.interval != interval:
            raise EngineUnsupported(f"engine `{engine}` cannot run this data: {data_reason(info)}")
        why = info.supports(pattern)
        if why:
            raise EngineUnsupported(f"engine `{engine}` cannot run this pattern: {why}")
        return info
    # With the data's type rates known, the lazy chain (evaluation in ascending frequency
    # order) is the fastest engine for patterns without Kleene components, skewed or not
    # (benchmarks/opencep_patterns.py: 1.3-2x NFA^b at uniform rates, 5x at 10:1). With
    # Kleene components the chain enumerates every subset of a long run while NFA^b merges
    # the runs: auto picks the engine that can finish.
    kleene = any(c.kleene for c in pattern.positive)
    if not interval and not kleene and rates and "lazy-chain" in ENGINES and ENGINES["lazy-chain"].supports(pattern) is None:
        return ENGINES["lazy-chain"]
    why_not = reasons(pattern, interval)
    for name, why in why_not.items():
        if why is None:
            return ENGINES[name]
    lines = "; ".join(f"{n}: {w}" for n, w in why_not.items() if ENGINES[n].interval == interval)
    if interval:
        raise EngineUnsupported(f"no engine runs this pattern over interval data ({lines})")
    raise EngineUnsupported(f"no engine supports this pattern ({lines})")


def make_matcher(pattern: Pattern, engine: str = "auto", rates: Any = None, interval: bool = False,
                 **options: Any) -> Matcher:
    """Build the chosen matcher; options (tracer, max_runs, ...) go to its constructor, and
    ``rates`` to the lazy chain (its evaluation order). ``interval``: the data has uncertainty
    intervals (only the uncertain engines run it). A point engine refuses an interval event
    fed to it (a caller that did not say ``interval=True``) instead of matching it as a point."""
    info = choose(pattern, engine, rates=rates, interval=interval)
    if rates is not None and info.name == "lazy-chain":
        options.setdefault("rates", rates)
    m = info.load()(pattern, **options)
    if not info.interval:
        _refuse_intervals(m, info.name)
    return m


def data_reason(info: EngineInfo) -> str:
    """Why ``info`` cannot run data of the other kind (point vs interval timestamps)."""
    if info.interval:
        return ("runs events with uncertainty intervals only (map the interval columns: --lower-col/--upper-col); "
                "this data has point timestamps")
    return ("matches point timestamps, and this data has uncertainty intervals [lower, upper]: interval data is "
            "matched under the possible-worlds semantics by `uncertain-event` (what auto picks), "
            "`uncertain-point` or `uncertain-oracle`, never as points")


def _refuse_intervals(m: Any, name: str) -> None:
    """Make a point engine refuse interval data: its first ``feed`` checks the event (then
    the engine's own ``feed`` is put back, so the check costs one call per stream)."""
    inner = m.feed

    def feed(event: Any) -> Any:
        if getattr(event, "lower", None) is not None:
            raise EngineUnsupported(f"engine `{name}` {data_reason(ENGINES[name])}")
        m.feed = inner
        return inner(event)

    try:
        m.feed = feed
    except AttributeError:  # pragma: no cover - an engine with __slots__
        pass


# Lazy engines: lazy chain / tree NFA (Kolchinsky & Schuster) and the eager baseline, one `supports`.

def _lazy_supports(p: Pattern) -> str | None:
    try:
        from engine.engines.lazy.chain_compiler import unsupported_reason as _lazy_reason
    except ImportError:  # pragma: no cover - during development
        return "not available"
    return _lazy_reason(p)


register(EngineInfo("lazy-tree", "lazy Tree NFA (Kolchinsky & Schuster §7): takes the rarest remaining variable "
                    "first, by live buffer counts; needs no frequencies",
                    "engine.engines.lazy.matcher:LazyTreeMatcher", _lazy_supports, 20))
register(EngineInfo("lazy-chain", "lazy (Multi-)Chain NFA (Kolchinsky & Schuster §4-§5): evaluation in ascending "
                    "frequency order (given rates, or estimated from a prefix of the stream)",
                    "engine.engines.lazy.matcher:LazyChainMatcher", _lazy_supports, 30))
register(EngineInfo("eager", "eager NFA baseline with the lazy engines' semantics (skip_till_any_match)",
                    "engine.engines.lazy.eager_matcher:EagerMatcher", _lazy_supports, 90))




# A-Seq (docs/papers.md, "A-Seq"): AGG patterns, aggregated without building matches. Their
# `supports` and the AGG choice are loaded by name from engine/engines/aseq/select.py (the A-Seq package
# imports the planner, never the reverse).

_aseq_supports = plugin("engine.engines.aseq.select:supports")
_choose_aggregate = plugin("engine.engines.aseq.select:choose_aggregate")


register(EngineInfo("aseq", "A-Seq (Qi et al. §3): AGG patterns without building matches: prefix counters per "
                    "START event, negation recount, hashed partitions, exact SUM/AVG/MIN/MAX; falls back to "
                    "aseq-baseline (with the reason) for what needs the matches",
                    "engine.engines.aseq.engine:AseqMatcher", _aseq_supports, 5))
register(EngineInfo("aseq-baseline", "construct-then-aggregate (Qi et al. §2): SASE stacks build every match, "
                    "then aggregate (NFA^b's matches for Kleene, AND/OR, other strategies)",
                    "engine.engines.aseq.baseline:BaselineMatcher", _aseq_supports, 95))


# Imprecise timestamps (docs/papers.md, "Imprecise timestamps"): interval data only (`interval=True`).
# They are registered before the selection wrap below, so they refuse earliest/maximal selections too;
# the wrap re-registers them with dataclasses.replace, which keeps `interval`.

_uncertain_supports = plugin("engine.engines.uncertain.query:unsupported_reason")


register(EngineInfo("uncertain-event", "event-based framework (Zhang et al. §4): runs over whole interval events with "
                    "valid intervals, exact confidence by DP; results as soon as final",
                    "engine.engines.uncertain.event:EventBasedMatcher", _uncertain_supports, 40, interval=True))
register(EngineInfo("uncertain-point", "point-based framework (Zhang et al. §3): every instant of an interval as a "
                    "point event, skip_till_any_match over points, NELT, match collapsing",
                    "engine.engines.uncertain.point:PointBasedMatcher", _uncertain_supports, 60, interval=True))
register(EngineInfo("uncertain-oracle", "possible-worlds semantics by enumeration (small inputs only)",
                    "engine.engines.uncertain.oracle:UncertainOracleMatcher", _uncertain_supports, 110, interval=True))


# Match windows and event-set patterns (docs/papers.md, "Match windows"): the SES automaton, and
# Algorithm 1 as an engine. Selections (earliest / maximal) are known to the oracle, `ses` and
# `match-windows` only: the loop below re-registers every other engine registered above with a
# `supports` that refuses them first (a clear error, never all matches); engines sharing one
# `supports` share one wrapped function. `ses` and `match-windows` are registered after the loop.

def _ses_supports(p: Pattern) -> str | None:
    from engine.engines.ses.compiler import unsupported_reason as _ses_reason

    return _ses_reason(p)


_windows_supports = plugin("engine.engines.windows.matcher:supports")


def _all_matches_only(supports: Callable[[Pattern], str | None]) -> Callable[[Pattern], str | None]:
    def check(p: Pattern) -> str | None:
        if p.selection.value != "all":
            return (f"finds all matches, not `{p.selection.value}` ones; use ses, match-windows "
                    "(cep run --match-windows on) or the oracle")
        return supports(p)
    return check


from dataclasses import replace as _replace  # noqa: E402

_WRAPPED: dict[Any, Callable[[Pattern], str | None]] = {}
for _name, _info in list(ENGINES.items()):
    if _name != "oracle":
        _fn = _WRAPPED.setdefault(_info.supports, _all_matches_only(_info.supports))
        register(_replace(_info, supports=_fn))

register(EngineInfo("ses", "SES automaton (match-windows §4.8): states (i, S) over event sets, all matches or "
                    "earliest/maximal ones per start event",
                    "engine.engines.ses.matcher:SesMatcher", _ses_supports, 40))
register(EngineInfo("match-windows", "match windows (Algorithm 1): filter, partition, necessary conditions, then "
                    "the SES automaton (or another engine) called lazily once per candidate window",
                    "engine.engines.windows.matcher:MatchWindowMatcher", _windows_supports, 95))
