"""Event-set analysis the SES automaton and match windows share (the match-windows paper, §4):
the SES shape of a pattern (its sets B1..Bk), the WHERE conjuncts local to one variable (θ^p_v)
and their compiled test."""
from __future__ import annotations

from typing import Any, Callable

from engine.events import Event
from engine.expr import Agg, Len, Node, Ref, compile_expr, uses_iteration, variables
from engine.model import Component, Group, Pattern, Selection


def local_conjuncts(pattern: Pattern) -> dict[str, list[Node]]:
    """Var -> the WHERE conjuncts that are properties of it alone (element-wise), θ^p_v."""
    names = {c.var for c in pattern.components()}
    out: dict[str, list[Node]] = {v: [] for v in names}
    for e in pattern.where:
        vs = variables(e)
        if len(vs) == 1:
            v = next(iter(vs))
            if v in out and is_local(e):
                out[v].append(e)
    return out


def is_local(node: Node) -> bool:
    if uses_iteration(node):
        return False
    return all(not (isinstance(n, Ref) and n.index is not None) and not isinstance(n, (Len, Agg))
               for n in node.walk())


def compile_properties(nodes: list[Node]) -> Callable[[Event], bool] | None:
    fs = []
    for node in nodes:
        def resolve(n: Any) -> Callable[[Event], Any]:
            a = n.attr
            return lambda e: e.get(a)
        fs.append(compile_expr(node, resolve))
    if not fs:
        return None
    if len(fs) == 1:
        f0 = fs[0]
        return lambda e: bool(f0(e))
    return lambda e: all(f(e) for f in fs)


def is_event_set_pattern(p: Pattern) -> bool:
    """True for the patterns match windows are on by default for: an event set (an AND
    group) somewhere, or an earliest/maximal selection (the paper's SES patterns)."""
    if p.selection is not Selection.ALL:
        return True
    stack: list[Any] = [p.root]
    while stack:
        g = stack.pop()
        if isinstance(g, Group):
            if g.op == "AND" and len(g.items) > 1:
                return True
            stack.extend(g.items)
    return False


def ses_sets(p: Pattern) -> list[list[str]] | None:
    """B1..Bk when ``p`` is an SES pattern (a SEQ of components and AND groups of
    components, all positive and required), else None."""
    root = p.root
    items = root.items if root.op == "SEQ" else [root]
    sets: list[list[str]] = []
    for it in items:
        if isinstance(it, Component):
            if it.negated or it.optional:
                return None
            sets.append([it.var])
        elif it.op == "AND" or (it.op == "SEQ" and len(it.items) == 1):
            if not all(isinstance(c, Component) and not c.negated and not c.optional for c in it.items):
                return None
            sets.append([c.var for c in it.items])  # type: ignore[union-attr]
        else:
            return None
    return sets
