"""Tests of engine/engines/aseq/output.py: writing A-Seq rows.

- ``write_rows`` in each format (table, CSV, JSON Lines, count) on the same rows: whole floats as
  integers in table and CSV, a list group as JSON, missing as ``null`` (table) or empty (CSV), the
  workload's query column, the row count line;
- a value beyond the float range written as null with a warning naming the row (never for ``count``);
- ``write_parquet`` read back; ``emit_rows`` to stdout, to a file, to Parquet by extension.
"""
from __future__ import annotations

import io
from argparse import Namespace
from pathlib import Path

import pytest

from engine.engines.aseq.output import ROW_COLUMNS, emit_rows, write_parquet, write_rows
from engine.engines.aseq.values import AggRow, TooLarge

ROWS = [AggRow(1.0, "c1", None, 3), AggRow(2.5, "c2", ["k", 1], 2.0), AggRow(3.0, None, "g", TooLarge(10 ** 400)),
        AggRow(4.0, "e", None, 1.5)]
WARNING = ("cep: warning: row 3 (ts 3.0, event None): the aggregate is beyond the float range (about ±1.8e308); "
           "written as null\n")


def written(fmt: str, rows: list[AggRow] = ROWS, workload: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    n = write_rows(rows, fmt, out, workload)
    return n, out.getvalue()


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    n, text = written("table")
    assert n == 4
    assert text == ("ts   event  group     value\n"
                    "1    c1     null      3\n"
                    "2.5  c2     [\"k\", 1]  2\n"
                    "3    null   g         null\n"
                    "4    e      null      1.5\n"
                    "(4 rows)\n")
    assert capsys.readouterr().err == WARNING


def test_table_of_one_row_of_a_workload() -> None:
    n, text = written("table", [AggRow(1.0, "c1", None, 3, "q1")], workload=True)
    assert (n, text) == (1, "query  ts  event  group  value\nq1     1   c1     null   3\n(1 row)\n")
    assert written("table", [])[1] == "ts  event  group  value\n(0 rows)\n"


def test_csv(capsys: pytest.CaptureFixture[str]) -> None:
    n, text = written("csv")
    assert n == 4
    assert text.splitlines() == ["ts,event,group,value", "1,c1,,3", '2.5,c2,"[""k"", 1]",2', "3,,g,", "4,e,,1.5"]
    assert capsys.readouterr().err == WARNING
    big = written("csv", [AggRow(2.0 ** 60, "x", None, 1e300)])[1].splitlines()[1]
    assert big == f"{2.0 ** 60},x,,{1e300}"  # whole floats past 2**53 stay floats


def test_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    n, text = written("jsonl")
    assert n == 4
    assert text.splitlines() == ['{"ts": 1.0, "event": "c1", "group": null, "value": 3}',
                                 '{"ts": 2.5, "event": "c2", "group": ["k", 1], "value": 2.0}',
                                 '{"ts": 3.0, "event": null, "group": "g", "value": null}',
                                 '{"ts": 4.0, "event": "e", "group": null, "value": 1.5}']
    assert capsys.readouterr().err == WARNING
    q = written("jsonl", [AggRow(1, "e", None, 1, "q")], workload=True)[1]
    assert q == '{"query": "q", "ts": 1, "event": "e", "group": null, "value": 1}\n'


def test_count_warns_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert written("count") == (4, "4\n")
    assert capsys.readouterr().err == ""


def test_parquet_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "rows.parquet"
    write_parquet(ROWS, str(path))
    table = pq.read_table(path)
    assert table.column_names == ROW_COLUMNS
    assert table.to_pydict() == {"ts": [1.0, 2.5, 3.0, 4.0], "event": ["c1", "c2", None, "e"],
                                 "group": [None, '["k", 1]', "g", None], "value": [3.0, 2.0, None, 1.5]}
    assert capsys.readouterr().err == WARNING
    write_parquet([AggRow(1.0, 7, 8, 9, "q")], str(path), workload=True)
    assert pq.read_table(path).to_pydict() == {"query": ["q"], "ts": [1.0], "event": ["7"], "group": ["8"],
                                                "value": [9.0]}


def test_emit_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [AggRow(1.0, "c1", None, 3)]
    emit_rows(rows, Namespace(format="csv"), False)
    assert capsys.readouterr().out == "ts,event,group,value\r\n1,c1,,3\r\n"  # the csv module's line ends
    out = tmp_path / "rows.csv"
    emit_rows(rows, Namespace(format="csv", out=str(out)), False)
    assert out.read_bytes() == b"ts,event,group,value\r\n1,c1,,3\r\n"  # the same bytes in a file
    assert capsys.readouterr().out == ""
    pq = pytest.importorskip("pyarrow.parquet")
    for name in ("rows.parquet", "ROWS.PQ"):
        emit_rows(rows, Namespace(format="table", out=str(tmp_path / name)), True)
        assert pq.read_table(tmp_path / name).column_names == ["query"] + ROW_COLUMNS
