"""Reading a big file in batches, in bounded memory: ``BatchReader``.

The same readers, rules and messages as ``load_events``, a batch of rows at a time:
``formats.read_csv_batches`` (pandas' reader, ``chunksize``), ``read_jsonl_batches`` (the
exact JSON Lines reader, line by line numbers), ``read_parquet_batches``
(``ParquetFile.iter_batches``); each batch goes through ``validate_frame`` with its row
offset (and the time kinds the first batches decided), then becomes events with ``seq``
counting on from the batch before. What differs from loading the whole file, and why:

- **Order.** Rows are not reordered: the file must be sorted by ts (ties keep file order,
  as ``sort_frame`` would). The first row whose ts is before the ts of the row before it
  raises ``Unsorted`` naming both lines; the batch holding it is not given out.
- **Duplicate ids** (a warning, as in ``load_events``): within a batch exactly; across
  batches, an id is found again when at most ``dup_window`` other distinct ids came
  between the two rows (the reader remembers the last ``dup_window`` to ``2 * dup_window``
  distinct ids; farther repeats are not reported).
- **Issues** are counted in full (``ValidationReport.summary``); the first ``max_issues``
  are kept in detail, the rest only by severity (``ValidationReport.omitted``).
- **Whole-input notes** (``no_id_column``, ``shadows_builtin``) are reported once.
- **JSON Lines**: the id column exists when some record of the first batch has the key;
  a required or id key that first appears after the first batch is a ``DataError``.
- **CSV typing** is per batch (pandas types each chunk; it does that inside a big file
  read whole as well); the rules turn number text into numbers either way, so attribute
  values compare the same.

A JSON array (not JSON Lines) cannot be read in batches (``can_batch``).

A plain CSV/TSV file is read with pyarrow's streaming reader (``arrow_batches``: the same
batches, typed as pandas types them, without pandas), JSON Lines batch by batch with pyarrow's
JSON reader (``arrow_jsonl``: the same lines in each batch; a batch it is unsure of goes to the
exact reader); ``types`` builds events only of those event types (``load_events`` says how
``seq`` and the rows stay), every row still validated. Integer ids are checked across batches
with numpy (``arrow_batches.IdMemory``).
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

import numpy as np

from engine.events.sources import BATCH_ABOVE_BYTES, BATCH_ABOVE_ROWS, can_batch, is_json_array, resolve_format, wants_batches
from engine.events.lines import CsvLines, LineIndex, with_lines
from engine.events.load import exact_columns
from engine.events.mapping import ID_COL, ROW_COL, TS_COL, UNIT_SECONDS, ColumnMapping, TimeKind, guess_mapping
from engine.events.records import Event, assemble_events, columns_schema
from engine.events.report import DataError, ValidationIssue, ValidationReport, location, show_value
from engine.events.small_csv import TextTable, Unsure
from engine.events.validation import check_table, numeric_issues, validate_frame

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["BatchReader", "EventBatch", "Unsorted", "can_batch", "wants_batches", "BATCH_ROWS",
           "MAX_ISSUES", "DUP_WINDOW", "BATCH_ABOVE_BYTES", "BATCH_ABOVE_ROWS"]

BATCH_ROWS = 20_000           # rows per batch (100,000 held 545 MB at the peak of a 1.5M-row file, 20,000: 402 MB)
MAX_ISSUES = 10_000           # issues kept in detail
DUP_WINDOW = 250_000          # distinct ids remembered (at least) for the duplicate-id check


class Unsorted(DataError):
    """A row of a file read in batches has a ts before the ts of the row before it."""


@dataclass
class EventBatch:
    """Events of one batch (``seq`` counting on from the batch before), each event's input
    row (``rows[k]`` for ``events[k]``), the batch's issues (lines set where known) and the
    schema of its events."""

    events: list[Event]
    rows: list[int]
    issues: list[ValidationIssue]
    schema: dict[str, dict[str, str]]
    seq_start: int = 0  # the seq of the batch's first valid row (``rows[seq - seq_start]``)

    @property
    def errors(self) -> list[ValidationIssue]:
        return [i for i in self.issues if i.severity == "error"]


@dataclass
class _Frame:
    """One raw batch: the frame, each frame row's input row (None: ``offset`` + position),
    issues of lines that are not records, and the line of a row where the reader knows it."""

    df: pd.DataFrame | None
    offset: int
    rows: np.ndarray | None = None
    issues: list[ValidationIssue] = field(default_factory=list)
    lines: Any = None  # JsonlBatch (line_of) or None
    table: TextTable | None = None  # a CSV batch typed by ``arrow_csv`` (``df`` is None then)
    text: Any = None                # that batch's cells as text (an Arrow table), for pandas if needed

    def line_of(self, row: int) -> int | None:
        return None if self.lines is None else self.lines.line_of(row)

    def raw(self, column: str, row: int) -> Any:
        pos = row - self.offset if self.rows is None else int(np.searchsorted(self.rows, row))
        if self.table is not None:
            return self.table.column(column).raw(pos)
        return self.df[column].iloc[pos]  # type: ignore[index]


@dataclass
class _Kept:
    """The valid rows of a batch typed by ``arrow_csv``: what the order and duplicate checks read
    (``frame[TS_COL]`` ... as the validated pandas frame gives them)."""

    columns: dict[str, np.ndarray]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def __len__(self) -> int:
        return len(self.columns[ROW_COL])


class BatchReader:
    """Iterate a file as ``EventBatch`` es of about ``batch_rows`` rows (see the module).

    After (or during) the iteration: ``report()`` (every issue so far, with lines),
    ``schema()``, ``mapping``, ``time_is_datetime``, ``seconds_to_ts``; ``add_issues`` keeps
    issues found by the caller (``numeric_issues``) in the same report.
    """

    def __init__(self, source: str | os.PathLike[str], mapping: ColumnMapping | None = None,
                 fmt: str | None = None, *, batch_rows: int | None = None, max_issues: int | None = None,
                 dup_window: int | None = None, types: frozenset[str] | None = None) -> None:
        path = Path(source)
        if not path.exists():
            raise DataError(f"file not found: '{path}'")
        self.path = path
        self.kind = resolve_format(path, fmt)
        if path.is_dir() and self.kind != "parquet":
            raise DataError(f"'{path}' is a directory, not a {self.kind.upper()} file")
        if self.kind == "jsonl" and is_json_array(path):
            raise DataError(f"'{path.name}' is a JSON array, not JSON Lines: it cannot be read in batches")
        self.mapping = mapping
        self.batch_rows = max(1, int(BATCH_ROWS if batch_rows is None else batch_rows))
        self.max_issues = MAX_ISSUES if max_issues is None else max_issues
        self.dup_window = max(1, int(DUP_WINDOW if dup_window is None else dup_window))
        self.types = types
        self.events_skipped = 0
        self.time_kinds: dict[str, TimeKind] = {}
        self.ids_are_rows: bool | None = None
        self.rows_read = self.rows_loaded = self.rows_rejected = 0
        self.events_read = 0
        self._issues: list[ValidationIssue] = []
        self._omitted: dict[str, int] = {}
        self._notes: set[tuple[Any, ...]] = set()
        self._kinds: dict[str, dict[str, set[str]]] = {}
        self._last: tuple[Any, int, Any] | None = None  # ts, row, raw ts of the last valid row
        from engine.events.arrow_batches import IdMemory

        self._ids = IdMemory(self.dup_window)
        self._has_id_column: bool | None = None
        self._columns: list[str] | None = None
        self._line_source: _Frame | None = None
        self.lines: LineIndex | None = CsvLines(path, "," if self.kind == "csv" else "\t") \
            if self.kind in ("csv", "tsv") else None

    # ------------------------------------------------------------------ what it read

    @property
    def time_is_datetime(self) -> bool:
        return "datetime" in self.time_kinds.values()

    def seconds_to_ts(self, seconds: float) -> float:
        """As ``LoadResult.seconds_to_ts`` (decided by the batches read so far)."""
        if self.time_is_datetime:
            return float(seconds)
        return seconds / UNIT_SECONDS[(self.mapping or ColumnMapping()).ts_unit]

    @property
    def columns(self) -> list[str]:
        """The input's attribute columns (CSV/Parquet: all; JSON Lines: those seen so far)."""
        return list(self._columns or [])

    def schema(self) -> dict[str, dict[str, str]]:
        """Event type -> attribute -> kind over the events read so far."""
        return {t: {c: (next(iter(k)) if len(k) == 1 else "mixed") for c, k in attrs.items()}
                for t, attrs in self._kinds.items()}

    def report(self) -> ValidationReport:
        """Counts and the issues so far (sorted by row; lines set where the file has them)."""
        issues = sorted(self._issues, key=lambda i: (-1 if i.row is None else i.row))
        if self.lines is not None:
            issues = with_lines(issues, self.lines)
        return ValidationReport(issues=issues, rows_read=self.rows_read, rows_loaded=self.rows_loaded,
                                rows_rejected=self.rows_rejected, sorted_by_ts=True,
                                omitted=dict(self._omitted))

    def add_issues(self, issues: list[ValidationIssue]) -> None:
        """Keep ``issues`` (up to ``max_issues`` in all; the rest are counted)."""
        for it in issues:
            if it.row is None:
                key = (it.column, it.code, it.reason)
                if key in self._notes:
                    continue
                self._notes.add(key)
            if len(self._issues) < self.max_issues:
                self._issues.append(it)
            else:
                self._omitted[it.severity] = self._omitted.get(it.severity, 0) + 1

    def numeric_issues(self, batch: EventBatch, numeric_attrs: Mapping[str, set[str]]) -> list[ValidationIssue]:
        """``validation.numeric_issues`` for the batch's events (only the attributes whose
        kind in this batch is not all numbers can hold a non-number), with lines; they are
        added to the report."""
        suspect: dict[str, set[str]] = {}
        for t, attrs in numeric_attrs.items():
            types = batch.schema if t == "ANY" else {t: batch.schema.get(t, {})}
            for tt, kinds in types.items():
                bad = {a for a in attrs if kinds.get(a, "number") != "number"}
                if bad:
                    suspect.setdefault(tt, set()).update(bad)
        if not suspect or not batch.events:
            return []
        found = numeric_issues(batch.events, suspect, rows=_Shifted(batch.rows, batch.seq_start))
        found = self._with_lines(found, self._line_source)
        self.add_issues(found)
        return found

    # ------------------------------------------------------------------ reading

    def __iter__(self) -> Iterator[EventBatch]:
        seq = 0
        for raw in self._frames():
            self._line_source = raw
            self.add_issues(raw.issues)
            self.rows_read += len(raw.issues)
            self.rows_rejected += len(raw.issues)
            if raw.table is not None:
                batch = self._table_batch(raw, seq)
                if batch is not None:
                    seq += len(batch.rows)
                    yield batch
                    continue
                raw = self._as_frame(raw)  # a time cell arrow_csv is unsure of: pandas reads this batch
                if raw.issues:  # a JSON Lines batch read again by the exact reader
                    self.add_issues(raw.issues)
                    self.rows_read += len(raw.issues)
                    self.rows_rejected += len(raw.issues)
            assert raw.df is not None
            if not len(raw.df):
                yield EventBatch(events=[], rows=[], issues=list(raw.issues), schema={}, seq_start=seq)
                continue
            df = self._with_columns(raw.df, raw)
            vf, issues = validate_frame(df, self.mapping, row_offset=raw.offset if raw.rows is None else 0,
                                        rows=raw.rows, time_kinds=self.time_kinds,
                                        text_source=self.kind in ("csv", "tsv"))
            self.time_kinds = dict(vf.time_kinds)
            if self.ids_are_rows is None:
                self.ids_are_rows = vf.ids_are_rows
            frame = vf.frame
            self._check_order(frame, raw)
            issues = self._cross_batch_duplicates(frame, issues, raw)
            issues = self._with_lines(issues, raw)
            from engine.events.frames import build_events

            events, schema = build_events(frame, vf.attr_columns, seq_start=seq)  # (every type: pandas batches)
            self._merge_schema(schema)
            self.add_issues(issues)
            self.rows_read += vf.rows_read
            self.rows_loaded += len(events)
            self.rows_rejected += vf.rows_rejected
            self.events_read += len(events)
            yield EventBatch(events=events, rows=frame[ROW_COL].tolist(), issues=list(raw.issues) + issues,
                             schema=schema, seq_start=seq)
            seq += len(events)

    def _table_batch(self, raw: _Frame, seq: int) -> EventBatch | None:
        """A batch typed by ``arrow_csv``: the rules over its ``TextTable``, events built only
        for the wanted types; None when the rules meet a time cell the typing is unsure of."""
        table = raw.table
        assert table is not None
        if self.kind == "jsonl":
            table = self._jsonl_columns(table, raw)
        else:
            self._decide_columns(table.columns)
        m = self.mapping
        assert m is not None
        row_numbers = np.arange(raw.offset, raw.offset + len(table), dtype=np.int64)
        try:
            chk = check_table(table, m, row_numbers, self.time_kinds)
        except Unsure:
            return None
        self.time_kinds = dict(chk.time_kinds)
        if self.ids_are_rows is None:
            self.ids_are_rows = chk.ids_are_rows
        assert chk.types is not None and chk.ids is not None
        kept = np.flatnonzero(~chk.bad)
        frame = _Kept({TS_COL: chk.ts[kept], ROW_COL: chk.row_numbers[kept], ID_COL: chk.ids[kept]})
        issues = [it for _, _, it in chk.issues]
        self._check_order(frame, raw)
        ints = None if chk.ids_are_rows else _int_ids(table.column(m.id_col), kept)  # type: ignore[arg-type]
        issues = self._cross_batch_duplicates(frame, issues, raw, ints)
        issues = self._with_lines(issues, raw)
        from engine.events.load import table_events

        events, schema = table_events(table, chk, kept, chk.ts[kept].tolist(), self.types, seq_start=seq)
        self._merge_schema(schema)
        self.add_issues(issues)
        self.rows_read += chk.n
        self.rows_loaded += len(kept)
        self.rows_rejected += chk.n - len(kept)
        self.events_read += len(events)
        self.events_skipped += len(kept) - len(events)
        return EventBatch(events=events, rows=frame[ROW_COL].tolist(), issues=issues, schema=schema,
                          seq_start=seq)

    def _as_frame(self, raw: _Frame) -> _Frame:
        """The batch read by pandas from its text (``arrow_batches.pandas_frame``)."""
        from engine.events.arrow_batches import pandas_frame

        assert raw.table is not None
        if self.kind == "jsonl":  # the exact reader on the batch's lines
            from engine.events.formats import _jsonl_batch

            tb = raw.lines
            b = _jsonl_batch(tb.texts(), tb.lines, tb.first_row)
            return _Frame(df=b.frame, offset=b.first_row, rows=b.rows, issues=b.issues, lines=b)
        if raw.text is None:  # a Parquet batch: its Arrow columns through pandas
            return _Frame(df=raw.table.pandas_frame(), offset=raw.offset)  # type: ignore[attr-defined]
        return _Frame(df=pandas_frame(raw.text, "," if self.kind == "csv" else "\t", raw.table.names), offset=raw.offset)

    def _frames(self) -> Iterator[_Frame]:
        offset = 0
        if self.kind in ("csv", "tsv"):
            sep = "," if self.kind == "csv" else "\t"
            names = self._arrow_names(sep)
            if names is not None:
                from engine.events.arrow_batches import arrow_csv_batches

                for tb in arrow_csv_batches(self.path, sep, names, self.batch_rows):
                    if tb.table is not None:
                        yield _Frame(df=None, offset=tb.offset, table=tb.table, text=tb.text)
                    else:
                        yield _Frame(df=tb.frame, offset=tb.offset)
                return
            from engine.events.formats import read_csv_batches

            for df in read_csv_batches(self.path, sep, self.batch_rows,
                                       exact_columns(self.path, sep, self.mapping)):
                yield _Frame(df=df, offset=offset)
                offset += len(df)
        elif self.kind == "jsonl":
            batches = self._arrow_jsonl()
            if batches is not None:
                yield from self._jsonl_frames(batches)
                return
            from engine.events.formats import read_jsonl_batches

            for b in read_jsonl_batches(self.path, self.batch_rows):
                yield _Frame(df=b.frame, offset=b.first_row, rows=b.rows, issues=b.issues, lines=b)
        else:  # Parquet: each batch validated over its Arrow columns, or by pandas where that is unsure
            from engine.events.arrow_load import parquet_batch_tables

            for offset, table, batch in parquet_batch_tables(self.path, self.batch_rows):
                if table is not None and not (self.mapping or guess_mapping(table.columns)).is_interval:
                    yield _Frame(df=None, offset=offset, table=table)
                else:
                    from engine.events.formats import arrow_to_pandas

                    yield _Frame(df=arrow_to_pandas(batch), offset=offset)

    def _arrow_jsonl(self) -> Iterator[Any] | None:
        """The JSON Lines batches of ``arrow_jsonl`` (None: the file is read by the exact reader)."""
        from engine.events.arrow_jsonl import arrow_jsonl_batches

        return arrow_jsonl_batches(self.path, self.batch_rows)

    def _jsonl_frames(self, batches: Iterator[Any]) -> Iterator[_Frame]:
        """``formats.read_jsonl_batches``' batches: an Arrow batch as its table, a declined one (or
        one whose id column holds decimals) read by the exact reader; the same errors at the end."""
        any_record = False
        first_issue: list[ValidationIssue] = []
        for tb in batches:
            table = tb.table
            if table is not None:
                m = self.mapping or guess_mapping(table.columns)
                if m.is_interval or (m.id_col is not None and m.id_col in table.columns
                                     and table.column(m.id_col).kind == "float"):
                    table = None  # interval bounds and decimal ids: the exact reader
            if table is not None:
                any_record = True
                yield _Frame(df=None, offset=tb.first_row, table=table, lines=tb)
                continue
            from engine.events.formats import _jsonl_batch

            b = _jsonl_batch(tb.texts(), tb.lines, tb.first_row)
            any_record = any_record or len(b.frame) > 0
            first_issue = first_issue or b.issues[:1]
            yield _Frame(df=b.frame, offset=b.first_row, rows=b.rows, issues=b.issues, lines=b)
        if not any_record:
            if not first_issue:
                raise DataError(f"'{self.path.name}' is empty: no rows")
            raise DataError(f"cannot read '{self.path.name}' as JSON Lines: no line is a JSON object "
                            f"({first_issue[0].format()})")

    def _arrow_names(self, sep: str) -> list[str] | None:
        """The header when the file is read with the Arrow batches (a plain file of point
        events: interval bounds are read as exact text by pandas); else None."""
        from engine.events.arrow_batches import plain_header
        from engine.events.sources import check_csv_header

        names = plain_header(self.path, sep)
        if names is None:
            return None
        check_csv_header(self.path, sep)
        if (self.mapping or guess_mapping(names)).is_interval:
            return None
        return names

    def _decide_columns(self, columns: list[str]) -> None:
        """The mapping (guessed from the first batch's columns) and the attribute columns."""
        if self.mapping is None:
            self.mapping = guess_mapping(columns)
        m = self.mapping
        if self._columns is None:
            self._columns = [c for c in columns if c not in m.mapped_columns()]
            self._has_id_column = m.id_col is not None and m.id_col in columns

    def _with_columns(self, df: pd.DataFrame, raw: _Frame) -> pd.DataFrame:
        """Decide the mapping and the columns on the first batch; JSON Lines batches get the
        mapped columns the first batch had (as missing values) when their records lack them."""
        first = self._columns is None
        self._decide_columns([str(c) for c in df.columns])
        m = self.mapping
        assert m is not None
        if not first and self.kind == "jsonl":
            assert self._columns is not None
            required = [m.type_col, *m.time_columns] + ([m.id_col] if self._has_id_column else [])
            missing = [c for c in required if c not in df.columns]
            if missing:
                df = df.assign(**{c: None for c in missing})
            if m.id_col is not None and not self._has_id_column and m.id_col in df.columns:
                at = int(df[m.id_col].notna().to_numpy().argmax())
                row = int(raw.rows[at]) if raw.rows is not None else raw.offset + at
                line = raw.line_of(row)
                raise DataError(f"'{self.path.name}': the id key '{m.id_col}' first appears on "
                                f"{'line ' + str(line) if line else 'data row ' + str(row + 1)}, after "
                                f"the first {self.batch_rows:,} records (whose ids are their row "
                                f"numbers); give every record an id, or none")
            self._columns += [str(c) for c in df.columns if c not in m.mapped_columns()
                              and str(c) not in self._columns]
        return df

    def _jsonl_columns(self, table: Any, raw: _Frame) -> Any:
        """``_with_columns`` of a JSON Lines batch read through Arrow (an ``ArrowTable``)."""
        first = self._columns is None
        self._decide_columns(table.columns)
        m = self.mapping
        assert m is not None and self._columns is not None
        if first:
            return table
        from engine.events.arrow_table import ArrowColumn, ArrowTable

        required = [m.type_col, *m.time_columns] + ([m.id_col] if self._has_id_column else [])
        missing = [c for c in required if c not in table.columns]
        if missing:
            import pyarrow as pa

            table = ArrowTable(names=table.names + missing,
                               data={**table.data, **{c: ArrowColumn("null", pa.nulls(table.n)) for c in missing}},
                               n=table.n, source=table.source)
        if m.id_col is not None and not self._has_id_column and m.id_col in table.columns:
            valid = table.column(m.id_col).valid  # (the first record with an id; none: the first)
            at = 0 if valid is None or not valid.any() else int(valid.argmax())
            row = raw.offset + at
            line = raw.line_of(row)
            raise DataError(f"'{self.path.name}': the id key '{m.id_col}' first appears on "
                            f"{'line ' + str(line) if line else 'data row ' + str(row + 1)}, after "
                            f"the first {self.batch_rows:,} records (whose ids are their row "
                            f"numbers); give every record an id, or none")
        self._columns += [c for c in table.columns if c not in m.mapped_columns() and c not in self._columns]
        return table

    def _line(self, row: int, raw: _Frame) -> int | None:
        line = raw.line_of(row)
        if line is None and self.lines is not None:
            line = self.lines.lines([row]).get(row)
        return line

    def _where(self, row: int, raw: _Frame) -> str:
        return location(row, self._line(row, raw)) or f"data row {row + 1}"

    def _check_order(self, frame: pd.DataFrame, raw: _Frame) -> None:
        ts = np.asarray(frame[TS_COL])
        if not len(ts):
            return
        prev = np.empty_like(ts)
        prev[1:] = ts[:-1]
        prev[0] = ts[0] if self._last is None else self._last[0]
        back = np.flatnonzero(ts < prev)
        rows = np.asarray(frame[ROW_COL])
        col = (self.mapping.lower_col if self.mapping.is_interval else self.mapping.ts_col)  # type: ignore[union-attr]
        if back.size:
            k = int(back[0])
            row = int(rows[k])
            if k > 0:
                prev_row, prev_raw = int(rows[k - 1]), raw.raw(col, int(rows[k - 1]))  # type: ignore[arg-type]
                prev_where = self._where(prev_row, raw)
            else:
                assert self._last is not None
                prev_row, prev_raw = self._last[1], self._last[2]
                line = self.lines.lines([prev_row]).get(prev_row) if self.lines is not None else None
                prev_where = location(prev_row, line) or f"data row {prev_row + 1}"
            raise Unsorted(
                f"'{self.path.name}' is not sorted by {col}: {self._where(row, raw)} has {col} "
                f"{_text(raw.raw(col, row))}, before {col} {_text(prev_raw)} on {prev_where} (the row "
                f"before it). A file read in batches must be sorted by ts (ties keep file order); "
                f"sort it first, or read it whole (`--read whole`), which sorts it in memory")
        last = len(ts) - 1
        self._last = (ts[last], int(rows[last]), raw.raw(col, int(rows[last])))  # type: ignore[arg-type]

    def _cross_batch_duplicates(self, frame: pd.DataFrame, issues: list[ValidationIssue],
                                raw: _Frame, ints: np.ndarray | None = None) -> list[ValidationIssue]:
        """Duplicate ids whose first row is in an earlier batch (the batch's own are in
        ``issues`` already); remembers this batch's ids (``arrow_batches.IdMemory``; ``ints``: the
        ids as int64 when the batch's id column holds integers only)."""
        if self.ids_are_rows or not len(frame) or self.mapping is None or self.mapping.id_col is None:
            return issues
        rows = np.asarray(frame[ROW_COL], dtype=np.int64)
        lines = None
        if ints is not None and raw.lines is not None:
            lines = np.asarray(raw.lines.lines, dtype=np.int64)[rows - raw.lines.first_row]
        values = None if ints is not None and self._ids.numeric else frame[ID_COL].tolist()
        found = self._ids.find(values, rows, lines, ints, raw.line_of if raw.lines is not None else None)
        if not found:
            return issues
        col = self.mapping.id_col
        values = frame[ID_COL].tolist() if values is None else values
        hits = [ValidationIssue(row=int(rows[k]), column=col, reason=f"duplicate id {show_value(values[k])}",
                                severity="warning", code="duplicate_id", first_row=first_row, first_line=first_line)
                for k, first_row, first_line in found]
        hit_rows = {h.row for h in hits}
        kept = [i for i in issues if not (i.code == "duplicate_id" and i.row in hit_rows)]
        return sorted(kept + hits, key=lambda i: (-1 if i.row is None else i.row))

    def _with_lines(self, issues: list[ValidationIssue], raw: _Frame | None) -> list[ValidationIssue]:
        """JSON Lines: the batch knows the line of each row; CSV lines come in ``report()``."""
        if raw is None or raw.lines is None:
            return issues
        out = []
        for i in issues:
            upd: dict[str, Any] = {}
            if i.row is not None and i.line is None:
                line = raw.line_of(i.row)
                if line is not None:
                    upd["line"] = line
            if i.first_row is not None and i.first_line is None:
                line = raw.line_of(i.first_row)
                if line is not None:
                    upd["first_line"] = line
            out.append(i.model_copy(update=upd) if upd else i)
        return out

    def _merge_schema(self, schema: dict[str, dict[str, str]]) -> None:
        for t, attrs in schema.items():
            mine = self._kinds.setdefault(t, {})
            for c, k in attrs.items():
                mine.setdefault(c, set()).add(k)


