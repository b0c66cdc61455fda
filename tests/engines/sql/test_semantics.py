"""MATCH_RECOGNIZE semantics by hand (docs/semantics.md, "MATCH_RECOGNIZE"): each case checked with
the thread matcher and the oracle."""
from __future__ import annotations

import pytest

from engine.engines.sql.errors import SqlRunError
from tests.engines.sql.sql_support import both, prices, table

M = "MEASURES A.id AS a, FIRST(B.id) AS b_first, LAST(B.id) AS b_last, C.id AS c"


def test_greedy_backtracks_where_flink_does_not() -> None:
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {M} PATTERN (A B+ C) " \
        "DEFINE A AS price = 20, B AS price < 15, C AS price > 12)"
    assert both(q, prices(20, 13, 14, 5, 3)) == [{"a": 1, "b_first": 2, "b_last": 2, "c": 3}]


def test_greedy_takes_the_longest_run_that_still_completes() -> None:
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {M} PATTERN (A B+ C) " \
        "DEFINE B AS price < 15, C AS price > 12)"
    assert both(q, prices(20, 13, 14, 13, 5)) == [{"a": 1, "b_first": 2, "b_last": 3, "c": 4}]


def test_reluctant_takes_the_fewest() -> None:
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {M} PATTERN (A B+? C) " \
        "DEFINE B AS price < 15, C AS price > 12)"
    assert both(q, prices(20, 13, 14, 13, 5)) == [{"a": 1, "b_first": 2, "b_last": 2, "c": 3}]


def test_skip_to_next_row_finds_overlapping_matches() -> None:
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {M} AFTER MATCH SKIP TO NEXT ROW PATTERN (A B+ C) " \
        "DEFINE B AS B.price > A.price, C AS C.price < A.price)"
    assert both(q, prices(1, 5, 6, 7, 3, 8, 9)) == [
        {"a": 2, "b_first": 3, "b_last": 4, "c": 5}, {"a": 3, "b_first": 4, "b_last": 4, "c": 5}]


def test_bounded_quantifier_and_prev() -> None:
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {M} AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{{1,2}} C) " \
        "DEFINE B AS B.price > PREV(B.price), C AS C.price > PREV(C.price))"
    assert both(q, prices(10, 11, 12, 13, 14)) == [
        {"a": 1, "b_first": 2, "b_last": 3, "c": 4}, {"a": 2, "b_first": 3, "b_last": 4, "c": 5},
        {"a": 3, "b_first": 4, "b_last": 4, "c": 5}]


def test_alternation_prefers_the_left_branch() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES CLASSIFIER() AS k PATTERN (X | Y) " \
        "DEFINE X AS price > 0, Y AS price > 0)"
    assert both(q, prices(1)) == [{"k": "X"}]


def test_permute_tries_orders_lexicographically() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES CLASSIFIER() AS k, A.id AS a, B.id AS b " \
        "PATTERN (PERMUTE(A, B)) DEFINE A AS price > 0, B AS price > 0)"
    assert both(q, prices(1, 2)) == [{"k": "B", "a": 1, "b": 2}]
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, B.id AS b " \
        "PATTERN (PERMUTE(A, B)) DEFINE A AS price > 5, B AS price < 5)"
    assert both(q, prices(1, 9)) == [{"a": 2, "b": 1}]
    assert both(q, prices(9, 1)) == [{"a": 1, "b": 2}]


def test_running_and_final_in_all_rows_per_match() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES RUNNING LAST(B.price) AS r, FINAL LAST(B.price) AS f," \
        " count(B.*) AS n, RUNNING sum(price) AS s ALL ROWS PER MATCH PATTERN (A B+) DEFINE B AS price > PREV(price))"
    got = both(q, prices(1, 2, 3))
    assert [(r["r"], r["f"], r["n"], r["s"]) for r in got] == [(None, 3, 0, 1), (2, 3, 1, 3), (3, 3, 2, 6)]
    assert list(got[0]) == ["ts", "r", "f", "n", "s", "id", "price"]


def test_one_row_per_match_columns_are_partition_then_measures() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES count(*) AS n " \
        "PATTERN (A+) DEFINE A AS price > 1)"
    data = table(["sym", "ts", "price"], ("x", 1, 5), ("y", 1, 5), ("x", 2, 0), ("y", 2, 6))
    assert both(q, data) == [{"sym": "x", "n": 1}, {"sym": "y", "n": 2}]


def test_empty_matches_show_omit_and_unmatched_rows() -> None:
    base = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(A.*) AS n, MATCH_NUMBER() AS m ALL ROWS " \
           "PER MATCH {} PATTERN (A*) DEFINE A AS price > 1)"
    data = prices(0, 5)
    show = both(base.format("SHOW EMPTY MATCHES"), data)
    assert [(r["id"], r["n"], r["m"]) for r in show] == [(1, 0, 1), (2, 1, 2)]
    omit = both(base.format("OMIT EMPTY MATCHES"), data)
    assert [(r["id"], r["n"], r["m"]) for r in omit] == [(2, 1, 2)]
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES count(A.*) AS n ALL ROWS PER MATCH WITH UNMATCHED " \
        "ROWS PATTERN (A A) DEFINE A AS price > 1)"
    got = both(q, prices(0, 5, 6, 7))
    assert [(r["id"], r["n"]) for r in got] == [(1, None), (2, 1), (3, 2), (4, None)]


