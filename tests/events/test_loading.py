"""Tests for engine/events/: loading CSV / JSON Lines / Parquet / DataFrames and validation."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from engine.events import (
    ID_COL,
    ROW_COL,
    TS_COL,
    TYPE_COL,
    ColumnMapping,
    DataError,
    Event,
    ValidationIssue,
    ValidationReport,
    guess_mapping,
    load_events,
    make_stream,
    numeric_issues,
    validate_frame,
)

T0 = 1293840000.0  # 2011-01-01T00:00:00Z


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def write_jsonl(tmp_path: Path, name: str, rows: list[dict]) -> Path:
    return write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in rows))


def summary(events: list[Event]) -> list[tuple]:
    return [(e.id, e.type, e.ts, e.seq, e.attrs) for e in events]


# --------------------------------------------------------------------------- good files

def test_csv_numeric_ts(tmp_path):
    p = write(tmp_path, "s.csv", "type,ts,id,price,symbol\n"
                                 "Stock,1,10,100,IBM\nStock,2,11,99.5,SUN\nNews,3,12,,IBM\n")
    r = load_events(p)
    assert summary(r.events) == [
        (10, "Stock", 1.0, 0, {"price": 100.0, "symbol": "IBM"}),
        (11, "Stock", 2.0, 1, {"price": 99.5, "symbol": "SUN"}),
        (12, "News", 3.0, 2, {"symbol": "IBM"}),
    ]
    assert r.report.ok and r.report.issues == []
    assert (r.report.rows_read, r.report.rows_loaded, r.report.rows_rejected) == (3, 3, 0)
    assert r.report.sorted_by_ts is True
    assert r.time_is_datetime is False
    assert r.ids_are_rows is False
    assert r.rows == [0, 1, 2]
    assert r.schema == {"Stock": {"price": "number", "symbol": "string"},
                        "News": {"symbol": "string"}}
    assert all(type(e.ts) is float for e in r.events)
    assert r.report.format() == "read 3 rows: 3 loaded, 0 rejected; 0 errors, 0 warnings"


def test_jsonl_iso_ts_one_hour_is_3600_seconds(tmp_path):
    p = write_jsonl(tmp_path, "e.jsonl", [
        {"type": "A", "ts": "2011-01-01T00:00:00", "x": 1},
        {"type": "B", "ts": "2011-01-01T01:00:00Z", "x": 2},
        {"type": "C", "ts": "2011-01-01T03:00:00+02:00", "x": 3},  # = 01:00Z
    ])
    r = load_events(p)
    assert r.report.ok
    assert r.time_is_datetime is True
    a, b, c = r.events
    assert a.ts == T0  # tz-naive is UTC
    assert b.ts - a.ts == 3600.0
    assert c.ts == b.ts
    assert r.seconds_to_ts(3600) == 3600.0
    assert [e.attrs for e in r.events] == [{"x": 1}, {"x": 2}, {"x": 3}]
    assert all(type(e.attrs["x"]) is int for e in r.events)
    assert [e.id for e in r.events] == [0, 1, 2]  # no id column: row numbers
    assert r.ids_are_rows is True


def test_jsonl_python_path_mixed_types_and_array_form(tmp_path):
    # A column mixing types makes pyarrow give up; the exact Python reader takes over.
    rows = [{"type": "A", "ts": 1, "v": 5}, {"type": "A", "ts": 2, "v": "five"},
            {"type": "B", "ts": 3, "v": True}, {"type": "B", "ts": 4}]
    p = write_jsonl(tmp_path, "m.ndjson", rows)
    r = load_events(p)
    assert [e.attrs for e in r.events] == [{"v": 5}, {"v": "five"}, {"v": True}, {}]
    assert r.schema == {"A": {"v": "mixed"}, "B": {"v": "bool"}}
    q = write(tmp_path, "arr.json", json.dumps(rows))
    r2 = load_events(q)
    assert summary(r2.events) == summary(r.events)


def test_parquet_types_and_nulls(tmp_path):
    table = pa.table({
        "kind": ["A", "B", "A"],
        "time": pa.array([0, 3_600_000_000, 7_200_000_000], pa.timestamp("us")),
        "n": pa.array([1, None, 3], pa.int64()),
        "ok": pa.array([True, False, None]),
        "s": pa.array(["x", None, "z"]),
    })
    p = tmp_path / "e.parquet"
    pq.write_table(table, p)
    r = load_events(p)
    assert r.mapping.type_col == "kind" and r.mapping.ts_col == "time"
    assert r.time_is_datetime is True
    assert [e.ts for e in r.events] == [0.0, 3600.0, 7200.0]
    assert [e.attrs for e in r.events] == [{"n": 1, "ok": True, "s": "x"}, {"ok": False},
                                           {"n": 3, "s": "z"}]
    assert type(r.events[0].attrs["n"]) is int
    assert type(r.events[0].attrs["ok"]) is bool
    assert r.schema == {"A": {"n": "number", "ok": "bool", "s": "string"}, "B": {"ok": "bool"}}


def test_csv_int_column_with_missing_stays_int(tmp_path):
    p = write(tmp_path, "n.csv", "type,ts,qty\nA,1,5\nA,2,\nA,3,7\n")
    r = load_events(p)
    assert [e.attrs for e in r.events] == [{"qty": 5}, {}, {"qty": 7}]
    assert type(r.events[0].attrs["qty"]) is int
    assert r.events[1].get("qty") is None


def test_fmt_overrides_extension_and_tsv(tmp_path):
    p = write(tmp_path, "data.txt", "type,ts\nA,1\n")
    assert summary(load_events(p, fmt="csv").events) == [(0, "A", 1.0, 0, {})]
    t = write(tmp_path, "data.tsv", "type\tts\nA\t1\n")
    assert summary(load_events(t).events) == [(0, "A", 1.0, 0, {})]


# --------------------------------------------------------------------------- whole-file errors

def test_missing_column_names_it_and_suggests(tmp_path):
    p = write(tmp_path, "s.csv", "type,time,price\nA,1,2\n")
    with pytest.raises(DataError) as ei:
        load_events(p, ColumnMapping())
    assert str(ei.value) == ("missing required column 'ts' (time stamp); available columns: "
                             "'type', 'time', 'price'; did you mean 'time'?")
    p2 = write(tmp_path, "t.csv", "tpye,ts\nA,1\n")
    with pytest.raises(DataError, match=r"missing required column 'type' \(event type\).*"
                                        r"did you mean 'tpye'\?"):
        load_events(p2, ColumnMapping())
    p3 = write(tmp_path, "u.csv", "TYPE,ts\nA,1\n")
    with pytest.raises(DataError, match=r"did you mean 'TYPE'\?"):
        load_events(p3, ColumnMapping())


def test_missing_interval_column(tmp_path):
    p = write(tmp_path, "i.csv", "type,lo,hi\nA,1,2\n")
    with pytest.raises(DataError, match=r"missing required column 'upper' \(upper bound\); "
                                        r"available columns: 'type', 'lo', 'hi'; "
                                        r"did you mean 'hi'\?"):
        load_events(p, ColumnMapping(lower_col="lo", upper_col="upper"))


def test_file_level_errors(tmp_path):
    with pytest.raises(DataError, match="file not found: .*nope.csv"):
        load_events(tmp_path / "nope.csv")
    p = write(tmp_path, "x.dat", "type,ts\n")
    with pytest.raises(DataError, match=r"cannot tell the format of 'x.dat'"):
        load_events(p)
    with pytest.raises(DataError, match=r"unknown format 'xml'"):
        load_events(p, fmt="xml")
    garbled = tmp_path / "g.parquet"
    garbled.write_bytes(b"\x00\x01garbage\xff" * 10)
    with pytest.raises(DataError, match=r"cannot read 'g.parquet' as Parquet"):
        load_events(garbled)
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81\x82" * 50)
    with pytest.raises(DataError, match=r"cannot read 'b.csv' as CSV"):
        load_events(binary)
    empty = write(tmp_path, "e.csv", "")
    with pytest.raises(DataError, match=r"'e.csv' is empty"):
        load_events(empty)
    notjson = write(tmp_path, "n.jsonl", "hello\nworld\n")
    with pytest.raises(DataError, match=r"cannot read 'n.jsonl' as JSON Lines: no line is a JSON "
                                        r"object \(line 1: invalid JSON"):
        load_events(notjson)
    ragged = write(tmp_path, "r.csv", "type,ts\nA,1\nB,2,3,4\n")
    with pytest.raises(DataError, match=r"cannot read 'r.csv' as CSV: .*line 3"):
        load_events(ragged)
    assert issubclass(DataError, ValueError)


# --------------------------------------------------------------------------- row-level checks

def test_unparsable_ts_names_row_and_column(tmp_path):
    p = write(tmp_path, "s.csv", "type,ts\nA,2011-01-01T00:00:00\nB,2011-13-45\nC,\n"
                                 "D,2011-01-01T00:00:01\n")
    r = load_events(p)
    assert [e.type for e in r.events] == ["A", "D"]
    assert [i.format() for i in r.report.issues] == [
        "line 3 (data row 2), column ts: cannot parse '2011-13-45' as a number or ISO date-time",
        "line 4 (data row 3), column ts: missing value",
    ]
    assert (r.report.rows_read, r.report.rows_loaded, r.report.rows_rejected) == (4, 2, 2)
    assert not r.report.ok
    assert r.rows == [0, 3]
    assert [e.id for e in r.events] == [0, 3]  # ids are input row numbers, not positions


def test_mixed_numbers_and_datetimes_minority_rejected(tmp_path):
    p = write_jsonl(tmp_path, "m.jsonl", [
        {"type": "A", "ts": "2011-01-01T00:00:00"}, {"type": "A", "ts": 5},
        {"type": "A", "ts": "2011-01-01T00:00:02"}, {"type": "A", "ts": True},
    ])
    r = load_events(p)
    assert [e.ts for e in r.events] == [T0, T0 + 2]
    assert [i.format() for i in r.report.errors] == [
        "line 2, column ts: 5 is a number but this column holds date-times",
        "line 4, column ts: cannot parse True as a number or ISO date-time",
    ]
    q = write(tmp_path, "n.csv", "type,ts\nA,1\nA,2011-01-01\nA,2\n")
    r2 = load_events(q)
    assert [e.ts for e in r2.events] == [1.0, 2.0]
    assert [i.format() for i in r2.report.errors] == [
        "line 3 (data row 2), column ts: '2011-01-01' is a date-time but this column holds numbers"]


def test_missing_and_empty_type(tmp_path):
    p = write_jsonl(tmp_path, "t.jsonl", [
        {"type": "A", "ts": 1}, {"type": "  ", "ts": 2}, {"ts": 3}, {"type": None, "ts": 4},
        {"type": " B ", "ts": 5},
    ])
    r = load_events(p)
    assert [(e.type, e.ts) for e in r.events] == [("A", 1.0), ("B", 5.0)]
    assert [i.format() for i in r.report.issues] == [
        "line 2, column type: empty event type",
        "line 3, column type: missing event type",
        "line 4, column type: missing event type",
    ]
    assert r.report.rows_rejected == 3


def test_interval_events_and_lower_gt_upper(tmp_path):
    p = write(tmp_path, "i.csv", "type,lower,upper,v\nA,1,3,x\nB,5,4,y\nC,2,,z\nD,2,2,w\n")
    m = ColumnMapping(lower_col="lower", upper_col="upper")
    r = load_events(p, m)
    assert [(e.type, e.ts, e.lower, e.upper, e.seq) for e in r.events] == [
        ("A", 1.0, 1.0, 3.0, 0), ("D", 2.0, 2.0, 2.0, 1)]
    assert [i.format() for i in r.report.errors] == [
        "line 3 (data row 2), column lower: lower bound 5 is after upper bound 4 (column upper)",
        "line 4 (data row 3), column upper: missing value",
    ]
    assert guess_mapping(["type", "lower", "upper", "v"]) == m.model_copy(update={"id_col": None})


def test_unsorted_input_sorted_stably(tmp_path):
    p = write(tmp_path, "u.csv", "type,ts,id\nA,3,a\nB,1,b\nC,3,c\nD,1,d\nE,2,e\n")
    r = load_events(p)
    assert [(e.id, e.ts, e.seq) for e in r.events] == [
        ("b", 1.0, 0), ("d", 1.0, 1), ("e", 2.0, 2), ("a", 3.0, 3), ("c", 3.0, 4)]
    assert r.rows == [1, 3, 4, 0, 2]
    assert r.report.sorted_by_ts is False
    assert r.report.ok
    assert [(i.severity, i.column, i.reason) for i in r.report.issues] == [
        ("warning", "ts", "input was not sorted by ts; sorted 5 rows stably, ties keep file order")]


def test_ids_from_column_duplicates_warn(tmp_path):
    p = write(tmp_path, "d.csv", "type,ts,id\nA,1,7\nB,2,8\nC,3,7\nD,4,\n")
    r = load_events(p)
    assert [e.id for e in r.events] == [7, 8, 7]
    assert type(r.events[0].id) is int
    assert [(i.severity, i.format()) for i in r.report.issues] == [
        ("warning", "line 4 (data row 3), column id: duplicate id 7 (first on line 2)"),
        ("error", "line 5 (data row 4), column id: missing id"),
    ]
    assert r.report.ok is False and len(r.report.warnings) == 1


def test_explicit_id_column_absent_uses_row_numbers_with_warning(tmp_path):
    p = write(tmp_path, "d.csv", "type,ts,eventid\nA,1,x\nB,2,y\n")
    r = load_events(p, ColumnMapping(id_col="event_id"))
    assert [e.id for e in r.events] == [0, 1]
    assert [e.attrs for e in r.events] == [{"eventid": "x"}, {"eventid": "y"}]
    assert [i.format() for i in r.report.warnings] == [
        "column event_id: id column 'event_id' not found; ids are the input row numbers "
        "(did you mean 'eventid'?)"]


def test_nan_handling_dataframe():
    df = pd.DataFrame({
        "type": ["A", "A", "B"],
        "ts": [1.0, 2.0, 3.0],
        "f": [1.5, np.nan, 2.5],
        "o": ["x", None, np.nan],
        "i": np.array([1, 2, 3], dtype=np.int64),
        "b": np.array([True, False, True]),
    })
    r = load_events(df)
    assert [e.attrs for e in r.events] == [
        {"f": 1.5, "o": "x", "i": 1, "b": True},
        {"i": 2, "b": False},
        {"f": 2.5, "i": 3, "b": True},
    ]
    for e in r.events:
        for v in e.attrs.values():
            assert type(v) in (int, float, str, bool)
    assert r.events[1].get("f") is None and r.events[1].get("o") is None
    assert r.events[1].get("ts") == 2.0  # built-in field still reachable
    assert r.schema == {"A": {"f": "number", "o": "string", "i": "number", "b": "bool"},
                        "B": {"f": "number", "i": "number", "b": "bool"}}


def test_dataframe_datetime_column_and_index_ignored():
    df = pd.DataFrame({"event": ["A", "B"],
                       "timestamp": pd.to_datetime(["2011-01-01 00:00", "2011-01-01 01:00"]),
                       "eid": [5, 6]}, index=[100, 200])
    r = load_events(df)
    assert r.mapping == ColumnMapping(type_col="event", ts_col="timestamp", id_col="eid")
    assert summary(r.events) == [(5, "A", T0, 0, {}), (6, "B", T0 + 3600, 1, {})]


def test_csv_text_column_numbers_and_numeric_issues(tmp_path):
    p = write(tmp_path, "p.csv", "type,ts,price,flag\nS,1,10,true\nS,2,abc,false\n"
                                 "S,3,2.5,true\nN,4,,\n")
    r = load_events(p)
    assert [e.attrs.get("price") for e in r.events] == [10, "abc", 2.5, None]
    assert type(r.events[0].attrs["price"]) is int
    assert r.schema["S"]["price"] == "mixed"
    issues = r.numeric_issues({"S": {"price"}, "ANY": {"flag"}})
    assert [i.format() for i in issues] == [
        "line 2 (data row 1), column flag: non-numeric value compared numerically: S.flag = True (event id 0)",
        "line 3 (data row 2), column flag: non-numeric value compared numerically: S.flag = False (event id 1)",
        "line 3 (data row 2), column price: non-numeric value compared numerically: S.price = 'abc' "
        "(event id 1)",
        "line 4 (data row 3), column flag: non-numeric value compared numerically: S.flag = True (event id 2)",
    ]
    assert all(i.severity == "error" for i in issues)


def test_numeric_issues_plain_events():
    evs = make_stream([{"type": "A", "ts": 1, "id": "e1", "x": "7"},
                       {"type": "B", "ts": 2, "id": "e2", "x": 3},
                       {"type": "A", "ts": 3, "id": "e3", "x": 4.5}])
    issues = numeric_issues(evs, {"A": {"x"}})
    assert [(i.row, i.column, i.reason) for i in issues] == [
        (None, "x", "non-numeric value compared numerically: A.x = '7' (event id e1)")]
    assert numeric_issues(evs, {"B": {"x"}}) == []
    assert len(numeric_issues(evs, {"ANY": {"x"}}, rows=[4, 5, 6])) == 1
    assert numeric_issues(evs, {"ANY": {"x"}}, rows=[4, 5, 6])[0].row == 4


def test_bad_json_line_is_a_row_error(tmp_path):
    p = write(tmp_path, "b.jsonl", '{"type":"A","ts":1}\n{"type":"B",\n\n[1,2]\n'
                                   '{"type":"C","ts":2}\n')
    r = load_events(p)
    assert [(e.type, e.id) for e in r.events] == [("A", 0), ("C", 3)]
    assert [i.format() for i in r.report.errors] == [
        "line 2: invalid JSON: Expecting property name enclosed in double quotes at column 13",
        "line 4 (data row 3): not a JSON object: [1, 2]",
    ]
    assert (r.report.rows_read, r.report.rows_loaded, r.report.rows_rejected) == (4, 2, 2)


# --------------------------------------------------------------------------- mapping

def test_guess_mapping():
    assert guess_mapping(["Event_Type", "Timestamp", "EID", "price"]) == ColumnMapping(
        type_col="Event_Type", ts_col="Timestamp", id_col="EID")
    assert guess_mapping(["L", "T", "x"]) == ColumnMapping(type_col="L", ts_col="T", id_col=None)
    assert guess_mapping(["kind", "lo", "hi"]) == ColumnMapping(
        type_col="kind", ts_col="ts", id_col=None, lower_col="lo", upper_col="hi")
    # start/end next to a time column are attributes, not bounds
    assert guess_mapping(["type", "time", "start", "end"]) == ColumnMapping(
        type_col="type", ts_col="time", id_col=None)


def test_column_mapping_validation():
    with pytest.raises(ValidationError, match="both lower_col and upper_col"):
        ColumnMapping(lower_col="lo")
    with pytest.raises(ValidationError, match="mapped to more than one role"):
        ColumnMapping(type_col="x", ts_col="x")
    assert ColumnMapping(lower_col="a", upper_col="b").is_interval


def test_ts_unit_and_seconds_to_ts(tmp_path):
    p = write(tmp_path, "ms.csv", "type,ts\nA,0\nA,3600000\n")
    r = load_events(p, ColumnMapping(ts_unit="ms", id_col=None))
    assert [e.ts for e in r.events] == [0.0, 3600000.0]  # numbers stay in their unit
    assert r.seconds_to_ts(3600) == 3600000.0
    # a numeric bound next to a date-time bound is converted with ts_unit
    q = write(tmp_path, "iv.jsonl", json.dumps(
        {"type": "A", "lo": "2011-01-01T00:00:00", "hi": (T0 + 60) * 1000}) + "\n")
    r2 = load_events(q, ColumnMapping(lower_col="lo", upper_col="hi", ts_unit="ms"))
    assert (r2.events[0].lower, r2.events[0].upper) == (T0, T0 + 60)
    assert r2.time_is_datetime is True


def test_builtin_name_columns_warn(tmp_path):
    p = write(tmp_path, "s.csv", "type,ts,seq\nA,1,9\n")
    r = load_events(p)
    assert r.events[0].get("seq") == 9
    assert [i.format() for i in r.report.warnings] == [
        "column seq: column 'seq' is loaded as an attribute and hides the built-in field seq "
        "in predicates"]


# --------------------------------------------------------------------------- validate_frame

def test_validate_frame_offset_and_time_kinds():
    df = pd.DataFrame({"type": ["A", None, "B"], "ts": ["5", "6", "2011-01-01"]})
    vf, issues = validate_frame(df, ColumnMapping(), row_offset=1000)
    assert [(i.row, i.column, i.reason) for i in issues] == [
        (1001, "type", "missing event type"),
        (1002, "ts", "'2011-01-01' is a date-time but this column holds numbers"),
    ]
    assert vf.frame[[ROW_COL, TYPE_COL, TS_COL, ID_COL]].values.tolist() == [[1000, "A", 5.0, 1000]]
    assert vf.rows_read == 3 and vf.rows_rejected == 2 and vf.time_kinds == {"ts": "number"}
    # a later batch of the same input is held to the kind the first batch decided
    df2 = pd.DataFrame({"type": ["A", "A", "A"], "ts": ["2011-01-01", "2011-01-02", "7"]})
    vf2, issues2 = validate_frame(df2, ColumnMapping(), row_offset=3, time_kinds=vf.time_kinds)
    assert [i.row for i in issues2] == [3, 4]
    assert vf2.frame[TS_COL].tolist() == [7.0]


# --------------------------------------------------------------------------- report

def test_report_groups_repetitive_issues_and_truncates(tmp_path):
    lines = ["type,ts"] + [f"A,bad{i}" for i in range(20)] + ["A,1"] + [f",{i + 2}" for i in range(2)]
    r = load_events(write(tmp_path, "r.csv", "\n".join(lines) + "\n"))
    assert r.report.format() == "\n".join([
        "read 23 rows: 1 loaded, 22 rejected; 22 errors, 0 warnings",
        "errors (22):",
        "  line 2 (data row 1), column ts: cannot parse 'bad0' as a number or ISO date-time",
        "  line 3 (data row 2), column ts: cannot parse 'bad1' as a number or ISO date-time",
        "  line 4 (data row 3), column ts: cannot parse 'bad2' as a number or ISO date-time",
        "  ... and 17 more like this in column ts (lines 5, 6, 7, 8, 9, ...)",
        "  line 23 (data row 22), column type: missing event type",
        "  line 24 (data row 23), column type: missing event type",
    ])
    assert r.report.format(max_lines=2) == "\n".join([
        "read 23 rows: 1 loaded, 22 rejected; 22 errors, 0 warnings",
        "errors (22):",
        "  line 2 (data row 1), column ts: cannot parse 'bad0' as a number or ISO date-time",
        "  line 3 (data row 2), column ts: cannot parse 'bad1' as a number or ISO date-time",
        "... and 20 more issues not shown (20 errors, 0 warnings)",
    ])
    assert str(r.report) == r.report.format()


def test_report_properties():
    rep = ValidationReport(issues=[ValidationIssue(row=1, column="x", reason="r", severity="warning"),
                                   ValidationIssue(reason="whole file")],
                           rows_read=2, rows_loaded=2)
    assert rep.ok is False
    assert [i.reason for i in rep.errors] == ["whole file"]
    assert [i.reason for i in rep.warnings] == ["r"]
    assert rep.format() == ("read 2 rows: 2 loaded, 0 rejected; 1 error, 1 warning\n"
                            "errors (1):\n  whole file\nwarnings (1):\n  data row 2, column x: r")


def test_many_rows_load_correctly():
    n = 50_000
    rng = np.random.default_rng(1)
    ts = rng.integers(0, 1000, n)
    df = pd.DataFrame({"type": rng.choice(["A", "B"], n), "ts": ts, "id": np.arange(n),
                       "p": rng.random(n)})
    r = load_events(df)
    assert len(r.events) == n
    assert [e.seq for e in r.events] == list(range(n))
    order = np.argsort(ts, kind="stable")
    assert [e.id for e in r.events] == order.tolist()
    assert all(not math.isnan(e.attrs["p"]) for e in r.events[:10])


def test_every_public_name_resolves_and_records_need_no_pandas():
    import subprocess
    import sys

    import engine.events as ev

    for name in ev.__all__:
        assert getattr(ev, name) is not None, name
    code = ("import sys, engine.events; from engine.events import Event, ColumnMapping, ValidationIssue; "
            "assert 'pandas' not in sys.modules and 'numpy' not in sys.modules, 'pandas imported'; "
            "from engine.events import load_events, can_batch, wants_batches, numeric_issues; "
            "assert 'pandas' not in sys.modules, 'pandas imported by the loader'; "
            "from engine.events import validate_frame, BatchReader; assert 'pandas' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_rules_table_names_every_issue_code_it_reports():
    from engine.events.validation import RULES

    codes = [c for r in RULES for c in r.codes]
    assert len(codes) == len(set(codes))
    assert {"missing_type", "bad_time", "lower_gt_upper", "missing_id", "duplicate_id"} <= set(codes)
    df = pd.DataFrame({"type": ["A", None, "A"], "ts": [1, 2, "x"], "id": [1, 1, 2]})
    _, issues = validate_frame(df, ColumnMapping())
    assert {i.code for i in issues} <= set(codes)
    assert [(i.row, i.code) for i in issues] == [(1, "missing_type"), (2, "bad_time")]


# --------------------------------------------------------------------------- values are what the file says

def test_csv_na_like_text_stays_text_only_an_empty_cell_is_missing(tmp_path):
    p = write(tmp_path, "na.csv", "type,ts,id,name,x\nNA,1,1,NA,1\nA,2,2,null,NaN\nB,3,3,None,\n"
                                  "C,4,4,n/a,nan\nD,5,5,,2\n")
    r = load_events(p)
    assert [(e.type, e.attrs) for e in r.events] == [
        ("NA", {"name": "NA", "x": 1}), ("A", {"name": "null", "x": "NaN"}), ("B", {"name": "None"}),
        ("C", {"name": "n/a", "x": "nan"}), ("D", {"x": 2})]
    assert r.report.issues == []
    assert r.schema["A"] == {"name": "string", "x": "string"}
    # a column that allows no missing value reports the empty cell
    q = write(tmp_path, "e.csv", "type,ts,id\n,1,1\nA,,2\nA,3,\nA,4,4\n")
    r = load_events(q)
    assert [e.id for e in r.events] == [4]
    assert [i.format() for i in r.report.errors] == [
        "line 2 (data row 1), column type: missing event type",
        "line 3 (data row 2), column ts: missing value",
        "line 4 (data row 3), column id: missing id",
    ]


def test_duplicate_csv_header_is_an_error_naming_column_and_line(tmp_path):
    with pytest.raises(DataError, match=r"'d.csv': duplicate column 'x' in the header \(line 1\): "
                                        r"columns 3 and 5"):
        load_events(write(tmp_path, "d.csv", "type,ts,x,y,x\nA,1,2,3,4\n"))
    with pytest.raises(DataError, match=r"duplicate column 'ts' in the header \(line 3\): columns 2 and 3"):
        load_events(write(tmp_path, "d.tsv", "\n\ntype\tts\tts\nA\t1\t2\n"))


def test_duplicate_json_keys_are_row_errors_naming_key_and_line(tmp_path):
    p = write(tmp_path, "k.jsonl", '{"type":"A","ts":1,"x":1,"x":2}\n{"type":"B","ts":2}\n'
                                   '{"type":"C","ts":3,"n":[{"k":1,"k":2}]}\n{"type":"D","ts":4}\n')
    r = load_events(p)
    assert [e.type for e in r.events] == ["B", "D"]
    assert [(i.code, i.format()) for i in r.report.errors] == [
        ("duplicate_key", "line 1: duplicate key 'x' in the JSON object"),
        ("duplicate_key", "line 3: duplicate key 'k' in the JSON object"),
    ]
    arr = write(tmp_path, "a.json", '[{"type":"A","ts":1}, {"type":"B","ts":2,"type":"C"}]')
    r = load_events(arr)
    assert [e.type for e in r.events] == ["A"]
    assert [i.format() for i in r.report.errors] == ["data row 2: duplicate key 'type' in the JSON object"]


def test_ids_must_be_scalars(tmp_path):
    p = write_jsonl(tmp_path, "i.jsonl", [{"type": "A", "ts": 1, "id": [5]}, {"type": "A", "ts": 2, "id": 5},
                                          {"type": "A", "ts": 3, "id": {"k": 1}}, {"type": "A", "ts": 4, "id": "s"}])
    r = load_events(p)
    assert [e.id for e in r.events] == [5, "s"]
    assert [(i.code, i.format()) for i in r.report.errors] == [
        ("bad_id", "line 1, column id: an id must be one value (a number or a string), not [5]"),
        ("bad_id", 'line 3, column id: an id must be one value (a number or a string), not {"k": 1}'),
    ]
    q = tmp_path / "i.parquet"
    pq.write_table(pa.table({"type": ["A", "B"], "ts": [1, 2], "id": [[1], [2, 3]]}), q)
    r = load_events(q)
    assert r.events == []
    assert [i.format() for i in r.report.errors] == [
        "data row 1, column id: an id must be one value (a number or a string), not [1]",
        "data row 2, column id: an id must be one value (a number or a string), not [2, 3]",
    ]


def test_control_characters_are_reported_not_dropped(tmp_path):
    p = tmp_path / "c.csv"
    p.write_bytes(b"type,ts,name\nA,1,a\x00b\nB,2,ok\nC\x01,3,x\nD,4,tab\there\n")
    r = load_events(p)
    assert [(e.type, e.attrs) for e in r.events] == [("B", {"name": "ok"}), ("D", {"name": "tab\there"})]
    assert [(i.code, i.format()) for i in r.report.errors] == [
        ("control_char", "line 2 (data row 1), column name: control character U+0000 in the value 'a\\x00b'"),
        ("control_char", "line 4 (data row 3), column type: control character U+0001 in the value 'C\\x01'"),
    ]
    # with the NUL kept, the value is the file's ('a\x00b', not 'a' as pandas' parser gives)
    from engine.events.formats import read_csv

    assert read_csv(p)["name"].tolist()[0] == "a\x00b"
    j = write(tmp_path, "c.jsonl", '{"type":"A","ts":1,"s":"x\\u0000"}\n{"type":"B","ts":2,"s":"y"}\n')
    r = load_events(j)
    assert [e.type for e in r.events] == ["B"]
    assert [i.format() for i in r.report.errors] == [
        "line 1, column s: control character U+0000 in the value 'x\\x00'"]


def test_line_numbers_count_blank_lines_quoted_line_breaks_and_crlf(tmp_path):
    text = 'type,ts,note\n\nA,1,"two\nlines"\nB,x,\n\n  \nC,y,"say ""hi"""\n'
    r = load_events(write(tmp_path, "l.csv", text))
    assert [i.format() for i in r.report.errors] == [
        "line 5 (data row 2), column ts: cannot parse 'x' as a number or ISO date-time",
        "line 8 (data row 3), column ts: cannot parse 'y' as a number or ISO date-time",
    ]
    crlf = tmp_path / "w.csv"
    crlf.write_bytes(b"type,ts\r\nA,1\r\nB,x\r\n")
    assert [i.line for i in load_events(crlf).report.errors] == [3]
    import gzip

    gz = tmp_path / "g.csv.gz"
    gz.write_bytes(gzip.compress(b"type,ts\n\nA,1\nB,x\n"))
    assert [i.format() for i in load_events(gz).report.errors] == [
        "line 4 (data row 2), column ts: cannot parse 'x' as a number or ISO date-time"]
    js = write(tmp_path, "l.jsonl", '\n{"type":"A","ts":1}\n   \n{"type":"B","ts":"x"}\n')
    assert [i.format() for i in load_events(js).report.errors] == [
        "line 4 (data row 2), column ts: cannot parse 'x' as a number or ISO date-time"]
    df = pd.DataFrame({"type": ["A", "B"], "ts": [1, None]})
    assert [i.format() for i in load_events(df).report.errors] == ["data row 2, column ts: missing value"]


