"""The row pattern compiled into a program for the thread matcher (matcher.py), in the style of
a Pike VM: ``label`` consumes one row for a variable, ``split`` forks two threads in preference
order (the first is preferred), ``jump``, the anchors ``start`` / ``end`` and ``match``.
Bounded quantifiers are unrolled (n mandatory copies, then nested optional copies); an unbounded
one loops through a ``loop`` head and a ``back`` edge, which refuses an iteration that consumed
no row (as the oracle does). Each ``label`` knows whether it lies inside an exclusion."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Node, Permute, Quantified, Var

MAX_PROGRAM = 200_000  # instructions, after unrolling {n,m} and PERMUTE


class PatternTooLarge(ValueError):
    """The unrolled program passed :data:`MAX_PROGRAM` instructions."""


@dataclass(frozen=True, slots=True)
class Program:
    """``code[pc]`` is ``("label", var, next, excluded)``, ``("split", first, second)``,
    ``("loop", body, exit, greedy)`` (an unbounded quantifier's head: an iteration starts at
    ``body``), ``("back", head)`` (an iteration ends: it returns to the head unless it consumed no
    row), ``("start", next)``, ``("end", next)`` or ``("match",)``; ``entry`` is the first pc;
    ``loops`` the heads of the unbounded loops."""

    code: tuple[tuple, ...]
    entry: int
    loops: frozenset[int]


def compile_pattern(pattern: Node) -> Program:
    code: list[tuple | None] = [("match",)]
    loops: set[int] = set()

    def add(ins: tuple | None) -> int:
        code.append(ins)
        if len(code) > MAX_PROGRAM:
            raise PatternTooLarge(f"the pattern unrolls to more than {MAX_PROGRAM:,} instructions")
        return len(code) - 1

    def emit(node: Node, cont: int, excluded: bool) -> int:
        if isinstance(node, Var):
            return add(("label", node.name, cont, excluded))
        if isinstance(node, Empty):
            return cont
        if isinstance(node, Anchor):
            return add(("start" if node.kind == "^" else "end", cont))
        if isinstance(node, Concat):
            for part in reversed(node.parts):
                cont = emit(part, cont, excluded)
            return cont
        if isinstance(node, Alt):
            return alternatives([lambda o=o: emit(o, cont, excluded) for o in node.options])
        if isinstance(node, Permute):
            orders = list(permutations(range(len(node.items))))
            return alternatives([lambda p=p: emit(Concat(tuple(node.items[i] for i in p)), cont, excluded)
                                 for p in orders])
        if isinstance(node, Exclusion):
            return emit(node.body, cont, True)
        assert isinstance(node, Quantified)
        body, lo, hi, greedy = node.body, node.min, node.max, node.greedy
        if hi is None:
            head = add(None)
            back = add(("back", head))
            entry = emit(body, back, excluded)
            code[head] = ("loop", entry, cont, greedy)
            loops.add(head)
            tail = head
        else:
            tail = cont
            for _ in range(hi - lo):
                entry = emit(body, tail, excluded)
                tail = add(("split", entry, cont) if greedy else ("split", cont, entry))
        for _ in range(lo):
            tail = emit(body, tail, excluded)
        return tail

    def alternatives(branches: list) -> int:
        entries = [b() for b in branches]
        pc = entries[-1]
        for e in reversed(entries[:-1]):
            pc = add(("split", e, pc))
        return pc

    entry = emit(pattern, 0, False)
    return Program(tuple(code), entry, frozenset(loops))  # type: ignore[arg-type]
