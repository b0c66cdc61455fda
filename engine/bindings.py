"""Predicates evaluated on complete bindings (variable -> list of events).

The oracle checks whole candidate matches with this; NFA^b uses it for the nested
negation query when a match is complete. Semantics (docs/semantics.md): a predicate
holds if it holds for every ``i`` in 2..len of its iterated Kleene variable and every
element of each unindexed Kleene variable; a predicate that mentions a variable bound to
nothing holds vacuously.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

from engine.events import Event
from engine.expr import Agg, Len, Node, Ref, aggregate, compile_expr, uses_iteration, variables


class _Ctx:
    __slots__ = ("b", "i", "el")

    def __init__(self, b: dict[str, list[Event]]):
        self.b = b
        self.i = 0
        self.el: dict[str, Event] = {}


def _resolver(kleene: set[str]) -> Callable[[Node], Callable[[_Ctx], Any]]:
    def resolve(n: Node) -> Callable[[_Ctx], Any]:
        if isinstance(n, Ref):
            v, a = n.var, n.attr
            if n.index is None:
                if v in kleene:
                    return lambda c: c.el[v].get(a)
                return lambda c: c.b[v][0].get(a)
            if n.index == "1":
                return lambda c: c.b[v][0].get(a)
            if n.index == "last":
                return lambda c: c.b[v][-1].get(a)
            if n.index == "i":
                return lambda c: c.b[v][c.i - 1].get(a)
            return lambda c: c.b[v][c.i - 2].get(a)  # i-1
        if isinstance(n, Len):
            v = n.var
            return lambda c: len(c.b[v])
        if isinstance(n, Agg):
            v, a, f = n.var, n.attr, n.func
            if n.scope == "prefix":
                return lambda c: aggregate(f, [e.get(a) for e in c.b[v][: c.i - 1]])
            return lambda c: aggregate(f, [e.get(a) for e in c.b[v]])
        raise TypeError(n)

    return resolve


@dataclass
class Conjunct:
    expr: Node
    fn: Callable[[_Ctx], Any]
    vars: set[str]
    iter_var: str | None
    unindexed_kleene: list[str]

    def holds(self, b: dict[str, list[Event]]) -> bool:
        return self._holds(b, None)

    def holds_last(self, b: dict[str, list[Event]], var: str) -> bool:
        """``holds`` where ``b[var]`` is a valid prefix extended by one element: only the
        cases that involve the new last element of ``var`` are checked (the conjunct is
        prefix-closed in ``var``: no ``var.len``, ``var[last]`` or aggregate over all of it)."""
        return self._holds(b, var)

    def _holds(self, b: dict[str, list[Event]], last: str | None) -> bool:
        for v in self.vars:
            if not b.get(v):
                return True  # mentions a variable bound to nothing: vacuous
        ctx = _Ctx(b)
        if self.iter_var is not None:
            n = len(b[self.iter_var])
            if n < 2:
                return True
            irange: Any = (n,) if self.iter_var == last else range(2, n + 1)
        else:
            irange = (0,)
        lists = [[b[u][-1]] if u == last else b[u] for u in self.unindexed_kleene]
        for i in irange:
            ctx.i = i
            for combo in itertools.product(*lists):
                ctx.el = dict(zip(self.unindexed_kleene, combo))
                if not self.fn(ctx):
                    return False
        return True


def conjunct(e: Node, kleene: set[str]) -> Conjunct:
    it = uses_iteration(e)
    unindexed = sorted({n.var for n in e.walk() if isinstance(n, Ref) and n.index is None and n.var in kleene})
    return Conjunct(e, compile_expr(e, _resolver(kleene)), variables(e), next(iter(it)) if it else None,
                     unindexed)


