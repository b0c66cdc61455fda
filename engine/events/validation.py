"""Validation: the row-level checks of an input frame, as named rules.

``check_table`` checks the required columns (a missing one is a ``DataError``), then
applies every rule of ``RULES`` in order to one ``FrameCheck``; a rule reports issues for
the rows of a mask (``FrameCheck.add``) or for the whole input (``FrameCheck.note``) and may
leave results (types, parsed times, ids) for the rules after it. Rows with an error are
left out of the result. The rules see the input through ``columns.Table``, so the same
rules check a pandas frame (``validate_frame``: files read whole or in batches, Parquet,
and the Spark reader on every Arrow batch with a row offset) and a small CSV file read
without pandas (``small_csv``). Only ``validate_frame`` imports pandas, when called.

``numeric_issues`` is the check that needs the pattern: values compared numerically that
are not numbers.
"""
from __future__ import annotations

import json
import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from engine.events.columns import T_BAD, T_DATETIME, T_INFINITE, T_MISSING, T_NUMBER, Column, Table
from engine.events.mapping import (CANONICAL, ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UPPER_COL,
                      ColumnMapping, TimeKind, suggest_column)
from engine.events.frame_check import FrameCheck
from engine.events.intervals import (check_arrival_order, check_interval_instants, check_interval_order, check_pmf,
                        check_u_max, convert_time_unit, exact_bounds, exact_number_text)
from engine.events.records import BUILTIN_FIELDS, Event
from engine.events.report import DataError, ValidationIssue, show_value

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ValidatedFrame", "FrameCheck", "Rule", "RULES", "check_table", "validate_frame",
           "check_columns", "numeric_issues"]


