"""Tests of engine/events/pandas_table.py: ``FrameTable`` / ``SeriesColumn``, the validation rules' view
of a DataFrame.

- the dtype questions (object, text, float) per dtype;
- ``raw`` / ``objects`` / ``values`` / ``factorize`` (missing as -1, distinct values as plain values);
- ``infinite`` for float, object and other columns;
- ``parse_time`` is ``times.parse_time``; the table caches one column object per name.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.events.columns import T_MISSING, T_NUMBER
from engine.events.pandas_table import FrameTable, SeriesColumn


@pytest.mark.parametrize("series, is_object, is_text, is_float", [
    (pd.Series([1, 2]), False, False, False),
    (pd.Series([1.5]), False, False, True),
    (pd.Series([1.5], dtype="Float64"), False, False, True),
    (pd.Series(["a"], dtype=object), True, True, False),
    (pd.Series(["a"], dtype="string"), False, True, False),
    (pd.Series([True]), False, False, False),
])
def test_dtype_questions(series: pd.Series, is_object: bool, is_text: bool, is_float: bool) -> None:
    c = SeriesColumn(series)
    assert (c.is_object, c.is_text, c.is_float) == (is_object, is_text, is_float)
    assert all(type(x) is bool for x in (c.is_object, c.is_text, c.is_float))


def test_raw_objects_values_factorize() -> None:
    s = pd.Series(["b", None, "a", "b", np.int64(3)], dtype=object, index=[10, 11, 12, 13, 14])
    c = SeriesColumn(s)
    assert c.raw(0) == "b" and c.raw(4) == 3  # by position, not by label
    objs = c.objects()
    assert objs.dtype == object and objs.tolist() == ["b", None, "a", "b", 3]
    assert c.values() == (["b", None, "a", "b", 3], None)
    codes, names = c.factorize()
    assert codes.tolist() == [0, -1, 1, 0, 2] and names == ["b", "a", 3] and type(names[2]) is int


def test_factorize_a_categorical() -> None:
    codes, names = SeriesColumn(pd.Series(["x", "y", None, "x"], dtype="category")).factorize()
    assert codes.tolist() == [0, 1, -1, 0] and names == ["x", "y"]


@pytest.mark.parametrize("series, expected", [
    (pd.Series([1.0, np.inf, -np.inf, np.nan]), [False, True, True, False]),
    (pd.Series([1.0, np.inf, None], dtype="Float64"), [False, True, False]),
    (pd.Series([float("inf"), "inf", float("nan"), 3, -float("inf")], dtype=object), [True, False, False, False, True]),
    (pd.Series([1, 2]), [False, False]),
    (pd.Series(["inf"], dtype="string"), [False]),
])
def test_infinite(series: pd.Series, expected: list[bool]) -> None:
    got = SeriesColumn(series).infinite()
    assert got.dtype == bool and got.tolist() == expected


def test_table() -> None:
    df = pd.DataFrame({"ts": ["1", None], "x": [1, 2]})
    t = FrameTable(df)
    assert t.columns == ["ts", "x"] and len(t) == 2
    assert t.column("ts") is t.column("ts")
    values, codes = t.column("ts").parse_time()
    assert codes.tolist() == [T_NUMBER, T_MISSING] and values[0] == 1.0
    with pytest.raises(KeyError):
        t.column("nope")
