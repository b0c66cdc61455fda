"""Compilation of an expression to nested closures (``compile_expr``, ``compile_conjunction``),
the tagged getters engines resolve attributes with (``slot_attr``, ``event_attr``), and
``aggregate``, the evaluation of avg/sum/min/max/count over a list of values.

User text never reaches ``eval``/``exec``: closures are built from the checked AST.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

from engine.expr.fast_compare import UNDEFINED_ERRORS, Getter, arithmetic_comparison, attribute_comparison
from engine.expr.nodes import Agg, BinOp, Bool, BoolOp, Cmp, Len, Neg, Node, Not, Num, Ref, Str

__all__ = ["Getter", "Resolver", "aggregate", "compile_conjunction", "compile_expr", "event_attr", "returns_bool",
           "slot_attr"]

Resolver = Callable[[Node], Getter]

_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
}
_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

_REFLECT = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def slot_attr(slot: int, attr: str) -> Getter:
    """A resolver's getter of attribute ``attr`` of the event at ``ctx[slot]`` (a context
    that is a vector of events, one per variable, as the lazy engines use). It is tagged,
    so that :func:`compile_expr` compiles a comparison of two such attributes (or of one
    and a constant) into one closure that reads ``event.attrs`` directly (see
    :func:`attribute_comparison`)."""

    def get(ctx: Any) -> Any:
        return ctx[slot].get(attr)

    get.slot_attr = (slot, attr)  # type: ignore[attr-defined]
    return get


def event_attr(attr: str) -> Getter:
    """A resolver's getter of attribute ``attr`` of the context itself, an event (the
    lazy engines' unary filters). Tagged like :func:`slot_attr`: :func:`compile_expr`
    compiles a comparison of it with a constant into one closure reading ``event.attrs``."""

    def get(ev: Any) -> Any:
        return ev.get(attr)

    get.event_attr = attr  # type: ignore[attr-defined]
    return get


def returns_bool(e: Node) -> bool:
    """Whether the compiled closure of ``e`` always returns a ``bool`` (so callers need no
    ``bool()`` around it): comparisons, AND/OR, NOT and boolean literals."""
    return isinstance(e, (Cmp, BoolOp, Not, Bool))


def _as_bool(f: Getter) -> Getter:
    return lambda ctx: bool(f(ctx))


def _compile_cmp(e: Cmp, resolve: Resolver, then: Getter | None = None) -> Getter:
    """A comparison (``then``: the rest of a conjunction, see :func:`compile_conjunction`)."""
    cop = _CMP[e.op]
    left, right, op = e.left, e.right, e.op
    if isinstance(left, (Num, Str, Bool)) and not isinstance(right, (Num, Str, Bool)):
        left, right, op = right, left, _REFLECT[op]  # constant on the right: `3 < a.x` is `a.x > 3`
        cop = _CMP[op]
    lf = compile_expr(left, resolve)
    if isinstance(right, (Num, Str, Bool)):
        rv = right.number if isinstance(right, Num) else right.value

        def cmp_const(ctx: Any) -> bool:
            try:
                return cop(lf(ctx), rv) is True
            except UNDEFINED_ERRORS:
                return False

        la = getattr(lf, "slot_attr", None)
        if la is not None:
            return attribute_comparison(op, la[0], la[1], None, rv, cmp_const, then)
        sa = getattr(lf, "slot_arith", None)
        if sa is not None:
            return arithmetic_comparison(cop, sa[0], sa[1], sa[2], sa[3], rv, cmp_const, then)
        ea = getattr(lf, "event_attr", None)
        if ea is not None:
            # fast path: the context is the event itself; one closure that inlines Event.get
            # and cmp_const (parity: tests/test_expr.py::test_every_comparison_fast_path_on_every_value)
            def event_cmp_const(ev: Any) -> bool:
                try:
                    r = cop(ev.attrs[ea], rv) is True
                except KeyError:
                    r = cmp_const(ev)
                except UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(ev))

            return event_cmp_const
        return _and_then(cmp_const, then)
    rf = compile_expr(right, resolve)

    def cmp(ctx: Any) -> bool:
        try:
            return cop(lf(ctx), rf(ctx)) is True
        except UNDEFINED_ERRORS:
            return False

    la, ra = getattr(lf, "slot_attr", None), getattr(rf, "slot_attr", None)
    if la is not None and ra is not None:
        return attribute_comparison(op, la[0], la[1], ra[0], ra[1], cmp, then)
    return _and_then(cmp, then)


def _and_then(f: Getter, then: Getter | None) -> Getter:
    if then is None:
        return f
    return lambda ctx: f(ctx) and then(ctx)


def compile_conjunction(nodes: Sequence[Node], resolve: Resolver) -> Getter | None:
    """All of ``nodes`` as one closure returning a bool (None when there are none). The
    comparisons come first, chained: each calls the next only when it holds, so a
    conjunction of specialised comparisons (:func:`slot_attr`, :func:`event_attr`) costs one
    call per comparison and no wrapper; the other nodes follow as one generic AND."""
    cmps = [n for n in nodes if isinstance(n, Cmp)]
    others = [compile_expr(n, resolve) if returns_bool(n) else _as_bool(compile_expr(n, resolve))
              for n in nodes if not isinstance(n, Cmp)]
    then: Getter | None = None
    if len(others) == 1:
        then = others[0]
    elif others:
        then = lambda ctx: all(f(ctx) for f in others)  # noqa: E731
    for n in reversed(cmps):
        then = _compile_cmp(n, resolve, then)
    return then


def compile_expr(e: Node, resolve: Resolver) -> Getter:
    """Compile an expression to a closure ``f(ctx) -> value``.

    ``resolve`` turns each leaf that depends on the match (``Ref``, ``Len``, ``Agg``) into a
    getter of the context; engines supply their own resolver (the oracle a binding dict,
    NFA^b a run plus the current event). Semantics of undefined values: a missing attribute
    is ``None``; arithmetic on ``None``, division by zero or comparing a string with a
    number makes the enclosing comparison false (never an exception).
    """
    if isinstance(e, Num):
        v = e.number
        return lambda ctx: v
    if isinstance(e, (Str, Bool)):
        v = e.value
        return lambda ctx: v
    if isinstance(e, (Ref, Len, Agg)):
        return resolve(e)
    if isinstance(e, Neg):
        f = compile_expr(e.item, resolve)
        return lambda ctx: -f(ctx)
    if isinstance(e, BinOp):
        op = _ARITH[e.op]
        lf = compile_expr(e.left, resolve)
        rf = compile_expr(e.right, resolve)
        if isinstance(e.right, Num):  # constant right operand: the common case (x % 500, 80% * y)
            rv = e.right.number
            arith = lambda ctx: op(lf(ctx), rv)  # noqa: E731
            la = getattr(lf, "slot_attr", None)
            if la is not None:  # `a.x % 500`: a comparison with a constant compiles it in (arithmetic_comparison)
                arith.slot_arith = (la[0], la[1], op, rv)  # type: ignore[attr-defined]
            return arith
        return lambda ctx: op(lf(ctx), rf(ctx))
    if isinstance(e, Cmp):
        return _compile_cmp(e, resolve)
    if isinstance(e, BoolOp):
        if e.op == "AND":
            f = compile_conjunction(e.items, resolve)
            return f if f is not None else (lambda ctx: True)
        fs = [compile_expr(i, resolve) if returns_bool(i) else _as_bool(compile_expr(i, resolve))
              for i in e.items]
        if len(fs) == 2:
            f0, f1 = fs
            return lambda ctx: f0(ctx) or f1(ctx)
        return lambda ctx: any(f(ctx) for f in fs)
    if isinstance(e, Not):
        f = compile_expr(e.item, resolve)
        return lambda ctx: not f(ctx)
    raise TypeError(f"cannot compile {e!r}")


def aggregate(func: str, values: list[Any]) -> Any:
    """avg/sum/min/max/count over a list of values; ``None`` values are skipped,
    an empty list gives None (count gives 0)."""
    vals = [v for v in values if v is not None]
    if func == "count":
        return len(vals)
    if not vals:
        return None
    try:
        if func == "sum":
            return sum(vals)
        if func == "avg":
            return sum(vals) / len(vals)
        if func == "min":
            return min(vals)
        if func == "max":
            return max(vals)
    except TypeError:
        return None
    raise ValueError(f"unknown aggregate {func}")
