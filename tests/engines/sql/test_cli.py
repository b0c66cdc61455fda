"""``cep run QUERY.sql``: the JSON Lines contract (keys = output columns in order, exact values),
the same rows in table, CSV and Parquet, inline VALUES, --table, and the errors' exit codes."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.support import run

QUERY = ("SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES FIRST(A.price) AS start, "
         "LAST(B.price) AS bottom, count(B.*) AS n, avg(B.price) AS mean, CLASSIFIER() AS k "
         "ONE ROW PER MATCH PATTERN (A B+ C) DEFINE B AS price < PREV(price), C AS price > PREV(price))")
ROWS = [("x", 1, 10), ("y", 1, 5), ("x", 2, 8), ("x", 3, 7), ("y", 2, 4), ("x", 4, 9), ("y", 3, 6),
        ("x", 5, 9007199254740993)]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    p = tmp_path / "ticks.csv"
    p.write_text("sym,ts,price\n" + "".join(f"{s},{t},{v}\n" for s, t, v in ROWS))
    return p


def test_jsonl_contract(data: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    q = tmp_path / "v.sql"
    q.write_text(QUERY)
    rc, out, err = run(capsys, "run", str(q), "--data", str(data), "--format", "jsonl")
    assert rc == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [list(r) for r in rows] == [["sym", "start", "bottom", "n", "mean", "k"]] * 2
    assert rows == [{"sym": "x", "start": 10, "bottom": 7, "n": 2, "mean": 7.5, "k": "C"},
                    {"sym": "y", "start": 5, "bottom": 4, "n": 1, "mean": 4.0, "k": "C"}]
    assert '"start": 10,' in out and '"mean": 7.5' in out


def test_table_csv_and_parquet_show_the_same_rows(data: Path, capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    rc, out, _ = run(capsys, "run", QUERY, "--data", str(data), "--format", "jsonl")
    want = [json.loads(line) for line in out.splitlines()]
    rc, out, _ = run(capsys, "run", QUERY, "--data", str(data), "--format", "csv")
    got = list(csv.DictReader(io.StringIO(out)))
    assert [{k: str(v) for k, v in r.items()} for r in want] == got
    rc, out, _ = run(capsys, "run", QUERY, "--data", str(data))
    assert out.splitlines()[0].split() == ["sym", "start", "bottom", "n", "mean", "k"]
    assert out.splitlines()[1].split() == ["x", "10", "7", "2", "7.5", "C"] and "(2 rows)" in out
    pq = tmp_path / "out.parquet"
    rc, _, err = run(capsys, "run", QUERY, "--data", str(data), "--format", "parquet", "--out", str(pq))
    assert rc == 0, err
    import pyarrow.parquet as parquet
    assert parquet.read_table(pq).to_pylist() == want


def test_big_integers_stay_exact(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.price AS p PATTERN (A) DEFINE A AS price > 10**0)"
    q = q.replace("10**0", "1000000")
    rc, out, err = run(capsys, "run", q, "--data", str(data), "--format", "jsonl")
    assert rc == 0, err
    assert out.splitlines()[-1] == '{"p": 9007199254740993}'


def test_inline_values_need_no_data(capsys: pytest.CaptureFixture[str]) -> None:
    q = "SELECT * FROM (VALUES (1, 3), (2, 1)) AS t(ts, x) MATCH_RECOGNIZE (ORDER BY ts MEASURES B.x AS b " \
        "PATTERN (A B) DEFINE B AS x < A.x)"
    rc, out, err = run(capsys, "run", q, "--format", "jsonl")
    assert (rc, out) == (0, '{"b": 1}\n'), err


def test_errors(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "run", QUERY.replace("PREV(price)", "PREV(pryce)", 1), "--data", str(data))
    assert rc == 2 and "no column 'pryce'" in err and "did you mean price?" in err and "^" in err
    rc, _, err = run(capsys, "run", QUERY, "--data", str(data), "--table", "other")
    assert rc == 2 and "--table other: the query reads ticks" in err
    rc, _, err = run(capsys, "run", QUERY)
    assert rc == 2 and "give it with --data FILE" in err
    rc, _, err = run(capsys, "run", QUERY, "--data", str(data), "--engine", "nfab")
    assert rc == 2 and "runs studio patterns, not MATCH_RECOGNIZE" in err
    rc, _, err = run(capsys, "run", QUERY.replace("DEFINE B AS", "DEFINE B AS 1 / (price - 4) > 0 AND"),
                     "--data", str(data))
    assert rc == 1 and "division by zero" in err and "partition sym='y'" in err
    rc, _, err = run(capsys, "run", "PATTERN SEQ(A a)", "--format", "parquet", "--data", str(data))
    assert rc == 2 and "parquet is for MATCH_RECOGNIZE" in err
