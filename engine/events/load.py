"""``load_events``: read a file (or take a DataFrame), validate it with the rules, sort
stably by ts and build the events; ``LoadResult`` holds them with the report and schema.

A small plain CSV/TSV file is read without pandas or pyarrow (``small_csv``: the same rules
over a ``columns.Table``, the same event assembly); a bigger one with pyarrow's CSV reader
(``arrow_csv``: the same typing, vectorised); JSON Lines with pyarrow's JSON reader
(``arrow_jsonl``) and Parquet with pyarrow, both validated over their Arrow columns; every other
input, and a file holding something those readers are unsure of, goes through pandas (imported
then). With ``types``, events are built only for rows of those event types (the rest are
validated and counted, never built).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from itertools import repeat
from operator import is_not
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING, Any

import numpy as np

from engine.events.lines import CsvLines, LineIndex, with_lines
from engine.events.mapping import UNIT_SECONDS, ColumnMapping, guess_mapping
from engine.events.numbers import text_number
from engine.events.records import Event, assemble_events, columns_schema, value_kind
from engine.events.report import DataError, ValidationIssue, ValidationReport, unsorted_issue
from engine.events.small_csv import TextTable, Unsure, read_small_csv
from engine.events.sources import resolve_format
from engine.events.validation import check_table, numeric_issues

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["LoadResult", "load_events"]


@dataclass
class LoadResult:
    """Events sorted by ts (``seq`` = position), the validation report, the attribute schema
    (event type -> attribute -> "number" | "string" | "bool" | "mixed"), the mapping used,
    whether ts are seconds since the epoch, each event's input row (``rows[ev.seq]``),
    whether ids are row numbers, and the file line of each input row (``lines``; None for
    a DataFrame or Parquet)."""

    events: list[Event]
    report: ValidationReport
    schema: dict[str, dict[str, str]]
    mapping: ColumnMapping
    time_is_datetime: bool
    rows: list[int] = field(default_factory=list)
    ids_are_rows: bool = False
    lines: LineIndex | None = None
    events_skipped: int = 0  # valid rows of other types than ``load_events(types=...)`` asked for

    def seconds_to_ts(self, seconds: float) -> float:
        """A duration in seconds (``WITHIN 1 hour`` = 3600) in the unit of ``ts``: seconds
        when the time column held date-times, else ``seconds / ts_unit``."""
        if self.time_is_datetime:
            return float(seconds)
        return seconds / UNIT_SECONDS[self.mapping.ts_unit]

    def numeric_issues(self, numeric_attrs: Mapping[str, set[str]]) -> list[ValidationIssue]:
        """``numeric_issues`` for these events, with input row and line numbers."""
        return with_lines(numeric_issues(self.events, numeric_attrs, rows=self.rows), self.lines)


def load_events(source: str | os.PathLike[str] | pd.DataFrame,
                mapping: ColumnMapping | None = None, fmt: str | None = None, *,
                types: frozenset[str] | None = None, lazy: bool = False) -> LoadResult:
    """Load and validate events from CSV, TSV, JSON Lines, Parquet or a pandas DataFrame.

    ``fmt`` ("csv", "tsv", "jsonl"/"json"/"ndjson", "parquet") overrides the file extension;
    without a ``mapping`` it is guessed from the column names (``guess_mapping``). Rows with
    errors are not loaded and are listed in the report; input not sorted by ts is sorted
    stably (ties keep file order) with a warning. Raises ``DataError`` when the input as a
    whole is unusable (file not found, unreadable, unknown format, missing column).

    ``types``: build events only for rows of these event types (a pattern that only binds
    them, where the others cannot change its matches); ``seq`` stays the position in the
    whole sorted stream (count windows count every event), ``rows`` stays indexed by ``seq``,
    the report counts every row, ``events_skipped`` counts the valid rows not built. A reader
    that cannot filter (pandas) builds them all, which is equally correct.

    ``lazy``: where the reader reads columns (a CSV or JSON Lines file read without pandas),
    ``events`` is an ``event_columns.EventColumns``: the events are built when first read as
    events, and a matcher that reads columns builds none.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise DataError(f"file not found: '{path}'")
        kind = resolve_format(path, fmt)
        if path.is_dir() and kind != "parquet":
            raise DataError(f"'{path}' is a directory, not a {kind.upper()} file")
        if kind in ("csv", "tsv"):
            sep = "," if kind == "csv" else "\t"
            table = read_small_csv(path, sep)
            if table is None:  # (a big file, or a small one holding quotes: pandas' import costs more)
                from engine.events.arrow_csv import read_arrow_csv

                table = read_arrow_csv(path, sep)
            if table is not None:
                result = load_table(table, mapping, CsvLines(path, sep), types, lazy)
                if result is not None:
                    return result
        if kind == "parquet":
            return load_parquet(path, mapping, types)
        if kind == "jsonl":
            from engine.events.arrow_jsonl import load_jsonl_arrow

            result = load_jsonl_arrow(path, mapping, types, lazy)
            if result is not None:
                return result
        return load_with_pandas(path, kind, mapping)
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return _load_frame(source, mapping)
    raise TypeError(f"source must be a path or a pandas DataFrame, not {type(source).__name__}")


