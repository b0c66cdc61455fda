"""What an expression sees while a match is tried or output: :class:`Frame`.

``rows`` are the partition's rows (dicts by column), ``start`` the match's first row, ``labels``
the variables assigned to rows ``start, start+1, ...`` as far as the evaluation may look (in DEFINE:
the rows so far plus the row being tested, with the label being tried; in MEASURES: the whole
match), ``n`` how many of them RUNNING semantics sees (the current row is ``start + n - 1``), and
``at`` the row a navigation or an aggregate evaluates its argument on (None: not inside one).

``positions`` maps each variable to the (ascending) indices into ``labels`` it labels: the thread
matcher keeps it as the labels grow, so that ``A.price`` after a long run of B rows is found
without scanning the run; for any other frame it is built from ``labels`` when first needed."""
from __future__ import annotations

from bisect import bisect_left
from typing import Any


class Frame:
    __slots__ = ("rows", "start", "labels", "n", "at", "match_number", "partition", "positions")

    def __init__(self, rows: list[dict[str, Any]], start: int, labels: list[str], n: int | None = None,
                 match_number: int = 1, partition: Any = None):
        self.rows = rows
        self.start = start
        self.labels = labels
        self.n = len(labels) if n is None else n
        self.at: int | None = None
        self.match_number = match_number
        self.partition = partition
        self.positions: dict[str, list[int]] | None = None

    def _positions(self) -> dict[str, list[int]]:
        pos = self.positions
        if pos is None:
            pos = {}
            for i, v in enumerate(self.labels):
                pos.setdefault(v, []).append(i)
            self.positions = pos
        return pos

    def _indices(self, members: frozenset[str], count: int) -> list[int]:
        """The indices below ``count`` labelled by ``members``, ascending."""
        pos = self._positions()
        if len(members) == 1:
            (v,) = members
            p = pos.get(v)
            if not p:
                return []
            return p if p[-1] < count else p[:bisect_left(p, count)]
        out: list[int] = []
        for v in members:
            p = pos.get(v)
            if p:
                out.extend(p[:bisect_left(p, count)] if p[-1] >= count else p)
        out.sort()
        return out

    def rows_of(self, members: frozenset[str] | None, final: bool) -> list[int]:
        """The rows labelled by one of ``members`` (None: every row), in order."""
        count = len(self.labels) if final else self.n
        start = self.start
        if members is None:
            return list(range(start, start + count))
        return [start + i for i in self._indices(members, count)]

    def last_of(self, members: frozenset[str] | None, final: bool, back: int = 0) -> int | None:
        """The ``back``-th row from the last labelled by ``members`` (0: the last), or None."""
        count = len(self.labels) if final else self.n
        if members is None:
            return self.start + count - 1 - back if back < count else None
        pos = self._positions()
        if len(members) == 1:
            (v,) = members
            p = pos.get(v)
            if not p:
                return None
            k = len(p) if p[-1] < count else bisect_left(p, count)  # the indices below count: p[:k]
            return self.start + p[k - 1 - back] if back < k else None
        idx = self._indices(members, count)
        return self.start + idx[-1 - back] if back < len(idx) else None

    def first_of(self, members: frozenset[str] | None, final: bool, skip: int = 0) -> int | None:
        count = len(self.labels) if final else self.n
        if members is None:
            return self.start + skip if skip < count else None
        idx = self._indices(members, count)
        return self.start + idx[skip] if skip < len(idx) else None

    def label_at(self, row: int | None, final: bool) -> str | None:
        if row is None:
            return None
        count = len(self.labels) if final else self.n
        i = row - self.start
        return self.labels[i] if 0 <= i < count else None
