"""MATCH_RECOGNIZE on Spark (engine/spark/sql_query.py) equals the in-process run: random queries of
every construct over random partitioned data in CSV, JSON Lines and Parquet, and ``cep run --spark``."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import run_query
from engine.engines.sql.table_io import read_table
from engine.spark.sql_query import run_query_on_spark
from tests.engines.sql.test_engine_vs_oracle import queries
from tests.support import run


def write(path: Path, rows: list[tuple[int, int, int]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"id": [i + 1 for i in range(len(rows))], "p": [r[0] for r in rows], "ts": [r[1] for r in rows],
            "x": [r[2] for r in rows]}
    if path.suffix == ".csv":
        path.write_text("id,p,ts,x\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in zip(*cols.values())))
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(dict(zip(cols, v))) + "\n" for v in zip(*cols.values())))
    else:
        pq.write_table(pa.table(cols), path)
    return path


def outcome(fn: Any) -> Any:
    """The rows, or the error's kind: Spark runs partitions in parallel, so the partition (and the
    match in it) that fails first may differ from the in-process run's, which goes in order of first
    appearance."""
    import re

    try:
        return fn().rows
    except SqlRunError as err:
        head = str(err).split(":")[0]  # "AFTER MATCH SKIP TO LAST U", "DEFINE B on row 3 in partition p=1", ...
        return ("error", re.sub(r" (on row|in partition|of match) .*$", "", head))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(queries(), st.sampled_from([".csv", ".jsonl", ".parquet"]), st.integers(0, 10 ** 6))
@example("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES CLASSIFIER() AS k ONE ROW PER MATCH "
         "AFTER MATCH SKIP TO U PATTERN (A) SUBSET U = (A))", ".csv", 1)  # the same error on both sides
def test_spark_equals_in_process(spark: Any, tmp_path_factory: Any, sql: str, suffix: str, seed: int) -> None:
    rnd = random.Random(seed)
    rows = [(rnd.randint(0, 3), rnd.randint(0, 6), rnd.randint(0, 4)) for _ in range(rnd.randint(1, 40))]
    path = write(tmp_path_factory.mktemp("sql") / f"t{suffix}", rows)
    query = parse_query(sql)
    local = outcome(lambda: run_query(query, read_table(path)))
    on_spark = outcome(lambda: run_query_on_spark(query, path, master="local[2]"))
    assert on_spark == local, sql


def test_cep_run_spark(spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "t.csv", [(k % 3, i, (i * 7) % 5) for i, k in enumerate(range(60))])
    q = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES FIRST(A.id) AS a, count(*) AS n "
         "PATTERN (A B+) DEFINE B AS x > PREV(x)) ORDER BY a")
    rc, local, err = run(capsys, "run", q, "--data", str(path), "--format", "jsonl")
    assert rc == 0, err
    rc, remote, err = run(capsys, "run", q, "--data", str(path), "--format", "jsonl", "--spark", "--master",
                          "local[2]")
    assert rc == 0, err
    assert remote == local and local.count("\n") >= 5
    rc, _, err = run(capsys, "run", q.replace("x > PREV(x)", "1 / (x - 4) > 0"), "--data", str(path), "--spark",
                     "--master", "local[2]")
    assert rc == 1 and "division by zero" in err and "partition p=" in err
