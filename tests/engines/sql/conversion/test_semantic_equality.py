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
    event(f"rows: {min(len(expected), 3)}")
    assert studio_matches(pattern, rows) == expected, pattern
