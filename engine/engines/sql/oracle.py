"""The reference semantics: enumerate, from a start row, the ways to label the rows in
preferment order straight from the pattern's tree (backtracking, as SQL:2016 defines the
order), checking each row's DEFINE with the labels chosen so far; the first complete labelling
is the match. Exponential on purpose-built inputs: small inputs only. An iteration of an
unbounded quantifier beyond its minimum that consumes no row is not taken (it would repeat
forever without changing the match)."""
from __future__ import annotations

from itertools import permutations
from typing import Any, Iterator

from engine.engines.sql import values as V
from engine.engines.sql.binding import BoundQuery
from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.frame import Frame
from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Node, Permute, Quantified, Var
from engine.engines.sql.search import within_ok

State = tuple[int, tuple[str, ...], tuple[bool, ...]]


class OracleMatcher:
    def __init__(self, bound: BoundQuery, max_steps: int = 2_000_000):
        self.bound = bound
        self.rows: list[dict[str, Any]] = []
        self.where = ""
        self.window = bound.query.within[0] if bound.query.within else None
        self.steps = 0
        self.max_steps = max_steps

    def bind_partition(self, rows: list[dict[str, Any]], where: str = "") -> None:
        self.rows, self.where = rows, where

    def find(self, start: int, number: int) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
        self.start, self.number = start, number
        for _pos, labels, excluded in self.gen(self.bound.query.pattern, (start, (), ()), False):  # type: ignore
            return labels, excluded
        return None

    def accepts(self, var: str, state: State) -> bool:
        pos, labels, _ = state
        if pos >= len(self.rows):
            return False
        if self.window is not None:
            col = self.bound.time_column
            if not within_ok(lambda r: self.rows[r][col], self.window, self.start, pos):
                return False
        cond = self.bound.defines.get(var)
        if cond is None:
            return True
        self.steps += 1
        if self.steps > self.max_steps:
            from engine.match import StateExplosion
            raise StateExplosion(f"the oracle tried more than {self.max_steps:,} labellings{self.where}: it is for "
                                 "small inputs only")
        frame = Frame(self.rows, self.start, list(labels) + [var], match_number=self.number)
        try:
            return V.truth(cond(frame)) is True
        except V.SqlValueError as err:
            raise SqlRunError(f"DEFINE {var} on row {pos + 1}{self.where}: {err}") from None

    def gen(self, node: Node, state: State, excluded: bool) -> Iterator[State]:
        pos, labels, excl = state
        if isinstance(node, Var):
            if self.accepts(node.name, state):
                yield pos + 1, labels + (node.name,), excl + (excluded,)
        elif isinstance(node, Empty):
            yield state
        elif isinstance(node, Anchor):
            if (node.kind == "^" and pos == 0) or (node.kind == "$" and pos == len(self.rows)):
                yield state
        elif isinstance(node, Concat):
            yield from self.sequence(node.parts, 0, state, excluded)
        elif isinstance(node, Alt):
            for option in node.options:
                yield from self.gen(option, state, excluded)
        elif isinstance(node, Permute):
            for order in permutations(node.items):
                yield from self.sequence(order, 0, state, excluded)
        elif isinstance(node, Exclusion):
            yield from self.gen(node.body, state, True)
        else:
            assert isinstance(node, Quantified)
            yield from self.repeat(node, 0, state, excluded)

    def sequence(self, parts: tuple[Node, ...], i: int, state: State, excluded: bool) -> Iterator[State]:
        if i == len(parts):
            yield state
            return
        for s in self.gen(parts[i], state, excluded):
            yield from self.sequence(parts, i + 1, s, excluded)

    def repeat(self, q: Quantified, k: int, state: State, excluded: bool) -> Iterator[State]:
        more = q.max is None or k < q.max
        stop = k >= q.min
        if not q.greedy and stop:
            yield state
        if more:
            for s in self.gen(q.body, state, excluded):
                if q.max is None and k >= q.min and s[0] == state[0]:
                    continue  # an empty iteration of an unbounded loop
                yield from self.repeat(q, k + 1, s, excluded)
        if q.greedy and stop:
            yield state
