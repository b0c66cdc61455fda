"""The one step trace every matcher emits (docs/trace.md).

A trace is a list of :class:`Step`: one per input event, then a final ``close`` step.
A step holds the event, the :class:`Action` s the engine took on it (begin / take /
ignore / proceed / discard / merge / match / expire, plus store / search / wait for the lazy
engines; store / search / wait for the lazy engines and trailing negation), the live runs after the step (:class:`RunView`), the buffer change, and the
matches the engine returned for this event, in the ``cep run --format jsonl`` form.

Engines receive a :class:`Recorder` as their ``tracer`` and call ``tracer.act(...)``
while they work; after each ``feed`` the recorder asks the matcher for its live runs
and buffer change (``matcher.trace_state()``). The matches of a step are exactly what
``feed`` / ``close`` returned, so the union of a trace's matches is, by construction,
what ``cep run`` prints for the same engine.

Predicates are reported with :func:`check_conjunct`: the conjunct's text, the value of
each operand (``a[i].price``, ``avg(a[..i-1].price)``, ``a.len``) and the result, all
computed on the bindings of the run that evaluated it (the same values the engine saw).

With no tracer the engines build none of this (every call site is guarded by
``tracer is not None``); ``benchmarks/trace_overhead.py`` measures that.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from engine.bindings import _Ctx, _resolver
from engine.events import Event
from engine.expr import Agg, Len, Node, Ref, compile_expr, to_text, uses_iteration

DEFAULT_LIMIT = 5_000
MAX_RUNS_LISTED = 500

ACTION_KINDS = ("begin", "take", "ignore", "proceed", "discard", "merge", "match", "expire", "store", "search", "wait")


class TraceLimit(RuntimeError):
    """The input is longer than the trace limit (``--limit``)."""


@dataclass(slots=True)
class PredicateCheck:
    """One conjunct evaluated: its text, each operand's value, and the result."""

    text: str
    values: dict[str, Any]
    result: bool

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "values": {k: _jsonable(v) for k, v in self.values.items()},
                "result": self.result}


@dataclass(slots=True)
class Action:
    """Something an engine did on a step.

    ``run`` names the run (NFA^b: its Dewey version ``"3.1"``; lazy engines: the partial
    match id), ``state`` the automaton state as drawn on the Automaton page, ``edge`` the
    edge kind and ``to`` its target state; ``event`` the event id the action concerns;
    ``predicates`` every conjunct evaluated for the decision; ``reason`` why a run was
    discarded or expired; ``detail`` engine-specific extras (child run, merged-into run,
    the match, buffer source ...)."""

    kind: str
    run: str | None = None
    state: str | None = None
    edge: str | None = None
    to: str | None = None
    event: Any = None
    predicates: list[PredicateCheck] = field(default_factory=list)
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind}
        for k in ("run", "state", "edge", "to", "event", "reason"):
            v = getattr(self, k)
            if v is not None:
                d[k] = _jsonable(v)
        if self.predicates:
            d["predicates"] = [p.to_json() for p in self.predicates]
        if self.detail:
            d["detail"] = {k: _jsonable(v) for k, v in self.detail.items()}
        return d


@dataclass(slots=True)
class RunView:
    """A live run after a step: id, state, bindings (var -> event ids), start ts, and for
    NFA^b the Dewey version and the number of merged members."""

    id: str
    state: str
    bindings: dict[str, list[Any]]
    start: float | None = None
    version: str | None = None
    members: int = 1

    def to_json(self) -> dict[str, Any]:
        d = {"id": self.id, "state": self.state, "bindings": {k: [_jsonable(x) for x in v]
                                                              for k, v in self.bindings.items()},
             "start": self.start}
        if self.version is not None:
            d["version"] = self.version
        if self.members != 1:
            d["members"] = self.members
        return d


@dataclass(slots=True)
class Step:
    """One input event's step (``step`` is its 0-based position) or the final ``close``."""

    step: int | str
    event: dict[str, Any] | None
    actions: list[Action] = field(default_factory=list)
    runs: list[RunView] = field(default_factory=list)
    runs_total: int = 0
    buffer: dict[str, Any] = field(default_factory=dict)
    matches: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"step": self.step}
        if self.event is not None:
            d["event"] = self.event
        d["actions"] = [a.to_json() for a in self.actions]
        if self.step != "close":
            d["runs"] = [r.to_json() for r in self.runs]
            if self.runs_total != len(self.runs):
                d["runs_total"] = self.runs_total
            d["buffer"] = self.buffer
        d["matches"] = self.matches
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Step":
        acts = [Action(kind=a["kind"], run=a.get("run"), state=a.get("state"), edge=a.get("edge"),
                       to=a.get("to"), event=a.get("event"),
                       predicates=[PredicateCheck(p["text"], p["values"], p["result"])
                                   for p in a.get("predicates", [])],
                       reason=a.get("reason"), detail=a.get("detail", {})) for a in d.get("actions", [])]
        runs = [RunView(id=r["id"], state=r["state"], bindings=r["bindings"], start=r.get("start"),
                        version=r.get("version"), members=r.get("members", 1)) for r in d.get("runs", [])]
        return cls(step=d["step"], event=d.get("event"), actions=acts, runs=runs,
                   runs_total=d.get("runs_total", len(runs)), buffer=d.get("buffer", {}),
                   matches=d.get("matches", []))


