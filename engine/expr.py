"""Predicate expressions: the AST, name/shape checks, printing, and compilation to closures.

The AST is a tree of pydantic models (so a pattern round-trips through JSON). Nodes
carry an optional source ``span`` (line, column, length) for error messages; spans are
excluded from equality and from JSON, so ``parse(print(m)) == m`` holds.

Identifiers follow SASE+ (§3.3): ``a.x`` (every element of a Kleene
variable, or the one event of a singleton), ``a[1].x`` (first), ``a[i].x`` (the element
being added, i >= 2), ``a[i-1].x`` (the one before it), ``a[last].x`` / ``a[a.len].x``
(the last one), ``a.len``, and ``avg|sum|min|max|count(a[..i-1].x)`` over the elements
before ``a[i]`` (``a[].x`` over all elements).

User text never reaches ``eval``/``exec``: :func:`compile_expr` builds nested closures
from the checked AST.
"""
from __future__ import annotations

import math
import operator
from typing import Annotated, Any, Callable, Iterator, Literal, Sequence, Union

from pydantic import BaseModel, ConfigDict, Field

Span = tuple[int, int, int]  # line (1-based), column (1-based), length


class PatternError(ValueError):
    """A pattern that cannot be run, with where (span) and why, and an optional hint."""

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint

    def __str__(self) -> str:
        s = self.message
        if self.span:
            s = f"line {self.span[0]}, column {self.span[1]}: {s}"
        if self.hint:
            s += f" ({self.hint})"
        return s

# Limits of the pattern language (a pattern never crashes a walk over it). They keep every
# recursive walk of a pattern (the parser, the printers, pydantic's serializer, the
# compilers) far from Python's recursion limit, and every number a finite float.
MAX_NESTING = 64  # groups inside groups; expression tree height; parentheses, NOT, unary minus
MAX_NUMBER = 1e300  # magnitude of any number (so that unit factors and percent stay finite)
MAX_NUMBER_LENGTH = 400  # characters of a number literal (an int up to MAX_NUMBER has 301 digits)
MAX_NUMBER_TEXT = "1e300"


