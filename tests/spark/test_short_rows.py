"""The Spark CSV reader refuses a record with fewer fields than the header, naming it, as
the in-process readers do (a short record must not load with its missing fields empty)."""
from __future__ import annotations

import pytest

from engine.events import DataError, load_events

pytestmark = pytest.mark.spark

SHORT = "type,id,ts,symbol,price,volume\nStock,1,1,IBM,10,5\nStock,2,2,IBM,11\nStock,3,3,IBM,12,7\n"


def test_spark_refuses_a_short_record_like_in_process(spark, tmp_path):
    from engine.spark.io import read_events

    p = tmp_path / "short.csv"
    p.write_text(SHORT)
    with pytest.raises(DataError, match="expected 6 fields in line 3, saw 5"):
        load_events(str(p))
    with pytest.raises(DataError, match=r"expected 6 fields, saw 5 in the line 'Stock,2,2,IBM,11'"):
        read_events(str(p))


def test_spark_still_reads_blank_lines_and_full_records(spark, tmp_path):
    from engine.spark.io import read_events

    p = tmp_path / "ok.csv"
    p.write_text("type,ts,x\nA,1,2\n\nB,2,\n")
    got = read_events(str(p))
    try:
        ref = load_events(str(p))
        assert [(e.type, e.ts, e.attrs) for e in got.to_events()] == [(e.type, e.ts, e.attrs) for e in ref.events]
    finally:
        got.unpersist()


def test_spark_refuses_interval_bounds_doubles_cannot_hold(spark, tmp_path):
    """In-process, bounds shifted by 2**53 are exact ints; Spark holds bounds as doubles, so
    it refuses those rows with their line instead of rounding them."""
    from engine.events import ColumnMapping
    from engine.spark.io import read_events

    p = tmp_path / "iv.csv"
    p.write_text(f"type,id,lower,upper\nA,a1,1,5\nB,b2,3,6\nB,b1,{2**53 + 1},{2**53 + 3}\n")
    mapping = ColumnMapping(lower_col="lower", upper_col="upper")
    ref = load_events(str(p), mapping)
    assert [(e.id, e.lower) for e in ref.events] == [("a1", 1), ("b2", 3), ("b1", 2**53 + 1)]
    got = read_events(str(p), mapping)
    try:
        assert [e.id for e in got.to_events()] == ["a1", "b2"]
        issues = [(i.row, i.code, i.line) for i in got.report.issues if i.severity == "error"]
        assert issues == [(2, "inexact_bound", 4)]
    finally:
        got.unpersist()
