"""``load_events``: read a file (or take a DataFrame), validate it with the rules, sort
stably by ts and build the events; ``LoadResult`` holds them with the report and schema.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .formats import read_csv, read_jsonl, read_parquet, resolve_format
from .frames import build_events, sort_frame
from .lines import CsvLines, LineIndex, with_lines
from .mapping import ROW_COL, UNIT_SECONDS, ColumnMapping, guess_mapping
from .records import Event
from .report import DataError, ValidationIssue, ValidationReport
from .validation import numeric_issues, validate_frame

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
    lines: LineIndex | None = None
    if isinstance(source, pd.DataFrame):
        df = source
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise DataError(f"file not found: '{path}'")
        kind = resolve_format(path, fmt)
        if path.is_dir() and kind != "parquet":
            raise DataError(f"'{path}' is a directory, not a {kind.upper()} file")
        if kind in ("csv", "tsv"):
            sep = "," if kind == "csv" else "\t"
            df = read_csv(path, sep)
            text_source = True
            lines = CsvLines(path, sep)
        elif kind == "jsonl":
            df, rows, pre_issues, lines = read_jsonl(path)
        else:
            df = read_parquet(path)
    else:
        raise TypeError(f"source must be a path or a pandas DataFrame, not {type(source).__name__}")
    if mapping is None:
        mapping = guess_mapping([str(c) for c in df.columns])
    vf, issues = validate_frame(df, mapping, rows=rows, text_source=text_source)
    frame, was_sorted = sort_frame(vf.frame)
    events, schema = build_events(frame, vf.attr_columns)
    if not was_sorted:
        issues.append(ValidationIssue(
            row=None, column=mapping.lower_col if mapping.is_interval else mapping.ts_col,
            severity="warning", code="unsorted",
            reason=(f"input was not sorted by ts; sorted {len(events)} rows stably, ties keep "
                    f"file order")))
    all_issues = with_lines(sorted(pre_issues + issues, key=lambda i: -1 if i.row is None else i.row),
                            lines)
    report = ValidationReport(issues=all_issues, rows_read=vf.rows_read + len(pre_issues),
                              rows_loaded=len(events),
                              rows_rejected=vf.rows_rejected + len(pre_issues),
                              sorted_by_ts=was_sorted)
    return LoadResult(events=events, report=report, schema=schema, mapping=mapping,
                      time_is_datetime=vf.time_is_datetime, rows=frame[ROW_COL].tolist(),
                      ids_are_rows=vf.ids_are_rows, lines=lines)

