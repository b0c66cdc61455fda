"""Tests of engine/events/values.py: pandas values to plain Python values.

- ``normalize``: every missing marker to None, numpy scalars, dates, times and durations, Decimals,
  float subclasses, containers as JSON text, anything else as its text.
- ``object_values``: the fast paths (already plain; NaN among floats) against the general path, and
  the kind the values share.
- ``column_values``: each dtype family (numpy ints, floats with NaN, bools, datetime64, tz-aware,
  nullable extension types, strings, categoricals, Arrow) to values and kind.
- ``coerce_numeric_text``: number-looking text in a text column back to numbers, the rest unchanged.
"""
from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest

from engine.events.values import coerce_numeric_text, column_values, normalize, object_values


class Celsius(float):
    """A float subclass (not ``type(v) is float``)."""


@pytest.mark.parametrize("value, expected", [
    ("x", "x"), (3, 3), (True, True), (2.5, 2.5),
    (None, None), (float("nan"), None), (pd.NA, None), (pd.NaT, None), (np.nan, None),
    (np.int64(7), 7), (np.float32(0.5), 0.5), (np.bool_(False), False), (np.str_("s"), "s"),
    (np.float64("nan"), None),
    (np.datetime64("2000-01-01T00:00:01"), "2000-01-01T00:00:01"), (np.datetime64("NaT"), None),
    (np.timedelta64(90, "s"), 90.0), (np.timedelta64("NaT"), None),
    (dt.date(2000, 1, 2), "2000-01-02"), (dt.datetime(2000, 1, 2, 3, 4, 5), "2000-01-02T03:04:05"),
    (dt.time(1, 2), "01:02:00"), (dt.timedelta(minutes=2), 120.0),
    (Decimal("1.5"), 1.5), (Decimal("NaN"), None),
    (Celsius(21.5), 21.5), (Celsius("nan"), None),
    ([1, "a"], '[1, "a"]'), ({"k": 1}, '{"k": 1}'), ((1, 2), "[1, 2]"), (np.array([1, 2]), "[1, 2]"),
    ([dt.date(2000, 1, 1)], '["2000-01-01"]'), (b"ab", "b'ab'"), (1 + 2j, "(1+2j)"),
])
def test_normalize(value: Any, expected: Any) -> None:
    got = normalize(value)
    assert got == expected and type(got) is type(expected)


def test_normalize_keeps_int_subclasses_and_makes_float_subclasses_plain() -> None:
    assert type(normalize(Celsius(1.0))) is float


@pytest.mark.parametrize("raw, values, kind", [
    (["a", None, "b"], ["a", None, "b"], "string"),
    ([1, 2, None], [1, 2, None], "number"),
    ([1, 2.5, float("nan")], [1, 2.5, None], "number"),
    ([True, None], [True, None], "bool"),
    ([1, "a"], [1, "a"], None),
    ([True, 1], [True, 1], None),
    ([np.int64(1), 2], [1, 2], "number"),
    ([np.float64("nan"), "x"], [None, "x"], "string"),
    ([dt.date(2000, 1, 1), None], ["2000-01-01", None], "string"),
    ([[1], None], ["[1]", None], "string"),
    ([None, None], [None, None], None),
    ([], [], None),
])
def test_object_values(raw: list[Any], values: list[Any], kind: str | None) -> None:
    got, got_kind = object_values(list(raw))
    assert got == values and got_kind == kind
    assert [type(v) for v in got] == [type(v) for v in values]


@pytest.mark.parametrize("series, values, kind", [
    (pd.Series([1, 2], dtype="int64"), [1, 2], "number"),
    (pd.Series([1, 2], dtype="uint8"), [1, 2], "number"),
    (pd.Series([1.5, np.nan], dtype="float64"), [1.5, None], "number"),
    (pd.Series([True, False]), [True, False], "bool"),
    (pd.Series(pd.to_datetime(["2000-01-01", None])), ["2000-01-01T00:00:00", None], None),
    (pd.Series(pd.to_timedelta(["1s", None])), [1.0, None], None),
    (pd.Series(pd.to_datetime(["2000-01-01"]).tz_localize("UTC")), ["2000-01-01T00:00:00+00:00"], "string"),
    (pd.Series(pd.to_datetime(["2000-01-01", None]).tz_localize("UTC")), ["2000-01-01T00:00:00+00:00", None],
     "string"),
    (pd.Series([1, None], dtype="Int64"), [1, None], "number"),
    (pd.Series([1, None], dtype="UInt16"), [1, None], "number"),
    (pd.Series([1.5, None], dtype="Float64"), [1.5, None], "number"),
    (pd.Series([True, None], dtype="boolean"), [True, None], "bool"),
    (pd.Series(["a", None], dtype="string"), ["a", None], "string"),
    (pd.Series(["a", "b", "a"], dtype="category"), ["a", "b", "a"], "string"),
    (pd.Series([1, "a", None], dtype=object), [1, "a", None], None),
    # the NaN fast path keeps the kind of the types read (str and float share none): None = per value
    (pd.Series(["a", float("nan")], dtype=object), ["a", None], None),
])
def test_column_values(series: pd.Series, values: list[Any], kind: str | None) -> None:
    got, got_kind = column_values(series)
    assert got == values and got_kind == kind
    assert [type(v) for v in got] == [type(v) for v in values]


def test_column_values_of_float64_extension_with_nan_and_na() -> None:
    # 0/0 in a Float64 array is NaN, kept apart from NA
    s = pd.Series(pd.array([1.0, 0.0, None], dtype="Float64")) / pd.Series(pd.array([1.0, 0.0, 1.0], dtype="Float64"))
    assert s.to_numpy(dtype=object, na_value=None).tolist()[2] is None
    got, kind = column_values(s)
    assert got == [1.0, None, None] and kind == "number"
    assert [type(v) for v in got] == [float, type(None), type(None)]


def test_column_values_of_arrow_types() -> None:
    pytest.importorskip("pyarrow")
    got, kind = column_values(pd.Series([1, None, 3], dtype="int64[pyarrow]"))
    assert got == [1, None, 3] and kind == "number"
    got, kind = column_values(pd.Series(["a", None], dtype="string[pyarrow]"))
    assert got == ["a", None] and kind == "string"


def test_coerce_numeric_text_turns_number_text_to_numbers() -> None:
    s = pd.Series(["1", "x", "2.5", None, "1", " 7 ", "1e400", "abc1"], dtype=object, name="v", index=list("abcdefgh"))
    out = coerce_numeric_text(s)
    assert out.tolist() == [1, "x", 2.5, None, 1, 7, "1e400", "abc1"]
    assert [type(v) for v in out.tolist()] == [int, str, float, type(None), int, int, str, str]
    assert out.name == "v" and list(out.index) == list("abcdefgh") and out.dtype == object


def test_coerce_numeric_text_leaves_other_columns_alone() -> None:
    numbers = pd.Series([1, 2])
    assert coerce_numeric_text(numbers) is numbers
    words = pd.Series(["a", "b", None], dtype=object)
    assert coerce_numeric_text(words) is words  # nothing changed: the same Series
    text = pd.Series(["3", "b"], dtype="string")
    assert coerce_numeric_text(text).tolist() == [3, "b"]


def test_coerce_keeps_huge_integer_text_exact() -> None:
    big = str(10 ** 30 + 1)
    out = coerce_numeric_text(pd.Series([big, "z"], dtype=object))
    assert out.tolist() == [10 ** 30 + 1, "z"]
    assert json.dumps(out.tolist()[0]) == big
