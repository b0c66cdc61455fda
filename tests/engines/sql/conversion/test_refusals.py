"""Every construct without an exact counterpart is refused, by its name."""
from __future__ import annotations

import pytest

from engine.dsl import parse
from engine.engines.sql.conversion.refusals import ConversionError
from engine.engines.sql.conversion.to_dsl import query_to_pattern
from engine.engines.sql.conversion.to_sql import pattern_to_sql
from engine.engines.sql.parser import parse_query

STRICT = "WHERE strict_contiguity"


@pytest.mark.parametrize("text, construct", [
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match", "skip_till_next_match"),
    ("PATTERN SEQ(A a, B b)", "skip_till_any_match"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match", "skip_till_any_match"),
    (f"PATTERN SEQ(A a, !C c, B b) {STRICT}", "negation `!C c`"),
    (f"PATTERN SEQ(A a, AND(B b, C c)) {STRICT}", "AND(...)"),
    (f"PATTERN OR(A a, B b) {STRICT}", "OR(...)"),
    (f"PATTERN SEQ(A a, B b) {STRICT} AGG COUNT", "AGG COUNT"),
    (f"PATTERN SEQ(A a, B b) {STRICT} WITHIN 5 events", "WITHIN n events"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity AND [symbol]", "strict_contiguity with [attr]"),
    (f"PATTERN SEQ(A? a, B b) {STRICT}", "optional first component `a`"),
    (f"PATTERN SEQ(A a, B+ b[]) {STRICT}", "`B+` as the last component"),
    (f"PATTERN SEQ(A+ a[], A b) {STRICT}", "`A+ a` followed by `A b` that it does not exclude"),
    (f"PATTERN SEQ(A a, ANY* b[], B c) {STRICT}", "`ANY* b` followed by `B c` that it does not exclude"),
    (f"PATTERN SEQ(A a, B b) {STRICT} AND b.x % 2 = 0", "`%`"),
    (f"PATTERN SEQ(A a, B b) {STRICT} AND b.x / a.x > 1", "`/` by a column"),
    (f"PATTERN SEQ(A+ a[], B b) {STRICT} AND a[i].x > avg(a[..i-1].x)", "`avg(a[..i-1].x)`"),
    (f"PATTERN SEQ(A+ a[], B b) {STRICT} AND a.x < b.x", "unindexed `a.x` of Kleene `a` with another variable"),
    (f"PATTERN SEQ(A+ a[], B b) {STRICT} AND a[i].x < b.x", "`a[i]` in a predicate with a later variable"),
    (f"PATTERN SEQ(A+ a[], B b) {STRICT} AND a.len > 2", "`a.len` in a predicate of `a` itself"),
])
def test_studio_constructs_without_a_match_recognize_form(text: str, construct: str) -> None:
    with pytest.raises(ConversionError) as err:
        pattern_to_sql(parse(text))
    assert err.value.construct == construct
    assert str(err.value).startswith(f"{construct} has no MATCH_RECOGNIZE form")


def query(pattern: str, defines: str = "A AS A.type = 'A'", rest: str = "", measures: str = "A.id AS A",
          select: str = "*", after: str = "") -> str:
    return (f"SELECT {select} FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES {measures} {rest} "
            f"PATTERN ({pattern}) DEFINE {defines}){after}")


@pytest.mark.parametrize("sql, construct", [
    (query("A (B | C)"), "alternation |"),
    (query("PERMUTE(A, B)"), "PERMUTE"),
    (query("A B+? C"), "a reluctant quantifier"),
    (query("^ A B"), "the anchor ^"),
    (query("A B $"), "the anchor $"),
    (query("A (B C)+ D"), "a quantified group"),
    (query("A {- B -} C"), "exclusion {- -}"),
    (query("A B{1,2} C"), "{1,2}"),
    (query("A B{2,} C"), "{2,}"),
    (query("A B", rest="ALL ROWS PER MATCH"), "ALL ROWS PER MATCH"),
    (query("A B", rest="AFTER MATCH SKIP TO FIRST B"), "AFTER MATCH SKIP TO FIRST B"),
    ("SELECT * FROM events MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS A PATTERN (A B) SUBSET U = (A, B) "
     "DEFINE A AS A.type = 'A')", "SUBSET"),
    (query("A B", select="A"), "a SELECT list"),
    (query("A B", after=" ORDER BY A"), "ORDER BY after MATCH_RECOGNIZE"),
    (query("A B", defines="B AS B.price > PREV(B.price)"), "PREV()"),
    (query("A B", measures="CLASSIFIER() AS c"), "CLASSIFIER()"),
    (query("A B+ C", defines="B AS B.type = 'B' AND B.price > LAST(B.price, 1), C AS C.type = 'C'"),
     "LAST(B.price, 1) in its own DEFINE"),
    (query("A B? C", defines="B AS B.type = 'B', C AS C.type = 'C' AND C.x > B.x"), "B.x"),
    (query("A B A"), "variable A used twice"),
    (query("A B+ C", defines="B AS B.price < 15, C AS C.price > 12"),
     "`ANY+ B` followed by `ANY C` that it does not exclude"),
    (query("A B", defines="B AS B.x / 2 > 1"), "`/`"),
])
def test_match_recognize_constructs_without_a_studio_form(sql: str, construct: str) -> None:
    with pytest.raises(ConversionError) as err:
        query_to_pattern(parse_query(sql))
    assert err.value.construct == construct
    assert f"{construct} has no studio pattern form" in str(err.value)


def test_order_by_another_column_is_refused() -> None:
    with pytest.raises(ConversionError, match="ORDER BY price has no studio pattern form"):
        query_to_pattern(parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY price PATTERN (A B) "
                                     "DEFINE A AS A.x > 1)"))