def event_json(e: Event) -> dict[str, Any]:
    """``{"id", "type", "ts", ...attributes}`` (interval events add lower/upper)."""
    d: dict[str, Any] = {"id": _jsonable(e.id), "type": e.type, "ts": _jsonable(e.ts)}
    if e.lower is not None:
        d["lower"], d["upper"] = _jsonable(e.lower), _jsonable(e.upper)
    for k, v in e.attrs.items():
        if k not in d:
            d[k] = _jsonable(v)
    return d


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else str(v)
    if hasattr(v, "item"):
        return _jsonable(v.item())
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return str(v)


class Recorder:
    """The tracer engines receive. ``act`` appends an action to the current step."""

    __slots__ = ("actions",)

    def __init__(self) -> None:
        self.actions: list[Action] = []

    def act(self, kind: str, **fields: Any) -> None:
        detail = fields.pop("detail", None) or {}
        extra = {k: fields.pop(k) for k in list(fields) if k not in Action.__slots__}
        detail.update(extra)
        self.actions.append(Action(kind=kind, detail=detail, **fields))

    def take_actions(self) -> list[Action]:
        out, self.actions = self.actions, []
        return out


def record(matcher: Any, events: Sequence[Event] | Iterable[Event], limit: int | None = DEFAULT_LIMIT,
           start: int = 0, close: bool = True) -> Iterable[Step]:
    """Feed ``events`` to ``matcher`` (built with ``tracer=`` a :class:`Recorder`, or given one
    by ``attach_tracer``) and yield one Step per event, then the close step (unless ``close``
    is False). ``start``: the step index of the first event (a window of a longer run,
    engine/checkpoints.py). Past ``limit`` events raises TraceLimit before feeding the first
    event beyond it."""
    tracer = getattr(matcher, "tracer", None)
    if not isinstance(tracer, Recorder):
        raise TypeError("record() needs a matcher built with tracer=Recorder()")
    for n, e in enumerate(events):
        if limit is not None and n >= limit:
            raise TraceLimit(f"the trace stops at {limit:,} events (--limit); the data has more. "
                             "Trace a prefix (--limit N) or a smaller file: a trace keeps every step in memory")
        ms = matcher.feed(e)
        runs, total, buf = _state(matcher)
        yield Step(step=start + n, event=event_json(e), actions=tracer.take_actions(), runs=runs, runs_total=total,
                   buffer=buf, matches=[m.to_json() for m in ms])
    if not close:
        return
    ms = matcher.close()
    yield Step(step="close", event=None, actions=tracer.take_actions(), matches=[m.to_json() for m in ms])


def _state(matcher: Any) -> tuple[list[RunView], int, dict[str, Any]]:
    fn = getattr(matcher, "trace_state", None)
    if fn is None:
        return [], 0, {}
    runs, buf = fn()
    total = len(runs)
    return runs[:MAX_RUNS_LISTED], total, buf


def type_rates(engine: str, events: Sequence[Event]) -> dict[str, int] | None:
    """The event-type rates ``cep run`` gives the planner: for ``auto`` only, where skewed
    rates steer the choice to the lazy chain (and fix its evaluation order)."""
    if engine != "auto":
        return None
    counts: dict[str, int] = {}
    for e in events:
        counts[e.type] = counts.get(e.type, 0) + 1
    return counts


def trace_matches(steps: Iterable[Step]) -> list[dict[str, Any]]:
    """Every match of a trace, in emission order."""
    return [m for s in steps for m in s.matches]


def buffer_at(steps: Sequence[Step], k: int) -> dict[str, dict[str, Any]]:
    """The NFA^b shared buffer after step ``k``: entry id -> entry (state, event, preds),
    rebuilt from the per-step changes (``added``, ``pointers``, ``removed``)."""
    return apply_buffer_changes({}, steps[: k + 1])