def test_exclusion_leaves_rows_out_of_all_rows() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES CLASSIFIER() AS k ALL ROWS PER MATCH " \
        "PATTERN (A {- B -} C) DEFINE A AS price = 1)"
    assert [r["k"] for r in both(q, prices(1, 2, 3))] == ["A", "C"]


def test_anchors() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a PATTERN (^A) DEFINE A AS price > 0)"
    assert both(q, prices(1, 2)) == [{"a": 1}]
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a PATTERN (A$) DEFINE A AS price > 0)"
    assert both(q, prices(1, 2)) == [{"a": 2}]


def test_navigation_outside_the_partition_is_null() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES PREV(A.price) AS p, NEXT(A.price, 5) AS nx, " \
        "PREV(LAST(A.price), 1) AS q PATTERN (A) DEFINE A AS PREV(price) IS NULL OR price > PREV(price))"
    assert both(q, prices(3, 1)) == [{"p": None, "nx": None, "q": None}]


def test_skip_to_a_variable_and_its_errors() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a AFTER MATCH SKIP TO LAST B " \
        "PATTERN (A B* C) DEFINE A AS price = 1, B AS price = 2, C AS price = 3)"
    with pytest.raises(SqlRunError, match="has no row labelled B"):
        both(q, prices(1, 3))
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a AFTER MATCH SKIP TO FIRST A " \
        "PATTERN (A B) DEFINE B AS price > 0)"
    with pytest.raises(SqlRunError, match="its own first row"):
        both(q, prices(1, 3))


def test_within_is_strict() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B) " \
        "WITHIN INTERVAL '2' SECOND DEFINE A AS price = 1, B AS price = 2)"
    data = table(["id", "ts", "price"], (1, 0, 1), (2, 2, 2), (3, 3, 1), (4, 4, 2))
    assert both(q, data) == [{"a": 3, "b": 4}]


def test_ties_keep_the_input_order() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, B.id AS b PATTERN (A B) " \
        "DEFINE A AS price = 1)"
    data = table(["id", "ts", "price"], (1, 5, 1), (2, 5, 0), (3, 5, 1), (4, 5, 0))
    assert both(q, data) == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]


def test_subset_and_aggregates_in_define() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(U.id) AS u, avg(U.price) AS m " \
        "PATTERN (A B+) SUBSET U = (A, B) DEFINE B AS avg(U.price) < 10)"
    assert both(q, prices(4, 8, 30, 1)) == [{"u": 2, "m": 6.0}]
    assert both(q, prices(4, 8, 30, 1, 2)) == [{"u": 2, "m": 6.0}, {"u": 5, "m": 1.5}]
    assert both(q, prices(4, 8, 9, 30, 1, 2)) == [{"u": 3, "m": 7.0}, {"u": 6, "m": 1.5}]


def test_select_list_and_order_by() -> None:
    q = "SELECT m.n AS total, sym FROM t MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES count(*) AS n " \
        "PATTERN (A+) DEFINE A AS price > 1) AS m ORDER BY n DESC"
    data = table(["sym", "ts", "price"], ("x", 1, 5), ("y", 1, 5), ("x", 2, 0), ("y", 2, 6))
    assert both(q, data) == [{"total": 2, "sym": "y"}, {"total": 1, "sym": "x"}]


def test_integers_stay_exact_and_division_truncates() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES sum(A.price) AS s, A.price / 2 AS h, " \
        "-7 / 2 AS neg, CAST(A.price AS DOUBLE) / 2 AS d PATTERN (A) DEFINE A AS true)"
    assert both(q, prices(9007199254740993)) == [{"s": 9007199254740993, "h": 4503599627370496, "neg": -3,
                                                  "d": 4503599627370496.5}]


def test_division_by_zero_is_an_error_naming_the_row() -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS 1 / price > 0)"
    with pytest.raises(SqlRunError, match=r"DEFINE A on row 2: `1 / price > 0`: division by zero"):
        both(q, prices(1, 0))


def test_nulls_sort_last_in_either_direction_unless_said() -> None:
    data = table(["id", "ts", "price"], (1, None, 1), (2, 2, 1), (3, 1, 1))
    for order, want in (("ts", [3, 2, 1]), ("ts DESC", [2, 3, 1]), ("ts DESC NULLS FIRST", [1, 2, 3]),
                        ("ts NULLS FIRST", [1, 3, 2])):
        q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY {order} MEASURES A.id AS a PATTERN (A))"
        assert [r["a"] for r in both(q, data)] == want, order
