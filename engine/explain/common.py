"""What both answers share: the engine's own matches (as ``cep run`` computes them),
the candidate's alternative of the pattern, the partition of an event, state names as
drawn on the Automaton page, and JSON-safe values."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.alternatives import expand
from engine.events import Event
from engine.match import Match
from engine.model import ANY_TYPE, Component, Group, Pattern, Strategy
from engine.partition import partition_key


class ExplainError(ValueError):
    """A question that cannot be answered: bad input (``status`` 2) or an engine that was
    stopped (``status`` 1)."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------- the engine's answer

@dataclass
class EngineRun:
    """The matcher ``cep run`` would use and what it printed (``error``: why it stopped).
    ``name`` is what ran (``match-windows`` for Algorithm 1 around the engine), ``engine``
    the ``--engine`` asked for and ``match_windows`` the ``--match-windows`` mode."""

    name: str
    matches: list[Match]
    error: str | None = None
    rates: Any = None
    engine: str = "auto"
    match_windows: str = "auto"
    inner: str | None = None  # matcher A of a match-windows run


def engine_run(pattern: Pattern, events: Sequence[Event], engine: str = "auto", rates: Any = None,
               match_windows: str = "auto") -> EngineRun:
    """Run ``pattern`` exactly as ``cep run`` does (``engine.run_choice``: the engine and
    ``--match-windows``; for ``auto`` with the data's type rates unless ``rates`` are
    given), the matches in the order the matcher emits them."""
    from engine.match import EngineUnsupported, StateExplosion, run_all
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    if rates is None:
        rates = type_rates(engine, events)
    if pattern.aggregate is not None:  # an AGG pattern's matches are what is aggregated: explain those
        pattern = pattern.model_copy(update={"aggregate": None})
    try:
        choice = choose_run(pattern, engine, match_windows, rates=rates)
        matcher = choice.build(pattern)
    except EngineUnsupported as err:
        raise ExplainError(str(err)) from None
    try:
        matches = run_all(matcher, events)
    except (StateExplosion, ValueError) as err:  # ValueError: the oracle refusing a large input
        return EngineRun(choice.engine, [], f"stopped: {err}", rates, engine, match_windows, choice.inner)
    return EngineRun(choice.engine, matches, None, rates, engine, match_windows, choice.inner)


# --------------------------------------------------------------------------- the pattern's shape

@dataclass
class Alternative:
    """One SEQ/AND alternative of the pattern (``?``, ``*`` and OR rewritten,
    engine/alternatives.py): its tree, its positive components, the variables it binds
    to nothing, and its top-level items (negation lives there)."""

    tree: Any
    comps: list[Component]
    absent: frozenset[str]
    top: list[Any] = field(default_factory=list)

    @property
    def vars(self) -> list[str]:
        return [c.var for c in self.comps]


def alternatives(pattern: Pattern) -> list[Alternative]:
    out = []
    for red, absent in expand(pattern.root):
        if red is None:
            continue
        comps = [c for c in _components(red) if not c.negated]
        top = red.items if isinstance(red, Group) and red.op == "SEQ" else [red]
        out.append(Alternative(red, comps, frozenset(absent), top))
    return out


def _components(item: Any) -> list[Component]:
    if isinstance(item, Component):
        return [item]
    return [c for i in item.items for c in _components(i)]


def positive_types(pattern: Pattern) -> tuple[set[str], bool]:
    ts = {c.type for c in pattern.positive}
    return ts, ANY_TYPE in ts


def negated_types(pattern: Pattern) -> tuple[set[str], bool]:
    ts = {c.type for c in pattern.negated}
    return ts, ANY_TYPE in ts


def is_positive_type(pattern: Pattern, t: str) -> bool:
    ts, anyt = positive_types(pattern)
    return anyt or t in ts


def is_negated_type(pattern: Pattern, t: str) -> bool:
    ts, anyt = negated_types(pattern)
    return anyt or t in ts


def partitioner(pattern: Pattern) -> Any:
    """The partition of an event as NFA^b computes it (engine/engines/nfab/matcher.py
    ``_partitioner``), or None when the pattern is not partitioned (strict contiguity
    never is)."""
    if pattern.strategy is Strategy.STRICT:
        return None
    key = partition_key(pattern)
    if key is None:
        return None
    uni = key.uniform

    def part(e: Event) -> Any:
        k = key.of(e)
        if k is None and uni is not None:
            return tuple(e.get(a) for a in uni)
        return k

    part.columns = key.columns()  # type: ignore[attr-defined]
    return part


def part_text(part: Any, e: Event) -> str:
    cols = getattr(part, "columns", [])
    vals = part(e) or ()
    if len(cols) == len(vals):
        return ", ".join(f"{c}={v}" for c, v in zip(cols, vals))
    return ", ".join(map(str, vals))


# --------------------------------------------------------------------------- state names

class Naming:
    """NFA^b state names of a candidate's chain: ``a[1]``/``a[i]`` for a Kleene variable,
    ``b`` for a one-event one, ``F``; prefixed ``alt<k>:`` when the pattern compiles into
    several SEQ alternatives (as the Automaton page draws them)."""

    def __init__(self, pattern: Pattern, order: list[str], kleene: set[str]):
        self.order = order
        self.kleene = kleene
        self.prefix = _alt_prefix(pattern, order)

    def start(self, var: str) -> str:
        return self.prefix + (f"{var}[1]" if var in self.kleene else var)

    def rest(self, var: str) -> str:
        return self.prefix + f"{var}[i]"

    def after(self, var: str) -> str:
        """Where a run goes once ``var`` is complete: the next variable's start, or F."""
        k = self.order.index(var)
        return self.start(self.order[k + 1]) if k + 1 < len(self.order) else self.final

    @property
    def final(self) -> str:
        return self.prefix + "F"


def _alt_prefix(pattern: Pattern, order: list[str]) -> str:
    try:
        from engine.engines.nfab.compiler import compile_pattern, unsupported_reason

        if unsupported_reason(pattern) is not None:
            return ""
        nfa = compile_pattern(pattern)
    except Exception:  # noqa: BLE001 - naming only; an engine refusal is reported elsewhere
        return ""
    if len(nfa.chains) <= 1:
        return ""
    for ch in nfa.chains:
        if [c.var for c in ch.comps] == order:
            return f"alt{ch.index}:"
    return ""


# --------------------------------------------------------------------------- values

def js(v: Any) -> Any:
    """A JSON-safe value (numpy scalars unwrapped, NaN/inf as text)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else str(v)
    if hasattr(v, "item"):
        return js(v.item())
    if isinstance(v, (list, tuple)):
        return [js(x) for x in v]
    if isinstance(v, dict):
        return {str(k): js(x) for k, x in v.items()}
    return str(v)


def num(v: Any) -> str:
    """A value for prose: ``6.0`` as ``6``, floats to 6 significant digits."""
    v = js(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else f"{v:.6g}"
    return str(v)


def ids_of(b: dict[str, list[Event]]) -> dict[str, list[Any]]:
    return {v: [js(e.id) for e in evs] for v, evs in b.items()}


def match_dict(order: list[str], b: dict[str, list[Event]]) -> dict[str, list[Any]]:
    """``{var: [ids]}`` for every positive variable in pattern order (``[]`` when unbound)."""
    return {v: [js(e.id) for e in b.get(v, [])] for v in order}


def fmt_ids(d: dict[str, list[Any]]) -> str:
    return " ".join(f"{v}=[{','.join(map(str, ids))}]" for v, ids in d.items()) or "(nothing)"
