"""Rows of a table read as columns, made into dicts only when something asks for one.

:class:`RowList` is what :func:`engine.engines.sql.table_io.read_table` gives as ``Table.rows``:
a sequence of dicts by column (equal to the list of dicts it replaces) over a pyarrow table,
whose columns become Python lists the first time a row is read. The columnar matcher
(engine/engines/sql/vector.py) reads the pyarrow columns instead and builds dicts for matched
rows only; :class:`RowView` is one partition's rows in ORDER BY order, by index into a RowList."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Iterator


class RowList(Sequence):
    """``rows[i]`` is ``{column: value}`` of row i, with the values ``to_pylist`` gives; the same
    dict each time (the tracer numbers rows by identity)."""

    __slots__ = ("columns", "arrow", "_lists", "_by_name", "_rows", "_some")

    def __init__(self, columns: list[str], arrow: Any):
        self.columns = columns
        self.arrow = arrow
        self._lists: list[list[Any]] | None = None
        self._by_name: dict[str, list[Any]] = {}
        self._rows: list[dict[str, Any]] | None = None  # every row, once iterated
        self._some: dict[int, dict[str, Any]] = {}      # the rows read by index before that

    def column_list(self, column: str) -> list[Any]:
        """One column as a Python list (converted once)."""
        got = self._by_name.get(column)
        if got is None:
            got = self._by_name[column] = self.arrow.column(column).to_pylist()
        return got

    def lists(self) -> list[list[Any]]:
        """The columns as Python lists, in column order (converted once)."""
        if self._lists is None:
            self._lists = [self.column_list(c) for c in self.columns]
        return self._lists

    def __len__(self) -> int:
        return self.arrow.num_rows

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if self._rows is not None:
            return self._rows[i]
        if i < 0:
            i += len(self)
        row = self._some.get(i)
        if row is None:
            if not 0 <= i < len(self):
                raise IndexError(i)
            row = self._some[i] = dict(zip(self.columns, [values[i] for values in self.lists()]))
        return row

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._rows is None:
            columns, some = self.columns, self._some
            self._rows = [dict(zip(columns, values)) for values in zip(*self.lists())]
            for i, row in some.items():
                self._rows[i] = row
            self._some = {}
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]


class RowView(Sequence):
    """A partition's rows: ``view[i]`` is ``rows[index[i]]``."""

    __slots__ = ("rows", "index")

    def __init__(self, rows: Sequence, index: list[int]):
        self.rows = rows
        self.index = index

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.rows[j] for j in self.index[i]]
        return self.rows[self.index[i]]
