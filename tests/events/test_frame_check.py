"""Tests of engine/events/frame_check.py: ``FrameCheck``, the state the validation rules share.

- ``add``: one issue per row of the mask with the row number (offset included), a reason per row or
  one text, the first occurrence of a repeat; errors mark rows bad, warnings do not; issues keep
  their order;
- ``note``: an issue about the whole input;
- ``n``, ``columns``, ``col``, ``attr_columns`` (the unmapped columns), ``ts`` (the parsed ts column, or
  the exact lower bounds for interval events).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.events.frame_check import FrameCheck
from engine.events.mapping import ColumnMapping
from engine.events.pandas_table import FrameTable


def check(mapping: ColumnMapping = ColumnMapping(), offset: int = 100) -> FrameCheck:
    df = pd.DataFrame({"type": ["A", "B", "C"], "ts": [1, 2, 3], "id": [7, 8, 9], "price": [1, 2, 3],
                       "lo": [0, 1, 2], "hi": [1, 2, 3]})
    return FrameCheck(table=FrameTable(df), mapping=mapping, row_numbers=np.arange(3) + offset, time_kinds={},
                      bad=np.zeros(3, dtype=bool))


def test_add_errors_and_warnings() -> None:
    chk = check()
    chk.add(np.array([False, True, True]), "ts", "bad_time", lambda i: f"row {i}")
    chk.add(np.array([True, False, False]), "price", "odd", "looks odd", severity="warning")
    chk.add(np.array([False, False, True]), "id", "duplicate_id", "duplicate", first=lambda i: i - 2)
    got = [(pos, order, i.row, i.column, i.code, i.reason, i.severity, i.first_row) for pos, order, i in chk.issues]
    assert got == [(1, 0, 101, "ts", "bad_time", "row 1", "error", None),
                   (2, 1, 102, "ts", "bad_time", "row 2", "error", None),
                   (0, 2, 100, "price", "odd", "looks odd", "warning", None),
                   (2, 3, 102, "id", "duplicate_id", "duplicate", "error", 0)]
    assert chk.bad.tolist() == [False, True, True]  # the warning did not mark row 0


def test_add_an_empty_mask() -> None:
    chk = check()
    chk.add(np.zeros(3, dtype=bool), "ts", "x", "never")
    assert chk.issues == [] and not chk.bad.any()


def test_note() -> None:
    chk = check()
    chk.note("ts", "unsorted", "not sorted")
    chk.note("id", "no_id_column", "ids are rows", severity="error")
    assert [(p, o, i.row, i.column, i.code, i.severity) for p, o, i in chk.issues] == [
        (-1, 0, None, "ts", "unsorted", "warning"), (-1, 1, None, "id", "no_id_column", "error")]
    assert not chk.bad.any()


def test_columns_and_attributes() -> None:
    chk = check()
    assert chk.n == 3 and chk.columns == ["type", "ts", "id", "price", "lo", "hi"]
    assert chk.col("price").raw(2) == 3
    assert chk.attr_columns == ["price", "lo", "hi"]
    interval = check(ColumnMapping(lower_col="lo", upper_col="hi", id_col=None))
    assert interval.attr_columns == ["ts", "id", "price"]


def test_ts_is_the_parsed_column_or_the_exact_lower_bounds() -> None:
    chk = check()
    chk.parsed["ts"] = np.array([1.0, 2.0, 3.0])
    assert chk.ts.tolist() == [1.0, 2.0, 3.0]
    interval = check(ColumnMapping(lower_col="lo", upper_col="hi"))
    interval.parsed["lo"] = np.array([0.0, 1.0, 2.0])
    interval.exact["lo"] = np.array([0, 1, 10 ** 20], dtype=object)
    assert interval.ts.tolist() == [0, 1, 10 ** 20]
