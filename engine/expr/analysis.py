"""What an expression mentions: its variables, the Kleene variables it iterates over, the
attributes it uses as numbers.
"""
from __future__ import annotations

from engine.expr.nodes import Agg, BinOp, Cmp, Len, Neg, Node, Num, Ref

__all__ = ["numeric_refs", "uses_iteration", "variables"]


def variables(e: Node) -> set[str]:
    """Variables an expression mentions."""
    return {n.var for n in e.walk() if isinstance(n, (Ref, Len, Agg))}


def uses_iteration(e: Node) -> set[str]:
    """Kleene variables used with the iteration index (``a[i]``, ``a[i-1]``, ``avg(a[..i-1])``)."""
    out: set[str] = set()
    for n in e.walk():
        if isinstance(n, Ref) and n.index in ("i", "i-1"):
            out.add(n.var)
        elif isinstance(n, Agg) and n.scope == "prefix":
            out.add(n.var)
    return out


def numeric_refs(e: Node) -> set[tuple[str, str]]:
    """(var, attr) pairs used numerically: in arithmetic, aggregates, or ordered comparisons
    (or equality against a number)."""
    out: set[tuple[str, str]] = set()

    def visit(n: Node, numeric: bool) -> None:
        if isinstance(n, Ref):
            if numeric:
                out.add((n.var, n.attr))
        elif isinstance(n, Agg):
            if n.func != "count":
                out.add((n.var, n.attr))
        elif isinstance(n, (BinOp, Neg)):
            for c in n.children():
                visit(c, True)
        elif isinstance(n, Cmp):
            if n.op in ("=", "!="):
                num = any(isinstance(c, (Num, BinOp, Neg, Agg, Len)) for c in (n.left, n.right))
            else:
                num = True
            visit(n.left, num)
            visit(n.right, num)
        else:
            for c in n.children():
                visit(c, False)

    visit(e, False)
    return out