def load_table(table: TextTable, mapping: ColumnMapping | None,
               lines: LineIndex | None, types: frozenset[str] | None = None,
               lazy: bool = False) -> LoadResult | None:
    """``load_events`` of a table read without pandas (a CSV file: ``small_csv``, ``arrow_csv``;
    Parquet and Arrow tables: ``arrow_table``); None for interval events and for a time value the
    reader is unsure of (read with pandas). Sortedness and the stable sort are numpy's."""
    if mapping is None:
        mapping = guess_mapping(table.columns)
    checked = checked_order(table, mapping)
    if checked is None:
        return None
    chk, order, was_sorted = checked
    rows = chk.row_numbers[order].tolist()
    events, schema = table_events(table, chk, order, chk.ts[order].tolist(), types, lazy=lazy)
    result = _result(events, schema, rows, was_sorted,
                     [it for _, _, it in chk.issues], [], chk.n, int(np.count_nonzero(chk.bad)), mapping,
                     "datetime" in chk.time_kinds.values(), chk.ids_are_rows, lines)
    result.events_skipped = len(rows) - len(events)
    result.report.rows_loaded = len(rows)
    return result


def checked_order(table: TextTable, mapping: ColumnMapping) -> tuple[Any, np.ndarray, bool] | None:
    """The rules over a table read without pandas (``validation.check_table``), its valid rows in
    stream order (sorted stably by time) and whether they were sorted; None for interval events and
    for a time value the reader is unsure of."""
    if mapping.is_interval:
        return None
    try:
        chk = check_table(table, mapping, np.arange(len(table), dtype=np.int64))
    except Unsure:  # a time value whose reading by pandas small_csv does not know
        return None
    assert chk.types is not None and chk.ids is not None
    kept = np.flatnonzero(~chk.bad)
    times = chk.ts[kept]  # finite: a row without a usable time has an error
    was_sorted = not bool(np.any(times[1:] < times[:-1]))
    return chk, (kept if was_sorted else kept[np.argsort(times, kind="stable")]), was_sorted


def table_events(table: TextTable, chk: Any, order: np.ndarray, ts: list[float], types: Any,
                 seq_start: int = 0, lazy: bool = False) -> tuple[list[Event], dict[str, dict[str, str]]]:
    """The events of a checked ``TextTable``'s valid rows ``order`` (in stream order, times ``ts``)
    and the schema. ``types`` (a set of types, or ``type_filter.Bindable``): events only for rows
    that can bind a component, ``seq`` their position among ``order`` (+ ``seq_start``); the schema
    covers every row of those types, as if all had been built (a row left out by an element-wise
    filter still says which attributes its type has). ``lazy``: the events as an ``EventColumns``.

    With ``types``, the rows are picked first (type codes, then the element-wise filters over
    each column's distinct values) and only the picked rows' attribute values are converted; the
    schema of the other rows is read from the columns (``_typed_schema``) without converting them.
    ``tests/events/test_picked_rows.py`` checks this against converting every row of those types."""
    names = chk.attr_columns
    if types is None:
        event_types = chk.types[order].tolist()
        columns = [table.attr_values(c, order.tolist()) for c in names]
        schema = columns_schema(event_types, names, columns)
        return _built(chk.ids[order].tolist(), event_types, ts, None, names, [v for v, _ in columns],
                      seq_start, lazy), schema
    from engine.type_filter import Bindable, rows_that_can_bind

    row_types = chk.types[order]
    codes, type_names = _type_codes(row_types, types, _type_column_codes(chk, order))
    typed = np.flatnonzero(codes >= 0)
    pick: np.ndarray | None = None  # among ``typed``: the rows some component's filters can take
    if isinstance(types, Bindable) and types.filters_rows:
        can = rows_that_can_bind(types, table, order[typed], row_types[typed], (codes[typed], type_names))
        if not can.all():
            pick = np.flatnonzero(can)
    schema, converted = _typed_schema(table, names, order[typed], codes[typed], type_names)
    chosen = typed if pick is None else typed[pick]  # positions in ``order`` of the events
    rows = order[chosen].tolist()
    values = []
    for c, whole in zip(names, converted):
        if whole is None:
            values.append(table.attr_values(c, rows)[0])
        else:
            values.append(whole if pick is None else [whole[k] for k in pick.tolist()])
    seqs = None
    if len(chosen) < len(order):
        seqs = (chosen + seq_start).tolist()
        ts = [ts[k] for k in chosen.tolist()]
    return _built(chk.ids[order[chosen]].tolist(), row_types[chosen].tolist(), ts, seqs, names, values,
                  seq_start, lazy), schema


