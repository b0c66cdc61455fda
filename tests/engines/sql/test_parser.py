"""The MATCH_RECOGNIZE parser: every clause, the row pattern's tree, and errors with line, column,
caret and a suggestion."""
from __future__ import annotations

import pytest

from engine.engines.sql.detect import is_sql
from engine.engines.sql.errors import SqlError
from engine.engines.sql.parser import parse_query
from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Permute, Quantified, Var, render
from engine.engines.sql.run import Table, run_query

FULL = """-- a V shape
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY tstamp DESC NULLS LAST
  MEASURES FIRST(A.price) AS start_price, RUNNING LAST(B.price) AS low, FINAL count(*) AS n
  ALL ROWS PER MATCH WITH UNMATCHED ROWS
  AFTER MATCH SKIP TO LAST B
  PATTERN (^ A B+? (C | D){2,3} PERMUTE(X, Y) $)
  WITHIN INTERVAL '10' MINUTE
  SUBSET U = (A, B)
  DEFINE B AS B.price < PREV(B.price), "c" AS true  /* quoted: lower case */
) AS m ORDER BY symbol;"""


def test_every_clause_is_read() -> None:
    q = parse_query(FULL.replace('"c" AS true', "C AS true"))
    assert q.table == "ticker" and q.alias == "m"
    assert [k.column for k in q.partition_by] == ["symbol"]
    assert (q.order_by[0].column, q.order_by[0].descending, q.order_by[0].nulls_first) == ("tstamp", True, False)
    assert [m.name for m in q.measures] == ["start_price", "low", "n"]
    assert (q.rows_per_match, q.empty_matches) == ("all", "unmatched")
    assert q.after_match == ("last", "B")
    assert q.within == (600.0, "WITHIN INTERVAL '10' MINUTE")
    assert q.subsets == {"U": ("A", "B")}
    assert list(q.defines) == ["B", "C"]
    assert [k.column for k in q.final_order] == ["symbol"]
    assert q.variables == ["A", "B", "C", "D", "X", "Y"]


def test_the_row_pattern_tree() -> None:
    q = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (^ A B+? (C | D){2,3} {- E -} "
                    "PERMUTE(X, Y) () $) DEFINE A AS true)")
    assert q.pattern == Concat((Anchor("^"), Var("A", q.pattern.parts[1].offset),
                                Quantified(Var("B", q.pattern.parts[2].body.offset), 1, None, False),
                                Quantified(Alt((Var("C", q.pattern.parts[3].body.options[0].offset),
                                                Var("D", q.pattern.parts[3].body.options[1].offset))), 2, 3, True),
                                Exclusion(Var("E", q.pattern.parts[4].body.offset)),
                                Permute((Var("X", q.pattern.parts[5].items[0].offset),
                                         Var("Y", q.pattern.parts[5].items[1].offset))),
                                Empty(), Anchor("$")))
    assert render(q.pattern) == "^ A B+? (C | D){2,3} {- E -} PERMUTE(X, Y) () $"


@pytest.mark.parametrize("text", ["A{,3}", "A{2,}", "A{2}", "A??", "A*?", '"b"+', "(A B)+ C"])
def test_quantifiers_render_as_written(text: str) -> None:
    q = parse_query(f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN ({text}))")
    assert render(q.pattern) == text


def test_a_quoted_variable_keeps_its_case() -> None:
    q = parse_query(FULL)
    assert "c" in q.defines and q.variables[2:4] == ["C", "D"]


@pytest.mark.parametrize("sql, where, message", [
    ("SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS x > 1)", (1, 33), "needs ORDER BY"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A B+*) DEFINE A AS x > 1)", (1, 59),
     "cannot follow another quantifier"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A (B) DEFINE A AS x > 1)", (1, 61), "expected ')'"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS x BETWEEN 1)", (1, 80), "cannot read"),
    ("SELECT * FROM t WHERE x > 1", (1, 17), "WHERE is not supported"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A{3,1}))", (1, 56), "upper bound is below"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts\n  DEFINE A AS x > 1\n  PATTERN (A))", (3, 3),
     "PATTERN comes after DEFINE"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x PATTERN (A))", (1, 55), "needs a name"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (^*))", (1, 56), "cannot be quantified"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS 'x", (1, 70), "never closed"),
    ("", None, "the query is empty"),
])
def test_errors_give_line_column_and_caret(sql: str, where: tuple[int, int] | None, message: str) -> None:
    with pytest.raises(SqlError) as info:
        parse_query(sql)
    err = info.value
    assert message in str(err)
    if where is not None:
        assert (err.line, err.column) == where, str(err)
        assert "^" in str(err).splitlines()[-1]


@pytest.mark.parametrize("define, message, hint", [
    ("A AS pricee > 1", "no column 'pricee'", "did you mean price?"),
    ("A AS Z.price > 1", "Z is not a pattern variable", "the pattern variables are A, B"),
    ("A AS FINAL LAST(A.price) > 1", "FINAL is only allowed in MEASURES", None),
    ("A AS price > PREV(price, x)", "must be a whole number literal", None),
    ("A AS sum(A.price + B.price) > 1", "must name the same variable", None),
    ("A AS foo(price)", "unknown function foo", None),
    ("C AS price > 1", "the pattern has no variable C", None),
])
def test_binding_errors_name_the_place(define: str, message: str, hint: str | None) -> None:
    q = parse_query(f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A+ B) DEFINE {define})")
    with pytest.raises(SqlError) as info:
        run_query(q, Table(["ts", "price"], [{"ts": 1, "price": 2}]))
    assert message in str(info.value)
    if hint:
        assert hint in str(info.value)


def test_inline_values_and_sql_detection() -> None:
    q = parse_query("SELECT * FROM (VALUES (1, 'a', -2.5, TRUE, NULL)) AS t(ts, s, x, b, n) MATCH_RECOGNIZE "
                    "(ORDER BY ts MEASURES A.s AS s, A.x AS x, A.b AS b, A.n AS n PATTERN (A))")
    assert q.values == [[1, "a", -2.5, True, None]] and q.value_columns == ["ts", "s", "x", "b", "n"]
    assert is_sql("-- c\n/* d */ select 1") and not is_sql("PATTERN SEQ(A a)") and not is_sql("SELECTED")
