"""The conversions keep the meaning: on random events, a convertible studio pattern's matches are
exactly the rows of its MATCH_RECOGNIZE query (the studio's engine against the SQL engine and its
oracle), and a convertible query's rows are exactly the matches of its studio pattern."""
from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, assume, event, given, settings

from engine.dsl import parse
from engine.engines.sql.conversion.refusals import ConversionError
from engine.engines.sql.conversion.to_dsl import query_to_pattern
from engine.engines.sql.conversion.to_sql import pattern_to_sql
from engine.engines.sql.parser import parse_query
from tests.engines.sql.conversion.conversion_support import sql_matches, studio_matches
from tests.engines.sql.conversion.strategies import event_rows, sql_queries, studio_patterns

SETTINGS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def _converted(text: str) -> tuple[Any, str]:
    pattern = parse(text)
    try:
        return pattern, pattern_to_sql(pattern)
    except ConversionError:
        assume(False)
        raise


@SETTINGS
@given(studio_patterns(), event_rows())
def test_studio_matches_equal_the_converted_query_rows(text: str, rows: list[dict[str, Any]]) -> None:
    pattern, sql = _converted(text)
    expected = studio_matches(pattern, rows)
    event(f"matches: {min(len(expected), 3)}")
    assert sql_matches(sql, rows) == expected, sql
    assert sql_matches(sql, rows, "sql-oracle") == expected, sql


@SETTINGS
@given(sql_queries(), event_rows())
def test_query_rows_equal_the_converted_pattern_matches(sql: str, rows: list[dict[str, Any]]) -> None:
    try:
        pattern = query_to_pattern(parse_query(sql))
    except ConversionError:
        assume(False)
        raise
    expected = sql_matches(sql, rows)
    assert sql_matches(sql, rows, "sql-oracle") == expected
    event(f"rows: {min(len(expected), 3)}")
    assert studio_matches(pattern, rows) == expected, pattern


def _rows(types: str, prices: list[int] | None = None) -> list[dict[str, Any]]:
    prices = prices or [0] * len(types)
    return [dict(id=k + 1, type=t, ts=k + 1, symbol="s", price=p, x=0) for k, (t, p) in enumerate(zip(types, prices))]


def test_strict_contiguity_by_hand() -> None:
    pattern, sql = _converted("PATTERN SEQ(A a, B+ b[], A c) WHERE strict_contiguity")
    rows = _rows("ABBABA")
    # from row 1: a=1, b=2..3, c=4; from row 4: a=4, b=5, c=6; nothing else starts with an A followed by a B
    assert studio_matches(pattern, rows) == sql_matches(sql, rows) == [(1, 2, 3, 4), (4, 5, 5, 6)]


def test_rising_run_with_a_complement_exit_by_hand() -> None:
    text = ("PATTERN SEQ(Stock+ a[], Stock b) WHERE partition_contiguity AND [symbol] "
            "AND a[i].price > a[i-1].price AND b.price <= a[last].price")
    rows = _rows("SSSS", [1, 2, 3, 2])
    for row in rows:
        row["type"] = "Stock"
    pattern, sql = _converted(text)
    # every start in the run 1, 2, 3 ends at the drop to 2 (row 4)
    assert studio_matches(pattern, rows) == sql_matches(sql, rows) == [(1, 3, 4), (2, 3, 4), (3, 3, 4)]
    pattern, sql = _converted(text + " OUTPUT NON_OVERLAP")
    assert studio_matches(pattern, rows) == sql_matches(sql, rows) == [(1, 3, 4)]


def test_within_is_strict_on_both_sides_by_hand() -> None:
    rows = _rows("AB")
    rows[1]["ts"] = 6  # 5 time units after the A at ts 1
    for window, expected in ((5, []), (6, [(1, 2)])):
        pattern, sql = _converted(f"PATTERN SEQ(A a, B b) WHERE strict_contiguity WITHIN {window}")
        assert studio_matches(pattern, rows) == sql_matches(sql, rows) == expected


def test_fixed_count_equals_three_singletons_by_hand() -> None:
    sql = ("SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS A, FIRST(B.id) AS B_1, "
           "LAST(B.id) AS B_3, C.id AS C AFTER MATCH SKIP TO NEXT ROW PATTERN (A B{3} C) "
           "DEFINE A AS A.type = 'A', B AS B.type = 'B', C AS C.type = 'A')")
    pattern = query_to_pattern(parse_query(sql))
    rows = _rows("ABBBABBA")
    # only row 1 starts A B B B A; row 5 has two Bs after it
    assert sql_matches(sql, rows) == [(1, 2, 4, 5)]
    assert [m[:2] + m[3:] for m in studio_matches(pattern, rows)] == [(1, 2, 4, 5)]