def _built(ids: list[Any], event_types: list[str], ts: list[float], seqs: list[int] | None, names: list[str],
           values: list[list[Any]], seq_start: int, lazy: bool) -> list[Event]:
    """``assemble_events`` of these columns, or (``lazy``) the same as an ``EventColumns``."""
    if lazy:
        from engine.events.event_columns import EventColumns

        return EventColumns(ids, event_types, ts, seqs if seqs is not None else range(seq_start, seq_start + len(ids)),
                            names, values)  # type: ignore[return-value]
    return assemble_events(ids, event_types, ts, names, values, seq_start=seq_start, seqs=seqs)


#: bindable types compared one by one with the rows' types (more: one dictionary lookup per row)
_FEW_TYPES = 8


def _type_column_codes(chk: Any, order: np.ndarray) -> tuple[np.ndarray, list[str | None]] | None:
    """The type column's codes of the rows ``order`` and the type name of each code, as the rules
    made ``chk.types`` (``validation.check_event_type``: the column's distinct values, stripped);
    None where the column does not factorize here."""
    try:
        codes, uniques = chk.col(chk.mapping.type_col).factorize()
    except (Unsure, TypeError, AttributeError, KeyError):
        return None
    return np.asarray(codes, dtype=np.intp)[order], [None if v is None else str(v).strip() for v in uniques]


def _type_codes(row_types: np.ndarray, types: Any,
                column: tuple[np.ndarray, list[str | None]] | None = None) -> tuple[np.ndarray, list[str]]:
    """Per row, the index of its type among the returned names (-1: not one of ``types``); the
    names of the types some row has, in order of first appearance (the schema's order).
    ``column``: the rows' codes in the type column and each code's name (``_type_column_codes``),
    so that a row's type is looked up by its code instead of compared as a string."""
    wanted = sorted(types)
    n = len(row_types)
    codes = np.full(n, -1, dtype=np.intp)
    if column is not None:
        index = {t: k for k, t in enumerate(wanted)}
        column_codes, names = column
        lookup = np.array([index.get(name, -1) for name in names] + [-1], dtype=np.intp)  # (code -1: no type)
        codes = lookup[column_codes]
    elif len(wanted) <= _FEW_TYPES:
        for k, t in enumerate(wanted):
            codes[row_types == t] = k
    else:
        index = {t: k for k, t in enumerate(wanted)}
        codes = np.fromiter(map(index.get, row_types.tolist(), repeat(-1)), dtype=np.intp, count=n)
    if len(wanted) <= _FEW_TYPES:  # the first row of each type: one comparison per type
        first = np.array([int(np.argmax(hit)) if (hit := codes == k).any() else n for k in range(len(wanted))],
                         dtype=np.intp)
    else:
        present = codes >= 0
        first = np.full(len(wanted), n, dtype=np.intp)
        np.minimum.at(first, codes[present], np.flatnonzero(present))
    seen = [k for k in np.argsort(first, kind="stable").tolist() if first[k] < n]
    renumber = np.full(len(wanted) + 1, -1, dtype=np.intp)  # (the last entry: code -1 stays -1)
    renumber[seen] = np.arange(len(seen))
    return renumber[codes], [wanted[k] for k in seen]


