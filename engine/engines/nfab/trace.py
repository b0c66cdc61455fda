"""NFA^b's side of the step trace (engine/trace.py, docs/trace.md).

Called from ``NfabMatcher`` only when it has a tracer, so that matching without one
costs what it did. Names are those of the Automaton page: states ``a[1]``, ``a[i]``,
``b``, ``F`` (``alt<k>:`` prefixed when the pattern has several SEQ alternatives), runs by
their Dewey version (``"3.1"``), buffer entries as ``state@event``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.events import Event
from engine.model import Strategy
from engine.trace import Action, PredicateCheck, Recorder, RunView, check_conjunct

if TYPE_CHECKING:  # the matcher's own types; this module is imported by the matcher's modules
    from engine.engines.nfab.compiler import Chain
    from engine.match import Match

# the matcher's classes, named for reading (this module imports none of them)
NfabMatcher = Run = Entry = ChainPlan = Any


def _recorder(m: NfabMatcher) -> Recorder:
    return m.tracer  # type: ignore[return-value]


def _trace_changes(m: NfabMatcher) -> dict[str, Any]:
    """The buffer's changes since the last step trace (and the names given to its entries)."""
    changes = getattr(m, "_trace_buffer_changes", None)
    if changes is None:
        changes = {"added": [], "pointers": [], "removed": [], "ids": {}, "names": set()}
        m._trace_buffer_changes = changes  # type: ignore[attr-defined]
    return changes


def state_name(m: NfabMatcher, chain: int, si: int) -> str:
    name = m.chain_plans[chain].states[si].name
    return f"alt{chain}:{name}" if len(m.chain_plans) > 1 else name


