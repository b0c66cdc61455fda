"""Conditions of the lazy engines compiled into closures over a value vector.

Conditions on single-event variables form one chained conjunction of comparisons that
read ``event.attrs`` directly (``expr.compile_conjunction`` over ``expr.slot_attr``);
conditions over Kleene variables use ``bindings.conjunct`` for the exact list semantics.
Unary filters (``compile_local``) run on the event itself.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from engine.bindings import conjunct
from engine.engines.lazy.chain_compiler import Cond, PatternInfo
from engine.events import Event
from engine.expr import Ref, compile_conjunction, event_attr, slot_attr, variables


def compile_conds(conds: Sequence[Cond], info: PatternInfo, last: str | None = None
                  ) -> Callable[[list[Any]], bool] | None:
    """All conditions as one closure over a value vector (None when there are none).
    Conditions on single-event variables form one chained conjunction
    (``expr.compile_conjunction`` over ``expr.slot_attr`` getters); those over Kleene
    variables follow. With ``last``, the conditions are prefix-closed in that Kleene variable
    and the vector holds a valid prefix extended by one element: only the new element is
    checked."""
    kleene = {v for v, vi in info.vars.items() if vi.kleene}
    plain = [c.node for c in conds if not (variables(c.node) & kleene)]
    fs = [_compile_kleene_condition(c.node, info, last) for c in conds if variables(c.node) & kleene]
    if plain:
        slots = {v: vi.slot for v, vi in info.vars.items()}
        f = compile_conjunction(plain, lambda n: _slot_getter(n, slots))
        if f is not None:
            fs.insert(0, f)
    if not fs:
        return None
    if len(fs) == 1:
        return fs[0]
    if len(fs) == 2:
        f0, f1 = fs
        return lambda v: f0(v) and f1(v)
    return lambda v: all(f(v) for f in fs)


def _slot_getter(n: Any, slots: Mapping[str, int]) -> Callable[[list[Any]], Any]:
    if isinstance(n, Ref):
        return slot_attr(slots[n.var], n.attr)
    raise TypeError(f"{n!r} on a single-event variable")


def _compile_kleene_condition(node: Any, info: PatternInfo, last: str | None = None) -> Callable[[list[Any]], bool]:
    """One condition that mentions a Kleene variable (exact list semantics of
    ``bindings.conjunct``)."""
    cj = conjunct(node, {v for v, i in info.vars.items() if i.kleene})
    pairs = [(v, info.vars[v].slot, info.vars[v].kleene) for v in cj.vars]

    def holds(v: list[Any]) -> bool:
        b = {}
        for var, s, k in pairs:
            x = v[s]
            b[var] = list(x) if k else [x]
        return cj.holds(b)

    if last is None or last not in cj.vars:
        return holds

    def holds_last(v: list[Any]) -> bool:
        b = {}
        for var, s, k in pairs:
            x = v[s]
            b[var] = list(x) if k else [x]
        return cj.holds_last(b, last)

    return holds_last


def compile_local(nodes: Sequence[Any]) -> Callable[[Event], bool] | None:
    """Unary filters of one variable, on the event itself (element-wise for ``+``)."""
    return compile_conjunction(nodes, lambda n: event_attr(n.attr))


__all__ = ["compile_conds", "compile_local"]
