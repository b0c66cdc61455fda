"""Predicate expressions: the AST, name/shape checks, printing, and compilation to closures.

Identifiers follow SASE+ (§3.3): ``a.x`` (every element of a Kleene variable, or the one
event of a singleton), ``a[1].x`` (first), ``a[i].x`` (the element being added, i >= 2),
``a[i-1].x`` (the one before it), ``a[last].x`` / ``a[a.len].x`` (the last one), ``a.len``,
and ``avg|sum|min|max|count(a[..i-1].x)`` over the elements before ``a[i]`` (``a[].x`` over
all elements).

Modules, from the bottom up (this package re-exports every name other code imports):

- ``nodes``: the AST (``Node`` and one pydantic model per kind: ``Num``, ``Str``, ``Bool``,
  ``Ref``, ``Len``, ``Agg``, ``Neg``, ``BinOp``, ``Cmp``, ``BoolOp``, ``Not``; the ``Expr``
  union), ``Span`` and ``PatternError``.
- ``limits``: the language's limits (``MAX_NESTING``, ``MAX_NUMBER`` ...) and their checks
  (``height``, ``too_deep``, ``nesting_error``, ``number_problem``).
- ``analysis``: what an expression mentions (``variables``, ``uses_iteration``,
  ``numeric_refs``).
- ``text``: the canonical DSL text (``to_text``, ``number_text``).
- ``fast_compare``: the one-closure comparisons of tagged attribute getters.
- ``compile``: compilation to closures (``compile_expr``, ``compile_conjunction``, the tagged
  getters ``slot_attr`` / ``event_attr``, ``returns_bool``) and ``aggregate``.
"""
from __future__ import annotations

from engine.expr.analysis import numeric_refs, uses_iteration, variables
from engine.expr.compile import (Getter, Resolver, aggregate, compile_conjunction, compile_expr, event_attr,
                                 returns_bool, slot_attr)
from engine.expr.limits import (MAX_NESTING, MAX_NUMBER, MAX_NUMBER_LENGTH, MAX_NUMBER_TEXT, height, nesting_error,
                                number_problem, too_deep)
from engine.expr.nodes import (Agg, AggFunc, BinOp, Bool, BoolOp, Cmp, Expr, Index, Len, Neg, Node, Not, Num,
                               PatternError, Ref, Span, Str)
from engine.expr.text import number_text, to_text

# the DSL printer's name for number_text
_fmt_number = number_text

__all__ = ["Agg", "AggFunc", "BinOp", "Bool", "BoolOp", "Cmp", "Expr", "Getter", "Index", "Len", "MAX_NESTING",
           "MAX_NUMBER", "MAX_NUMBER_LENGTH", "MAX_NUMBER_TEXT", "Neg", "Node", "Not", "Num", "PatternError", "Ref",
           "Resolver", "Span", "Str", "aggregate", "compile_conjunction", "compile_expr", "event_attr", "height",
           "nesting_error", "number_problem", "number_text", "numeric_refs", "returns_bool", "slot_attr", "to_text",
           "too_deep", "uses_iteration", "variables"]
