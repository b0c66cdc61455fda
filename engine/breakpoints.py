"""Breakpoints shared by the Debug page and ``cep trace --break`` (docs/trace.md, "Breakpoints").

A breakpoint is written as a spec (user text, parsed by :func:`parse_breakpoint`):

==================  ===========================================================================
``event:N``         at event #N (1-based position in the stream: step index ``N-1``)
``id:X``            at every event whose id is ``X`` (compared as text)
``match:K``         when match K completes (1-based, ``cep run``'s numbering)
``fails:PREDICATE`` when a run evaluates that conjunct of the pattern and it is false
``holds:PREDICATE`` when a run evaluates that conjunct of the pattern and it is true
``runs>N``          when the live runs after the step exceed N (``Step.runs_total``)
``buffer>N``        when the engine's buffer after the step holds more than N entries
                    (:func:`buffer_size`)
==================  ===========================================================================

A PREDICATE is written as in the pattern; whitespace does not matter (the texts are compared
token by token). It must be one of the pattern's WHERE conjuncts, whose texts are what the
trace reports (``engine.trace.check_conjunct``'s ``PredicateCheck.text``, i.e.
``engine.expr.to_text`` of the conjunct); the ``[attr]`` and window checks an engine adds are
not conjuncts of the pattern.

:meth:`Breakpoint.hit` says whether a breakpoint holds on one traced step, with a one-line
reason naming the moment as ``engine.trace.event_label`` does. :func:`first_hit` finds the
first step at or after ``start`` where any breakpoint holds on a
``engine.checkpoints.CheckpointedRun``: ``event``/``id``/``match`` from the pre-pass (no
tracing), the others by tracing windows of ``CHUNK`` steps. When several breakpoints hold on
the same step, the reason is the first of them in the order given.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from engine.trace import Step, event_json, event_label

__all__ = ["BreakpointError", "Breakpoint", "KINDS", "CHUNK", "parse_breakpoint", "parse_breakpoints",
           "pattern_conjuncts", "buffer_size", "first_hit", "scan_steps"]

#: steps traced per window while looking for a breakpoint that needs the trace
CHUNK = 500
#: the breakpoint kinds, in the order the documentation lists them
KINDS = ("event", "id", "match", "fails", "holds", "runs", "buffer")
#: the kinds answered from the pre-pass, without tracing
PREPASS_KINDS = ("event", "id", "match")
FORMS = "event:N, id:X, match:K, fails:PREDICATE, holds:PREDICATE, runs>N or buffer>N"
MAX_SPEC = 2_000
MAX_DIGITS = 18


class BreakpointError(ValueError):
    """A breakpoint spec that cannot be used; the message names the spec and what is expected."""


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """One breakpoint: ``kind`` (one of :data:`KINDS`), ``value`` (the event number, id, match
    number, conjunct text or threshold) and ``spec``, the text it was written as."""

    kind: str
    value: Any
    spec: str

    def hit(self, step: Step, k: int, matches_at_k: Sequence[Any] = ()) -> str | None:
        """None, or a one-line reason when this breakpoint holds on ``step`` (step index ``k``;
        ``matches_at_k``: the ``MatchMark`` s step ``k`` emitted)."""
        kind, value = self.kind, self.value
        if kind == "event":
            return f"event:{value} reached: {_where(step, k)}" if k == value - 1 and step.event is not None else None
        if kind == "id":
            if step.event is not None and _id_text(step.event.get("id")) == value:
                return f"id:{value} reached: {_where(step, k)}"
            return None
        if kind == "match":
            if any(m.number == value for m in matches_at_k):
                return f"match #{value:,} completed at {_where(step, k)}"
            return None
        if kind in ("fails", "holds"):
            want = kind == "holds"
            for a in step.actions:
                for p in a.predicates:
                    if p.result is want and p.text == value:
                        vals = ", ".join(f"{n}={v}" for n, v in p.values.items())
                        run = f" in run {a.run}" if a.run is not None else ""
                        return (f"`{value}` {'holds' if want else 'fails'}{run} at {_where(step, k)}"
                                + (f" ({vals})" if vals else ""))
            return None
        if kind == "runs":
            if step.event is not None and step.runs_total > value:
                return (f"{step.runs_total:,} live run{'' if step.runs_total == 1 else 's'} (runs>{value:,}) at "
                        f"{_where(step, k)}")
            return None
        if kind == "buffer":
            n = buffer_size(step.buffer) if step.event is not None else None
            if n is not None and n > value:
                return f"the buffer holds {n:,} entr{'y' if n == 1 else 'ies'} (buffer>{value:,}) at {_where(step, k)}"
            return None
        raise AssertionError(kind)  # pragma: no cover - parse_breakpoint makes only KINDS


def _where(step: Step, k: int) -> str:
    if step.event is None:
        return "the close step (end of the stream)"
    return event_label(k, step.event.get("id"))


def _id_text(v: Any) -> str:
    """An event id as text, the same for the raw id and its JSON form."""
    from engine.trace import _jsonable

    return str(_jsonable(v))


# --------------------------------------------------------------------------- the buffer

def buffer_size(buffer: dict[str, Any]) -> int | None:
    """The entries an engine's buffer holds after a step (``Step.buffer``), by its ``kind``;
    None for an engine that reports no buffer (SES, the oracle):

    - ``shared`` (NFA^b): ``entries``, the live entries of the shared versioned buffer;
    - ``lazy`` (lazy chain / tree, eager): the buffered events over all variables;
    - ``windows`` (match windows): ``buffered``, the events held in open windows;
    - ``uncertain``: the interval-event engine's events held for reordering plus its pending
      signatures; the point engine's ``heap`` (points not yet released);
    - ``aseq``: ``rows_total`` (live counter rows); ``aseq-baseline``: ``stored`` (stack
      entries); ``aseq-workload``: the rows of every sharing group.
    """
    kind = buffer.get("kind")
    if kind == "shared":
        return int(buffer.get("entries", 0))
    if kind == "lazy":
        return sum(len(v) for v in buffer.get("buffers", {}).values())
    if kind == "windows":
        return int(buffer.get("buffered", 0))
    if kind == "uncertain":
        if "heap" in buffer:
            return int(buffer["heap"])
        return sum(len(v) for v in buffer.get("reorder", {}).values()) + len(buffer.get("pending", ()))
    if kind == "aseq":
        return int(buffer.get("rows_total", 0))
    if kind == "aseq-baseline":
        return int(buffer.get("stored", 0))
    if kind == "aseq-workload":
        return sum(len(g.get("rows", ())) for g in buffer.get("groups", ()))
    return None


# --------------------------------------------------------------------------- parsing

def pattern_conjuncts(pattern: Any) -> list[str]:
    """The texts of the pattern's WHERE conjuncts, as the trace reports them."""
    from engine.expr import to_text
    from engine.model import conjuncts_of

    out: list[str] = []
    for w in getattr(pattern, "where", ()) or ():
        for c in conjuncts_of(w):
            t = to_text(c)
            if t not in out:
                out.append(t)
    return out


