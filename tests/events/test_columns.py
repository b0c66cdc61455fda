"""Tests of engine/events/columns.py: the ``Table`` / ``Column`` protocols the validation rules are
written against, and the time outcome codes.

- the codes are distinct small integers (they are stored in int8 arrays);
- both readers (``pandas_table.FrameTable`` over a DataFrame, ``small_csv.TextTable`` over a small CSV)
  provide every member of the protocols, and agree on the same small CSV.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from engine.events import columns
from engine.events.columns import T_BAD, T_DATETIME, T_INFINITE, T_MISSING, T_NUMBER, Column, Table
from engine.events.pandas_table import FrameTable
from engine.events.small_csv import read_small_csv

PROTOCOL_MEMBERS = {"is_object", "is_text", "is_float", "raw", "objects", "values", "infinite", "factorize",
                    "parse_time"}


def test_codes_are_distinct_int8_values() -> None:
    codes = [T_MISSING, T_NUMBER, T_DATETIME, T_BAD, T_INFINITE]
    assert len(set(codes)) == 5 and all(-128 <= c <= 127 for c in codes)
    assert T_MISSING == 0  # arrays of codes start as missing (np.full / np.zeros)
    assert set(columns.__all__) == {"Column", "Table", "T_MISSING", "T_NUMBER", "T_DATETIME", "T_BAD", "T_INFINITE"}


def test_the_protocols_list_what_the_rules_use() -> None:
    members = {n for n in vars(Column) if not n.startswith("_")}
    assert members == PROTOCOL_MEMBERS
    assert {n for n in vars(Table) if not n.startswith("_")} == {"columns", "column"}


def test_both_readers_provide_the_protocols_and_agree(tmp_path: Path) -> None:
    path = tmp_path / "small.csv"
    path.write_text("type,ts,x\nA,1,2.5\nB,2000-01-01,\nA,x,7\n")
    text = read_small_csv(path)
    assert text is not None
    frame = FrameTable(pd.read_csv(path))
    for table in (text, frame):
        assert table.columns == ["type", "ts", "x"] and len(table) == 3
        for name in table.columns:
            col = table.column(name)
            assert all(hasattr(col, m) for m in PROTOCOL_MEMBERS)
    for name in ("type", "ts", "x"):
        a, b = text.column(name), frame.column(name)
        assert a.values() == b.values()
        va, ca = a.parse_time()
        vb, cb = b.parse_time()
        assert ca.tolist() == cb.tolist()
        assert np.array_equal(va, vb, equal_nan=True)
        assert a.infinite().tolist() == b.infinite().tolist()
