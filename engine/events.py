"""Events: the in-memory event record, and loading/validating event data.

An event has a type, a timestamp ``ts`` (seconds for date-times, else the unit of the
time column), an ``id`` and attributes. ``seq`` is the 0-based position in the stream
after sorting by ``ts`` (ties keep input order); count windows (``WITHIN n events``)
and the SEQ order use it. Interval events (imprecise timestamps) carry ``lower`` and
``upper`` and have ``ts == lower``.
"""
from __future__ import annotations

import datetime as _dt
import difflib
import gc
import json
import numbers
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, model_validator

# Names that resolve to built-in event fields when the event has no attribute of that name.
BUILTIN_FIELDS = ("ts", "id", "type", "seq", "lower", "upper")


@dataclass(slots=True, eq=False)
class Event:
    id: Any
    type: str
    ts: float
    seq: int
    attrs: dict[str, Any] = field(default_factory=dict)
    lower: float | None = None
    upper: float | None = None

    def get(self, name: str) -> Any:
        """Attribute value; falls back to the built-in fields (ts, id, type, ...)."""
        attrs = self.attrs
        if name in attrs:
            return attrs[name]
        if name in BUILTIN_FIELDS:
            return getattr(self, name)
        return None

    def __repr__(self) -> str:  # compact, for traces and test failures
        return f"{self.type}#{self.id}@{self.ts}"


def make_stream(rows: list[dict[str, Any]], type_key: str = "type", ts_key: str = "ts",
                id_key: str | None = "id") -> list[Event]:
    """Build a sorted event stream from plain dicts (tests, samples, generators).

    Sorting is stable by ``ts``; ``seq`` is the position after sorting; the id is the
    ``id_key`` value when present, else the input row number.
    """
    order = sorted(range(len(rows)), key=lambda i: rows[i][ts_key])
    out: list[Event] = []
    for seq, i in enumerate(order):
        r = rows[i]
        attrs = {k: v for k, v in r.items() if k not in (type_key, ts_key, id_key)}
        eid = r[id_key] if id_key and id_key in r else i
        lower = r.get("lower")
        upper = r.get("upper")
        out.append(Event(id=eid, type=str(r[type_key]), ts=r[ts_key], seq=seq, attrs=attrs,
                         lower=lower, upper=upper))
    return out


# ---------------------------------------------------------------------------------------
# Loading and validation
# ---------------------------------------------------------------------------------------
#
# Pipeline: read a file into a pandas DataFrame (``_read_*``), check it with
# ``validate_frame`` (the one place where row-level checks live, so the Spark reader can
# run the same checks per Arrow batch with a row offset), sort stably by ts, then build
# ``Event`` objects column-wise with ``events_from_frame``.

TimeKind = Literal["number", "datetime"]
Severity = Literal["error", "warning"]

# Canonical column names of a validated frame (the prefix keeps them apart from data columns).
ROW_COL = "__cep_row"
TYPE_COL = "__cep_type"
TS_COL = "__cep_ts"
ID_COL = "__cep_id"
LOWER_COL = "__cep_lower"
UPPER_COL = "__cep_upper"
_CANONICAL = (ROW_COL, TYPE_COL, TS_COL, ID_COL, LOWER_COL, UPPER_COL)

_UNIT_SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
_FORMATS = {"csv": "csv", "tsv": "tsv", "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl",
            "parquet": "parquet", "pq": "parquet"}
_COMPRESSION = (".gz", ".bz2", ".xz", ".zst", ".zip")


class DataError(ValueError):
    """The input as a whole is unusable (missing file or column, unreadable or unknown format).

    The message is meant for a person: it names the file or column and what to do about it.
    Row-level problems are never raised; they are ``ValidationIssue`` entries in the report.
    """


