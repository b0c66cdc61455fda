"""The lazy chain / tree and eager engines' side of the step trace (engine/trace.py).

Called only when the matcher has a tracer. Runs are partial matches (their id), states
are named as on the Automaton page: the chain's ``q1``, ``q2`` ... (``c<k>:`` prefixed
with several clauses), the tree's ``q[b,a]`` (the variables in the order they were
taken), the eager NFA's ``q{a,b}`` (the bound set), ``F`` when complete. The buffer view
holds the per-variable input buffers (live event ids), the evaluation order and the
number of partial matches.
"""
from __future__ import annotations

from typing import Any

from engine.engines.lazy.instances import Instance
from engine.events import Event
from engine.trace import PredicateCheck, Recorder, RunView, check_conjunct

LazyBase = Any  # engine.engines.lazy.base.LazyBase; that module imports this one


def _rec(m: LazyBase) -> Recorder:
    return m.tracer  # type: ignore[return-value]


def _kleene(m: LazyBase) -> set[str]:
    return {v for v, vi in m.info.vars.items() if vi.kleene}


def bindings(m: LazyBase, vals: list[Any]) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for var, slot, k in m.pos_slots:
        x = vals[slot]
        if x is None:
            continue
        out[var] = list(x) if k else [x]
    return out


def _clause_of(m: LazyBase, inst: Instance) -> int:
    """The DNF clause of a partial match: its chain (CompiledChain), tree (CompiledTree) or eager clause."""
    plan = inst.plan
    if hasattr(plan, "index"):
        return plan.index
    if hasattr(plan, "clause"):
        return plan.clause.index
    if hasattr(plan, "tail"):
        return plan.tail.index
    return 0


def _prefix(m: LazyBase) -> str:
    return "c{}:" if getattr(m, "multi", False) else ""


def path_of(m: LazyBase, inst: Instance, trying: str | None = None) -> tuple[str, ...]:
    """The variables a partial match has bound, in the order it bound them: kept on the
    instance by the tree (whose order depends on the stream); for the chain and the eager
    baseline, whose state names need only how many or which, read from its values.
    ``trying``: a variable whose slot holds a candidate being checked or taken, not bound
    before: one event, or for a Kleene variable its first element (the eager baseline extends
    ``b[]`` an event at a time) or any subset (the chain binds ``b[]`` in one step)."""
    if m.keeps_path:
        return inst.path
    vals = inst.vals
    whole = m.name == "lazy-chain"
    out = []
    for var, slot, kleene in m.pos_slots:
        x = vals[slot]
        if x is None or (var == trying and (not kleene or whole or len(x) == 1)):
            continue
        out.append(var)
    return tuple(out)


def state_name(m: LazyBase, inst: Instance, path: tuple[str, ...] | None = None) -> str:
    """The state a partial match is in, as the Automaton page draws it."""
    if path is None:
        path = path_of(m, inst)
    clause = _clause_of(m, inst)
    pre = _prefix(m).format(clause)
    kind = m.name
    if kind == "lazy-chain":
        n = len(path)
        return "q1" if n == 0 else f"{pre}q{n + 1}"
    if kind == "lazy-tree":
        return "root" if not path else f"{pre}q[{','.join(path)}]"
    order = [v for v in m.info.positive if v in set(path)]
    return f"{pre}q{{{','.join(order)}}}"


def _conds(m: LazyBase, clause: int, var: str, bound: set[str]) -> list[Any]:
    for cl in m.info.clauses:
        if cl.index == clause:
            return [c.node for c in cl.conds if var in c.vars and c.vars <= bound]
    return []


def _checks(m: LazyBase, clause: int, var: str, b: dict[str, list[Event]]) -> list[PredicateCheck]:
    ks = _kleene(m)
    return [check_conjunct(x, b, ks, current=var if var in ks else None)
            for x in _conds(m, clause, var, set(b))]


def take(m: LazyBase, parent: Instance, child: Instance, var: str, ev: Event, source: str) -> None:
    """``child`` = ``parent`` + ``ev`` bound to ``var`` (stream take, buffer take, iterate)."""
    # the chain's iterate step takes b[] with the subset in the parent's vector (not bound before)
    ppath = path_of(m, parent, trying=var if m.name == "lazy-chain" else None) if not parent.root else ()
    cpath = path_of(m, child)
    clause = _clause_of(m, child)
    b = bindings(m, child.vals)
    _rec(m).act("take", run=_rid(parent), state=state_name(m, parent, ppath), edge="iterate" if var in
                _kleene(m) else "take", to=state_name(m, child, cpath), event=ev.id,
                predicates=_checks(m, clause, var, b),
                detail={"child": str(child.id), "var": var, "source": source,
                        "bindings": {v: [x.id for x in evs] for v, evs in b.items()}})


