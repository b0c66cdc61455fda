"""Limits of the pattern language and the checks that keep a pattern inside them: the
nesting depth of an expression (``height``, ``too_deep``, ``nesting_error``) and the range
of its numbers (``number_problem``).
"""
from __future__ import annotations

import math
from typing import Any

from engine.expr.nodes import Node, PatternError

__all__ = ["MAX_NESTING", "MAX_NUMBER", "MAX_NUMBER_LENGTH", "MAX_NUMBER_TEXT", "height", "nesting_error",
           "number_problem", "too_deep"]

# Limits of the pattern language (a pattern never crashes a walk over it). They keep every
# recursive walk of a pattern (the parser, the printers, pydantic's serializer, the
# compilers) far from Python's recursion limit, and every number a finite float.
MAX_NESTING = 64  # groups inside groups; expression tree height; parentheses, NOT, unary minus
MAX_NUMBER = 1e300  # magnitude of any number (so that unit factors and percent stay finite)
MAX_NUMBER_LENGTH = 400  # characters of a number literal (an int up to MAX_NUMBER has 301 digits)
MAX_NUMBER_TEXT = "1e300"


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


def nesting_error(n: Node) -> Exception:
    """The PatternError of a node deeper than :data:`MAX_NESTING` levels."""
    return PatternError(f"nesting deeper than {MAX_NESTING} levels", n.span,
                        "each operator, NOT, unary minus and pair of parentheses is a level; "
                        "split the predicate into conjuncts")
