"""Rewriting ``?``, ``*`` and OR into alternatives of SEQ/AND over one-event and ``+``
components (docs/semantics.md, Operators): ``SEQ(X, A*, Y) = SEQ(X, Y) ∪ SEQ(X, A+, Y)``;
each alternative records the variables it binds to nothing. Shared by the oracle and the
lazy chain compiler.
"""
from __future__ import annotations

import itertools
from typing import Any

from engine.model import Component, Group

Alt = tuple[Any, frozenset[str]]  # (reduced item or None, vars bound to nothing)


def expand(item: Component | Group) -> list[Alt]:
    """Rewrite ``?``, ``*`` and OR into alternatives of SEQ/AND over one/plus components."""
    if isinstance(item, Component):
        if item.negated:
            return [(item, frozenset())]
        if item.quant == "opt":
            return [(None, frozenset({item.var})), (item.model_copy(update={"quant": "one"}), frozenset())]
        if item.quant == "star":
            return [(None, frozenset({item.var})), (item.model_copy(update={"quant": "plus"}), frozenset())]
        return [(item, frozenset())]
    if item.op == "OR":
        out: list[Alt] = []
        all_vars = [frozenset(c.var for c in components(i)) for i in item.items]
        for k, child in enumerate(item.items):
            others = frozenset().union(*(all_vars[j] for j in range(len(item.items)) if j != k))
            for red, absent in expand(child):
                out.append((red, absent | others))
        return out
    out = []
    for combo in itertools.product(*(expand(i) for i in item.items)):
        items = [red for red, _ in combo if red is not None]
        absent = frozenset().union(*(a for _, a in combo))
        if not any(positive(i) for i in items):
            out.append((None, absent | frozenset(c.var for i in items for c in components(i))))
        else:
            out.append((Group(op=item.op, items=items), absent))
    return out


def components(item: Any) -> list[Component]:
    if isinstance(item, Component):
        return [item]
    return [c for i in item.items for c in components(i)]


def positive(item: Any) -> bool:
    return any(not c.negated for c in components(item))
