"""What the validation rules need of the input: a ``Table`` of named ``Column`` s.

The rules (``validation.RULES``) are written once against these two protocols. Two
readers implement them: ``pandas_table.FrameTable`` over a pandas DataFrame (every file
read whole or in batches, Parquet, Spark's Arrow batches) and ``small_csv.TextTable``
over the cells of a small CSV/TSV file typed as pandas would type them (``cep run`` on a
small file then starts without pandas). Positions are 0-based positions in the table;
arrays are numpy arrays of the table's length.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["Column", "Table", "T_MISSING", "T_NUMBER", "T_DATETIME", "T_BAD", "T_INFINITE"]

#: Per-row outcome of parsing a time value (``Column.parse_time``).
T_MISSING, T_NUMBER, T_DATETIME, T_BAD, T_INFINITE = 0, 1, 2, 3, 4


class Column(Protocol):
    """One input column."""

    @property
    def is_object(self) -> bool:
        """The column holds arbitrary Python objects (lists and dicts are possible)."""
        ...

    @property
    def is_text(self) -> bool:
        """The column holds text (or objects that may be text)."""
        ...

    @property
    def is_float(self) -> bool:
        """The column holds floating-point numbers."""
        ...

    def raw(self, i: int) -> Any:
        """The value at position ``i`` as the reader holds it (for messages)."""
        ...

    def objects(self) -> np.ndarray:
        """Every value as the reader holds it, in an object array (missing: the reader's
        missing value)."""
        ...

    def values(self) -> tuple[list[Any], str | None]:
        """Plain Python values (int, float, str, bool; None for missing) and the kind all
        of them share when the column type decides it ("number", "bool", "string")."""
        ...

    def infinite(self) -> np.ndarray:
        """A bool per row: the value is an infinite float (``1e400`` read as inf, JSON's
        ``Infinity``, a Parquet inf)."""
        ...

    def factorize(self) -> tuple[np.ndarray, list[Any]]:
        """Codes (``-1`` for missing) into the distinct values, as plain Python values."""
        ...

    def parse_time(self) -> tuple[np.ndarray, np.ndarray]:
        """Time values: float64 (seconds since the epoch for date-times; NaN where not
        usable) and the outcome code of every row (``T_NUMBER`` ...)."""
        ...


class Table(Protocol):
    """The input rows: named columns of equal length."""

    @property
    def columns(self) -> list[str]:
        ...

    def __len__(self) -> int:
        ...

    def column(self, name: str) -> Column:
        ...
