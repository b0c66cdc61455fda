"""Tests of engine/events/intervals.py: the validation rules of interval events, each run on its own
over a ``FrameCheck`` built here from a small DataFrame (the time columns parsed as the time rule
parses them).

- ``exact_number_text``: number text past float64 becomes a number (its exact value is read later),
  other text stays bad.
- ``exact_bounds``: ints of any size, decimal text as Fractions, date-times as seconds; a float past
  2**53 and a number of too many digits refused (``inexact_bound``) with the reason.
- ``convert_time_unit``: a numeric bound next to a date-time bound converted to seconds exactly.
- ``check_interval_order`` / ``check_interval_instants`` / ``check_u_max`` / ``check_pmf`` /
  ``check_arrival_order``: which rows each flags, compared exactly (bounds equal as floats but not as
  integers), and the message naming the bound, the column and the earlier row.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest

from engine.events.columns import T_BAD, T_DATETIME, T_INFINITE, T_NUMBER
from engine.events.frame_check import FrameCheck
from engine.events.intervals import (check_arrival_order, check_interval_instants, check_interval_order,
                                     check_pmf, check_u_max, convert_time_unit, exact_bounds,
                                     exact_number_text)
from engine.events.mapping import ColumnMapping
from engine.events.pandas_table import FrameTable

INTERVAL = ColumnMapping(type_col="type", lower_col="lo", upper_col="hi", id_col=None)


def frame_check(rows: dict[str, list[Any]], mapping: ColumnMapping = INTERVAL, row_offset: int = 0,
                bounds: bool = True) -> FrameCheck:
    """A check over ``rows`` (columns as lists, object dtype) with the time columns parsed (and, with
    ``bounds``, their exact values read by ``exact_bounds``)."""
    df = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in rows.items()})
    n = len(df)
    table = FrameTable(df)
    chk = FrameCheck(table=table, mapping=mapping, row_numbers=np.arange(n) + row_offset, time_kinds={},
                     bad=np.zeros(n, dtype=bool))
    for col in mapping.time_columns:
        values, codes = table.column(col).parse_time()
        exact_number_text(table.column(col), values, codes)
        n_dt, n_num = int(np.sum(codes == T_DATETIME)), int(np.sum(codes == T_NUMBER))
        chk.time_kinds[col] = "datetime" if n_dt > n_num else "number"
        values = values.copy()
        values[(codes != T_NUMBER) & (codes != T_DATETIME)] = np.nan
        chk.parsed[col] = values
    if bounds:
        exact_bounds(chk)
    return chk


def issues(chk: FrameCheck) -> list[tuple[int, str | None, str, str]]:
    """(row, column, code, reason) of every issue, in order."""
    return [(i.row, i.column, i.code, i.reason) for _, _, i in chk.issues]  # type: ignore[misc]


# ------------------------------------------------------------------ exact_number_text

def test_number_text_past_float64_is_a_number() -> None:
    big = "1" + "0" * 400
    s = pd.Series(["5", big, "-" + big, "1e400", "abc", "9" * 5000, float("inf")], dtype=object)
    table = FrameTable(pd.DataFrame({"lo": s}))
    values, codes = table.column("lo").parse_time()
    assert codes[1] in (T_INFINITE, T_BAD) and codes[4] == T_BAD
    exact_number_text(table.column("lo"), values, codes)
    assert list(codes) == [T_NUMBER, T_NUMBER, T_NUMBER, T_NUMBER, T_BAD, T_NUMBER, T_INFINITE]
    assert values[0] == 5 and values[1] == np.inf and values[2] == -np.inf and values[3] == np.inf
    assert values[5] == 1.0  # too many digits: a placeholder, exact_bounds refuses it with the reason
    assert np.isnan(values[4])


# ------------------------------------------------------------------ exact_bounds

def test_exact_bounds_reads_every_cell_exactly() -> None:
    big = 10 ** 30
    chk = frame_check({"type": ["A"] * 5, "lo": [3, "4", str(big), "2.5", 7.0],
                       "hi": [5, " 6 ", str(big + 1), "3", np.int64(8)]})
    lo, hi = chk.exact["lo"], chk.exact["hi"]
    assert list(lo) == [3, 4, big, Fraction(5, 2), 7]
    assert list(hi) == [5, 6, big + 1, 3, 8]
    assert [type(v) for v in lo] == [int, int, int, Fraction, int]
    assert chk.issues == []


def test_exact_bounds_of_text_beyond_18_digits_and_mixed_cells() -> None:
    # all-text column: the 18-digit fast path and the one-by-one path agree
    # (19 digits pass int64: they must not take the int64 fast path)
    chk = frame_check({"type": ["A"] * 3, "lo": ["123456789012345678", "9999999999999999999", "-7"],
                       "hi": [10 ** 19, 2 * 10 ** 19, 0]})
    assert list(chk.exact["lo"]) == [123456789012345678, 9999999999999999999, -7]
    assert list(chk.exact["hi"]) == [10 ** 19, 2 * 10 ** 19, 0]


def test_inexact_bounds_are_refused_with_the_reason() -> None:
    chk = frame_check({"type": ["A", "A", "A"], "lo": [1, 2.0 ** 60, "9" * 4301], "hi": [2, 3, 4]})
    assert list(chk.exact["lo"]) == [1, None, None]
    got = issues(chk)
    assert [(r, c, code) for r, c, code, _ in got] == [(1, "lo", "inexact_bound"), (2, "lo", "inexact_bound")]
    assert got[0][3].startswith("lower bound 1.152921504606847e+18 is a floating-point number beyond 2**53")
    assert got[1][3] == "lower bound '" + "9" * 37 + "...' is beyond 4300 digits (the most an exact number may have)"
    assert list(chk.bad) == [False, True, True]


def test_exact_bounds_of_date_times_are_seconds() -> None:
    chk = frame_check({"type": ["A", "A"], "lo": ["1970-01-01T00:00:01", "1970-01-01T00:00:02.5"],
                       "hi": ["1970-01-01T00:01:00", "1970-01-01T00:01:00"]})
    assert chk.time_kinds == {"lo": "datetime", "hi": "datetime"}
    assert list(chk.exact["lo"]) == [1, Fraction(5, 2)]
    assert list(chk.exact["hi"]) == [60, 60]


def test_exact_bounds_does_nothing_for_point_events() -> None:
    chk = frame_check({"type": ["A"], "ts": [1]}, ColumnMapping(id_col=None))
    assert chk.exact == {} and chk.issues == []


# ------------------------------------------------------------------ convert_time_unit

def test_numeric_bound_next_to_a_date_time_is_converted_to_seconds() -> None:
    m = ColumnMapping(type_col="type", lower_col="lo", upper_col="hi", id_col=None, ts_unit="ms")
    rows = {"type": ["A", "A", "A"], "lo": ["1970-01-01T00:00:01"] * 3, "hi": [2000, 2500, 10 ** 20]}
    chk = frame_check(rows, m)
    assert chk.time_kinds == {"lo": "datetime", "hi": "number"}
    convert_time_unit(chk)
    assert list(chk.exact["hi"]) == [2, Fraction(5, 2), 10 ** 17]
    assert type(chk.exact["hi"][0]) is int
    assert list(chk.parsed["hi"]) == pytest.approx([2.0, 2.5, 1e17])
    assert list(chk.exact["lo"]) == [1, 1, 1]


def test_no_conversion_without_date_times() -> None:
    m = ColumnMapping(type_col="type", lower_col="lo", upper_col="hi", id_col=None, ts_unit="ms")
    chk = frame_check({"type": ["A"], "lo": [1000], "hi": [2000]}, m)
    convert_time_unit(chk)
    assert list(chk.exact["hi"]) == [2000] and list(chk.parsed["hi"]) == [2000.0]


# ------------------------------------------------------------------ order, instants, U_max

def test_lower_after_upper_compared_exactly() -> None:
    big = 10 ** 20  # big + 1 and big are the same float64
    chk = frame_check({"type": ["A"] * 4, "lo": [5, str(big + 1), 2, "3"], "hi": [3, str(big), 2, "4"]})
    check_interval_order(chk)
    got = issues(chk)
    assert got == [(0, "lo", "lower_gt_upper", "lower bound 5 is after upper bound 3 (column hi)"),
                   (1, "lo", "lower_gt_upper",
                    f"lower bound {big + 1} is after upper bound {big} (column hi)")]
    assert list(chk.bad) == [True, True, False, False]


def test_order_skips_rows_already_bad() -> None:
    chk = frame_check({"type": ["A", "A"], "lo": [5, 5], "hi": [3, 3]})
    chk.bad[0] = True
    check_interval_order(chk)
    assert [r for r, *_ in issues(chk)] == [1]


def test_bounds_must_be_whole_instants() -> None:
    chk = frame_check({"type": ["A", "A", "A"], "lo": ["2.5", "1", "1"], "hi": ["3", "4", "4.0"]})
    check_interval_instants(chk)
    got = issues(chk)
    assert [(r, c, code) for r, c, code, _ in got] == [(0, "lo", "not_instant")]
    assert got[0][3] == ("lower bound 2.5 is not a whole instant: interval bounds are integer instants "
                         "(write them in a finer unit, e.g. tenths of a second as integers)")


def test_date_time_bounds_must_be_whole_seconds() -> None:
    chk = frame_check({"type": ["A"], "lo": ["1970-01-01T00:00:00"], "hi": ["1970-01-01T00:00:01.5"]})
    check_interval_instants(chk)
    got = issues(chk)
    assert [(r, c) for r, c, *_ in got] == [(0, "hi")]
    assert got[0][3].startswith("upper bound '1970-01-01T00:00:01.5' is not a whole second")


def test_u_max_bounds_the_width_exactly() -> None:
    m = ColumnMapping(type_col="type", lower_col="lo", upper_col="hi", id_col=None, u_max=2)
    big = 10 ** 20
    chk = frame_check({"type": ["A"] * 4, "lo": [0, 0, str(big), 5], "hi": [2, 3, str(big + 3), 5]}, m)
    check_u_max(chk)
    got = issues(chk)
    assert [(r, c, code) for r, c, code, _ in got] == [(1, "hi", "wider_than_u_max"), (2, "hi", "wider_than_u_max")]
    assert got[0][3] == "interval [0, 3] is wider than U_max = 2 (upper - lower must be at most U_max)"
    assert got[1][3].startswith(f"interval [{big}, {big + 3}] is wider")


def test_no_u_max_no_check() -> None:
    chk = frame_check({"type": ["A"], "lo": [0], "hi": [100]})
    check_u_max(chk)
    assert chk.issues == []


# ------------------------------------------------------------------ pmf

def test_pmf_cells_are_checked_against_their_interval() -> None:
    m = ColumnMapping(type_col="type", lower_col="lo", upper_col="hi", id_col=None, pmf_col="pmf")
    chk = frame_check({"type": ["A"] * 5, "lo": [0, 0, 0, 0, 0], "hi": [2, 2, 1, 1, 1],
                       "pmf": ["1 2 1", "1 1", None, float("nan"), "1 -2"]}, m)
    check_pmf(chk)
    assert issues(chk) == [
        (1, "pmf", "bad_pmf", "pmf has 2 weights but the interval [0, 2] has 3 instants"),
        (4, "pmf", "bad_pmf", "pmf weight '-2' is negative")]
    assert list(chk.bad) == [False, True, False, False, True]


def test_pmf_without_its_column_is_not_checked() -> None:
    m = ColumnMapping(type_col="type", lower_col="lo", upper_col="hi", id_col=None, pmf_col="pmf")
    chk = frame_check({"type": ["A"], "lo": [0], "hi": [2]}, m)
    check_pmf(chk)
    assert chk.issues == []


# ------------------------------------------------------------------ arrival order

def test_arrival_order_names_the_earlier_row() -> None:
    # row 1 raises the largest lower bound to 3; row 2 ends at 2 < 3; row 3 at 3 is fine
    chk = frame_check({"type": ["A"] * 4, "lo": [0, 3, 1, 2], "hi": [5, 8, 2, 3]}, row_offset=10)
    check_arrival_order(chk)
    got = issues(chk)
    assert [(r, c, code) for r, c, code, _ in got] == [(12, "hi", "arrival_order")]
    assert got[0][3] == ("upper bound 2 is before the lower bound 3 of an event seen earlier (data row 12): "
                         "the arrival assumption (an event seen before another has lower <= the other's "
                         "upper) does not hold; reorder the file or widen the intervals")


def test_arrival_order_is_exact_and_skips_bad_rows() -> None:
    big = 10 ** 20
    chk = frame_check({"type": ["A"] * 3, "lo": [str(big + 1), 100 * big, 0],
                       "hi": [str(big + 2), 100 * big, str(big)]})
    chk.bad[1] = True  # its lower bound does not count
    check_arrival_order(chk)
    got = issues(chk)
    assert [r for r, *_ in got] == [2]
    assert f"lower bound {big + 1} of an event seen earlier (data row 1)" in got[0][3]


def test_arrival_order_names_the_first_row_of_the_largest_lower_bound() -> None:
    chk = frame_check({"type": ["A"] * 3, "lo": [3, 3, 0], "hi": [4, 4, 1]})
    check_arrival_order(chk)
    got = issues(chk)
    assert [r for r, *_ in got] == [2] and "(data row 1)" in got[0][3]


def test_arrival_order_in_order_gives_nothing() -> None:
    chk = frame_check({"type": ["A"] * 3, "lo": [0, 1, 1], "hi": [1, 1, 4]})
    check_arrival_order(chk)
    assert chk.issues == []
