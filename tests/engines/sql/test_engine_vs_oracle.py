"""The thread matcher equals the backtracking oracle (engine/engines/sql/oracle.py) on random
queries built from every construct (concatenation, |, groups, * + ? {n} {n,} {,m} {n,m} greedy and
reluctant, ^ $, (), {- -}, PERMUTE; DEFINEs with column references to other variables, PREV / NEXT,
FIRST / LAST with offsets, aggregates, CLASSIFIER, MATCH_NUMBER; SUBSET; every output mode and
AFTER MATCH SKIP; WITHIN) over random partitioned data."""
from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import run_query
from engine.match import StateExplosion
from tests.engines.sql.sql_support import VARS, patterns, table

CONDITIONS = [
    "{v}.x > 2", "{v}.x <= 2", "x = 1", "x <> 1", "{v}.x > PREV({v}.x)", "{v}.x < PREV(x, 2)",
    "x > A.x", "{v}.x >= LAST(B.x)", "x < FIRST(C.x)", "x > FIRST(A.x, 1)", "x > LAST(B.x, 1)",
    "count(A.*) < 3", "sum(B.x) <= 6", "avg(U.x) > 1.5", "max(x) = x", "min(C.x) IS NULL OR x > min(C.x)",
    "CLASSIFIER() = '{v}'", "PREV(CLASSIFIER()) IS NULL OR PREV(CLASSIFIER()) <> '{v}'", "MATCH_NUMBER() < 3",
    "NEXT(x) IS NOT NULL AND NEXT(x) > x", "PREV(LAST(A.x), 1) < x", "x IN (1, 3)", "x BETWEEN 1 AND 2",
    "CASE WHEN x > 2 THEN true ELSE {v}.x = 0 END", "COALESCE(PREV(x), 0) < 3", "count(U.*) = 2",
]

MEASURES = ["CLASSIFIER() AS k", "MATCH_NUMBER() AS m", "count(*) AS n", "FIRST(A.x) AS fa", "LAST(B.id) AS lb",
            "FINAL LAST(C.id) AS fc", "RUNNING count(U.*) AS ru", "sum(x) AS sx", "PREV(A.x) AS pa",
            "array_agg(CLASSIFIER()) AS ks"]


@st.composite
def queries(draw: Any) -> str:
    pattern = draw(patterns())
    present = [v for v in VARS if re.search(rf"\b{v}\b", pattern)]
    if not present:
        pattern, present = f"({pattern}) A", ["A"]
    subset = [v for v in ("A", "B") if v in present]

    def usable(text: str) -> bool:
        names = set(re.findall(r"\b([ABCU])\.", text)) | set(re.findall(r"SKIP TO (?:FIRST |LAST )?([ABCU])", text))
        return all(n in present or (n == "U" and subset) for n in names)
    defines = []
    for v in present:
        if draw(st.booleans()):
            conds = [c.format(v=v) for c in draw(st.lists(st.sampled_from(CONDITIONS), min_size=1, max_size=2))]
            conds = [c for c in conds if usable(c)] or ["true"]
            defines.append(f"{v} AS {' AND '.join(conds)}")
    measures = [m for m in draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=4, unique=True))
                if usable(m)] or ["count(*) AS n"]
    rows = draw(st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL ROWS PER MATCH OMIT EMPTY MATCHES",
                                 "ALL ROWS PER MATCH WITH UNMATCHED ROWS"]))
    if "{-" in pattern and "UNMATCHED" in rows:
        rows = "ALL ROWS PER MATCH"
    if rows.startswith("ALL"):
        measures = [m.replace("FINAL ", "FINAL ") for m in measures]
    else:
        measures = [m.replace("RUNNING ", "") for m in measures]
    skip = draw(st.sampled_from(["", "AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW",
                                 "AFTER MATCH SKIP TO LAST B", "AFTER MATCH SKIP TO FIRST C", "AFTER MATCH SKIP TO U"]))
    if not usable(skip):
        skip = ""
    within = draw(st.sampled_from(["", "", "WITHIN INTERVAL '3' SECOND"]))
    define = ("DEFINE " + ", ".join(defines)) if defines else ""
    subset_text = f"SUBSET U = ({', '.join(subset)})" if subset else ""
    return (f"SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES {', '.join(measures)} {rows} "
            f"{skip} PATTERN ({pattern}) {within} {subset_text} {define})")


data = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3), st.integers(0, 4)), min_size=0, max_size=9)


def outcome(sql: str, rows: list[tuple[int, int, int]], engine: str) -> Any:
    t = table(["id", "p", "ts", "x"], *[(i + 1, p, ts, x) for i, (p, ts, x) in enumerate(rows)])
    try:
        return run_query(parse_query(sql), t, engine).rows
    except SqlRunError as e:
        return ("error", str(e))


@settings(max_examples=int(__import__("os").environ.get("SQL_EXAMPLES", "400")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries(), data)
def test_engine_equals_oracle(sql: str, rows: list[tuple[int, int, int]]) -> None:
    try:
        expected = outcome(sql, rows, "sql-oracle")
    except StateExplosion:
        return
    assert outcome(sql, rows, "sql") == expected, sql


def test_generated_queries_cover_every_construct() -> None:
    """The generator reaches each construct (a test of the test)."""
    from hypothesis import find
    for needle in ("|", "PERMUTE", "{-", "^", "$", "()", "*?", "{1,2}", "{,2}"):
        find(queries(), lambda q, n=needle: n in q.split("PATTERN (")[1].split(") ")[0] if "PATTERN (" in q else False)