def _typed_schema(table: TextTable, names: list[str], rows: np.ndarray, type_codes: np.ndarray,
                  type_names: list[str]) -> tuple[dict[str, dict[str, str]], list[list[Any] | None]]:
    """``columns_schema`` of the rows ``rows`` (their types ``type_names[type_codes[k]]``), read
    from the columns where a column tells each row's kind without converting it (``_row_kinds``);
    the other columns are converted: their values are returned (None for a column not converted)."""
    kinds_of: dict[str, dict[str, set[str]]] = {t: {} for t in type_names}
    converted: list[list[Any] | None] = []
    width = len(type_names)
    for name in names:
        kind_codes, kinds, values = _row_kinds(table, name, rows)
        converted.append(values)
        if not kinds:
            continue
        counts = np.bincount(type_codes * (len(kinds) + 1) + (kind_codes + 1),
                             minlength=width * (len(kinds) + 1)).reshape(width, len(kinds) + 1)
        for t, per_kind in zip(type_names, counts.tolist()):
            found = {kinds[j] for j, c in enumerate(per_kind[1:]) if c}
            if found:
                kinds_of[t][name] = found
    return {t: {c: (next(iter(k)) if len(k) == 1 else "mixed") for c, k in found.items()}
            for t, found in kinds_of.items()}, converted


def _row_kinds(table: TextTable, name: str, rows: np.ndarray) -> tuple[np.ndarray, list[str], list[Any] | None]:
    """Per row of ``rows``, the index of the schema kind of the value an event gets from column
    ``name`` (-1: none, the value is missing), the kinds, and the converted values where the column
    had to be converted to tell (None otherwise). Read without converting: Arrow int, float, bool
    and string columns and a CSV's int and float columns (a missing cell or NaN is no value); a
    CSV's text column by its distinct cells (a cell that looks like a number is a number)."""
    import sys

    col = table.column(name)
    arrow = getattr(sys.modules.get("engine.events.arrow_table"), "ArrowColumn", None)
    csv = getattr(sys.modules.get("engine.events.arrow_csv"), "ArrowTextColumn", None)
    present: np.ndarray | None = None
    if arrow is not None and type(col) is arrow:
        if col.kind in ("int", "bool"):
            present = np.ones(len(rows), dtype=bool) if col.valid is None else col.valid[rows]
        elif col.kind == "float":
            present = ~np.isnan(col._numbers()[rows])
        elif col.kind == "string":
            present = col.factorize()[0][rows] >= 0
        if present is not None:
            return present.astype(np.intp) - 1, ["bool" if col.kind == "bool" else
                                                 "string" if col.kind == "string" else "number"], None
    if csv is not None and type(col) is csv:
        if col.numbers is not None and col.kind in ("int", "float"):
            return (~np.isnan(col.numbers[rows])).astype(np.intp) - 1, ["number"], None
        if col.text is not None and col.kind == "text":
            cell_codes, cells = col.factorize()  # (a missing cell is code -1)
            kinds = [value_kind(text_number(c)) for c in cells] if len(cells) <= len(rows) else [None]
            if None not in kinds:
                found = sorted(set(kinds))  # type: ignore[type-var]
                lookup = np.array([found.index(k) for k in kinds] + [-1], dtype=np.intp)
                return lookup[np.asarray(cell_codes, dtype=np.intp)[rows]], found, None  # type: ignore[return-value]
    values, kind = table.attr_values(name, rows.tolist())
    if kind is not None:
        return np.fromiter(map(is_not, values, repeat(None)), dtype=bool, count=len(values)).astype(np.intp) - 1, \
            [kind], values
    order = ("bool", "number", "string")
    index = {None: -1, "bool": 0, "number": 1, "string": 2}
    return np.fromiter((index[value_kind(v)] for v in values), dtype=np.intp, count=len(values)), list(order), values


def load_parquet(path: Path, mapping: ColumnMapping | None, types: Any = None) -> LoadResult:
    """A Parquet file or directory: read once with pyarrow, validated over its Arrow columns
    (``arrow_load.load_arrow``: no pandas), or, where that path is unsure, the same table through
    pandas (``formats.arrow_to_pandas``)."""
    from engine.events.arrow_load import load_arrow, read_parquet_arrow

    table = read_parquet_arrow(path)
    result = load_arrow(table, mapping, None, types)
    if result is not None:
        return result
    import pyarrow as pa

    from engine.events.formats import arrow_to_pandas

    try:
        df = arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OverflowError) as e:
        from engine.events.sources import short_error

        raise DataError(f"cannot convert '{path.name}' from Parquet: {short_error(e)}") from None
    return _load_frame(df, mapping)


