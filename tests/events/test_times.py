"""Tests of engine/events/times.py: ``parse_time`` on every kind of time column.

- numeric dtypes (ints, floats with NaN and inf), booleans (bad), categoricals;
- datetime64 columns, tz-naive (UTC) and tz-aware, with NaT;
- object columns of Python numbers, Decimals, dates and datetimes, strings: numbers, ISO date-times
  with and without offsets (a naive string after an offset one is still UTC), year-like text read as
  a number, blanks (missing) and unparseable text (bad), bools and lists (bad).
Every value is checked against seconds computed by hand.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest

from engine.events.times import T_BAD, T_DATETIME, T_INFINITE, T_MISSING, T_NUMBER, parse_time

DAY = 86400.0
Y2000 = 946684800.0  # 2000-01-01T00:00:00Z


def parsed(values: list[Any], dtype: Any = object) -> tuple[list[float | None], list[int]]:
    """(values with None for NaN, codes) of ``parse_time`` on a Series of ``values``."""
    v, c = parse_time(pd.Series(values, dtype=dtype))
    assert v.dtype == np.float64 and c.dtype == np.int8 and len(v) == len(c) == len(values)
    return [None if np.isnan(x) else float(x) for x in v], c.tolist()


def test_integer_column() -> None:
    assert parsed([3, -1, 0], "int64") == ([3.0, -1.0, 0.0], [T_NUMBER] * 3)


def test_float_column_with_missing_and_infinite() -> None:
    assert parsed([1.5, np.nan, np.inf, -np.inf], "float64") == (
        [1.5, None, None, None], [T_NUMBER, T_MISSING, T_INFINITE, T_INFINITE])


def test_nullable_integer_column() -> None:
    assert parsed([1, None, 3], "Int64") == ([1.0, None, 3.0], [T_NUMBER, T_MISSING, T_NUMBER])


def test_boolean_column_is_bad_except_missing() -> None:
    assert parsed([True, False], "bool") == ([None, None], [T_BAD, T_BAD])
    assert parsed([True, None], "boolean") == ([None, None], [T_BAD, T_MISSING])


def test_categorical_column_is_read_as_its_values() -> None:
    assert parsed(["5", "2000-01-01", None], "category") == ([5.0, Y2000, None], [T_NUMBER, T_DATETIME, T_MISSING])


def test_datetime64_naive_is_utc() -> None:
    s = pd.Series(pd.to_datetime(["1970-01-02", "2000-01-01T00:00:01.5", None], format="ISO8601"))
    v, c = parse_time(s)
    assert c.tolist() == [T_DATETIME, T_DATETIME, T_MISSING]
    assert v[0] == DAY and v[1] == Y2000 + 1.5 and np.isnan(v[2])


def test_datetime64_aware_keeps_its_offset() -> None:
    s = pd.Series(pd.to_datetime(["2000-01-01T05:30:00"]).tz_localize("Asia/Kolkata"))
    v, c = parse_time(s)
    assert c.tolist() == [T_DATETIME] and v[0] == Y2000  # 05:30 at +05:30 is midnight UTC


def test_object_column_of_python_values() -> None:
    values = [7, 2.5, Decimal("1.25"), np.int32(4), dt.date(1970, 1, 3), dt.datetime(1970, 1, 1, 0, 1),
              np.datetime64("1970-01-01T00:00:02"), None, True, [1], float("nan"), pd.NaT, float("inf")]
    assert parsed(values) == (
        [7.0, 2.5, 1.25, 4.0, 2 * DAY, 60.0, 2.0, None, None, None, None, None, None],
        [T_NUMBER, T_NUMBER, T_NUMBER, T_NUMBER, T_DATETIME, T_DATETIME, T_DATETIME, T_MISSING, T_BAD, T_BAD,
         T_MISSING, T_MISSING, T_INFINITE])


def test_strings_numbers_and_date_times() -> None:
    values = ["12", " 3.5 ", "1e3", "2000-01-01", "2000-01-01T00:00:10Z", "2000-01-01 00:00:01",
              "", "  ", "tomorrow", "1e400", "2011", "2011.5"]
    assert parsed(values) == (
        [12.0, 3.5, 1000.0, Y2000, Y2000 + 10, Y2000 + 1, None, None, None, None, 2011.0, 2011.5],
        [T_NUMBER, T_NUMBER, T_NUMBER, T_DATETIME, T_DATETIME, T_DATETIME, T_MISSING, T_MISSING, T_BAD,
         T_BAD, T_NUMBER, T_NUMBER])  # text past float64 is not read here (intervals read it exactly)


def test_offsets_and_naive_strings_in_one_column() -> None:
    # the naive string after an offset one is UTC, not the offset of the one before it
    values = ["2000-01-01T00:00+05:30", "2000-01-01T00:00", "2000-01-01T00:00:00-01:00", "2000-01-01T00:00Z"]
    v, c = parsed(values)
    assert c == [T_DATETIME] * 4
    assert v == [Y2000 - 5.5 * 3600, Y2000, Y2000 + 3600, Y2000]


def test_all_offsets_or_no_offset() -> None:
    assert parsed(["2000-01-01T01:00+01:00", "2000-01-01T00:00Z"]) == ([Y2000, Y2000], [T_DATETIME] * 2)
    assert parsed(["2000-01-02", "2000-01-01T00:00:00"]) == ([Y2000 + DAY, Y2000], [T_DATETIME] * 2)


def test_mixed_numbers_and_date_times_keep_their_codes() -> None:
    # the column's kind is the validation rule's choice: here each row keeps its own code
    v, c = parsed(["5", "2000-01-01", 6, dt.date(2000, 1, 2)])
    assert c == [T_NUMBER, T_DATETIME, T_NUMBER, T_DATETIME]
    assert v == [5.0, Y2000, 6.0, Y2000 + DAY]


@pytest.mark.parametrize("dtype", ["string", object])
def test_string_dtypes_agree(dtype: Any) -> None:
    assert parsed(["1", None, "2000-01-01"], dtype) == ([1.0, None, Y2000], [T_NUMBER, T_MISSING, T_DATETIME])
