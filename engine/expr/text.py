"""Printing: the canonical DSL text of an expression (``to_text``), the inverse of the DSL's
expression parser, and the text of a number (``number_text``).
"""
from __future__ import annotations

from engine.expr.limits import nesting_error, number_problem, too_deep
from engine.expr.nodes import Agg, BinOp, Bool, BoolOp, Cmp, Len, Neg, Node, Not, Num, PatternError, Ref, Str

__all__ = ["number_text", "to_text"]


_PREC = {"OR": 1, "AND": 2, "NOT": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "neg": 7, "atom": 8}


def number_text(v: int | float) -> str:
    """Text that the DSL reads back as exactly ``v``: digits for an int, the shortest
    round-trip ``repr`` for a float (``1e+16``, ``1.5e-05``; always with ``.`` or ``e``, so
    it stays a float). Infinities, NaN and out-of-range numbers have no text: PatternError."""
    why = number_problem(v)
    if why:
        raise PatternError(f"cannot print: {why}", None)
    if isinstance(v, int):
        return str(v)
    return repr(v)


def _prec(e: Node) -> int:
    if isinstance(e, BoolOp):
        return _PREC[e.op]
    if isinstance(e, Not):
        return _PREC["NOT"]
    if isinstance(e, Cmp):
        return _PREC["cmp"]
    if isinstance(e, BinOp):
        return _PREC[e.op]
    if isinstance(e, Neg):
        return _PREC["neg"]
    if isinstance(e, Num) and (e.value < 0):
        return _PREC["neg"]
    return _PREC["atom"]


def _quote(s: str) -> str:
    body = s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t")
    return "'" + body.replace("\r", "\\r") + "'"


def to_text(e: Node) -> str:
    """Canonical DSL text of an expression (the inverse of the DSL's expression parser).

    Guarded: a tree deeper than :data:`MAX_NESTING` is a PatternError, not a RecursionError."""
    deep = too_deep(e)
    if deep is not None:
        raise nesting_error(deep)
    return _to_text(e)


def _to_text(e: Node) -> str:
    if isinstance(e, Num):
        txt = number_text(e.value)
        return txt + "%" if e.percent else txt
    if isinstance(e, Str):
        return _quote(e.value)
    if isinstance(e, Bool):
        return "true" if e.value else "false"
    if isinstance(e, Ref):
        idx = "" if e.index is None else f"[{e.var}.len]" if e.index == "last" else f"[{e.index}]"
        return f"{e.var}{idx}.{e.attr}"
    if isinstance(e, Len):
        return f"{e.var}.len"
    if isinstance(e, Agg):
        rng = "[..i-1]" if e.scope == "prefix" else "[]"
        return f"{e.func}({e.var}{rng}.{e.attr})"
    if isinstance(e, Neg):
        inner = e.item
        if isinstance(inner, (Neg, Num)) and not (isinstance(inner, Num) and inner.value >= 0 and not inner.percent):
            return "-(" + _to_text(inner) + ")"  # `--x` would start a comment; -(3) stays a Neg
        if isinstance(inner, Num):
            return "-(" + _to_text(inner) + ")"
        return "-" + _wrap(inner, _PREC["neg"], strict=False)
    if isinstance(e, Not):
        return "NOT " + _wrap(e.item, _PREC["NOT"], strict=False)
    if isinstance(e, BinOp):
        p = _PREC[e.op]
        return f"{_wrap(e.left, p, strict=False)} {e.op} {_wrap(e.right, p, strict=True)}"
    if isinstance(e, Cmp):
        p = _PREC["cmp"]
        return f"{_wrap(e.left, p, strict=True)} {e.op} {_wrap(e.right, p, strict=True)}"
    if isinstance(e, BoolOp):
        p = _PREC[e.op]
        return f" {e.op} ".join(_wrap(i, p, strict=True) for i in e.items)
    raise TypeError(f"not an expression node: {e!r}")


def _wrap(e: Node, parent: int, strict: bool) -> str:
    """Parenthesise a child whose precedence is below the parent's (or equal, on the
    right of a left-associative operator)."""
    p = _prec(e)
    if p < parent or (strict and p == parent):
        return "(" + _to_text(e) + ")"
    return _to_text(e)
