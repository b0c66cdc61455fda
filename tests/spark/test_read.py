"""engine.spark.io: the Spark readers give the same events, seq, schema and validation
report as engine.events.load_events."""
from __future__ import annotations

import json
import random

import pandas as pd
import pytest

import sample_streams
from engine.events import ColumnMapping, DataError, load_events

pytestmark = pytest.mark.spark


def _mapping(name: str) -> ColumnMapping:
    m = sample_streams.load(name).mapping
    return ColumnMapping(**{k: v for k, v in m.items() if not (k == "ts_col" and v is None)})


def _key(e):
    return (e.id, e.type, e.ts, e.seq, e.attrs, e.lower, e.upper)


def assert_same(path, mapping=None, fmt=None):
    from engine.spark.io import read_events

    ref = load_events(path, mapping, fmt=fmt)
    got = read_events(path, mapping, fmt=fmt)
    try:
        assert got.mapping == ref.mapping
        assert [_key(e) for e in got.to_events()] == [_key(e) for e in ref.events]
        assert got.report.format(max_lines=500) == ref.report.format(max_lines=500)
        assert got.report == ref.report
        assert got.schema == ref.schema
        assert got.time_is_datetime == ref.time_is_datetime
        assert got.count == len(ref.events)
    finally:
        got.unpersist()
    return ref


@pytest.mark.parametrize("name", sample_streams.names())
def test_sample_csv(spark, name):
    assert_same(str(sample_streams.load(name).path), _mapping(name))


@pytest.mark.parametrize("name,fmt", [("rfid", "parquet"), ("cluster", "parquet"),
                                      ("chemo", "jsonl"), ("shipments", "jsonl")])
def test_sample_parquet_and_jsonl(spark, tmp_path, name, fmt):
    s = sample_streams.load(name)
    raw = pd.read_csv(s.path, dtype_backend="numpy_nullable")
    path = tmp_path / f"{name}.{fmt}"
    if fmt == "parquet":
        raw.to_parquet(path)
    else:
        raw.to_json(path, orient="records", lines=True)
    assert_same(str(path), _mapping(name))


def _messy_csv(path, n=80, seed=1):
    rng = random.Random(seed)
    lines = ["id,type,ts,x,y,flag"]
    for i in range(n):
        ts = rng.choice([str(i), str(i), str(i - 5), "", "abc", "2024-01-01T00:00:00", f"{i}.5"])
        x = rng.choice(["1", "2.5", "foo", "", "NA", " 7"])
        t = rng.choice(["A", "B", "", "C"])
        idv = rng.choice([str(i), str(i), str(i % 7)])
        lines.append(f"{idv},{t},{ts},{x},{rng.choice('123')},{rng.choice(['True', 'false'])}")
    path.write_text("\n".join(lines) + "\n")


def _messy_jsonl(path, n=80, seed=2):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        r = rng.choice([{"id": i, "type": "A", "ts": i, "x": 1}, {"id": i, "type": "B", "ts": i - 3, "x": "s"},
                        {"type": "A", "ts": i, "x": 1.5, "z": [1, 2]}, "notjson{", [1, 2],
                        {"id": i, "type": None, "ts": i}, {"id": str(i), "type": "C", "ts": "2024-01-01", "seq": 3}])
        out.append(r if isinstance(r, str) else json.dumps(r))
        if i % 10 == 0:
            out.append("   ")
    path.write_text("\n".join(out) + "\n")


def test_bad_rows_reported_like_in_process(spark, tmp_path, split_files, small_batches):
    """Rejected rows, unsorted input (global seq by a range sort), duplicate ids, mixed
    columns, a file split over several tasks: the same report and events."""
    p = tmp_path / "messy.csv"
    _messy_csv(p)
    ref = assert_same(str(p))
    assert not ref.report.ok and not ref.report.sorted_by_ts
    assert any(i.code == "duplicate_id" for i in ref.report.issues)
    q = tmp_path / "messy.jsonl"
    _messy_jsonl(q)
    ref = assert_same(str(q))
    assert any(i.code == "bad_json" for i in ref.report.issues)
    assert_same(str(q), ColumnMapping(id_col="eid"))  # ids become row numbers, with a warning


def test_clean_jsonl_reads_mixed_numbers_as_floats(spark, tmp_path):
    rng = random.Random(3)
    rows = [json.dumps({"id": i, "type": "A", "ts": i, "x": rng.choice([1, 2.5, None])}) for i in range(30)]
    p = tmp_path / "clean.jsonl"
    p.write_text("\n".join(rows[:10]) + "\n\n" + "\n".join(rows[10:]) + "\n")
    assert_same(str(p))


def test_whole_input_errors(spark, tmp_path):
    from engine.spark.io import read_events

    with pytest.raises(DataError, match="file not found"):
        read_events(str(tmp_path / "nope.csv"))
    p = tmp_path / "cols.csv"
    p.write_text("kind,when\nA,1\n")
    with pytest.raises(DataError) as exc:
        read_events(str(p))
    with pytest.raises(DataError) as ref:
        load_events(str(p))
    assert str(exc.value) == str(ref.value)
    q = tmp_path / "wide.csv"
    q.write_text("type,ts\nA,1\nB,2,3\n")
    with pytest.raises(DataError, match="expected 2 fields"):
        read_events(str(q))
    t = tmp_path / "data.txt"
    t.write_text("type,ts\nA,1\n")
    with pytest.raises(DataError, match="extension"):
        read_events(str(t))


def test_values_are_what_the_file_says_like_in_process(spark, tmp_path):
    """NA-like text stays text, control characters and duplicate keys are errors,
    list ids are refused, and messages name file lines: the same on Spark as in-process."""
    from engine.spark.io import read_events

    p = tmp_path / "v.csv"
    p.write_bytes(b"type,ts,id,name\nNA,1,1,NA\nA,2,2,null\nB,3,3,\nC,4,4,a\x00b\nD,5,5,x\x1by\nE,6,2,nan\n")
    ref = assert_same(str(p))
    assert [(e.type, e.attrs) for e in ref.events] == [
        ("NA", {"name": "NA"}), ("A", {"name": "null"}), ("B", {}), ("E", {"name": "nan"})]
    assert [i.format() for i in ref.report.issues] == [
        "line 5 (data row 4), column name: control character U+0000 in the value 'a\\x00b'",
        "line 6 (data row 5), column name: control character U+001B in the value 'x\\x1by'",
        "line 7 (data row 6), column id: duplicate id 2 (first on line 3)",
    ]
    q = tmp_path / "v.jsonl"
    q.write_text('{"type":"A","ts":1,"id":[5]}\n\n{"type":"B","ts":2,"id":2,"type":"C"}\n'
                 '{"type":"B","ts":3,"id":3,"x":{"k":1,"k":2}}\n{"type":"D","ts":4,"id":4}\n')
    ref = assert_same(str(q))
    assert [i.format() for i in ref.report.errors] == [
        "line 1, column id: an id must be one value (a number or a string), not [5]",
        "line 3 (data row 2): duplicate key 'type' in the JSON object",
        "line 4 (data row 3): duplicate key 'k' in the JSON object",
    ]
    d = tmp_path / "d.csv"
    d.write_text("type,ts,x,x\nA,1,2,3\n")
    with pytest.raises(DataError) as exc:
        read_events(str(d))
    with pytest.raises(DataError) as ref_exc:
        load_events(str(d))
    assert str(exc.value) == str(ref_exc.value)
    assert "duplicate column 'x' in the header (line 1): columns 3 and 4" in str(exc.value)