def load_with_pandas(path: Path, kind: str, mapping: ColumnMapping | None) -> LoadResult:
    """``load_events`` of a file read with pandas (every file that is not a small plain CSV)."""
    from engine.events.formats import read_csv, read_jsonl, read_parquet

    pre_issues: list[ValidationIssue] = []
    rows: np.ndarray | None = None
    lines: LineIndex | None = None
    text_source = False
    if kind in ("csv", "tsv"):
        sep = "," if kind == "csv" else "\t"
        df = read_csv(path, sep, exact_columns(path, sep, mapping), _attributes(path, sep, mapping))
        text_source = True
        lines = CsvLines(path, sep)
    elif kind == "jsonl":
        df, rows, pre_issues, lines = read_jsonl(path)
    else:
        df = read_parquet(path)
    return _load_frame(df, mapping, rows, pre_issues, lines, text_source)


def exact_columns(path: Path, sep: str, mapping: ColumnMapping | None) -> tuple[str, ...]:
    """The columns of a CSV file read as text so that the rules read them exactly: the
    interval bounds (of ``mapping``, or of the mapping guessed from the header)."""
    from engine.events.sources import csv_header

    if mapping is None:
        try:
            found = csv_header(path, sep)
        except (DataError, OSError, ValueError):
            return ()
        if found is None:
            return ()
        mapping = guess_mapping([str(c) for c in found[0]])
    if not mapping.is_interval:
        return ()
    return (mapping.lower_col, mapping.upper_col)  # type: ignore[return-value]


def _attributes(path: Path, sep: str, mapping: ColumnMapping | None) -> frozenset[str] | None:
    """The attribute columns of a CSV file (not mapped to type, time, id or bounds)."""
    from engine.events.sources import csv_header

    try:
        found = csv_header(path, sep)
    except (DataError, OSError, ValueError):
        return None
    if found is None:
        return None
    names = [str(c) for c in found[0]]
    mapped = (mapping or guess_mapping(names)).mapped_columns()
    return frozenset(c for c in names if c not in mapped)


def _load_frame(df: pd.DataFrame, mapping: ColumnMapping | None, rows: np.ndarray | None = None,
                pre_issues: list[ValidationIssue] | None = None, lines: LineIndex | None = None,
                text_source: bool = False) -> LoadResult:
    from engine.events.frames import build_events, sort_frame
    from engine.events.mapping import ROW_COL
    from engine.events.validation import validate_frame

    pre_issues = pre_issues or []
    if mapping is None:
        mapping = guess_mapping([str(c) for c in df.columns])
    vf, issues = validate_frame(df, mapping, rows=rows, text_source=text_source)
    frame, was_sorted = sort_frame(vf.frame)
    events, schema = build_events(frame, vf.attr_columns)
    return _result(events, schema, frame[ROW_COL].tolist(), was_sorted, issues, pre_issues,
                   vf.rows_read + len(pre_issues), vf.rows_rejected + len(pre_issues), mapping,
                   vf.time_is_datetime, vf.ids_are_rows, lines)


def _result(events: list[Event], schema: dict[str, dict[str, str]], rows: list[int], was_sorted: bool,
            issues: list[ValidationIssue], pre_issues: list[ValidationIssue], rows_read: int,
            rows_rejected: int, mapping: ColumnMapping, time_is_datetime: bool, ids_are_rows: bool,
            lines: LineIndex | None) -> LoadResult:
    """The ``LoadResult`` of validated, sorted events: the unsorted warning, issues sorted by
    row with their lines, the report."""
    if not was_sorted:
        issues.append(unsorted_issue(mapping.lower_col if mapping.is_interval else mapping.ts_col, len(events)))
    all_issues = with_lines(sorted(pre_issues + issues, key=lambda i: -1 if i.row is None else i.row),
                            lines)
    report = ValidationReport(issues=all_issues, rows_read=rows_read, rows_loaded=len(events),
                              rows_rejected=rows_rejected, sorted_by_ts=was_sorted)
    return LoadResult(events=events, report=report, schema=schema, mapping=mapping,
                      time_is_datetime=time_is_datetime, rows=rows, ids_are_rows=ids_are_rows, lines=lines)