class ColumnMapping(BaseModel):
    """Which columns of the input hold the event type, time stamp, id and interval bounds.

    ``id_col``: if the column is absent from the data, ids are the 0-based input row numbers.
    ``lower_col``/``upper_col``: interval events (imprecise timestamps); both or neither;
    when set, ``ts = lower`` and ``ts_col`` is not required.
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

    @model_validator(mode="after")
    def _check(self) -> "ColumnMapping":
        if (self.lower_col is None) != (self.upper_col is None):
            raise ValueError("set both lower_col and upper_col for interval events, or neither")
        used = [c for c in (self.type_col, None if self.is_interval else self.ts_col, self.id_col,
                            self.lower_col, self.upper_col) if c is not None]
        dup = sorted({c for c in used if used.count(c) > 1})
        if dup:
            raise ValueError(f"column {dup[0]!r} is mapped to more than one role")
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


def _guess_role(role: str, columns: list[str], exclude: set[str] = frozenset()) -> str | None:
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
    type_col = _guess_role("type", columns) or "type"
    ts_col = _guess_role("ts", columns, {type_col})
    id_col = _guess_role("id", columns, {type_col})
    lower = _guess_role("lower", columns, {type_col})
    upper = _guess_role("upper", columns, {type_col})
    interval = bool(lower and upper and lower != upper
                    and (ts_col is None or (lower.lower() == "lower" and upper.lower() == "upper")))
    if not interval:
        lower = upper = None
    if ts_col is None or ts_col in (lower, upper):
        ts_col = "ts" if "ts" not in (lower, upper, type_col, id_col) else "__ts"
    return ColumnMapping(type_col=type_col, ts_col=ts_col, id_col=id_col,
                         lower_col=lower, upper_col=upper)


class ValidationIssue(BaseModel):
    """One problem in the input: a 0-based data row (a CSV header is not a row; None for the
    whole input), the column, a reason a person can act on, and a severity. ``code`` is a short
    machine-readable kind ("bad_time", "missing_type", ...) used to group repetitive issues."""

    model_config = ConfigDict(frozen=True)

    row: int | None = None
    column: str | None = None
    reason: str
    severity: Severity = "error"
    code: str = ""

    def format(self) -> str:
        """``row 7, column ts: cannot parse '2011-13-45' as a number or ISO date-time``."""
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column {self.column}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason

    def __str__(self) -> str:
        return self.format()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class ValidationReport(BaseModel):
    """What loading did: rows read / loaded / rejected, whether the input was already sorted
    by ts, and every issue. Rows with an error are not loaded; nothing is dropped silently."""

    issues: list[ValidationIssue] = Field(default_factory=list)
    rows_read: int = 0
    rows_loaded: int = 0
    rows_rejected: int = 0
    sorted_by_ts: bool = True

    @property
    def errors(self) -> list[ValidationIssue]:
        """Issues of severity "error" (their rows were not loaded)."""
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[ValidationIssue]:
        """Issues of severity "warning" (their rows were loaded)."""
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when there are no errors (warnings are allowed)."""
        return not any(i.severity == "error" for i in self.issues)

    def summary(self) -> str:
        """One line: ``read 10 rows: 8 loaded, 2 rejected; 2 errors, 1 warning``."""
        n_err = sum(1 for i in self.issues if i.severity == "error")
        n_warn = len(self.issues) - n_err
        return (f"read {_plural(self.rows_read, 'row')}: {self.rows_loaded} loaded, "
                f"{self.rows_rejected} rejected; {_plural(n_err, 'error')}, "
                f"{_plural(n_warn, 'warning')}")

    def format(self, max_lines: int = 50, group_after: int = 5, group_show: int = 3) -> str:
        """Human-readable report: the summary line, then errors and warnings.

        Issues of the same kind in the same column form a group; a group of more than
        ``group_after`` issues shows its first ``group_show`` and a line with the count of the
        rest and their rows. At most ``max_lines`` issue lines are printed; the rest is
        counted in a final ``... and N more issues`` line. Counts are never hidden.
        """
        lines = [self.summary()]
        budget = max(max_lines, 1)
        shown = 0
        hidden = {"error": 0, "warning": 0}
        for severity, title in (("error", "errors"), ("warning", "warnings")):
            items = [i for i in self.issues if i.severity == severity]
            if not items:
                continue
            groups: dict[tuple[str | None, str], list[ValidationIssue]] = {}
            for it in items:
                groups.setdefault((it.column, it.code or it.reason), []).append(it)
            body: list[str] = []
            for (column, _), group in groups.items():
                if len(group) > group_after:
                    head, rest = group[:group_show], group[group_show:]
                else:
                    head, rest = group, []
                for it in head:
                    if shown < budget:
                        body.append("  " + it.format())
                        shown += 1
                    else:
                        hidden[severity] += 1
                if rest:
                    if shown < budget:
                        rows = [r.row for r in rest if r.row is not None]
                        where = f" in column {column}" if column is not None else ""
                        row_text = ""
                        if rows:
                            row_text = " (rows " + ", ".join(map(str, rows[:5]))
                            row_text += ", ...)" if len(rows) > 5 else ")"
                        body.append(f"  ... and {len(rest)} more like this{where}{row_text}")
                        shown += 1
                    else:
                        hidden[severity] += len(rest)
            if body:
                lines.append(f"{title} ({len(items)}):")
                lines.extend(body)
        n_hidden = hidden["error"] + hidden["warning"]
        if n_hidden:
            lines.append(f"... and {_plural(n_hidden, 'more issue')} not shown "
                         f"({_plural(hidden['error'], 'error')}, "
                         f"{_plural(hidden['warning'], 'warning')})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


# ---------------------------------------------------------------------------------------
# Value conversion helpers
# ---------------------------------------------------------------------------------------

def _show(v: Any, limit: int = 40) -> str:
    """A raw value as it appears in a message: strings quoted, long ones shortened."""
    text = str(v)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"'{text}'" if isinstance(v, str) else text


def _normalize(v: Any) -> Any:
    """A plain Python value (int/float/str/bool) or None for missing (None, NaN, NA, NaT)."""
    t = type(v)
    if t is str or t is int or t is bool:
        return v
    if t is float:
        return None if v != v else v
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.datetime64):
        return None if np.isnat(v) else pd.Timestamp(v).isoformat()
    if isinstance(v, np.timedelta64):
        return None if np.isnat(v) else pd.Timedelta(v).total_seconds()
    if isinstance(v, np.generic):
        return _normalize(v.item())
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    if isinstance(v, _dt.timedelta):
        return v.total_seconds()
    if isinstance(v, Decimal):
        return None if v.is_nan() else float(v)
    if isinstance(v, float):  # float subclasses
        return None if v != v else float(v)
    if isinstance(v, (int, str)):
        return v
    if isinstance(v, (list, tuple, dict, np.ndarray)):
        if isinstance(v, np.ndarray):
            v = v.tolist()
        return json.dumps(v, default=str)
    return str(v)


