"""Events: the in-memory event record, and loading and validating event data.

| part             | what it holds                                                                   | pandas                              |
|------------------|---------------------------------------------------------------------------------|-------------------------------------|
| ``records``      | ``Event``, ``make_stream``, ``infer_schema``, ``assemble_events``               | no                                  |
| ``mapping``      | ``ColumnMapping``, ``guess_mapping``, canonical column names                    | no                                  |
| ``report``       | ``DataError``, ``ValidationIssue``, ``ValidationReport``                        | no                                  |
| ``sources``      | ``resolve_format``, CSV header, ``can_batch`` / ``wants_batches``               | no                                  |
| ``lines``        | the file line of a record (``CsvLines``, ``JsonlLines``)                        | no                                  |
| ``columns``      | ``Table`` / ``Column``: what the validation rules need of an input              | no                                  |
| ``validation``   | ``check_table`` and its named ``RULES``; ``validate_frame``; ``numeric_issues`` | numpy; pandas in ``validate_frame`` |
| ``intervals``    | interval events' rules: exact bounds, order, instants, U_max, pmf, arrival      | numpy; pandas for a pmf column      |
| ``small_csv``    | a small CSV/TSV file as a ``Table`` typed as pandas would type it               | numpy                               |
| ``numbers``      | plain values: the kind they share, CSV number text                              | no                                  |
| ``load``         | ``load_events`` -> ``LoadResult`` (small CSV without pandas)                    | numpy; pandas for other inputs      |
| ``event_columns``| ``EventColumns``: loaded events as columns, built as events when first read     | no                                  |
| ``arrow_jsonl``  | JSON Lines read with pyarrow, typed as the exact reader types it (or declined)  | no                                  |
| ``arrow_json_depth`` | the JSON nesting-depth check shared by the JSON readers                     | no                                  |
| ``formats``      | the CSV / JSON Lines / Parquet readers                                          | yes                                 |
| ``pandas_table`` | ``FrameTable``: the ``Table`` over a pandas DataFrame                           | yes                                 |
| ``values``       | pandas columns -> plain Python values                                           | yes                                 |
| ``times``        | parsing time columns (numbers, ISO date-times)                                  | yes                                 |
| ``frames``       | ``sort_frame``, ``build_events`` (frame -> ``Event`` objects)                   | yes                                 |
| ``batches``      | ``BatchReader``: a big file in batches, bounded memory, same rules              | yes                                 |

Pipeline: read the input into a ``columns.Table`` -- a pandas DataFrame (``formats``,
``pandas_table``) or, for a small plain CSV file, cells typed as pandas would type them
(``small_csv``) -- check it with the rules (``validation.check_table``: the one place where
row-level checks live, so the Spark reader runs the same checks per Arrow batch with a row
offset), sort stably by ts, then build ``Event`` objects column-wise
(``records.assemble_events``).

``from engine.events import X`` works for every name below. The parts without pandas are
imported with the package; the others on first use, so that the matchers, which need only
``Event``, start without pandas.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.events.mapping import (CANONICAL, ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UNIT_SECONDS, UPPER_COL,
                      ColumnMapping, TimeKind, guess_mapping)
from engine.events.records import BUILTIN_FIELDS, Event, infer_schema, make_stream
from engine.events.report import DataError, Severity, ValidationIssue, ValidationReport

if TYPE_CHECKING:  # pragma: no cover
    from engine.events.formats import arrow_to_pandas
    from engine.events.frames import events_from_frame, sort_frame
    from engine.events.batches import BatchReader, EventBatch, Unsorted
    from engine.events.sources import can_batch, wants_batches
    from engine.events.load import LoadResult, load_events
    from engine.events.validation import ValidatedFrame, numeric_issues, validate_frame

# name -> part, for the names whose part imports pandas
_LAZY = {
    "arrow_to_pandas": "formats",
    "events_from_frame": "frames", "sort_frame": "frames",
    "LoadResult": "load", "load_events": "load",
    "BatchReader": "batches", "EventBatch": "batches", "Unsorted": "batches", "can_batch": "sources",
    "wants_batches": "sources",
    "ValidatedFrame": "validation", "numeric_issues": "validation", "validate_frame": "validation",
}

__all__ = ["BUILTIN_FIELDS", "Event", "make_stream", "infer_schema",
           "ColumnMapping", "guess_mapping", "TimeKind",
           "ROW_COL", "TYPE_COL", "TS_COL", "ID_COL", "LOWER_COL", "UPPER_COL", "CANONICAL", "UNIT_SECONDS",
           "DataError", "Severity", "ValidationIssue", "ValidationReport", *_LAZY]


def __getattr__(name: str) -> Any:
    part = _LAZY.get(name)
    if part is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{part}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
