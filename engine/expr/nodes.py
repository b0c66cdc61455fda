"""The expression AST: pydantic models (so a pattern round-trips through JSON), one class per
node kind, with the ``Expr`` union discriminated by ``kind``; ``Span`` and ``PatternError``.

Nodes carry an optional source ``span`` (line, column, length) for error messages; spans are
excluded from equality and from JSON, so ``parse(print(m)) == m`` holds.
"""
from __future__ import annotations

from typing import Annotated, Any, Iterator, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Agg", "AggFunc", "BinOp", "Bool", "BoolOp", "Cmp", "Expr", "Index", "Len", "Neg", "Node", "Not", "Num",
           "PatternError", "Ref", "Span", "Str"]

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
