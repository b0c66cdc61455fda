"""Which input columns hold the event type, time stamp, id and interval bounds
(``ColumnMapping``), guessing it from column names (``guess_mapping``), and the canonical
column names of a validated frame. No pandas here.
"""
from __future__ import annotations

import difflib
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["ColumnMapping", "guess_mapping", "guess_role", "suggest_column", "TimeKind",
           "ROW_COL", "TYPE_COL", "TS_COL", "ID_COL", "LOWER_COL", "UPPER_COL", "CANONICAL",
           "UNIT_SECONDS"]

TimeKind = Literal["number", "datetime"]

# Canonical column names of a validated frame (the prefix keeps them apart from data columns).
ROW_COL = "__cep_row"
TYPE_COL = "__cep_type"
TS_COL = "__cep_ts"
ID_COL = "__cep_id"
LOWER_COL = "__cep_lower"
UPPER_COL = "__cep_upper"
CANONICAL = (ROW_COL, TYPE_COL, TS_COL, ID_COL, LOWER_COL, UPPER_COL)

UNIT_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


class ColumnMapping(BaseModel):
    """Which columns of the input hold the event type, time stamp, id and interval bounds.

    ``id_col``: if the column is absent from the data, ids are the 0-based input row numbers.
    ``lower_col``/``upper_col``: interval events (imprecise timestamps); both or neither;
    when set, ``ts = lower`` and ``ts_col`` is not required.
    ``pmf_col`` (interval events only): a column of per-event pmf weights, one per instant of
    ``[lower, upper]`` (``"1 2 1"``; an empty cell is uniform); it stays an attribute too.
    ``u_max``: the largest ``upper - lower`` any event may have (imprecise-timestamps §1.3);
    None: derived from the data.
    ``ts_unit``: unit of numeric time values. Numeric time columns stay as they are ("unitless
    = the unit of the time column"); the unit is used only (a) to convert a numeric time column
    to seconds when another time column (lower/upper) holds date-times, and (b) by
    ``LoadResult.seconds_to_ts`` to express ``WITHIN 1 hour`` in the unit of a numeric column.
    """

    model_config = ConfigDict(frozen=True)

    type_col: str = "type"
    ts_col: str = "ts"
    id_col: str | None = "id"
    lower_col: str | None = None
    upper_col: str | None = None
    ts_unit: Literal["s", "ms", "us", "ns"] = "s"
    pmf_col: str | None = None
    u_max: int | None = None

    @model_validator(mode="after")
    def _check(self) -> "ColumnMapping":
        if (self.lower_col is None) != (self.upper_col is None):
            raise ValueError("set both lower_col and upper_col for interval events, or neither")
        used = [c for c in (self.type_col, None if self.is_interval else self.ts_col, self.id_col,
                            self.lower_col, self.upper_col) if c is not None]
        dup = sorted({c for c in used if used.count(c) > 1})
        if dup:
            raise ValueError(f"column {dup[0]!r} is mapped to more than one role")
        if (self.pmf_col is not None or self.u_max is not None) and not self.is_interval:
            raise ValueError("pmf_col and u_max are for interval events: set lower_col and upper_col too")
        if self.u_max is not None and self.u_max < 0:
            raise ValueError("u_max must be >= 0")
        return self

    @property
    def is_interval(self) -> bool:
        """True when events carry an uncertainty interval ``[lower, upper]``."""
        return self.lower_col is not None and self.upper_col is not None

    @property
    def time_columns(self) -> list[str]:
        """The columns parsed as time: ``[lower, upper]`` for interval events, else ``[ts]``."""
        if self.is_interval:
            return [self.lower_col, self.upper_col]  # type: ignore[list-item]
        return [self.ts_col]

    def mapped_columns(self) -> set[str]:
        """Columns consumed by the mapping (everything else becomes an attribute)."""
        cols = {self.type_col, *self.time_columns}
        if self.id_col is not None:
            cols.add(self.id_col)
        return cols


_GUESS_NAMES: dict[str, tuple[str, ...]] = {
    "type": ("type", "event_type", "event", "kind", "l"),
    "ts": ("ts", "time", "timestamp", "t", "date"),
    "id": ("id", "event_id", "eid"),
    "lower": ("lower", "lo", "start"),
    "upper": ("upper", "hi", "end"),
}


def guess_role(role: str, columns: list[str], exclude: set[str] = frozenset()) -> str | None:
    """The first column (case-insensitive) whose name is a usual name for ``role``."""
    by_lower: dict[str, str] = {}
    for c in columns:
        if c not in exclude:
            by_lower.setdefault(c.lower(), c)
    for name in _GUESS_NAMES[role]:
        if name in by_lower:
            return by_lower[name]
    return None


def guess_mapping(columns: list[str]) -> ColumnMapping:
    """Guess a column mapping from column names (case-insensitive).

    type: type/event_type/event/kind/L; ts: ts/time/timestamp/T/date; id: id/event_id/eid
    (None when absent, so ids are row numbers); lower/upper: lower/lo/start and
    upper/hi/end. Interval events are guessed when both bounds are found and either they are
    literally named lower/upper or there is no ts column (a ``start``/``end`` pair next to a
    ``ts`` column is more likely two attributes).
    """
    columns = [str(c) for c in columns]
    type_col = guess_role("type", columns) or "type"
    ts_col = guess_role("ts", columns, {type_col})
    id_col = guess_role("id", columns, {type_col})
    lower = guess_role("lower", columns, {type_col})
    upper = guess_role("upper", columns, {type_col})
    interval = bool(lower and upper and lower != upper
                    and (ts_col is None or (lower.lower() == "lower" and upper.lower() == "upper")))
    if not interval:
        lower = upper = None
    if ts_col is None or ts_col in (lower, upper):
        ts_col = "ts" if "ts" not in (lower, upper, type_col, id_col) else "__ts"
    return ColumnMapping(type_col=type_col, ts_col=ts_col, id_col=id_col,
                         lower_col=lower, upper_col=upper)


def suggest_column(name: str, columns: list[str], role: str | None, exclude: set[str]) -> str | None:
    """The column a person probably meant by ``name``: same name in another case, the usual
    name for ``role``, or the closest spelling."""
    for c in columns:
        if c.lower() == name.lower() and c not in exclude:
            return c
    if role is not None:
        guess = guess_role(role, columns, exclude)
        if guess is not None:
            return guess
    close = difflib.get_close_matches(name, [c for c in columns if c not in exclude], n=1,
                                      cutoff=0.6)
    return close[0] if close else None