def test_line_index_fast_path_agrees_with_the_scan(tmp_path):
    from engine.events.lines import CsvLines, JsonlLines

    plain = write(tmp_path, "p.csv", "type,ts\n" + "".join(f"A,{i}\n" for i in range(50)))
    quoted = write(tmp_path, "q.csv", "type,ts\n" + "".join(f'"A",{i}\n' for i in range(50)))
    rows = [0, 7, 49, 50]
    assert CsvLines(plain).lines(rows) == {0: 2, 7: 9, 49: 51, 50: 52}
    assert CsvLines(quoted).lines(rows) == {0: 2, 7: 9, 49: 51}  # scanned: row 50 does not exist
    blank = write(tmp_path, "b.jsonl", '{"a":1}\n\n{"a":2}\n{"a":3}\n')
    assert JsonlLines(blank).lines([0, 1, 2]) == {0: 1, 1: 3, 2: 4}


def test_naive_date_time_after_one_with_an_offset_is_utc(tmp_path):
    # pandas 2.3 parses a tz-naive ISO string that follows one with an offset in that offset
    path = tmp_path / "tz.csv"
    path.write_text("type,ts,id\nA,2000-01-01T00:00:00+05:30,1\nB,2000-01-01T00:00:00,2\n"
                    "A,2000-01-01T01:00:00Z,3\nB,2000-01-01 02:00:00,4\n" + "A,x,5\n" * 3)
    frame = pd.read_csv(path, dtype=object)
    for res in (load_events(path), load_events(frame)):
        assert {int(e.id): e.ts for e in res.events} == {1: 946665000.0, 2: 946684800.0, 3: 946688400.0,
                                                   4: 946692000.0}


def test_float_ids_become_ints_only_when_all_are_whole_and_finite(tmp_path):
    whole = load_events(pd.DataFrame({"type": ["A", "B", "A"], "ts": [1, 2, 3], "id": [1.0, None, 3.0]}))
    assert [(e.id, type(e.id)) for e in whole.events] == [(1, int), (3, int)]
    # an infinite id was cast to -9223372036854775808 by astype("Int64"), without a word; it is
    # now an error for its row (no JSON can write it back), and the other ids are ints
    inf = load_events(pd.DataFrame({"type": ["A", "B"], "ts": [1, 2], "id": [1.0, math.inf]}))
    assert [(e.id, type(e.id)) for e in inf.events] == [(1, int)]
    assert [(i.row, i.code) for i in inf.report.issues] == [(1, "infinite_id")]