def run_id(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def bindings(m: NfabMatcher, r: Run) -> dict[str, list[Event]]:
    """The run's events per variable: the entries it wrote, read from its trail (the path §4.9
    reads back through the shared buffer's version-labelled pointers). Not the buffer walk
    itself: a merged run keeps running for its members while the window sweep has cut the
    pointers behind its own, expired, first member."""
    chain_plan = m.chain_plans[r.chain]
    entries = []
    trail = r.trail
    while trail is not None:
        ent, trail = trail
        entries.append(ent)
    out: dict[str, list[Event]] = {}
    for ent in reversed(entries):
        out.setdefault(chain_plan.variable_of[ent.state], []).append(ent.event)  # type: ignore[arg-type]
    return out


def _kleene(m: NfabMatcher) -> set[str]:
    ks = getattr(m, "_trace_kleene", None)
    if ks is None:
        ks = {c.var for c in m.pattern.components() if c.kleene}
        m._trace_kleene = ks  # type: ignore[attr-defined]
    return ks


def _checks(m: NfabMatcher, exprs: list[Any], b: dict[str, list[Event]], current: str | None
            ) -> list[PredicateCheck]:
    ks = _kleene(m)
    return [check_conjunct(x, b, ks, current=current) for x in exprs]


def _window_check(m: NfabMatcher, start: float, e: Event) -> PredicateCheck | None:
    if m.window_size is None:
        return None
    c = m._coord(e)
    coord = "seq" if m.count_window else "ts"
    size = m.window_size
    return PredicateCheck(f"e.{coord} - first.{coord} < {size:g}",
                          {f"e.{coord}": c, f"first.{coord}": start, "W": size}, c - start < size)


def edge(m: NfabMatcher, kind: str, r: Run, chain_plan: ChainPlan, si: int, e: Event, typed: bool,
         parent: Any = None) -> None:
    """An edge taken by run ``r`` at state ``si`` on event ``e`` (begin / take / ignore /
    proceed), with every conjunct its formula evaluated."""
    s = chain_plan.states[si]
    b = bindings(m, r)
    preds: list[PredicateCheck] = []
    to = state_name(m, r.chain, si)
    if kind in ("begin", "take"):
        b.setdefault(s.var, []).append(e)  # type: ignore[arg-type]
        preds = _checks(m, s.begin if kind == "begin" else s.take, b, s.var if kind == "take" else None)
        to = state_name(m, r.chain, si + 1) if kind == "begin" else to
    elif kind == "proceed":
        preds = _checks(m, s.proceed, b, None)
        nxt = chain_plan.states[si + 1]
        to = state_name(m, r.chain, si + 1)
        if m.peek and nxt.kind != "final":
            b2 = {k: list(v) for k, v in b.items()}
            b2.setdefault(nxt.var, []).append(e)  # type: ignore[arg-type]
            preds += _checks(m, nxt.begin, b2, None)
    elif kind == "ignore" and m.strategy is Strategy.NEXT and typed:
        # skip_till_next_match ignores only what the take/begin formula refuses (§3.4)
        b.setdefault(s.var, []).append(e)  # type: ignore[arg-type]
        preds = _checks(m, s.take if s.kind == "kleene_rest" else s.begin, b,
                        s.var if s.kind == "kleene_rest" else None)
    w = _window_check(m, r.start, e) if m.push_window and r.entry is not None else None
    if w is not None:
        preds.append(w)
    detail: dict[str, Any] = {}
    if parent is not None and parent is not r:
        detail["clone_of"] = run_id(parent.version)
    if kind == "ignore":
        detail["formula"] = {Strategy.ANY: "true", Strategy.NEXT: "¬take/begin",
                             Strategy.PARTITION: "¬partition", Strategy.STRICT: "false"}[m.strategy]
    _recorder(m).act(kind, run=run_id(r.version), state=state_name(m, r.chain, si), edge=kind, to=to, event=e.id,
                     predicates=preds, detail=detail)


def no_start(m: NfabMatcher, chain_plan: ChainPlan, e: Event) -> None:
    s = chain_plan.states[0]
    preds = _checks(m, s.begin, {s.var: [e]}, None)  # type: ignore[dict-item]
    _recorder(m).act("discard", state=state_name(m, chain_plan.chain.index, 0), edge="begin", event=e.id,
                     predicates=preds, reason="does not start a run: the start state's begin formula is false")


def no_edge(m: NfabMatcher, r: Run, chain_plan: ChainPlan, si: int, e: Event, typed: bool) -> None:
    s = chain_plan.states[si]
    b = bindings(m, r)
    preds: list[PredicateCheck] = []
    if typed:
        b.setdefault(s.var, []).append(e)  # type: ignore[arg-type]
        if s.kind == "kleene_rest":
            preds = _checks(m, s.take, b, s.var)
        else:
            preds = _checks(m, s.begin, b, None)
    if not typed:
        why = f"{m.strategy.value}: event {e.id} of type {e.type} cannot be taken and the ignore edge is false"
    else:
        why = f"{m.strategy.value}: no edge enabled (the {'take' if s.kind == 'kleene_rest' else 'begin'} " \
              "formula is false and the ignore edge is false)"
    _recorder(m).act("discard", run=run_id(r.version), state=state_name(m, r.chain, si), event=e.id, predicates=preds,
                     reason=why)


def expired(m: NfabMatcher, r: Run, e: Event) -> None:
    w = _window_check(m, r.start, e)
    _recorder(m).act("expire", run=run_id(r.version), state=state_name(m, r.chain, r.state), event=e.id,
                     predicates=[w] if w else [], reason="left the window (WITHIN)")


def contiguity(m: NfabMatcher, r: Run, e: Event) -> None:
    _recorder(m).act("discard", run=run_id(r.version), state=state_name(m, r.chain, r.state), event=e.id,
                     reason=f"{m.strategy.value}: event {e.id} of type {e.type} (not in the pattern) breaks contiguity")


def matched(m: NfabMatcher, r: Run, chain_plan: ChainPlan, match: "Match", e: Event) -> None:
    _recorder(m).act("match", run=run_id(r.version), state=state_name(m, r.chain, chain_plan.final), event=e.id,
                     detail={"match": match.to_json()})


def negated(m: NfabMatcher, r: Run, chain_plan: ChainPlan, bound: dict[str, list[Event]], blocker: Event,
            e: Event) -> None:
    _recorder(m).act("discard", run=run_id(r.version), state=state_name(m, r.chain, chain_plan.final), event=e.id,
                     reason=f"negation: event {blocker.id} ({blocker.type}) qualifies for a negated component",
                     detail={"blocker": blocker.id,
                             "match": {v: [x.id for x in evs] for v, evs in bound.items()}})


def wait_negation(m: NfabMatcher, r: Run, chain_plan: ChainPlan, match: "Match", deadline: float, e: Event) -> None:
    _recorder(m).act("wait", run=run_id(r.version), state=state_name(m, r.chain, chain_plan.final), event=e.id,
                     reason=f"trailing negation: reported when the window closes (at {deadline:g})",
                     detail={"match": match.to_json()})


def pending_done(m: NfabMatcher, match: "Match", chain: "Chain", bound: dict[str, list[Event]],
                 blocker: Event | None) -> None:
    if blocker is None:
        _recorder(m).act("match", state=state_name(m, chain.index, chain.final),
                         reason="the window closed with no qualifying negated event", detail={"match": match.to_json()})
    else:
        _recorder(m).act("discard", state=state_name(m, chain.index, chain.final),
                         reason=f"negation: event {blocker.id} ({blocker.type}) qualifies for the trailing negation",
                         detail={"blocker": blocker.id, "match": match.to_json()})


def merged(m: NfabMatcher, r: Run, rep: Run, ent: Entry) -> None:
    _recorder(m).act("merge", run=run_id(r.version), state=state_name(m, r.chain, r.state), event=ent.event.id,
                     detail={"into": run_id(rep.version)})


def _entry_id(m: NfabMatcher, ent: Entry) -> str | None:
    return _trace_changes(m)["ids"].get(id(ent))


def buffer_write(m: NfabMatcher, ent: Entry, r: Run) -> None:
    """Called after ``ent`` got the pointer of run ``r`` (still at its previous entry)."""
    changes = _trace_changes(m)
    ids = changes["ids"]
    label = run_id(r.version)
    to = ids.get(id(r.entry)) if r.entry is not None else None
    eid = ids.get(id(ent))
    if eid is None:
        base = f"{state_name(m, ent.chain, ent.state)}@{ent.event.id}"
        eid, k = base, 1
        while eid in changes["names"]:
            k += 1
            eid = f"{base}#{k}"
        ids[id(ent)] = eid
        changes["names"].add(eid)
        changes["added"].append({"id": eid, "state": state_name(m, ent.chain, ent.state), "event": ent.event.id,
                            "preds": [{"label": label, "to": to}]})
    else:
        changes["pointers"].append({"entry": eid, "label": label, "to": to})


def name_entries(m: NfabMatcher) -> None:
    """Give every live buffer entry the name ``buffer_write`` would have given it, for a
    matcher that ran untraced until now (engine/checkpoints.py); entries in the order they
    were written (their event's position, then the stack's order)."""
    changes = _trace_changes(m)
    ids, names = changes["ids"], changes["names"]
    live = sorted(((ent.event.seq, n, ent) for n, stq in enumerate(m.stacks.values()) for ent in stq),
                  key=lambda t: (t[0], t[1]))
    for _seq, _n, ent in live:
        if id(ent) in ids:
            continue
        base = f"{state_name(m, ent.chain, ent.state)}@{ent.event.id}"
        eid, k = base, 1
        while eid in names:
            k += 1
            eid = f"{base}#{k}"
        ids[id(ent)] = eid
        names.add(eid)


def buffer_entries(m: NfabMatcher) -> dict[str, dict[str, Any]]:
    """Every live entry as ``engine.trace.buffer_at`` rebuilds it from a trace's changes (id ->
    state, event, pointers), read from the matcher itself: the buffer at the first step of a
    window that did not start at the stream's start (engine/checkpoints.py)."""
    ids = _trace_changes(m)["ids"]
    out: dict[str, dict[str, Any]] = {}
    live = sorted(((ent.event.seq, n, ent) for n, stq in enumerate(m.stacks.values()) for ent in stq),
                  key=lambda t: (t[0], t[1]))
    for _seq, _n, ent in live:
        eid = ids.get(id(ent))
        if eid is None:
            continue
        out[eid] = {"id": eid, "state": state_name(m, ent.chain, ent.state), "event": ent.event.id,
                    "preds": [{"label": run_id(v), "to": _name_of(m, ids, prev)} for v, prev in ent.pointers]}
    return out


def _name_of(m: NfabMatcher, ids: dict[int, str], ent: Entry | None) -> str | None:
    """An entry's trace name; one the sweep has removed keeps the name it had (``state@event``),
    as the pointers a trace recorded before the removal still say."""
    if ent is None:
        return None
    got = ids.get(id(ent))
    return got if got is not None else f"{state_name(m, ent.chain, ent.state)}@{ent.event.id}"


def entry_removed(m: NfabMatcher, ent: Entry) -> None:
    changes = _trace_changes(m)
    eid = changes["ids"].pop(id(ent), None)
    if eid is not None:
        changes["names"].discard(eid)
        changes["removed"].append(eid)


def state(m: NfabMatcher) -> tuple[list[RunView], dict[str, Any]]:
    changes = _trace_changes(m)
    runs = []
    for r in m.runs():
        b = bindings(m, r)
        runs.append(RunView(id=run_id(r.version), state=state_name(m, r.chain, r.state),
                            bindings={v: [x.id for x in evs] for v, evs in b.items()}, start=r.start,
                            version=run_id(r.version), members=len(r.members) if r.members else 1))
    change = {"kind": "shared", "added": changes["added"], "pointers": changes["pointers"],
              "removed": changes["removed"],
              "entries": sum(len(q) for q in m.stacks.values())}
    changes["added"], changes["pointers"], changes["removed"] = [], [], []
    return runs, change


__all__ = ["Action", "edge", "state"]
