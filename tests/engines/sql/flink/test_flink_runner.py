"""The Flink runner and driver: their helpers without Flink, one query each way with it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.engines.sql.flink import driver
from engine.engines.sql.flink.runner import (DRIVER, FlinkJob, FlinkRefused, FlinkUnavailable,
                                             flink_python, run_flink, run_flink_many,
                                             unavailable_reason)

REASON = unavailable_reason()
needs_flink = pytest.mark.skipif(REASON is not None, reason=f"Flink unavailable: {REASON}")

COLUMNS = [("id", "BIGINT"), ("price", "DOUBLE"), ("ts", "BIGINT")]
QUERY = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts_time MEASURES A.id AS a, "
         "B.id AS b ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.price > A.price)")


def test_missing_interpreter_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CEP_FLINK_PYTHON", "/nonexistent/python")
    assert flink_python() is None
    assert "/nonexistent/python" in (unavailable_reason() or "")
    with pytest.raises(FlinkUnavailable, match="make flink"):
        run_flink(QUERY, "t", COLUMNS, [], "ts")


def test_interpreter_without_pyflink_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CEP_FLINK_PYTHON", sys.executable)
    with pytest.raises(FlinkUnavailable, match="No module named 'pyflink'"):
        run_flink_many([FlinkJob(QUERY, "t", COLUMNS, [], "ts")], timeout=60)


def test_job_checks_types_and_mode() -> None:
    with pytest.raises(ValueError, match="INT"):
        FlinkJob(QUERY, "t", [("id", "INT")], [], "id").to_json(0)
    with pytest.raises(ValueError, match="mode"):
        FlinkJob(QUERY, "t", COLUMNS, [], "ts", mode="micro").to_json(0)
    job = FlinkJob(QUERY, "t", COLUMNS, [(1, 2.0, 3)], "ts").to_json(7)
    assert job["id"] == 7 and job["rows"] == [[1, 2.0, 3]]


def test_rows_are_typed_and_stably_sorted(tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    data.write_text("id,price,ts,up\n1,2.5,20,true\n2,,10,false\n3,4,10,\n", encoding="utf-8")
    columns = driver.parse_columns("id:BIGINT,price:DOUBLE,ts:BIGINT,up:BOOLEAN")
    rows = driver.typed_rows(driver.read_rows(data), columns, "ts")
    assert rows == [{"id": 2, "price": None, "ts": 10, "up": False},
                    {"id": 3, "price": 4.0, "ts": 10, "up": None},
                    {"id": 1, "price": 2.5, "ts": 20, "up": True}]
    assert driver.convert("", "STRING", "s") == "" and driver.convert(" ", "DOUBLE", "x") is None
    with pytest.raises(driver.JobError, match="not a BIGINT"):
        driver.typed_rows([{"id": "x", "ts": 1}], [("id", "BIGINT"), ("ts", "BIGINT")], "ts")
    with pytest.raises(driver.JobError, match="must be BIGINT"):
        driver.typed_rows([], [("ts", "DOUBLE")], "ts")


def test_table_has_the_rowtime_column(tmp_path: Path) -> None:
    ddl = driver.table_ddl("t", COLUMNS, "ts", "ts_time", tmp_path)
    assert "`ts_time` AS TO_TIMESTAMP_LTZ(`ts`, 3)" in ddl
    assert "WATERMARK FOR `ts_time` AS `ts_time` - INTERVAL '0.001' SECOND" in ddl
    assert "'format' = 'json'" in ddl


def test_values_and_timestamps_as_json() -> None:
    assert driver.stamp_ms("1970-01-01 00:00:00.010") == 10
    assert driver.stamp_ms("2024-01-01 00:00:01.123456789") == 1704067201123
    assert driver.to_json(float("nan")) is None and driver.to_json(3) == 3


def test_refusal_message_is_the_telling_line() -> None:
    trace = ("An error occurred while calling o8.executeSql.\n"
             ": org.apache.flink.table.api.TableException: Cannot generate a valid execution"
             " plan for the given query: \n\tat Foo.bar(Foo.java:1)\n"
             "Caused by: org.apache.flink.table.api.TableException: All rows per match mode"
             " is not supported yet.\n\tat Baz.qux(Baz.java:2)\n")
    info = driver.error_info(RuntimeError(trace))
    assert info["message"] == "All rows per match mode is not supported yet."
    assert info["type"] == "TableException" and len(info["chain"]) == 3


@needs_flink
def test_timeout_kills_the_driver() -> None:
    with pytest.raises(FlinkUnavailable, match="did not finish"):
        run_flink_many([FlinkJob(QUERY, "t", COLUMNS, [], "ts")], timeout=0.5)


@needs_flink
def test_run_flink_reads_a_csv_file(tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    data.write_text("id,price,ts\n1,5,1\n2,6,2\n3,4,3\n4,7,4\n", encoding="utf-8")
    result = run_flink(QUERY, "t", COLUMNS, data, "ts", mode="streaming", timeout=300)
    assert result.rows == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert result.columns == ["a", "b"] and result.version == "2.3.0"


@needs_flink
def test_driver_cli_refusal_is_json_with_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": 1, "price": 1.0, "ts": 1}\n', encoding="utf-8")
    python = flink_python()
    assert python is not None
    refused = QUERY.replace("B.price > A.price", "B.price > PREV(B.price)")
    done = subprocess.run([str(python), str(DRIVER), "--query", refused, "--table", "t",
                           "--columns", "id:BIGINT,price:DOUBLE,ts:BIGINT",
                           "--order-column", "ts", "--rows", str(data)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    error = json.loads(done.stdout.strip().splitlines()[-1])["__error__"]
    assert error["message"] == "Flink does not support physical offsets within partition."
    assert isinstance(FlinkRefused(error["message"]), Exception)