def _kind(v: Any) -> str | None:
    """Schema kind of a normalized value."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return "string"


_NONE_TYPE = type(None)
_PLAIN_KINDS: dict[frozenset[type], str | None] = {
    frozenset({str}): "string", frozenset({str, _NONE_TYPE}): "string",
    frozenset({int}): "number", frozenset({int, _NONE_TYPE}): "number",
    frozenset({float}): "number", frozenset({float, _NONE_TYPE}): "number",
    frozenset({int, float}): "number", frozenset({int, float, _NONE_TYPE}): "number",
    frozenset({bool}): "bool", frozenset({bool, _NONE_TYPE}): "bool",
}


def _object_values(raw: list[Any]) -> tuple[list[Any], str | None]:
    """Normalize the values of an object column; fast when they are already plain."""
    tset = frozenset(map(type, raw))
    if tset <= {str, int, bool, _NONE_TYPE}:
        values = raw
    elif tset <= {str, int, float, bool, _NONE_TYPE}:
        values = [None if v != v else v for v in raw]  # NaN -> None
    else:
        values = [_normalize(v) for v in raw]
        tset = frozenset(map(type, values))
    return values, _PLAIN_KINDS.get(tset)


def _column_values(s: pd.Series) -> tuple[list[Any], str | None]:
    """Convert a column to plain Python values (None for missing), efficiently.

    Returns the values and the kind shared by all of them when the dtype determines it
    ("number", "bool", "string"), else None (object columns: the kind is per value).
    """
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        s = s.astype(object)
        dt = s.dtype
    if isinstance(dt, np.dtype):
        if dt.kind in "iu":
            return s.tolist(), "number"
        if dt.kind == "b":
            return s.tolist(), "bool"
        if dt.kind == "f":
            arr = s.to_numpy()
            out = arr.tolist()
            for i in np.flatnonzero(np.isnan(arr)):
                out[i] = None
            return out, "number"
        if dt.kind in "mM":
            return [_normalize(v) for v in s.to_numpy()], None
        return _object_values(s.tolist())
    if pd.api.types.is_datetime64_any_dtype(dt):  # tz-aware
        return [None if v is pd.NaT else v.isoformat() for v in s.tolist()], "string"
    # Extension dtypes (Int64, Float64, boolean, string, Arrow...)
    if isinstance(dt, (pd.Float64Dtype, pd.Float32Dtype)):  # NaN may exist apart from NA
        return _column_values(pd.Series(s.to_numpy(dtype="float64", na_value=np.nan)))
    out = s.to_numpy(dtype=object, na_value=None).tolist()
    if isinstance(dt, (pd.Int64Dtype, pd.Int32Dtype, pd.Int16Dtype, pd.Int8Dtype,
                       pd.UInt64Dtype, pd.UInt32Dtype, pd.UInt16Dtype, pd.UInt8Dtype)):
        return out, "number"
    if isinstance(dt, pd.BooleanDtype):
        return out, "bool"
    if isinstance(dt, pd.StringDtype):
        return out, "string"
    return _object_values(out)  # Arrow and other extension types


_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def _coerce_numeric_text(s: pd.Series) -> pd.Series:
    """Text formats (CSV) have no types: in a column that pandas kept as text because some
    values are not numbers, turn the values that look like numbers back into numbers
    (int when the text is an integer). Works on the distinct values only."""
    if not (s.dtype == object or isinstance(s.dtype, pd.StringDtype)):
        return s
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    uvals = np.asarray(uniques, dtype=object)
    changed = False
    for i, v in enumerate(uvals):
        if type(v) is str and _NUMBER_TEXT.fullmatch(v):
            uvals[i] = int(v) if _INT_TEXT.fullmatch(v) else float(v)
            changed = True
    if not changed:
        return s
    out = np.append(uvals, None)[codes]  # code -1 (missing) -> None
    return pd.Series(out, index=s.index, dtype=object, name=s.name)


# Per-row outcome of parsing a time column.
_T_MISSING, _T_NUMBER, _T_DATETIME, _T_BAD, _T_INFINITE = 0, 1, 2, 3, 4


def _datetime_seconds(s: pd.Series) -> np.ndarray:
    """Float seconds since the epoch of a datetime64 Series (tz-naive = UTC); NaN for NaT."""
    if getattr(s.dt, "tz", None) is None:
        s = s.dt.tz_localize("UTC")
    return ((s - pd.Timestamp(0, tz="UTC")) / pd.Timedelta(seconds=1)).to_numpy(
        dtype="float64", na_value=np.nan)


def _parse_time(s: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Parse a time column: numbers stay numbers, ISO date-times become seconds since the
    epoch. Returns (values as float64 with NaN where unusable, per-row outcome codes)."""
    n = len(s)
    codes = np.full(n, _T_MISSING, dtype=np.int8)
    values = np.full(n, np.nan)
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        s = s.astype(object)
        dt = s.dtype
    if pd.api.types.is_bool_dtype(dt):
        codes[s.notna().to_numpy()] = _T_BAD
        return values, codes
    if pd.api.types.is_numeric_dtype(dt):
        arr = s.to_numpy(dtype="float64", na_value=np.nan)
        finite = np.isfinite(arr)
        codes[finite] = _T_NUMBER
        codes[np.isinf(arr)] = _T_INFINITE
        values[finite] = arr[finite]
        return values, codes
    if pd.api.types.is_datetime64_any_dtype(dt):
        secs = _datetime_seconds(s)
        ok = ~np.isnan(secs)
        codes[ok] = _T_DATETIME
        values[ok] = secs[ok]
        return values, codes
    # Object / string columns: classify by Python type (a handful of distinct types), then
    # parse each class vectorised.
    arr = s.to_numpy(dtype=object)
    types = list(map(type, arr))
    category = {t: _time_category(t) for t in set(types)}
    cat = np.fromiter(map(category.__getitem__, types), dtype=np.int8, count=n)
    num_mask = cat == _C_NUM
    if num_mask.any():
        num = pd.to_numeric(pd.Series(arr[num_mask], dtype=object), errors="coerce").to_numpy(
            dtype="float64", na_value=np.nan)
        _set_numbers(codes, values, num_mask, num)
    dto_mask = cat == _C_DATETIME
    if dto_mask.any():
        parsed = pd.to_datetime(pd.Series(arr[dto_mask], dtype=object), utc=True,
                                errors="coerce")
        secs = _datetime_seconds(pd.Series(parsed))
        ok = ~np.isnan(secs)
        idx = np.flatnonzero(dto_mask)[ok]
        codes[idx] = _T_DATETIME
        values[idx] = secs[ok]
    str_mask = cat == _C_STR
    if str_mask.any():
        str_idx = np.flatnonzero(str_mask)
        strs = pd.Series(arr[str_mask], dtype=object)
        # Date-times first (fast); strings that fail, or that parsed but have no '-' or ':'
        # (pandas reads '2011' and '2011.5' as dates), are tried as numbers.
        secs = _datetime_seconds(pd.Series(pd.to_datetime(strs, format="ISO8601", utc=True,
                                                          errors="coerce")))
        is_dt = ~np.isnan(secs)
        try_num = ~is_dt
        if is_dt.any():
            dt_strs = strs[is_dt]
            plain = ~(dt_strs.str.contains("-", regex=False)
                      | dt_strs.str.contains(":", regex=False)).to_numpy(dtype=bool)
            try_num[np.flatnonzero(is_dt)[plain]] = True
        num = np.full(len(strs), np.nan)
        if try_num.any():
            num[try_num] = pd.to_numeric(strs[try_num], errors="coerce").to_numpy(
                dtype="float64", na_value=np.nan)
        is_num = ~np.isnan(num)
        dt_ok = is_dt & ~is_num
        codes[str_idx[dt_ok]] = _T_DATETIME
        values[str_idx[dt_ok]] = secs[dt_ok]
        sub_codes = np.full(len(strs), _T_MISSING, dtype=np.int8)
        sub_values = np.full(len(strs), np.nan)
        _set_numbers(sub_codes, sub_values, is_num, num[is_num])
        codes[str_idx[is_num]] = sub_codes[is_num]
        values[str_idx[is_num]] = sub_values[is_num]
        failed = ~is_num & ~is_dt
        if failed.any():
            blank = (strs[failed].str.strip() == "").to_numpy(dtype=bool)
            fidx = str_idx[failed]
            codes[fidx[~blank]] = _T_BAD
    codes[cat == _C_BAD] = _T_BAD
    return values, codes


