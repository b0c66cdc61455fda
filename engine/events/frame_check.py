"""``FrameCheck``: the state shared by the validation rules of one table (``validation``
runs the rules; ``intervals`` holds the interval ones): the input, the issues so far, the
rows with an error and what one rule leaves for the next."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.events.columns import Column, Table
from engine.events.mapping import ColumnMapping, TimeKind
from engine.events.report import Severity, ValidationIssue

__all__ = ["FrameCheck"]


@dataclass
class FrameCheck:
    """One table under validation: the input, the issues so far, the rows with an error
    (``bad``), and what rules leave for later rules (``types``, ``parsed``, ``ids``)."""

    table: Table
    mapping: ColumnMapping
    row_numbers: np.ndarray
    time_kinds: dict[str, TimeKind]
    bad: np.ndarray
    issues: list[tuple[int, int, ValidationIssue]] = field(default_factory=list)  # (position, order, issue)
    types: np.ndarray | None = None
    parsed: dict[str, np.ndarray] = field(default_factory=dict)
    ids: np.ndarray | None = None
    ids_are_rows: bool = True
    exact: dict[str, np.ndarray] = field(default_factory=dict)  # interval bounds: int / Fraction / None

    @property
    def n(self) -> int:
        return len(self.table)

    @property
    def columns(self) -> list[str]:
        return self.table.columns

    def col(self, name: str) -> Column:
        return self.table.column(name)

    @property
    def attr_columns(self) -> list[str]:
        mapped = self.mapping.mapped_columns()
        return [c for c in self.table.columns if c not in mapped]

    @property
    def ts(self) -> np.ndarray:
        """The event time of every row: the lower bound for interval events (exact: an object
        array of ints there, see ``exact_bounds``)."""
        m = self.mapping
        if m.is_interval:
            return self.exact[m.lower_col]  # type: ignore[index]
        return self.parsed[m.ts_col]

    def add(self, mask: np.ndarray, column: str, code: str, reason: Callable[[int], str] | str,
            severity: Severity = "error", first: Callable[[int], int] | None = None) -> None:
        """An issue for every row of ``mask`` (``reason`` may depend on the row position;
        ``first`` gives the row a repeated value first appeared in); an error also marks
        the rows bad."""
        for i in np.flatnonzero(mask):
            text = reason(int(i)) if callable(reason) else reason
            self.issues.append((int(i), len(self.issues), ValidationIssue(
                row=int(self.row_numbers[i]), column=column, reason=text, severity=severity,
                code=code, first_row=None if first is None else first(int(i)))))
        if severity == "error":
            self.bad[mask] = True

    def note(self, column: str, code: str, reason: str, severity: Severity = "warning") -> None:
        """An issue about the input as a whole (no row)."""
        self.issues.append((-1, len(self.issues), ValidationIssue(
            row=None, column=column, reason=reason, severity=severity, code=code)))