@dataclass
class ValidatedFrame:
    """The valid rows of a frame, in input order, with canonical columns.

    ``frame`` has ``ROW_COL`` (0-based input row, offset included), ``TYPE_COL`` (str),
    ``TS_COL`` (float64: seconds for date-times; for interval events the lower bound, an
    object column of exact ints), ``ID_COL`` (object), ``LOWER_COL`` / ``UPPER_COL`` for
    interval events (exact ints), and the attribute columns under their own names
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


# --------------------------------------------------------------------------- the rules

def check_event_type(chk: FrameCheck) -> None:
    """Every row has a non-empty event type; leaves ``chk.types`` (str, stripped)."""
    col = chk.mapping.type_col
    # Factorize first: there are few distinct types, and equal type names share one str.
    tcodes, uniques = chk.col(col).factorize()
    names = [None if v is None else str(v).strip() for v in uniques]
    lookup = np.array(names + [None], dtype=object)  # code -1 (missing) -> None
    chk.types = lookup[tcodes]
    empty_codes = [i for i, v in enumerate(names) if v == ""]
    t_empty = np.isin(tcodes, empty_codes) if empty_codes else np.zeros(chk.n, dtype=bool)
    chk.add(tcodes == -1, col, "missing_type", "missing event type")
    chk.add(t_empty, col, "empty_type", "empty event type")


def check_time_values(chk: FrameCheck) -> None:
    """Every time value is a finite number or an ISO date-time, and a column does not mix
    the two (the majority kind wins, ties: numbers, unless ``time_kinds`` fixes it);
    leaves ``chk.parsed`` (float64, NaN where unusable)."""
    for col in chk.mapping.time_columns:
        raw = chk.col(col)
        values, codes = raw.parse_time()
        if chk.mapping.is_interval:
            exact_number_text(raw, values, codes)
        n_num = int(np.count_nonzero(codes == T_NUMBER))
        n_dt = int(np.count_nonzero(codes == T_DATETIME))
        kind = chk.time_kinds.get(col) or ("datetime" if n_dt > n_num else "number")
        if n_num or n_dt or col in chk.time_kinds:
            chk.time_kinds[col] = kind
        minority = T_NUMBER if kind == "datetime" else T_DATETIME
        chk.add(codes == T_MISSING, col, "missing_time", "missing value")
        chk.add(codes == T_BAD, col, "bad_time",
                lambda i, raw=raw: f"cannot parse {show_value(raw.raw(i))} as a number or ISO date-time")
        chk.add(codes == T_INFINITE, col, "bad_time",
                lambda i, raw=raw: f"{show_value(raw.raw(i))} is not a finite number")
        if kind == "datetime":
            msg = "{} is a number but this column holds date-times"
        else:
            msg = "{} is a date-time but this column holds numbers"
        chk.add(codes == minority, col, "mixed_time",
                lambda i, raw=raw, msg=msg: msg.format(show_value(raw.raw(i))))
        values = values.copy()
        values[codes == minority] = np.nan
        chk.parsed[col] = values


_NESTED = (list, tuple, dict, np.ndarray)


def check_scalar_ids(chk: FrameCheck) -> None:
    """An id is one value (a number or a string), not a list or an object (JSON, Parquet)."""
    m = chk.mapping
    if m.id_col is None or m.id_col not in chk.columns or not chk.col(m.id_col).is_object:
        return
    raw = chk.col(m.id_col).objects()
    nested = np.fromiter((isinstance(v, _NESTED) for v in raw), dtype=bool, count=len(raw))
    chk.add(nested, m.id_col, "bad_id",
            lambda i: f"an id must be one value (a number or a string), not {_shown_nested(raw[i])}")


def _shown_nested(v: Any) -> str:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    try:
        text = json.dumps(v, default=str)
    except (TypeError, ValueError):
        text = str(v)
    return text if len(text) <= 40 else text[:37] + "..."


# Unicode control characters (category Cc) other than tab, line feed and carriage return
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _escaped(v: str, limit: int = 40) -> str:
    text = v if len(v) <= limit else v[: limit - 3] + "..."
    return "'" + _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) + "'"


def check_control_characters(chk: FrameCheck) -> None:
    """A text cell holding a control character (NUL, ESC, ...; tab and line breaks are
    text) is an error naming the character: such bytes are almost always a damaged or
    binary file, and some readers cut the value at them."""
    for c in chk.columns:
        col = chk.col(c)
        if not col.is_text:
            continue
        values = col.objects()
        texts = [v for v in values if type(v) is str]
        if not texts or not _CONTROL.search("".join(texts)):
            continue
        hits = np.fromiter((type(v) is str and _CONTROL.search(v) is not None for v in values),
                           dtype=bool, count=len(values))
        chk.add(hits, c, "control_char", lambda i, values=values: (
            f"control character U+{ord(_CONTROL.search(values[i]).group()):04X} in the value "
            f"{_escaped(values[i])}"))


def check_ids(chk: FrameCheck) -> None:
    """Every row has an id when the id column exists; without it ids are the input row
    numbers (a warning when the mapping named another column). Leaves ``chk.ids``."""
    m = chk.mapping
    chk.ids_are_rows = m.id_col is None or m.id_col not in chk.columns
    if chk.ids_are_rows:
        chk.ids = chk.row_numbers.astype(object)
        if m.id_col is not None and m.id_col != "id":
            hint = suggest_column(m.id_col, chk.columns, "id", m.mapped_columns())
            text = f"id column '{m.id_col}' not found; ids are the input row numbers"
            if hint is not None:
                text += f" (did you mean '{hint}'?)"
            chk.note(m.id_col, "no_id_column", text)
        return
    icol = chk.col(m.id_col)
    id_values, _ = icol.values()
    infinite = np.fromiter((type(v) is float and v - v != 0.0 for v in id_values), dtype=bool, count=chk.n)
    if infinite.any():  # inf (JSON's Infinity, Parquet): no JSON can write it back
        chk.add(infinite, m.id_col, "infinite_id", lambda i: f"id {id_values[i]!r} is not a finite number")
        id_values = [None if bad else v for v, bad in zip(id_values, infinite.tolist())]
    if icol.is_float and _whole_numbers(id_values):  # ints with gaps read as floats
        id_values = [None if v is None else int(v) for v in id_values]
    chk.ids = np.empty(chk.n, dtype=object)
    chk.ids[:] = id_values
    if None in id_values:
        missing = np.fromiter((v is None for v in id_values), dtype=bool, count=chk.n)
    else:
        missing = np.zeros(chk.n, dtype=bool)
    chk.add(missing & ~infinite, m.id_col, "missing_id", "missing id")


def _whole_numbers(values: list[Any]) -> bool:
    """Some value is present, and every present one is a whole number of magnitude below 2**53."""
    present = [v for v in values if v is not None]
    return bool(present) and all(math.isfinite(v) and v == int(v) and abs(v) < 2**53 for v in present)


def check_duplicate_ids(chk: FrameCheck) -> None:
    """Among the rows that will be loaded, an id seen before is a warning naming the first row."""
    keep = ~chk.bad
    if chk.ids_are_rows or not keep.any():
        return
    ids = chk.ids
    assert ids is not None
    kept_pos = np.flatnonzero(keep).tolist()
    kept = ids[kept_pos].tolist()
    try:
        if len(set(kept)) == len(kept):
            return
    except TypeError:  # unhashable ids
        return
    first: dict[Any, int] = {}
    mask = np.zeros(chk.n, dtype=bool)
    for p, v in zip(kept_pos, kept):
        if v in first:
            mask[p] = True
        else:
            first[v] = int(chk.row_numbers[p])
    chk.add(mask, chk.mapping.id_col, "duplicate_id",  # type: ignore[arg-type]
            lambda i: f"duplicate id {show_value(ids[i])}", severity="warning",
            first=lambda i: first[ids[i]])


def check_finite_values(chk: FrameCheck) -> None:
    """An attribute number that is not finite is an error: in CSV and JSON a number beyond
    the float range (``1e400``) reads as inf, JSON Lines may write ``Infinity`` and Parquet
    may hold it; no such value is exact, and none can be written back as JSON. (NaN is a
    missing value, as before.)"""
    for c in chk.attr_columns:
        col = chk.col(c)
        if not (col.is_float or col.is_object):
            continue
        bad = col.infinite()
        if bad.any():
            chk.add(bad, c, "infinite_value", lambda i, col=col: (
                f"{float(col.raw(i))!r} is not a finite number (a number beyond the float range, about ±1.8e308, "
                "reads as inf): numbers must be finite"))


def check_shadowed_builtins(chk: FrameCheck) -> None:
    """An attribute column named like a built-in field (ts, id, type ...) hides it in predicates."""
    for c in chk.attr_columns:
        if c in BUILTIN_FIELDS:
            chk.note(c, "shadows_builtin", (f"column '{c}' is loaded as an attribute and hides the "
                                            f"built-in field {c} in predicates"))


class Rule(NamedTuple):
    name: str
    codes: tuple[str, ...]          # the issue codes it reports
    check: Callable[[FrameCheck], None]


#: The row-level rules, in the order they run (later rules use what earlier ones leave).
RULES: tuple[Rule, ...] = (
    Rule("event type", ("missing_type", "empty_type"), check_event_type),
    Rule("time values", ("missing_time", "bad_time", "mixed_time"), check_time_values),
    Rule("exact bounds", ("inexact_bound",), exact_bounds),
    Rule("time unit", (), convert_time_unit),
    Rule("interval order", ("lower_gt_upper",), check_interval_order),
    Rule("interval instants", ("not_instant",), check_interval_instants),
    Rule("U_max", ("wider_than_u_max",), check_u_max),
    Rule("pmf", ("bad_pmf",), check_pmf),
    Rule("arrival order", ("arrival_order",), check_arrival_order),
    Rule("scalar ids", ("bad_id",), check_scalar_ids),
    Rule("ids", ("missing_id", "no_id_column", "infinite_id"), check_ids),
    Rule("control characters", ("control_char",), check_control_characters),
    Rule("finite values", ("infinite_value",), check_finite_values),
    Rule("duplicate ids", ("duplicate_id",), check_duplicate_ids),
    Rule("built-in names", ("shadows_builtin",), check_shadowed_builtins),
)


# --------------------------------------------------------------------------- validate_frame

def check_columns(mapping: ColumnMapping, columns: list[str]) -> None:
    """Raise DataError naming the first missing required column, the available ones and a
    suggestion; or a duplicate or reserved column name."""
    required = [(mapping.type_col, "event type", "type")]
    if mapping.is_interval:
        required += [(mapping.lower_col, "lower bound", "lower"),
                     (mapping.upper_col, "upper bound", "upper")]
    else:
        required.append((mapping.ts_col, "time stamp", "ts"))
    if mapping.pmf_col is not None:
        required.append((mapping.pmf_col, "pmf weights", None))
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
        hint = suggest_column(name, columns, role, exclude)
        if hint is not None:
            msg += f"; did you mean '{hint}'?"
        raise DataError(msg)
    bad = [c for c in columns if c in CANONICAL]
    if bad:
        raise DataError(f"column name '{bad[0]}' is reserved; rename the column")


def check_table(table: Table, mapping: ColumnMapping, row_numbers: np.ndarray,
                time_kinds: dict[str, TimeKind] | None = None) -> FrameCheck:
    """Check ``table`` (input rows whose input row numbers are ``row_numbers``) with
    ``RULES``; the result holds the issues (sorted by position), the rows with an error
    (``bad``), and the parsed types, times and ids. Raises ``DataError`` for a missing
    required column."""
    check_columns(mapping, table.columns)
    chk = FrameCheck(table=table, mapping=mapping, row_numbers=row_numbers,
                     time_kinds=dict(time_kinds or {}), bad=np.zeros(len(table), dtype=bool))
    for rule in RULES:
        rule.check(chk)
    chk.issues.sort(key=lambda x: (x[0], x[1]))
    return chk


def validate_frame(df: pd.DataFrame, mapping: ColumnMapping | None = None, row_offset: int = 0,
                   *, rows: Sequence[int] | np.ndarray | None = None,
                   time_kinds: dict[str, TimeKind] | None = None,
                   text_source: bool = False) -> tuple[ValidatedFrame, list[ValidationIssue]]:
    """Check one frame of input rows with ``RULES``; return its valid rows and the issues.

    Row numbers are ``row_offset + position`` (or ``row_offset + rows[position]`` when
    ``rows`` gives each frame row's input row, e.g. after unparsable JSON lines). Time
    values are numbers or ISO date-times (date-times become float seconds since the epoch,
    tz-naive = UTC); ``time_kinds`` fixes the kind per column across batches.
    ``text_source=True`` (CSV) turns number-looking text in attribute columns into numbers.
    Raises ``DataError`` for a missing required column. The frame is neither sorted nor
    copied more than needed.
    """
    from engine.events.pandas_table import FrameTable

    mapping = mapping or ColumnMapping()
    if any(not isinstance(c, str) for c in df.columns):
        df = df.set_axis([str(c) for c in df.columns], axis=1)
    n = len(df)
    if rows is None:
        row_numbers = np.arange(row_offset, row_offset + n, dtype=np.int64)
    else:
        row_numbers = np.asarray(rows, dtype=np.int64) + row_offset
        if len(row_numbers) != n:
            check_columns(mapping, list(df.columns))
            raise ValueError("rows must give one input row per frame row")
    chk = check_table(FrameTable(df), mapping, row_numbers, time_kinds)
    return _valid_rows(chk, df, text_source), [it for _, _, it in chk.issues]


def _valid_rows(chk: FrameCheck, df: pd.DataFrame, text_source: bool) -> ValidatedFrame:
    """The rows without errors, canonical columns first, then the attribute columns."""
    import pandas as pd

    from engine.events.values import coerce_numeric_text

    keep = ~chk.bad
    m = chk.mapping
    assert chk.types is not None and chk.ids is not None
    canon: dict[str, Any] = {
        ROW_COL: chk.row_numbers[keep],
        TYPE_COL: chk.types[keep],
        TS_COL: chk.ts[keep],
        ID_COL: chk.ids[keep],
    }
    if m.is_interval:  # exact ints: object columns that pandas must not convert
        canon[TS_COL] = pd.Series(canon[TS_COL], dtype=object)
        canon[LOWER_COL] = pd.Series(chk.exact[m.lower_col][keep], dtype=object)  # type: ignore[index]
        canon[UPPER_COL] = pd.Series(chk.exact[m.upper_col][keep], dtype=object)  # type: ignore[index]
    frame = pd.DataFrame(canon)
    attr_columns = chk.attr_columns
    if attr_columns:
        attrs = df[attr_columns]
        if not keep.all():
            attrs = attrs[keep]
        attrs = attrs.reset_index(drop=True)
        if text_source:
            attrs = pd.DataFrame({c: coerce_numeric_text(attrs[c]) for c in attr_columns})
        frame = pd.concat([frame, attrs], axis=1)
    return ValidatedFrame(frame=frame, attr_columns=attr_columns, mapping=m, rows_read=chk.n,
                          time_kinds=chk.time_kinds, ids_are_rows=chk.ids_are_rows)


# --------------------------------------------------------------------------- numeric_issues

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
                        f"{show_value(v)} (event id {ev.id})")))
    if rows is not None:
        out.sort(key=lambda i: i.row)
    return out