_C_MISSING, _C_NUM, _C_STR, _C_DATETIME, _C_BAD = 0, 1, 2, 3, 4


def _time_category(t: type) -> int:
    """How a time value of Python type ``t`` is parsed."""
    if t is type(None) or t is type(pd.NA) or t is type(pd.NaT):
        return _C_MISSING
    if issubclass(t, (bool, np.bool_)):
        return _C_BAD
    if issubclass(t, str):
        return _C_STR
    if issubclass(t, (_dt.date, np.datetime64)):
        return _C_DATETIME
    if issubclass(t, (int, float, np.number, Decimal)):
        return _C_NUM
    return _C_BAD


def _set_numbers(codes: np.ndarray, values: np.ndarray, mask: np.ndarray,
                 num: np.ndarray) -> None:
    """Record parsed numbers (NaN = missing, inf = not finite) at the rows of ``mask``."""
    idx = np.flatnonzero(mask)
    finite = np.isfinite(num)
    codes[idx[finite]] = _T_NUMBER
    values[idx[finite]] = num[finite]
    codes[idx[np.isinf(num)]] = _T_INFINITE


# ---------------------------------------------------------------------------------------
# validate_frame: the row-level checks, shared with the Spark reader
# ---------------------------------------------------------------------------------------

@dataclass
class ValidatedFrame:
    """The valid rows of a frame, in input order, with canonical columns.

    ``frame`` has ``ROW_COL`` (0-based input row, offset included), ``TYPE_COL`` (str),
    ``TS_COL`` (float64: seconds for date-times), ``ID_COL`` (object), ``LOWER_COL`` /
    ``UPPER_COL`` for interval events, and the attribute columns under their own names
    (dtypes as read). ``time_kinds`` maps each time column to "number" or "datetime"; pass it
    back to ``validate_frame`` for the next batch of the same input so that every batch
    decides mixed columns the same way.
    """

    frame: pd.DataFrame
    attr_columns: list[str]
    mapping: ColumnMapping
    rows_read: int
    time_kinds: dict[str, TimeKind]
    ids_are_rows: bool

    @property
    def rows_rejected(self) -> int:
        """Rows of the input frame that had at least one error."""
        return self.rows_read - len(self.frame)

    @property
    def time_is_datetime(self) -> bool:
        """True when time values are seconds since the epoch (some time column held date-times)."""
        return "datetime" in self.time_kinds.values()


def _suggest(name: str, columns: list[str], role: str | None, exclude: set[str]) -> str | None:
    for c in columns:
        if c.lower() == name.lower() and c not in exclude:
            return c
    if role is not None:
        guess = _guess_role(role, columns, exclude)
        if guess is not None:
            return guess
    close = difflib.get_close_matches(name, [c for c in columns if c not in exclude], n=1,
                                      cutoff=0.6)
    return close[0] if close else None


def _check_columns(mapping: ColumnMapping, columns: list[str]) -> None:
    """Raise DataError naming the first missing required column, the available ones and a
    suggestion."""
    required = [(mapping.type_col, "event type", "type")]
    if mapping.is_interval:
        required += [(mapping.lower_col, "lower bound", "lower"),
                     (mapping.upper_col, "upper bound", "upper")]
    else:
        required.append((mapping.ts_col, "time stamp", "ts"))
    present = set(columns)
    if len(present) < len(columns):
        dups = sorted({c for c in columns if columns.count(c) > 1})
        raise DataError("duplicate column names: " + ", ".join(f"'{c}'" for c in dups))
    for name, what, role in required:
        if name in present:
            continue
        exclude = {c for c, _, _ in required if c in present}
        shown = ", ".join(f"'{c}'" for c in columns[:30]) or "none"
        if len(columns) > 30:
            shown += f", ... ({len(columns)} in all)"
        msg = f"missing required column '{name}' ({what}); available columns: {shown}"
        hint = _suggest(name, columns, role, exclude)
        if hint is not None:
            msg += f"; did you mean '{hint}'?"
        raise DataError(msg)
    bad = [c for c in columns if c in _CANONICAL]
    if bad:
        raise DataError(f"column name '{bad[0]}' is reserved; rename the column")