def refuse(m: LazyBase, inst: Instance, var: str, vals: list[Any], ev: Event, source: str) -> None:
    """A candidate that failed the conditions: the partial match does not take it."""
    clause = _clause_of(m, inst)
    b = bindings(m, vals)
    _rec(m).act("ignore", run=_rid(inst), state=state_name(m, inst, path_of(m, inst, trying=var)), edge="take",
                event=ev.id, predicates=_checks(m, clause, var, b),
                reason=f"the conditions on `{var}` are false for event {ev.id}",
                detail={"var": var, "source": source})


def _rid(inst: Instance) -> str:
    return "root" if inst.root else str(inst.id)


def store(m: LazyBase, var: str, e: Event, negated: bool = False) -> None:
    _rec(m).act("store", event=e.id, state=f"buffer {var}",
                detail={"var": var, **({"negated": True} if negated else {})})


def search(m: LazyBase, inst: Instance, var: str, candidates: int, **extra: Any) -> None:
    _rec(m).act("search", run=_rid(inst), state=state_name(m, inst),
                detail={"var": var, "candidates": candidates, **{k: v for k, v in extra.items() if v is not None}})


def wait(m: LazyBase, inst: Instance, var: str) -> None:
    _rec(m).act("wait", run=_rid(inst), state=state_name(m, inst), reason=f"waits for `{var}` from the stream")


def expire(m: LazyBase, inst: Instance, e: Event | None) -> None:
    _rec(m).act("expire", run=_rid(inst), state=state_name(m, inst), event=e.id if e is not None else None,
                reason="left the window (WITHIN): timeout", predicates=_window(m, inst, e))


def _window(m: LazyBase, inst: Instance, e: Event | None) -> list[PredicateCheck]:
    if m.W is None or e is None:
        return []
    c = e.seq if m.count_window else e.ts
    co = "seq" if m.count_window else "ts"
    return [PredicateCheck(f"e.{co} - first.{co} < {m.W:g}", {f"e.{co}": c, f"first.{co}": inst.cmin, "W": m.W},
                           c - inst.cmin < m.W)]


def discard(m: LazyBase, inst: Instance, reason: str, e: Event | None = None, **detail: Any) -> None:
    _rec(m).act("discard", run=_rid(inst), state=state_name(m, inst), event=e.id if e is not None else None,
                reason=reason, detail=detail)


def negation(m: LazyBase, inst: Instance, var: str, blocker: Event) -> None:
    _rec(m).act("discard", run=_rid(inst), state=state_name(m, inst), event=blocker.id,
                reason=f"negation: event {blocker.id} ({blocker.type}) qualifies for `{var}`",
                detail={"blocker": blocker.id, "var": var})


def wait_negation(m: LazyBase, inst: Instance, until: float) -> None:
    _rec(m).act("wait", run=_rid(inst), state="F",
                reason=f"trailing negation: reported when the window closes (at {until:g})")


def matched(m: LazyBase, inst: Instance, match: Any, last: Event) -> None:
    _rec(m).act("match", run=_rid(inst), state="F", event=last.id, detail={"match": match.to_json()})


def state(m: LazyBase) -> tuple[list[RunView], dict[str, Any]]:
    runs = []
    for inst in m.instances():
        if inst.root:
            continue
        b = bindings(m, inst.vals)
        runs.append(RunView(id=str(inst.id), state=state_name(m, inst),
                            bindings={v: [x.id for x in evs] for v, evs in b.items()},
                            start=inst.cmin if inst.cmin != float("inf") else None))
    bufs: dict[str, list[Any]] = {}
    for v, vrt in m.vrts.items():
        buf = vrt.buf
        if buf is not None:
            bufs[v] = [e.id for e in buf.ev[buf.head:]]
    view: dict[str, Any] = {"kind": "lazy", "buffers": bufs, "partial": len(runs)}
    orders = m.stats.extra.get("orders")
    if orders:
        view["order"] = orders
    choices = getattr(m, "choices", None)
    if choices:
        view["rarest_choices"] = dict(choices)
    return runs, view
