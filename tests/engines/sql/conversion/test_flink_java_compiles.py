"""The FlinkCEP programs compile: javac (when installed) checks them against stand-ins with Flink's
signatures (flink_stubs.py), for hand-written queries and for converted random studio patterns."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.dsl import parse
from engine.engines.sql.conversion.flink_java import to_flink_java
from engine.engines.sql.conversion.refusals import ConversionError
from engine.engines.sql.conversion.to_sql import pattern_to_sql
from engine.engines.sql.parser import parse_query
from tests.engines.sql.conversion.flink_stubs import STUBS
from tests.engines.sql.conversion.strategies import studio_patterns

pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")

QUERIES = [
    "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY symbol, venue ORDER BY ts MEASURES FIRST(B.id) AS b_first, "
    "LAST(B.price, 1) AS p, COUNT(B.*) AS n, AVG(B.price) AS av, MAX(B.price) AS mx, FINAL LAST(C.id) AS c "
    "AFTER MATCH SKIP TO LAST B PATTERN (A B+ C? D{2} E{1,3} F) WITHIN INTERVAL '90' MINUTE "
    "DEFINE A AS A.type = 'it''s \"q\" \\u000a */', "
    "B AS (COUNT(B.*) = 1 OR B.price > LAST(B.price, 1)) AND B.price - A.price >= -2.5 AND SUM(B.x) < 100, "
    "C AS NOT COALESCE(C.x = 1, FALSE) AND C.y IS NULL AND MIN(B.price) <= C.price, "
    "D AS CAST(D.x AS DOUBLE) / 3 > 0.5 OR D.x * 2 <> FIRST(B.x), E AS TRUE, F AS F.x = 1)",
    "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a AFTER MATCH SKIP TO NEXT ROW "
    "PATTERN (A B) DEFINE A AS A.x > 1)",
]


def compile_programs(tmp_path: Path, programs: dict[str, str]) -> None:
    files = []
    for path, text in STUBS.items():
        target = tmp_path / "src" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        files.append(str(target))
    for name, text in programs.items():
        target = tmp_path / "src" / f"{name}.java"
        target.write_text(text, encoding="utf-8")
        files.append(str(target))
    done = subprocess.run(["javac", "-nowarn", "-d", str(tmp_path / "out"), *files], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def test_hand_written_queries_compile(tmp_path: Path) -> None:
    programs = {f"Query{k}": to_flink_java(parse_query(sql), f"Query{k}")[0] for k, sql in enumerate(QUERIES)}
    compile_programs(tmp_path, programs)


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(studio_patterns(), min_size=25, max_size=25))
def test_converted_studio_patterns_compile(tmp_path: Path, texts: list[str]) -> None:
    programs = {}
    for k, text in enumerate(texts):
        try:
            sql = pattern_to_sql(parse(text))
            programs[f"Pattern{k}"] = to_flink_java(parse_query(sql), f"Pattern{k}")[0]
        except ConversionError:
            continue
    compile_programs(tmp_path, programs)