def validate_frame(df: pd.DataFrame, mapping: ColumnMapping | None = None, row_offset: int = 0,
                   *, rows: Sequence[int] | np.ndarray | None = None,
                   time_kinds: dict[str, TimeKind] | None = None,
                   text_source: bool = False) -> tuple[ValidatedFrame, list[ValidationIssue]]:
    """Check one frame of input rows; return its valid rows and the issues found.

    Row numbers are ``row_offset + position`` (or ``row_offset + rows[position]`` when
    ``rows`` gives each frame row's input row, e.g. after unparsable JSON lines). Checks,
    each an issue naming row and column: missing/empty type; missing or unparsable time
    (numbers or ISO date-times; date-times become float seconds since the epoch, tz-naive =
    UTC; in a column mixing numbers and date-times the rows of the minority kind are errors,
    unless ``time_kinds`` fixes the kind per column); non-finite time; lower > upper; missing
    id (when the id column exists); duplicate ids (warning, within this frame). Rows with
    errors are left out of the result. ``text_source=True`` (CSV) turns number-looking text
    in attribute columns into numbers. Raises ``DataError`` for a missing required column.
    The frame is neither sorted nor copied more than needed.
    """
    mapping = mapping or ColumnMapping()
    if any(not isinstance(c, str) for c in df.columns):
        df = df.set_axis([str(c) for c in df.columns], axis=1)
    columns = list(df.columns)
    _check_columns(mapping, columns)
    n = len(df)
    if rows is None:
        row_numbers = np.arange(row_offset, row_offset + n, dtype=np.int64)
    else:
        row_numbers = np.asarray(rows, dtype=np.int64) + row_offset
        if len(row_numbers) != n:
            raise ValueError("rows must give one input row per frame row")
    issues: list[tuple[int, int, ValidationIssue]] = []  # (position, order, issue)
    bad = np.zeros(n, dtype=bool)

    def add(mask: np.ndarray, column: str, code: str, reason: Callable[[int], str] | str,
            severity: Severity = "error") -> None:
        for i in np.flatnonzero(mask):
            text = reason(int(i)) if callable(reason) else reason
            issues.append((int(i), len(issues), ValidationIssue(
                row=int(row_numbers[i]), column=column, reason=text, severity=severity,
                code=code)))
        if severity == "error":
            bad[mask] = True

    # -- type
    # Factorize first: there are few distinct types, and equal type names share one str.
    tcodes, tuniques = pd.factorize(df[mapping.type_col], use_na_sentinel=True)
    names, _ = _column_values(pd.Series(tuniques))
    names = [None if v is None else str(v).strip() for v in names]
    lookup = np.array(names + [None], dtype=object)  # code -1 (missing) -> None
    types = lookup[tcodes]
    t_missing = tcodes == -1
    empty_codes = [i for i, v in enumerate(names) if v == ""]
    t_empty = np.isin(tcodes, empty_codes) if empty_codes else np.zeros(n, dtype=bool)
    add(t_missing, mapping.type_col, "missing_type", "missing event type")
    add(t_empty, mapping.type_col, "empty_type", "empty event type")

    # -- time
    time_kinds = dict(time_kinds or {})
    parsed: dict[str, np.ndarray] = {}
    for col in mapping.time_columns:
        values, codes = _parse_time(df[col])
        raw = df[col]
        n_num = int(np.count_nonzero(codes == _T_NUMBER))
        n_dt = int(np.count_nonzero(codes == _T_DATETIME))
        # The majority kind wins (ties: numbers) unless the caller fixed it.
        kind = time_kinds.get(col) or ("datetime" if n_dt > n_num else "number")
        if n_num or n_dt or col in time_kinds:
            time_kinds[col] = kind
        minority = _T_NUMBER if kind == "datetime" else _T_DATETIME
        add(codes == _T_MISSING, col, "missing_time", "missing value")
        add(codes == _T_BAD, col, "bad_time",
            lambda i, raw=raw: f"cannot parse {_show(raw.iloc[i])} as a number or ISO date-time")
        add(codes == _T_INFINITE, col, "bad_time",
            lambda i, raw=raw: f"{_show(raw.iloc[i])} is not a finite number")
        if kind == "datetime":
            msg = "{} is a number but this column holds date-times"
        else:
            msg = "{} is a date-time but this column holds numbers"
        add(codes == minority, col, "mixed_time",
            lambda i, raw=raw, msg=msg: msg.format(_show(raw.iloc[i])))
        values = values.copy()
        values[codes == minority] = np.nan
        parsed[col] = values
    time_is_datetime = "datetime" in time_kinds.values()
    if time_is_datetime:  # numeric time columns next to date-time ones: ts_unit -> seconds
        factor = _UNIT_SECONDS[mapping.ts_unit]
        for col in mapping.time_columns:
            if time_kinds.get(col) == "number" and factor != 1.0:
                parsed[col] = parsed[col] * factor
    if mapping.is_interval:
        lo, hi = parsed[mapping.lower_col], parsed[mapping.upper_col]  # type: ignore[index]
        inverted = lo > hi  # NaN compares False
        lraw, uraw = df[mapping.lower_col], df[mapping.upper_col]
        add(inverted, mapping.lower_col, "lower_gt_upper",  # type: ignore[arg-type]
            lambda i: (f"lower bound {_show(lraw.iloc[i])} is after upper bound "
                       f"{_show(uraw.iloc[i])} (column {mapping.upper_col})"))
        ts = lo
    else:
        ts = parsed[mapping.ts_col]

    # -- id
    ids_are_rows = mapping.id_col is None or mapping.id_col not in df.columns
    if ids_are_rows:
        ids = row_numbers.astype(object)
        if mapping.id_col is not None and mapping.id_col != "id":
            hint = _suggest(mapping.id_col, columns, "id", mapping.mapped_columns())
            text = f"id column '{mapping.id_col}' not found; ids are the input row numbers"
            if hint is not None:
                text += f" (did you mean '{hint}'?)"
            issues.append((-1, len(issues), ValidationIssue(
                row=None, column=mapping.id_col, reason=text, severity="warning",
                code="no_id_column")))
    else:
        icol = df[mapping.id_col]
        if pd.api.types.is_float_dtype(icol.dtype):
            arr = icol.to_numpy(dtype="float64", na_value=np.nan)
            finite = arr[np.isfinite(arr)]
            if len(finite) and np.all(finite == np.round(finite)) and np.all(np.abs(finite) < 2**53):
                icol = icol.astype("Int64")
        id_values, _ = _column_values(icol)
        ids = np.empty(n, dtype=object)
        ids[:] = id_values
        id_missing = pd.isna(ids)
        add(id_missing, mapping.id_col, "missing_id", "missing id")

    # -- duplicate ids among the rows that will be loaded (warning)
    keep = ~bad
    if not ids_are_rows and keep.any():
        kept_pos = np.flatnonzero(keep)
        try:
            id_series = pd.Series(ids[kept_pos], dtype=object)
            dup = id_series.duplicated(keep="first").to_numpy()
        except TypeError:  # unhashable ids
            dup = np.zeros(len(kept_pos), dtype=bool)
        if dup.any():
            first: dict[Any, int] = {}
            for p, v in zip(kept_pos, id_series):
                first.setdefault(v, int(row_numbers[p]))
            mask = np.zeros(n, dtype=bool)
            mask[kept_pos[dup]] = True
            add(mask, mapping.id_col, "duplicate_id",  # type: ignore[arg-type]
                lambda i: f"duplicate id {_show(ids[i])} (first in row {first[ids[i]]})",
                severity="warning")

    # -- attributes
    mapped = mapping.mapped_columns()
    attr_columns = [c for c in columns if c not in mapped]
    for c in attr_columns:
        if c in BUILTIN_FIELDS:
            issues.append((-1, len(issues), ValidationIssue(
                row=None, column=c, severity="warning", code="shadows_builtin",
                reason=(f"column '{c}' is loaded as an attribute and hides the built-in "
                        f"field {c} in predicates"))))

    # -- the valid rows, canonical columns first
    canon: dict[str, Any] = {
        ROW_COL: row_numbers[keep],
        TYPE_COL: types[keep],
        TS_COL: ts[keep],
        ID_COL: ids[keep],
    }
    if mapping.is_interval:
        canon[LOWER_COL] = parsed[mapping.lower_col][keep]  # type: ignore[index]
        canon[UPPER_COL] = parsed[mapping.upper_col][keep]  # type: ignore[index]
    frame = pd.DataFrame(canon)
    if attr_columns:
        attrs = df[attr_columns]
        if not keep.all():
            attrs = attrs[keep]
        attrs = attrs.reset_index(drop=True)
        if text_source:
            attrs = pd.DataFrame({c: _coerce_numeric_text(attrs[c]) for c in attr_columns})
        frame = pd.concat([frame, attrs], axis=1)
    issues.sort(key=lambda x: (x[0], x[1]))
    result = ValidatedFrame(frame=frame, attr_columns=attr_columns, mapping=mapping,
                            rows_read=n, time_kinds=time_kinds, ids_are_rows=ids_are_rows)
    return result, [it for _, _, it in issues]


