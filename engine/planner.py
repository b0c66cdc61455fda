"""Which matcher supports which pattern features, and the ``auto`` choice.

Each engine registers a :class:`EngineInfo` with a ``supports(pattern)`` function that
returns ``None`` when it can run the pattern or the reason it cannot. ``auto`` walks
the engines in order of preference and takes the first that supports the pattern; when
none does, the error lists every engine's reason. An unsupported combination is a
clear error, never a wrong answer.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from .matchers.base import EngineUnsupported, Matcher
from .model import Pattern, Strategy


@dataclass(frozen=True)
class EngineInfo:
    name: str
    summary: str
    factory: str  # "module:Class", imported lazily
    supports: Callable[[Pattern], str | None]
    preference: int  # lower is preferred by auto

    def load(self) -> Callable[..., Matcher]:
        mod, cls = self.factory.split(":")
        return getattr(importlib.import_module(mod), cls)


def _oracle_supports(p: Pattern) -> str | None:
    if p.strategy != Strategy.ANY:
        return f"defines skip_till_any_match only, not {p.strategy.value}"
    return None


def _nfab_supports(p: Pattern) -> str | None:
    try:
        from .automata.nfab import unsupported_reason
    except ImportError:  # pragma: no cover - during development
        return "not available"
    return unsupported_reason(p)


ENGINES: dict[str, EngineInfo] = {}


def register(info: EngineInfo) -> None:
    ENGINES[info.name] = info


register(EngineInfo("nfab", "SASE+ NFA^b with shared versioned buffer and run merging (all strategies)",
                    "engine.matchers.nfab:NfabMatcher", _nfab_supports, 10))
register(EngineInfo("oracle", "brute-force reference semantics (small inputs only)",
                    "engine.oracle:OracleMatcher", _oracle_supports, 100))


def engine_names() -> list[str]:
    return ["auto", *sorted(ENGINES, key=lambda n: ENGINES[n].preference)]


def reasons(pattern: Pattern) -> dict[str, str | None]:
    """Engine name -> None if it supports the pattern, else why not.

    A pattern beyond the language's size limits (``Pattern.check_limits``: nesting,
    components, alternatives, numbers) is a PatternError here, before any engine's
    (recursive) analysis sees it. Engines that share one ``supports`` function (the lazy
    chain, the lazy tree and the eager baseline) are asked once."""
    pattern.check_limits()
    answers: dict[Any, str | None] = {}
    out: dict[str, str | None] = {}
    for name, info in sorted(ENGINES.items(), key=lambda kv: kv[1].preference):
        if info.supports not in answers:
            answers[info.supports] = info.supports(pattern)
        out[name] = answers[info.supports]
    return out


def choose(pattern: Pattern, engine: str = "auto", rates: Any = None) -> EngineInfo:
    """The engine to run ``pattern``: the named one (refused with the reason when it cannot),
    or for ``auto`` the preferred engine that supports it. With event ``rates`` (by type or
    variable), ``auto`` prefers the lazy chain (Kolchinsky & Schuster) for patterns without
    Kleene components.
    A pattern beyond the size limits is a PatternError (see :func:`reasons`)."""
    pattern.check_limits()
    if engine != "auto":
        if engine not in ENGINES:
            from .model import suggest

            hint = suggest(engine, list(ENGINES))
            raise EngineUnsupported(f"unknown engine `{engine}`; known: {', '.join(engine_names())}"
                                    + (f"; {hint}" if hint else ""))
        info = ENGINES[engine]
        why = info.supports(pattern)
        if why:
            raise EngineUnsupported(f"engine `{engine}` cannot run this pattern: {why}")
        return info
    # With the data's type rates known, the lazy chain (evaluation in ascending frequency
    # order) is the fastest engine for patterns without Kleene components, skewed or not
    # (benchmarks/opencep_patterns.py: 1.3-2x NFA^b at uniform rates, 5x at 10:1). With
    # Kleene components the chain enumerates every subset of a long run while NFA^b merges
    # the runs: auto picks the engine that can finish (issue 16).
    kleene = any(c.kleene for c in pattern.positive)
    if not kleene and rates and "lazy-chain" in ENGINES and ENGINES["lazy-chain"].supports(pattern) is None:
        return ENGINES["lazy-chain"]
    why_not = reasons(pattern)
    for name, why in why_not.items():
        if why is None:
            return ENGINES[name]
    lines = "; ".join(f"{n}: {w}" for n, w in why_not.items())
    raise EngineUnsupported(f"no engine supports this pattern ({lines})")


def make_matcher(pattern: Pattern, engine: str = "auto", rates: Any = None, **options: Any) -> Matcher:
    """Build the chosen matcher; options (tracer, max_runs, ...) go to its constructor, and
    ``rates`` to the lazy chain (its evaluation order)."""
    info = choose(pattern, engine, rates=rates)
    if rates is not None and info.name == "lazy-chain":
        options.setdefault("rates", rates)
    return info.load()(pattern, **options)


# Lazy engines (issue 6: lazy chain / tree NFA, Kolchinsky & Schuster; eager baseline).

def _lazy_supports(p: Pattern) -> str | None:
    try:
        from .automata.chain import unsupported_reason as _lazy_reason
    except ImportError:  # pragma: no cover - during development
        return "not available"
    return _lazy_reason(p)


register(EngineInfo("lazy-tree", "lazy Tree NFA (Kolchinsky & Schuster §7): takes the rarest remaining variable "
                    "first, by live buffer counts; needs no frequencies",
                    "engine.matchers.lazy:LazyTreeMatcher", _lazy_supports, 20))
register(EngineInfo("lazy-chain", "lazy (Multi-)Chain NFA (Kolchinsky & Schuster §4-§5): evaluation in ascending "
                    "frequency order (given rates, or estimated from a prefix of the stream)",
                    "engine.matchers.lazy:LazyChainMatcher", _lazy_supports, 30))
register(EngineInfo("eager", "eager NFA baseline with the lazy engines' semantics (skip_till_any_match)",
                    "engine.matchers.eager:EagerMatcher", _lazy_supports, 90))
