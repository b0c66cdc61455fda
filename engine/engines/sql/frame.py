"""What an expression sees while a match is tried or output: :class:`Frame`.

``rows`` are the partition's rows (dicts by column), ``start`` the match's first row, ``labels``
the variables assigned to rows ``start, start+1, ...`` as far as the evaluation may look (in DEFINE:
the rows so far plus the row being tested, with the label being tried; in MEASURES: the whole
match), ``n`` how many of them RUNNING semantics sees (the current row is ``start + n - 1``), and
``at`` the row a navigation or an aggregate evaluates its argument on (None: not inside one)."""
from __future__ import annotations

from typing import Any


class Frame:
    __slots__ = ("rows", "start", "labels", "n", "at", "match_number", "partition")

    def __init__(self, rows: list[dict[str, Any]], start: int, labels: list[str], n: int | None = None,
                 match_number: int = 1, partition: Any = None):
        self.rows = rows
        self.start = start
        self.labels = labels
        self.n = len(labels) if n is None else n
        self.at: int | None = None
        self.match_number = match_number
        self.partition = partition

    def rows_of(self, members: frozenset[str] | None, final: bool) -> list[int]:
        """The rows labelled by one of ``members`` (None: every row), in order."""
        count = len(self.labels) if final else self.n
        start, labels = self.start, self.labels
        if members is None:
            return list(range(start, start + count))
        return [start + i for i in range(count) if labels[i] in members]

    def last_of(self, members: frozenset[str] | None, final: bool, back: int = 0) -> int | None:
        """The ``back``-th row from the last labelled by ``members`` (0: the last), or None."""
        count = len(self.labels) if final else self.n
        if members is None:
            return self.start + count - 1 - back if back < count else None
        labels = self.labels
        for i in range(count - 1, -1, -1):
            if labels[i] in members:
                if back == 0:
                    return self.start + i
                back -= 1
        return None

    def first_of(self, members: frozenset[str] | None, final: bool, skip: int = 0) -> int | None:
        count = len(self.labels) if final else self.n
        if members is None:
            return self.start + skip if skip < count else None
        labels = self.labels
        for i in range(count):
            if labels[i] in members:
                if skip == 0:
                    return self.start + i
                skip -= 1
        return None

    def label_at(self, row: int | None, final: bool) -> str | None:
        if row is None:
            return None
        count = len(self.labels) if final else self.n
        i = row - self.start
        return self.labels[i] if 0 <= i < count else None