def sort_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """Sort a validated frame stably by ts (ties keep input order).

    Returns the frame and whether it was already sorted (then it is returned as is).
    """
    ts = frame[TS_COL].to_numpy()
    if len(ts) < 2 or not np.any(ts[1:] < ts[:-1]):
        return frame, True
    order = np.argsort(ts, kind="stable")
    return frame.take(order).reset_index(drop=True), False


def _build_events(frame: pd.DataFrame, attr_columns: list[str], seq_start: int = 0,
                  with_schema: bool = True) -> tuple[list[Event], dict[str, dict[str, str]]]:
    """Events (and the schema) from a validated frame, column-wise and without per-row
    pandas access; the garbage collector is paused while a million small objects appear."""
    n = len(frame)
    type_arr = frame[TYPE_COL].to_numpy(dtype=object)
    types = type_arr.tolist()
    ts = frame[TS_COL].tolist()
    ids = frame[ID_COL].tolist()
    names = tuple(attr_columns)
    columns: list[list[Any]] = []
    schema_kinds: dict[str, dict[str, set[str]]] = {}
    for c in attr_columns:
        values, kind = _column_values(frame[c])
        columns.append(values)
        if not with_schema:
            continue
        if kind is not None:
            present = ~pd.isna(np.asarray(values, dtype=object)) if n else np.zeros(0, bool)
            pairs = {(t, kind) for t in pd.unique(type_arr[present])}
        else:
            pairs = {(t, k) for t, k in set(zip(types, map(_kind, values))) if k is not None}
        for t, k in pairs:
            schema_kinds.setdefault(t, {}).setdefault(c, set()).add(k)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        if names:
            make = partial(zip, names)
            attr_dicts = [dict(make(vals)) if None not in vals else
                          {k: v for k, v in zip(names, vals) if v is not None}
                          for vals in zip(*columns)]
        else:
            attr_dicts = [{} for _ in range(n)]
        seqs = range(seq_start, seq_start + n)
        if LOWER_COL in frame.columns:
            events = list(map(Event, ids, types, ts, seqs, attr_dicts,
                              frame[LOWER_COL].tolist(), frame[UPPER_COL].tolist()))
        else:
            events = list(map(Event, ids, types, ts, seqs, attr_dicts))
    finally:
        if gc_was_enabled:
            gc.enable()
    schema: dict[str, dict[str, str]] = {}
    if with_schema:
        for t in pd.unique(type_arr):
            kinds = schema_kinds.get(t, {})
            schema[t] = {c: (next(iter(kinds[c])) if len(kinds[c]) == 1 else "mixed")
                         for c in attr_columns if c in kinds}
    return events, schema