def _int_ids(col: Any, kept: np.ndarray) -> np.ndarray | None:
    """The kept rows' ids as int64 when the id column is typed as integers that int64 holds
    exactly (``ArrowColumn`` of Parquet and JSON Lines, ``ArrowTextColumn`` of CSV); else None."""
    if getattr(col, "kind", None) != "int":
        return None
    numbers = col._numbers() if hasattr(col, "_numbers") else getattr(col, "numbers", None)
    if numbers is None:
        return None
    numbers = numbers[kept]
    if numbers.dtype.kind == "f":  # (CSV: float64 values of int cells, exact below 2**53)
        if len(numbers) and not float(np.abs(numbers).max()) < 2.0 ** 53:
            return None
    elif numbers.dtype == np.uint64 and len(numbers) and int(numbers.max()) >= 2**63:
        return None
    return numbers.astype(np.int64)


def _text(v: Any) -> str:
    """A raw cell as the file shows it (numbers without numpy's decoration)."""
    v = v.item() if hasattr(v, "item") else v
    text = str(v)
    return text if len(text) <= 40 else text[:37] + "..."


class _Shifted:
    """``rows[seq - seq0]``: a batch's input rows looked up by global ``seq``."""

    def __init__(self, rows: list[int], seq0: int) -> None:
        self.rows, self.seq0 = rows, seq0

    def __getitem__(self, seq: int) -> int:
        return self.rows[seq - self.seq0]