def apply_buffer_changes(entries: dict[str, dict[str, Any]], steps: Iterable[Step]) -> dict[str, dict[str, Any]]:
    """``entries`` (a buffer as :func:`buffer_at` gives it, changed in place and returned) after
    the buffer changes of ``steps``."""
    for s in steps:
        b = s.buffer
        for ent in b.get("added", ()):
            entries[ent["id"]] = {"id": ent["id"], "state": ent["state"], "event": ent["event"],
                                  "preds": list(ent["preds"])}
        for p in b.get("pointers", ()):
            if p["entry"] in entries:
                entries[p["entry"]]["preds"].append({"label": p["label"], "to": p["to"]})
        for rid in b.get("removed", ()):
            entries.pop(rid, None)
    return entries


# --------------------------------------------------------------------------- predicates

def _leaves(e: Node) -> list[Node]:
    out: list[Node] = []
    seen: set[str] = set()
    for n in e.walk():
        if isinstance(n, (Ref, Len, Agg)):
            t = to_text(n)
            if t not in seen:
                seen.add(t)
                out.append(n)
    return out


def check_conjunct(expr: Node, bindings: dict[str, list[Event]], kleene: set[str],
                   current: str | None = None) -> PredicateCheck:
    """Evaluate one conjunct on ``bindings`` with the value of every operand.

    ``current`` is the variable whose newest element is being tested (a take of ``a[i]``:
    ``i`` is ``len(a)``, unindexed ``a.x`` means that element). Without it, the conjunct is
    checked for every ``i`` / element as on a complete match (docs/semantics.md), and the
    values shown are those of the first failing case (or the last case when it holds)."""
    resolve = _resolver(kleene)
    text = to_text(expr)
    for v in (n.var for n in expr.walk() if isinstance(n, (Ref, Len, Agg))):
        if not bindings.get(v):
            return PredicateCheck(text, {}, True)  # vacuous: a variable bound to nothing
    fn = compile_expr(expr, resolve)
    leaves = [(to_text(n), compile_expr(n, resolve)) for n in _leaves(expr)]
    it = uses_iteration(expr)
    iter_var = next(iter(it)) if it else None
    unindexed = sorted({n.var for n in expr.walk() if isinstance(n, Ref) and n.index is None and n.var in kleene})
    ctx = _Ctx(bindings)
    cases: Iterable[tuple[int, dict[str, Event]]]
    if current is not None and current in kleene:
        n = len(bindings[current])
        i = n if iter_var == current else (len(bindings[iter_var]) if iter_var else 0)
        if iter_var is not None and i < 2:
            return PredicateCheck(text, {}, True)  # a[i] needs i >= 2
        others = [u for u in unindexed if u != current]
        combos = itertools.product(*[bindings[u] for u in others])
        cases = ((i, {current: bindings[current][-1], **dict(zip(others, c))}) for c in combos) \
            if current in unindexed else ((i, dict(zip(others, c))) for c in combos)
    else:
        if iter_var is not None:
            n = len(bindings[iter_var])
            if n < 2:
                return PredicateCheck(text, {}, True)
            irange: Iterable[int] = range(2, n + 1)
        else:
            irange = (0,)
        cases = ((i, dict(zip(unindexed, c))) for i in irange
                 for c in itertools.product(*[bindings[u] for u in unindexed]))
    values: dict[str, Any] = {}
    result = True
    for i, el in cases:
        ctx.i = i
        ctx.el = el
        values = {t: g(ctx) for t, g in leaves}
        if iter_var is not None and i:
            values = {_at(t, iter_var, i): v for t, v in values.items()}
        if not fn(ctx):
            result = False
            break
    return PredicateCheck(text, values, bool(result))


def _at(text: str, var: str, i: int) -> str:
    """``a[i].price`` -> ``a[3].price`` for the reader (the i the value was taken at)."""
    return (text.replace(f"{var}[i-1]", f"{var}[{i - 1}]").replace(f"{var}[i]", f"{var}[{i}]")
            .replace(f"{var}[..i-1]", f"{var}[..{i - 1}]"))


def event_label(k: int, event_id: Any) -> str:
    """The one name of a moment of a run, used by every view (the Debug page, ``cep trace``,
    ``cep explain``): ``event #812 (id 4711)`` for step index ``k`` (0-based; people count
    events from 1, so step ``k`` is event ``#k+1``)."""
    return f"event #{k + 1:,} (id {_jsonable(event_id)})"


def to_dicts(steps: Iterable[Step]) -> list[dict[str, Any]]:
    return [s.to_json() for s in steps]


__all__ = ["Action", "PredicateCheck", "Recorder", "RunView", "Step", "TraceLimit", "DEFAULT_LIMIT",
           "ACTION_KINDS", "check_conjunct", "event_label", "type_rates", "event_json", "record", "trace_matches", "buffer_at",
           "apply_buffer_changes",
           "to_dicts"]