def events_from_frame(frame: pd.DataFrame, attr_columns: list[str],
                      seq_start: int = 0) -> list[Event]:
    """Build events from a validated (and sorted) frame; ``seq`` counts from ``seq_start``.

    Column-wise: each attribute column is converted to plain Python values once (numpy
    scalars -> int/float/str/bool, NaN/None/NA -> absent from ``attrs``).
    """
    return _build_events(frame, attr_columns, seq_start, with_schema=False)[0]


def infer_schema(events: Iterable[Event]) -> dict[str, dict[str, str]]:
    """Event type -> attribute -> "number" | "string" | "bool" | "mixed", from events."""
    kinds: dict[str, dict[str, set[str]]] = {}
    for ev in events:
        per_type = kinds.setdefault(ev.type, {})
        for k, v in ev.attrs.items():
            kd = _kind(v)
            if kd is not None:
                per_type.setdefault(k, set()).add(kd)
    return {t: {a: (next(iter(s)) if len(s) == 1 else "mixed") for a, s in attrs.items()}
            for t, attrs in kinds.items()}


# ---------------------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------------------

def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _resolve_format(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        key = fmt.lower().lstrip(".")
        if key not in _FORMATS:
            raise DataError(f"unknown format '{fmt}'; use one of: csv, tsv, jsonl (json, ndjson), "
                            f"parquet")
        return _FORMATS[key]
    if path.is_dir():
        return "parquet"
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSION:
        suffixes = suffixes[:-1]
    ext = suffixes[-1].lstrip(".") if suffixes else ""
    if ext not in _FORMATS:
        raise DataError(f"cannot tell the format of '{path.name}' from its extension "
                        f"('{ext or 'none'}'); use .csv, .tsv, .jsonl/.json/.ndjson or .parquet, "
                        f"or pass fmt='csv' | 'jsonl' | 'parquet'")
    return _FORMATS[ext]


def _read_csv(path: Path, sep: str = ",") -> pd.DataFrame:
    what = "CSV" if sep == "," else "TSV"
    try:
        return pd.read_csv(path, sep=sep, dtype_backend="numpy_nullable")
    except pd.errors.EmptyDataError:
        raise DataError(f"'{path.name}' is empty: no header and no rows") from None
    except pd.errors.ParserError as e:
        raise DataError(f"cannot read '{path.name}' as {what}: {_short(e)}") from None
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as {what}: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except (OSError, ValueError) as e:
        raise DataError(f"cannot read '{path.name}' as {what}: {_short(e)}") from None


def _open_text(path: Path):
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip
        return gzip.open(path, "rt", encoding="utf-8")
    if suffix == ".bz2":
        import bz2
        return bz2.open(path, "rt", encoding="utf-8")
    if suffix == ".xz":
        import lzma
        return lzma.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _read_jsonl_arrow(path: Path) -> pd.DataFrame | None:
    """Fast path for well-typed JSON Lines (pyarrow, multi-threaded). Returns None when the
    file needs the exact Python reader: a column mixing types, nested values, a bad line."""
    import pyarrow.json as pj

    try:
        table = pj.read_json(path)
        if table.num_rows == 0 or table.num_columns == 0:
            return None
        # pyarrow guesses timestamps from strings; keep them as the strings in the file.
        inferred = [f.name for f in table.schema
                    if pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)]
        if inferred:
            schema = pa.schema([pa.field(f.name, pa.string()) if f.name in inferred else f
                                for f in table.schema])
            table = pj.read_json(path, parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="infer"))
        for f in table.schema:
            t = f.type
            if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
                    or pa.types.is_string(t) or pa.types.is_large_string(t)
                    or pa.types.is_null(t)):
                return None
        return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OSError):
        return None


def _read_jsonl(path: Path) -> tuple[pd.DataFrame, np.ndarray | None, list[ValidationIssue]]:
    """JSON Lines (one object per line; a JSON array of objects is accepted too).

    Returns the frame, each frame row's input row (0-based number among non-blank lines;
    None when it is the frame position) and issues for lines that are not JSON objects
    (those rows are rejected)."""
    df = _read_jsonl_arrow(path)
    if df is not None:
        return df, None, []
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    issues: list[ValidationIssue] = []
    try:
        with _open_text(path) as f:
            text = f.read()
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as JSON Lines: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except (OSError, EOFError) as e:
        raise DataError(f"cannot read '{path.name}': {_short(e)}") from None
    stripped = text.lstrip()
    if not stripped:
        raise DataError(f"'{path.name}' is empty: no rows")
    items: list[Any] | None = None
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise DataError(f"cannot read '{path.name}' as JSON: {e.msg} at line {e.lineno}, "
                            f"column {e.colno}") from None
        items = data if isinstance(data, list) else [data]
    else:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        try:  # one call for the whole file; line by line only to locate errors
            items = json.loads("[" + ",".join(lines) + "]")
            if len(items) != len(lines):
                items = None
        except json.JSONDecodeError:
            items = None
        if items is None:
            items = []
            for row, line in enumerate(lines):
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as e:
                    items.append(_BadLine(f"invalid JSON: {e.msg} at column {e.colno}"))
    for row, item in enumerate(items):
        if isinstance(item, dict):
            records.append(item)
            rows.append(row)
            continue
        reason = (item.reason if isinstance(item, _BadLine)
                  else f"not a JSON object: {_show(item)}")
        issues.append(ValidationIssue(row=row, column=None, code="bad_json", reason=reason))
    if not records:
        first = issues[0].format() if issues else "no objects"
        raise DataError(f"cannot read '{path.name}' as JSON Lines: no line is a JSON object "
                        f"({first})")
    df = pd.DataFrame(records, dtype=object)
    return df, np.asarray(rows, dtype=np.int64), issues


@dataclass
class _BadLine:
    reason: str


_PARQUET_TYPES: dict[Any, Any] = {
    pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
    pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
    pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype(),
    pa.string(): pd.StringDtype(), pa.large_string(): pd.StringDtype(),
}


