"""The contract every matcher implements (docs/design.md, "Engine contracts").

A matcher is fed events in stream order and returns the matches each event completes;
``close()`` ends the stream and returns what was pending (trailing negation, windows).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Protocol

if TYPE_CHECKING:  # the contract imports nothing of the engine at run time
    from engine.events import Event
    from engine.model import Pattern


@dataclass(frozen=True, slots=True)
class Match:
    """One match: ``bindings`` maps every positive variable (in pattern order) to the ids
    of its events in stream order; a variable that bound nothing (optional, or another OR
    branch) maps to ``()``. ``start``/``end`` are the first and last event's ts."""

    bindings: tuple[tuple[str, tuple[Any, ...]], ...]
    start: float
    end: float
    start_seq: int
    end_seq: int

    @property
    def key(self) -> tuple[tuple[str, tuple[Any, ...]], ...]:
        return self.bindings

    def as_dict(self) -> dict[str, list[Any]]:
        return {v: list(ids) for v, ids in self.bindings}

    def ids(self, var: str) -> tuple[Any, ...]:
        for v, ids in self.bindings:
            if v == var:
                return ids
        raise KeyError(var)

    def to_json(self) -> dict[str, Any]:
        """The public JSON Lines contract: ``{"match": {...}, "start": ts, "end": ts}``."""
        return {"match": self.as_dict(), "start": self.start, "end": self.end}

    def json_text(self) -> str | None:
        """``to_json()`` as JSON text when the match can give it without encoding it (a
        match read from an NFA^b path, engine/engines/nfab/paths.py); None otherwise."""
        return None


def make_match(order: list[str], bound: dict[str, list[Event]]) -> Match:
    """Build a Match from var -> events (missing vars bind nothing)."""
    evs = [e for v in order for e in bound.get(v, ())]
    first = min(evs, key=lambda e: e.seq)
    last = max(evs, key=lambda e: e.seq)
    return Match(
        bindings=tuple((v, tuple(e.id for e in bound.get(v, ()))) for v in order),
        start=first.ts,
        end=last.ts,
        start_seq=first.seq,
        end_seq=last.seq,
    )


def overlap_rank(m: Match) -> tuple[int, int, str]:
    """OUTPUT NON_OVERLAP: among matches completed together, the one reported first is the
    earliest-starting, then the shortest (fewest events), then by ids."""
    return (m.start_seq, sum(len(ids) for _, ids in m.bindings), repr(m.bindings))


def sort_matches(ms: Iterable[Match]) -> list[Match]:
    """Canonical order: by the event that completed the match, then by start, then ids."""
    return sorted(ms, key=lambda m: (m.end_seq, m.start_seq, repr(m.bindings)))


@dataclass
class Stats:
    """Counters every matcher keeps; engines add their own keys to ``extra``."""

    events: int = 0
    runs_created: int = 0
    runs_alive: int = 0
    runs_peak: int = 0
    predicate_evals: int = 0
    buffer_entries: int = 0
    buffer_peak: int = 0
    matches: int = 0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in ("events", "runs_created", "runs_alive", "runs_peak",
                                            "predicate_evals", "buffer_entries", "buffer_peak", "matches")}
        d["phase_seconds"] = dict(self.phase_seconds)
        d.update(self.extra)
        return d

    def timed(self, phase: str) -> "_Timer":
        return _Timer(self, phase)


class _Timer:
    __slots__ = ("stats", "phase", "t0")

    def __init__(self, stats: Stats, phase: str):
        self.stats, self.phase = stats, phase

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        ps = self.stats.phase_seconds
        ps[self.phase] = ps.get(self.phase, 0.0) + time.perf_counter() - self.t0


class StateExplosion(RuntimeError):
    """Live state passed the guard's limit; the message names the cause and a remedy."""


class EngineUnsupported(ValueError):
    """The engine cannot run this pattern (the planner then picks another, or says why)."""


Tracer = Any  # an engine.trace.Recorder (kept untyped here so that base stays import-light)