def _tokens(text: str) -> tuple[tuple[str, str], ...] | None:
    """The text's DSL tokens (whitespace and comments dropped), or None when it has none."""
    from engine.dsl import DslError
    from engine.dsl.tokens import tokenize

    try:
        toks = tokenize(text)
    except DslError:
        return None
    return tuple((t.kind, t.text.lower() if t.kind in ("name", "strategy") and t.text.upper() in
                  ("AND", "OR", "NOT") else t.text) for t in toks if t.kind != "eof")


def _number(spec: str, text: str, what: str, least: int) -> int:
    t = text.strip().replace(",", "").replace("_", "")
    if not t.isdigit() or not t.isascii() or len(t) > MAX_DIGITS:
        raise BreakpointError(f"breakpoint `{_show(spec)}`: {what} must be a whole number"
                              f"{' from ' + str(least) if least else ''}, not `{_show(text.strip())}`")
    n = int(t)
    if n < least:
        raise BreakpointError(f"breakpoint `{_show(spec)}`: {what} must be at least {least}, not {n}")
    return n


def _show(text: str, n: int = 80) -> str:
    """User text shown in a message: one line, at most ``n`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


_THRESHOLD = re.compile(r"^\s*(runs|buffer)\s*>\s*(.*)$", re.IGNORECASE | re.DOTALL)


def parse_breakpoint(spec: str, pattern: Any = None, events: int | None = None) -> Breakpoint:
    """A :class:`Breakpoint` from its spec (see the module); ``pattern`` is needed for
    ``fails:``/``holds:``; ``events`` (the stream's length), when given, refuses ``event:N``
    past the end. Errors are :class:`BreakpointError` naming the spec and what is expected."""
    if not isinstance(spec, str) or not spec.strip():
        raise BreakpointError(f"empty breakpoint: write one of {FORMS}")
    if len(spec) > MAX_SPEC:
        raise BreakpointError(f"breakpoint `{_show(spec)}` is longer than {MAX_SPEC:,} characters")
    m = _THRESHOLD.match(spec)
    if m:
        kind = m.group(1).lower()
        what = "the number of live runs" if kind == "runs" else "the number of buffer entries"
        return Breakpoint(kind, _number(spec, m.group(2), what, 0), spec)
    head, sep, rest = spec.partition(":")
    kind = head.strip().lower()
    if not sep or kind not in ("event", "id", "match", "fails", "holds"):
        from engine.model import suggest

        hint = suggest(kind, list(KINDS)) if kind else None
        raise BreakpointError(f"cannot read breakpoint `{_show(spec)}`: write one of {FORMS}"
                              + (f" ({hint})" if hint else ""))
    if kind == "event":
        n = _number(spec, rest, "the event number (1-based position in the stream)", 1)
        if events is not None and n > events:
            raise BreakpointError(f"breakpoint `{_show(spec)}`: the data has {events:,} events, so event:N takes "
                                  f"N from 1 to {events:,}")
        return Breakpoint("event", n, spec)
    if kind == "match":
        return Breakpoint("match", _number(spec, rest, "the match number (1-based, as `cep run` numbers them)", 1),
                          spec)
    if kind == "id":
        ident = rest.strip()
        if not ident:
            raise BreakpointError(f"breakpoint `{_show(spec)}`: give an event id after `id:`")
        return Breakpoint("id", ident, spec)
    return Breakpoint(kind, _conjunct(spec, rest, pattern), spec)


def _conjunct(spec: str, text: str, pattern: Any) -> str:
    """The pattern's conjunct text that ``text`` spells (token by token)."""
    if pattern is None:
        raise BreakpointError(f"breakpoint `{_show(spec)}`: a predicate breakpoint needs the pattern")
    known = pattern_conjuncts(pattern)
    if not known:
        raise BreakpointError(f"breakpoint `{_show(spec)}`: the pattern has no WHERE conjuncts to break on")
    listing = "; ".join(f"`{k}`" for k in known)
    if not text.strip():
        raise BreakpointError(f"breakpoint `{_show(spec)}`: give a conjunct of the pattern after the colon: "
                              f"{listing}")
    mine = _tokens(text)
    for k in known:
        if " ".join(text.split()) == k or (mine is not None and mine == _tokens(k)):
            return k
    raise BreakpointError(f"breakpoint `{_show(spec)}`: the pattern has no conjunct `{_show(text.strip())}`; "
                          f"its conjuncts are {listing}")


def parse_breakpoints(specs: Iterable[str], pattern: Any = None, events: int | None = None) -> list[Breakpoint]:
    """Every spec parsed (the first bad one raises)."""
    return [parse_breakpoint(s, pattern, events) for s in specs]


# --------------------------------------------------------------------------- finding the next hit

def scan_steps(steps: Iterable[Step], breakpoints: Sequence[Breakpoint], start: int,
               matches_at: Any) -> tuple[int, str] | None:
    """The first of ``steps`` (step indices ``start, start+1, ...``) where a breakpoint holds
    (the reason of the first that does, in the order given); ``matches_at(k)``: the
    ``MatchMark`` s step ``k`` emitted."""
    for k, step in enumerate(steps, start):
        marks = matches_at(k)
        for bp in breakpoints:
            reason = bp.hit(step, k, marks)
            if reason is not None:
                return k, reason
    return None


def _light_step(run: Any, k: int) -> Step:
    """A step with only its event (no trace): enough for the pre-pass kinds."""
    if k >= len(run.events):
        return Step(step="close", event=None)
    return Step(step=k, event=event_json(run.events[k]))


def _prepass_hit(run: Any, bp: Breakpoint, start: int, stop: int) -> int | None:
    """The first step in ``start .. stop-1`` where a pre-pass breakpoint holds."""
    if bp.kind == "event":
        k = bp.value - 1
        return k if start <= k < min(stop, len(run.events)) else None
    if bp.kind == "match":
        if bp.value > len(run.matches):
            return None
        k = run.matches[bp.value - 1].step
        return k if start <= k < stop else None
    events = run.events
    for k in range(start, min(stop, len(events))):
        if _id_text(events[k].id) == bp.value:
            return k
    return None


def first_hit(run: Any, breakpoints: Sequence[Breakpoint], start: int = 0,
              limit: int | None = None) -> tuple[int, str] | None:
    """The first step index ``k >= start`` where any of ``breakpoints`` holds on ``run`` (an
    ``engine.checkpoints.CheckpointedRun``), with its reason; None when none holds. ``limit``:
    look at most at this many steps (``start .. start+limit-1``). The answer equals a scan of
    the full trace (:func:`scan_steps`)."""
    if not breakpoints:
        return None
    start = max(0, start)
    stop = run.total_steps if limit is None else min(run.total_steps, start + max(0, limit))
    if start >= stop:
        return None
    found = [k for bp in breakpoints if bp.kind in PREPASS_KINDS
             for k in [_prepass_hit(run, bp, start, stop)] if k is not None]
    if found:
        stop = min(found) + 1  # nothing needs looking at past the first pre-pass hit
    if all(bp.kind in PREPASS_KINDS for bp in breakpoints):
        if not found:
            return None
        k = stop - 1
        return scan_steps([_light_step(run, k)], breakpoints, k, run.matches_at)
    for lo in range(start, stop, CHUNK):
        hit = scan_steps(run.steps(lo, min(stop, lo + CHUNK)), breakpoints, lo, run.matches_at)
        if hit is not None:
            return hit
    return None