class Node(BaseModel):
    """Base of all expression nodes; ``span`` is for messages only."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    span: Span | None = Field(default=None, exclude=True, repr=False)

    def __eq__(self, other: object) -> bool:  # structural, span-free
        if type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump()  # type: ignore[union-attr]

    def __hash__(self) -> int:
        return hash(repr(self.model_dump()))

    def children(self) -> Iterator["Expr"]:
        return iter(())

    def walk(self) -> Iterator["Expr"]:
        """Every node, pre-order. Iterative (no recursion, whatever the depth) and dispatched
        on ``kind``, which is also about twice as fast as a recursive generator."""
        stack: list[Any] = [self]
        pop, push = stack.pop, stack.append
        while stack:
            n = pop()
            yield n
            k = n.kind
            if k == "cmp" or k == "binop":
                push(n.right)
                push(n.left)
            elif k == "boolop":
                stack.extend(reversed(n.items))
            elif k == "not" or k == "neg":
                push(n.item)


class Num(Node):
    kind: Literal["num"] = "num"
    value: int | float
    percent: bool = False  # written as `80%`; the value is then 80 and evaluates to 0.8

    @property
    def number(self) -> float:
        return self.value / 100 if self.percent else self.value


class Str(Node):
    kind: Literal["str"] = "str"
    value: str


class Bool(Node):
    kind: Literal["bool"] = "bool"
    value: bool


Index = Literal["1", "i", "i-1", "last"]


class Ref(Node):
    """``var.attr`` or ``var[index].attr``."""

    kind: Literal["ref"] = "ref"
    var: str
    attr: str
    index: Index | None = None


class Len(Node):
    kind: Literal["len"] = "len"
    var: str


AggFunc = Literal["avg", "sum", "min", "max", "count"]


class Agg(Node):
    """``func(var[..i-1].attr)`` (scope ``prefix``) or ``func(var[].attr)`` (scope ``all``)."""

    kind: Literal["agg"] = "agg"
    func: AggFunc
    var: str
    attr: str
    scope: Literal["prefix", "all"] = "prefix"


class Neg(Node):
    kind: Literal["neg"] = "neg"
    item: "Expr"

    def children(self) -> Iterator["Expr"]:
        yield self.item


class BinOp(Node):
    kind: Literal["binop"] = "binop"
    op: Literal["+", "-", "*", "/", "%"]
    left: "Expr"
    right: "Expr"

    def children(self) -> Iterator["Expr"]:
        yield self.left
        yield self.right


class Cmp(Node):
    kind: Literal["cmp"] = "cmp"
    op: Literal["=", "!=", "<", "<=", ">", ">="]
    left: "Expr"
    right: "Expr"

    def children(self) -> Iterator["Expr"]:
        yield self.left
        yield self.right


class BoolOp(Node):
    kind: Literal["boolop"] = "boolop"
    op: Literal["AND", "OR"]
    items: list["Expr"]

    def children(self) -> Iterator["Expr"]:
        yield from self.items


class Not(Node):
    kind: Literal["not"] = "not"
    item: "Expr"

    def children(self) -> Iterator["Expr"]:
        yield self.item


Expr = Annotated[
    Union[Num, Str, Bool, Ref, Len, Agg, Neg, BinOp, Cmp, BoolOp, Not],
    Field(discriminator="kind"),
]

for _m in (Neg, BinOp, Cmp, BoolOp, Not):
    _m.model_rebuild()


# --------------------------------------------------------------------------- limits

def height(e: Node) -> int:
    """Height of the expression tree (a leaf is 1), computed without recursion."""
    best = 0
    stack: list[tuple[Node, int]] = [(e, 1)]
    while stack:
        n, d = stack.pop()
        if d > best:
            best = d
        for c in n.children():
            stack.append((c, d + 1))
    return best


def too_deep(e: Node, limit: int = MAX_NESTING) -> Node | None:
    """The first node (pre-order) deeper than ``limit`` levels, or None; iterative."""
    stack: list[tuple[Node, int]] = [(e, 1)]
    while stack:
        n, d = stack.pop()
        if d > limit:
            return n
        kids = list(n.children())
        stack.extend((c, d + 1) for c in reversed(kids))
    return None


def number_problem(v: Any, shown: str | None = None) -> str | None:
    """Why ``v`` cannot be a number of a pattern (None when it can): it must be an int or
    a finite float of magnitude at most :data:`MAX_NUMBER`. ``shown`` is how to name it."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"{v!r} is not a number"
    if isinstance(v, float) and math.isnan(v):
        return "NaN is not a number"
    if isinstance(v, float) and math.isinf(v) or abs(v) > MAX_NUMBER:
        if shown is None and isinstance(v, int):  # str() of a huge int raises ValueError
            digits = int(v.bit_length() * math.log10(2)) + 1
            return f"an integer of about {digits} digits is out of range (at most {MAX_NUMBER_TEXT} in magnitude)"
        return f"number `{shown or repr(v)}` is out of range (at most {MAX_NUMBER_TEXT} in magnitude)"
    return None


def _limit_error(message: str, span: Span | None, hint: str | None = None) -> Exception:

    return PatternError(message, span, hint)


def nesting_error(n: Node) -> Exception:
    return _limit_error(f"nesting deeper than {MAX_NESTING} levels", n.span,
                        "each operator, NOT, unary minus and pair of parentheses is a level; "
                        "split the predicate into conjuncts")


# --------------------------------------------------------------------------- analysis

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


# --------------------------------------------------------------------------- printing

_PREC = {"OR": 1, "AND": 2, "NOT": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "neg": 7, "atom": 8}


def _fmt_number(v: int | float) -> str:
    """Text that the DSL reads back as exactly ``v``: digits for an int, the shortest
    round-trip ``repr`` for a float (``1e+16``, ``1.5e-05``; always with ``.`` or ``e``, so
    it stays a float). Infinities, NaN and out-of-range numbers have no text: PatternError."""
    why = number_problem(v)
    if why:
        raise _limit_error(f"cannot print: {why}", None)
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
        txt = _fmt_number(e.value)
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


# --------------------------------------------------------------------------- compilation

Getter = Callable[[Any], Any]
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