def arrow_to_pandas(table: "pa.Table | pa.RecordBatch") -> pd.DataFrame:
    """Arrow -> pandas keeping integer columns with nulls as integers (nullable dtypes).

    The Spark reader should use this for its Arrow batches before ``validate_frame``."""
    return table.to_pandas(types_mapper=_PARQUET_TYPES.get)


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise DataError(f"cannot read '{path.name}' as Parquet: {_short(e)}") from None
    try:
        return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OverflowError) as e:
        raise DataError(f"cannot convert '{path.name}' from Parquet: {_short(e)}") from None


# ---------------------------------------------------------------------------------------
# load_events
# ---------------------------------------------------------------------------------------

@dataclass
class LoadResult:
    """Events sorted by ts (``seq`` = position), the validation report, the attribute schema
    (event type -> attribute -> "number" | "string" | "bool" | "mixed"), the mapping used,
    whether ts are seconds since the epoch, each event's input row (``rows[ev.seq]``) and
    whether ids are row numbers."""

    events: list[Event]
    report: ValidationReport
    schema: dict[str, dict[str, str]]
    mapping: ColumnMapping
    time_is_datetime: bool
    rows: list[int] = field(default_factory=list)
    ids_are_rows: bool = False

    def seconds_to_ts(self, seconds: float) -> float:
        """A duration in seconds (``WITHIN 1 hour`` = 3600) in the unit of ``ts``: seconds
        when the time column held date-times, else ``seconds / ts_unit``."""
        if self.time_is_datetime:
            return float(seconds)
        return seconds / _UNIT_SECONDS[self.mapping.ts_unit]

    def numeric_issues(self, numeric_attrs: Mapping[str, set[str]]) -> list[ValidationIssue]:
        """``numeric_issues`` for these events, with input row numbers."""
        return numeric_issues(self.events, numeric_attrs, rows=self.rows)


def load_events(source: str | os.PathLike[str] | pd.DataFrame,
                mapping: ColumnMapping | None = None, fmt: str | None = None) -> LoadResult:
    """Load and validate events from CSV, TSV, JSON Lines, Parquet or a pandas DataFrame.

    ``fmt`` ("csv", "tsv", "jsonl"/"json"/"ndjson", "parquet") overrides the file extension;
    without a ``mapping`` it is guessed from the column names (``guess_mapping``). Rows with
    errors are not loaded and are listed in the report; input not sorted by ts is sorted
    stably (ties keep file order) with a warning. Raises ``DataError`` when the input as a
    whole is unusable (file not found, unreadable, unknown format, missing column).
    """
    pre_issues: list[ValidationIssue] = []
    rows: np.ndarray | None = None
    text_source = False
    if isinstance(source, pd.DataFrame):
        df = source
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise DataError(f"file not found: '{path}'")
        kind = _resolve_format(path, fmt)
        if path.is_dir() and kind != "parquet":
            raise DataError(f"'{path}' is a directory, not a {kind.upper()} file")
        if kind in ("csv", "tsv"):
            df = _read_csv(path, "," if kind == "csv" else "\t")
            text_source = True
        elif kind == "jsonl":
            df, rows, pre_issues = _read_jsonl(path)
        else:
            df = _read_parquet(path)
    else:
        raise TypeError(f"source must be a path or a pandas DataFrame, not {type(source).__name__}")
    if mapping is None:
        mapping = guess_mapping([str(c) for c in df.columns])
    vf, issues = validate_frame(df, mapping, rows=rows, text_source=text_source)
    frame, was_sorted = sort_frame(vf.frame)
    events, schema = _build_events(frame, vf.attr_columns)
    if not was_sorted:
        issues.append(ValidationIssue(
            row=None, column=mapping.lower_col if mapping.is_interval else mapping.ts_col,
            severity="warning", code="unsorted",
            reason=(f"input was not sorted by ts; sorted {len(events)} rows stably, ties keep "
                    f"file order")))
    all_issues = sorted(pre_issues + issues, key=lambda i: -1 if i.row is None else i.row)
    report = ValidationReport(issues=all_issues, rows_read=vf.rows_read + len(pre_issues),
                              rows_loaded=len(events),
                              rows_rejected=vf.rows_rejected + len(pre_issues),
                              sorted_by_ts=was_sorted)
    return LoadResult(events=events, report=report, schema=schema, mapping=mapping,
                      time_is_datetime=vf.time_is_datetime, rows=frame[ROW_COL].tolist(),
                      ids_are_rows=vf.ids_are_rows)


def numeric_issues(events: Iterable[Event], numeric_attrs: Mapping[str, set[str]],
                   rows: Sequence[int] | None = None) -> list[ValidationIssue]:
    """Errors for values a pattern compares or computes with numerically but that are not
    numbers ("non-numeric value compared numerically"; bool counts as non-numeric).

    ``numeric_attrs`` maps an event type, or "ANY" for every type, to attribute names.
    ``rows`` gives each event's input row by ``seq`` (``LoadResult.rows``; when ids are row
    numbers it equals the ids); without it, issues have ``row=None``. The reason names the
    event id either way.
    """
    any_names = set(numeric_attrs.get("ANY", ()))
    cache: dict[str, list[str]] = {}
    out: list[ValidationIssue] = []
    for ev in events:
        names = cache.get(ev.type)
        if names is None:
            names = cache[ev.type] = sorted(any_names | set(numeric_attrs.get(ev.type, ())))
        if not names:
            continue
        attrs = ev.attrs
        for name in names:
            v = attrs.get(name)
            if v is None or (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))):
                continue
            out.append(ValidationIssue(
                row=rows[ev.seq] if rows is not None else None, column=name, code="non_numeric",
                reason=(f"non-numeric value compared numerically: {ev.type}.{name} = "
                        f"{_show(v)} (event id {ev.id})")))
    if rows is not None:
        out.sort(key=lambda i: i.row)
    return out
