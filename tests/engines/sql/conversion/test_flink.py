"""Flink SQL and FlinkCEP Java: what Flink 2.3 refuses is refused by name, each construct where its
rows differ is warned about, and user text reaches the Java program only escaped."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, strategies as st

from engine.engines.sql.conversion.flink_java import java_comment, to_flink_java
from engine.engines.sql.conversion.flink_sql import to_backticks, to_flink_sql
from engine.engines.sql.conversion.java_support import java_string
from engine.engines.sql.conversion.refusals import ConversionError
from engine.engines.sql.parser import parse_query


def query(pattern: str, defines: str = "A AS A.type = 'A'", rest: str = "", measures: str = "A.id AS a",
          within: str = "", subset: str = "") -> str:
    return (f"SELECT * FROM events MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES {measures} {rest} "
            f"PATTERN ({pattern}) {within} {subset} DEFINE {defines})")


@pytest.mark.parametrize("sql, construct", [
    (query("A (B | C)"), "alternation |"),
    (query("A (B C)+ D"), "a quantified group ((B C)+)"),
    (query("PERMUTE(A, B) C"), "PERMUTE"),
    (query("A {- B -} C"), "exclusion {- -}"),
    (query("A B", rest="ALL ROWS PER MATCH"), "ALL ROWS PER MATCH"),
    (query("A B", measures="CLASSIFIER() AS c"), "CLASSIFIER()"),
    (query("A B", measures="MATCH_NUMBER() AS n"), "MATCH_NUMBER()"),
    (query("A B", defines="B AS B.price > PREV(B.price)"), "PREV()"),
    (query("A B", defines="A AS NEXT(A.price) > 1"), "NEXT()"),
    (query("A B?? C"), "a reluctant quantifier (B??)"),
    (query("A B{,3} C"), "{,3} (B{,3})"),
    (query("A B A"), "variable A used twice"),
    (query("A B+"), "a greedy quantifier last (B+)"),
    (query("A? B*"), "a greedy quantifier last (B*)"),
    (query("A? B?", rest=""), "a greedy quantifier last (B?)"),
    ("SELECT * FROM (VALUES (1, 2)) AS t(ts, x) MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS x > 1)",
     "an inline VALUES table"),
])
def test_what_flink_refuses_is_refused_by_name(sql: str, construct: str) -> None:
    with pytest.raises(ConversionError) as err:
        to_flink_sql(parse_query(sql))
    assert err.value.construct == construct
    assert str(err.value).startswith(f"{construct} has no Flink SQL form")
    with pytest.raises(ConversionError):
        to_flink_java(parse_query(sql))


def test_a_pattern_that_can_be_empty_is_refused() -> None:
    with pytest.raises(ConversionError, match="a pattern that can match no rows"):
        to_flink_sql(parse_query(query("A? ^", defines="A AS A.x > 1")))


def warnings_of(sql: str) -> list[str]:
    return to_flink_sql(parse_query(sql)).warnings


def test_possessive_greedy_is_warned_unless_the_next_variable_excludes_the_loop() -> None:
    issue = query("A B+ C", "A AS A.price = 20, B AS B.price < 15, C AS C.price > 12", within="WITHIN INTERVAL '9' SECOND")
    assert any(w.startswith("possessive greedy B+") for w in warnings_of(issue))
    complement = query("A B+ C", "B AS B.price < 15, C AS C.price >= 15", within="WITHIN INTERVAL '9' SECOND")
    assert not any(w.startswith("possessive") for w in warnings_of(complement))
    rising = query("A B+ C", "B AS (COUNT(B.*) = 1 OR B.price > LAST(B.price, 1)), C AS C.price <= LAST(B.price)",
                   within="WITHIN INTERVAL '9' SECOND")
    assert not any(w.startswith("possessive") for w in warnings_of(rising))
    types = query("A B+ C", "B AS B.type = 'B', C AS C.type = 'C'", within="WITHIN INTERVAL '9' SECOND")
    assert not any(w.startswith("possessive") for w in warnings_of(types))


def test_each_listed_deviation_is_warned() -> None:
    held = warnings_of(query("A B+ C", "B AS B.type = 'B', C AS C.type = 'C'"))
    assert any(w.startswith("held-back matches") for w in held)
    assert not any(w.startswith("held-back") for w in warnings_of(
        query("A B+ C", "B AS B.type = 'B', C AS C.type = 'C'", within="WITHIN INTERVAL '5' SECOND")))
    assert any(w.startswith("B{1,2}: Flink can miss a match") for w in warnings_of(query("A B{1,2} C")))
    assert any(w.startswith("SUBSET") for w in warnings_of(query("A B", subset="SUBSET S = (A, B)")))
    assert any(w.startswith("the anchor ^") for w in warnings_of(query("^ A B")))
    assert any(w.startswith("tie order in batch mode") for w in warnings_of(query("A B")))
    assert warnings_of(query("A B{3} C")) == [warnings_of(query("A B"))[-1]]  # fixed length: only the tie order


def test_flink_sql_orders_by_the_time_attribute_and_heads_the_warnings() -> None:
    flink = to_flink_sql(parse_query(query("A B+ C", "B AS B.s = 'it''s \"x\"', C AS C.type = 'C'")))
    lines = flink.text.splitlines()
    assert lines[:len(flink.warnings)] == [f"-- WARNING: {w}" for w in flink.warnings]
    assert lines[len(flink.warnings)].startswith("-- ORDER BY ts_time: ")
    assert "  ORDER BY `ts_time`" in lines
    assert "  PARTITION BY `symbol`" in lines
    assert "`B`.`s` = 'it''s \"x\"'" in flink.text


def test_backticks_leave_string_literals_alone() -> None:
    assert to_backticks('"a"."b c" = \'x"y\' AND "q""r" = 1') == '`a`.`b c` = \'x"y\' AND `q"r` = 1'


def test_flink_java_program() -> None:
    sql = query("A B+ C", "A AS A.type = 'A', B AS B.type = 'B' AND (COUNT(B.*) = 1 OR B.price > LAST(B.price, 1)), "
                "C AS C.type = 'C' AND C.price < FIRST(B.price)", within="WITHIN INTERVAL '5' SECOND",
                measures="FIRST(B.id) AS b_first, LAST(B.id) AS b_last, COUNT(B.*) AS n")
    program, warnings = to_flink_java(parse_query(sql))
    assert 'Pattern.<Row>begin("A", AfterMatchSkipStrategy.skipPastLastEvent()).where(new Condition0())' in program
    assert '.next("B").where(new Condition1()).oneOrMore().consecutive().greedy()' in program
    assert '.within(Duration.ofMillis(5000L))' in program
    assert "static final class Condition0 extends SimpleCondition<Row>" in program
    assert "static final class Condition1 extends IterativeCondition<Row>" in program
    assert 'Sql.last(Sql.rows(ctx, "B", value), "price", 1)' in program
    assert 'Sql.first(Sql.rows(ctx, "B", null), "price", 0)' in program
    assert 'out.setField("n", Sql.count(Sql.taken(match, "B")));' in program
    assert "keyBy(row -> String.valueOf(row.getField(\"symbol\")))" in program
    assert program.count("{") == program.count("}")
    assert any(w.startswith("tie order") for w in warnings)


def test_flink_java_skip_strategies_and_quantifiers() -> None:
    program, _ = to_flink_java(parse_query(query("A B{3} C? D", rest="AFTER MATCH SKIP TO LAST B")))
    assert 'AfterMatchSkipStrategy.skipToLast("B")' in program
    assert '.next("B").where(new Condition1()).times(3).consecutive()' in program
    assert '.next("C").where(new Condition2()).optional()' in program
    program, _ = to_flink_java(parse_query(query("A B", rest="AFTER MATCH SKIP TO NEXT ROW")))
    assert "AfterMatchSkipStrategy.skipToNext()" in program


def _decode_java(literal: str) -> str:
    assert literal[0] == literal[-1] == '"'
    body, out, k = literal[1:-1], [], 0
    while k < len(body):
        ch = body[k]
        assert ch != '"' and 32 <= ord(ch) < 127
        if ch == "\\":
            nxt = body[k + 1]
            if nxt == "u":
                out.append(chr(int(body[k + 2:k + 6], 16)))
                k += 6
                continue
            assert nxt in '"\\'
            out.append(nxt)
            k += 2
            continue
        out.append(ch)
        k += 1
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


@given(st.text())
def test_java_string_literals_escape_everything(text: str) -> None:
    literal = java_string(text)
    assert _decode_java(literal) == text
    assert not re.search(r'(?<!\\)(\\\\)*"', literal[1:-1])


@given(st.text())
def test_java_comments_cannot_be_closed_or_broken(text: str) -> None:
    comment = java_comment(text)
    assert "*/" not in comment and "\n" not in comment and "\r" not in comment
    assert not re.search(r"(?<!\\)(\\\\)*\\u", comment)


def test_hostile_literal_in_a_condition() -> None:
    program, _ = to_flink_java(parse_query(query("A B", "A AS A.s = 'x\"); System.exit(1); //\\u000a */'")))
    assert 'Sql.eq(value.getField("s"), "x\\"); System.exit(1); //\\\\u000a */")' in program
