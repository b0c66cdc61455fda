"""Round trips: studio pattern -> MATCH_RECOGNIZE -> studio pattern gives an equal model, the query
-> pattern -> query gives the same query, and the canonical SQL text reads back to itself."""
from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings

from engine.dsl import parse, to_text
from engine.expr import to_text as expression_text
from engine.model import Pattern, Window, conjuncts_of
from engine.engines.sql.conversion.query_text import query_text
from engine.engines.sql.conversion.refusals import ConversionError
from engine.engines.sql.conversion.to_dsl import query_to_pattern
from engine.engines.sql.conversion.to_sql import pattern_to_sql
from engine.engines.sql.parser import parse_query
from tests.engines.sql.conversion.strategies import sql_queries, studio_patterns

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


def normalized(p: Pattern) -> Pattern:
    """The model with its WHERE split into conjuncts in a fixed order and a unitless window in
    seconds (MATCH_RECOGNIZE's WITHIN has a unit; a numeric ts is in seconds)."""
    where = sorted((c for e in p.where for c in conjuncts_of(e)), key=expression_text)
    window = p.window
    if window is not None and window.unit is None:
        window = Window(value=window.value, unit="s")
    return p.model_copy(update={"where": where, "window": window})


@SETTINGS
@given(studio_patterns())
def test_pattern_to_query_to_pattern_is_equal(text: str) -> None:
    pattern = parse(text)
    try:
        sql = pattern_to_sql(pattern)
    except ConversionError:
        assume(False)
        raise
    back = query_to_pattern(parse_query(sql))
    assert normalized(back) == normalized(pattern), (to_text(pattern), sql, to_text(back))
    assert pattern_to_sql(back) == sql
    assert parse(to_text(back)) == back


@SETTINGS
@given(sql_queries())
def test_query_to_pattern_to_query_is_the_same_query(sql: str) -> None:
    query = parse_query(sql)
    try:
        pattern = query_to_pattern(query)
    except ConversionError:
        assume(False)
        raise
    again = pattern_to_sql(pattern)
    assert query_to_pattern(parse_query(again)) == pattern
    back = parse_query(again)
    assert [k.column for k in back.partition_by] == [k.column for k in query.partition_by]
    assert back.after_match == query.after_match
    assert (back.within or (None,))[0] == (query.within or (None,))[0]
    assert back.variables == [n for v in query.variables for n in _components_of(pattern, v)]


def _components_of(pattern: Pattern, variable: str) -> list[str]:
    """The studio components of a query variable: itself, or V_1 .. V_n for V{n}."""
    names = [c.var for c in pattern.components()]
    return [variable] if variable in names else [n for n in names if n.rsplit("_", 1)[0] == variable]


@SETTINGS
@given(sql_queries())
def test_canonical_text_reads_back_to_itself(sql: str) -> None:
    text = query_text(parse_query(sql))
    assert query_text(parse_query(text)) == text


def test_partition_contiguity_is_partition_by_and_non_overlap_is_skip_past_last_row() -> None:
    sql = pattern_to_sql(parse("PATTERN SEQ(A a, B b) WHERE partition_contiguity AND [symbol] "
                               "WITHIN 5 OUTPUT NON_OVERLAP"))
    query = parse_query(sql)
    assert [k.column for k in query.partition_by] == ["symbol"]
    assert query.after_match == ("past_last", None)
    assert query.within is not None and query.within[0] == 5
    assert pattern_to_sql(parse("PATTERN SEQ(A a, B b) WHERE strict_contiguity")).count("PARTITION BY") == 0
    assert parse_query(pattern_to_sql(parse("PATTERN SEQ(A a, B b) WHERE strict_contiguity"))).after_match == \
        ("next_row", None)


def test_fixed_count_is_that_many_singletons() -> None:
    query = parse_query("SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(B.id) AS b "
                        "PATTERN (A B{3} C) DEFINE A AS A.type = 'A', B AS B.type = 'B' AND B.price > A.price, "
                        "C AS C.type = 'C')")
    pattern = query_to_pattern(query)
    assert [(c.type, c.var, c.quant) for c in pattern.components()] == [
        ("A", "A", "one"), ("B", "B_1", "one"), ("B", "B_2", "one"), ("B", "B_3", "one"), ("C", "C", "one")]
    assert [expression_text(e) for e in pattern.where] == ["B_1.price > A.price", "B_2.price > A.price",
                                                           "B_3.price > A.price"]