_UNDEFINED_ERRORS = (TypeError, ZeroDivisionError, ValueError, OverflowError)
_REFLECT = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def slot_attr(slot: int, attr: str) -> Getter:
    """A resolver's getter of attribute ``attr`` of the event at ``ctx[slot]`` (a context
    that is a vector of events, one per variable, as the lazy engines use). It is tagged,
    so that :func:`compile_expr` compiles a comparison of two such attributes (or of one
    and a constant) into one closure that reads ``event.attrs`` directly (see
    :func:`_fast_cmp`)."""

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
            except _UNDEFINED_ERRORS:
                return False

        la = getattr(lf, "slot_attr", None)
        if la is not None:
            return _fast_cmp(op, la[0], la[1], None, rv, cmp_const, then)
        sa = getattr(lf, "slot_arith", None)
        if sa is not None:
            return _fast_arith_cmp(cop, sa[0], sa[1], sa[2], sa[3], rv, cmp_const, then)
        ea = getattr(lf, "event_attr", None)
        if ea is not None:
            def event_cmp_const(ev: Any) -> bool:
                try:
                    r = cop(ev.attrs[ea], rv) is True
                except KeyError:
                    r = cmp_const(ev)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(ev))

            return event_cmp_const
        return _and_then(cmp_const, then)
    rf = compile_expr(right, resolve)

    def cmp(ctx: Any) -> bool:
        try:
            return cop(lf(ctx), rf(ctx)) is True
        except _UNDEFINED_ERRORS:
            return False

    la, ra = getattr(lf, "slot_attr", None), getattr(rf, "slot_attr", None)
    if la is not None and ra is not None:
        return _fast_cmp(op, la[0], la[1], ra[0], ra[1], cmp, then)
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


def _fast_arith_cmp(cop: Callable[[Any, Any], bool], s1: int, a1: str, aop: Callable[[Any, Any], Any], k: Any,
                    c: Any, slow: Getter, then: Getter | None) -> Getter:
    """``(ctx[s1].attrs[a1] AOP k) OP c`` (``a[1].price % 500 = 0``) as one closure, with the
    semantics of the generic comparison (see :func:`_fast_cmp`): an attribute the event's dict
    lacks goes to ``slow``, an undefined operation or comparison is false, a non-bool is false."""

    def f(v: Any) -> bool:
        try:
            r = cop(aop(v[s1].attrs[a1], k), c) is True
        except KeyError:
            r = slow(v)
        except _UNDEFINED_ERRORS:
            return False
        return r and (then is None or then(v))

    return f


def _fast_cmp(op: str, s1: int, a1: str, s2: int | None, a2: Any, slow: Getter, then: Getter | None) -> Getter:
    """``ctx[s1].attrs[a1] OP ctx[s2].attrs[a2]`` (``s2`` None: ``OP a2``, a constant) as one
    closure per operator, with the semantics of the generic comparison: an attribute the
    event's dict lacks goes to ``slow`` (the generic closure: built-in fields, missing = None),
    an undefined comparison (str vs number, None) is false, a non-bool result is false. With
    ``then`` (the rest of a conjunction), it holds when both hold, ``then`` called only when
    the comparison holds."""
    if s2 is None:
        c = a2
        if op == "<":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] < c) is True
                except KeyError:
                    r = slow(v)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == "<=":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] <= c) is True
                except KeyError:
                    r = slow(v)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == ">":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] > c) is True
                except KeyError:
                    r = slow(v)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == ">=":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] >= c) is True
                except KeyError:
                    r = slow(v)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        elif op == "=":
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] == c) is True
                except KeyError:
                    r = slow(v)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        else:
            def f(v: Any) -> bool:
                try:
                    r = (v[s1].attrs[a1] != c) is True
                except KeyError:
                    r = slow(v)
                except _UNDEFINED_ERRORS:
                    return False
                return r and (then is None or then(v))
        return f
    if op == "<":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] < v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except _UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == "<=":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] <= v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except _UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == ">":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] > v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except _UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == ">=":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] >= v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except _UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    elif op == "=":
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] == v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except _UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    else:
        def g(v: Any) -> bool:
            try:
                r = (v[s1].attrs[a1] != v[s2].attrs[a2]) is True
            except KeyError:
                r = slow(v)
            except _UNDEFINED_ERRORS:
                return False
            return r and (then is None or then(v))
    return g


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
            if la is not None:  # `a.x % 500`: a comparison with a constant compiles it in (_fast_arith_cmp)
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