def explosion_cause(pattern: Pattern, unit: str = "runs") -> str:
    """The likely cause of a state explosion and its remedy, for the guard's message."""
    from engine.model import Strategy

    kleene = [c.var for c in pattern.components() if c.kleene]
    if kleene and pattern.strategy is Strategy.ANY:
        return (f"Kleene `{kleene[0]}[]` under skip_till_any_match has up to 2^n {unit} for n relevant events; "
                "use skip_till_next_match, tighten WITHIN, or add a predicate on the Kleene elements")
    if pattern.window is None:
        return f"the pattern has no WITHIN, so {unit} never expire; add a window"
    w = pattern.window
    return (f"WITHIN {w.value:g} {w.unit or ''} holds too many simultaneous {unit} on this stream; "
            "tighten WITHIN, add predicates on the first component, or partition with [attr]").replace("  ", " ")


class MatcherBase:
    """What every engine shares: the pattern, the tracer (engine/trace.py), the statistics
    and the state guard's message. An engine holds only its algorithm: it implements
    ``feed``/``close`` and, for the step trace, ``trace_state()`` (live runs and buffer
    change after a step); it calls ``self.explode(what, limits)`` when its live state
    passes its limits. The planner's capability table (engine/engines/planner.py) lists it."""

    name = "matcher"
    unit = "runs"  # what the guard counts, in the message

    def __init__(self, pattern: Pattern, tracer: Tracer = None) -> None:
        self.pattern = pattern
        self.tracer = tracer
        self.stats = Stats()

    def explode(self, what: str, limits: str) -> None:
        """Stop the run: ``what`` passed ``limits``; the message names the likely cause."""
        raise StateExplosion(f"state explosion in `{self.name}`: {what} (limit {limits}). "
                             f"Likely cause: {explosion_cause(self.pattern, self.unit)}.")

    def points_only(self, refusal: str) -> None:
        """Refuse interval events: until the first event, ``feed`` is a check that raises
        EngineUnsupported(``refusal``) for an event with an uncertainty interval; the first
        point event puts the engine's own ``feed`` back, so the check costs one call per
        stream. The planner asks this of every point engine it builds."""
        self._points_refusal = refusal
        self._points_inner = self.feed
        self.feed = self._first_point_feed  # type: ignore[method-assign]

    def _first_point_feed(self, event: Any) -> Iterable[Match]:
        """``points_only``'s check (bound methods, not a closure, so that ``copy.deepcopy`` of a
        matcher — engine/checkpoints.py — feeds the copy, not the original)."""
        if getattr(event, "lower", None) is not None:
            raise EngineUnsupported(self._points_refusal)
        inner = self._points_inner
        self.feed = inner  # type: ignore[method-assign]
        return inner(event)

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        """Live runs and this step's buffer change (engine.trace.RunView, buffer dict)."""
        return [], {}

    def attach_tracer(self, tracer: Tracer, last: Event | None = None) -> None:
        """Start tracing a matcher that has run untraced so far (engine/checkpoints.py): from the
        next ``feed`` on, the steps equal those of a matcher traced from the start. ``last``: the
        last event fed (None before the first). An engine whose untraced run keeps other state
        (fast paths bound at construction, expiry put off, names the trace gives) overrides this
        to put that state as the traced run has it."""
        self.tracer = tracer

    def feed(self, event: Event) -> Iterable[Match]:
        raise NotImplementedError

    def close(self) -> Iterable[Match]:
        raise NotImplementedError


class Matcher(Protocol):
    pattern: Pattern
    stats: Stats

    def feed(self, event: Event) -> Iterable[Match]: ...

    def close(self) -> Iterable[Match]: ...


def run_all(matcher: Matcher, events: Iterable[Event]) -> list[Match]:
    """Feed a whole stream and close; returns all matches in emission order."""
    out: list[Match] = []
    for e in events:
        out.extend(matcher.feed(e))
    out.extend(matcher.close())
    return out
