"""Bounded memory and streamed output: reading a file in batches
gives what loading it whole gives; `cep run` writes each match as it is produced, stops on
an unsorted file, on bad rows and on its memory limit with messages that say where and why;
what `cep stream` does with each file and how its committed output is read back; the app's
upload cap and error wrapper."""
from __future__ import annotations

import gc
import io
import json
import random
from pathlib import Path

import pytest

from tests.support import run
from engine.dsl import parse
from engine.events import BatchReader, ColumnMapping, DataError, Unsorted, load_events
from engine.events.formats import check_csv_fields
from engine.match import Match
from engine.memory import MemoryGuard, MemoryLimit, parse_size
from engine.commands.output import TABLE_MAX_ROWS, MatchWriter, format_matches, json_default, match_json


def write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


def ev(e) -> tuple:
    return (e.id, e.type, e.ts, e.seq, sorted(e.attrs.items()), e.lower, e.upper)


def read_batched(path: Path, **kw) -> tuple[list, list[int], BatchReader]:
    r = BatchReader(path, **kw)
    events, rows = [], []
    for b in r:
        events += b.events
        rows += b.rows
    return events, rows, r


# --------------------------------------------------------------------------- batches = whole file

CSV = (
    "\n"                                     # a blank line before the header
    "id,type,ts,x,name,flag\n"
    "1,A,1,5,NA,true\n"
    "2,B,2,x7,\"two\nlines\",false\n"        # a quoted cell over two lines
    "3,A,3,,null,true\n"
    "\n"
    "4,B,oops,6,n/a,false\n"                 # bad ts
    "5,,5,7,e,true\n"                        # missing type
    "2,A,6,2.5,dup,true\n"                   # duplicate id (first on line 4)
    "7,B,7,8,,\n"                            # empty cells: missing values
    "8,A,8,9,ctl\x00here,true\n"             # a NUL: control character error
    "9,B,9,-1,z,false\n"
    "1,A,10,3,dup again,true\n"              # duplicate id (first on line 3)
)


def assert_batches_equal_whole(p, batch_rows: int):
    """Read in batches of ``batch_rows``, ``p`` gives the events, rows and report (issues and
    summary) of loading it whole; returns (whole, batched reader, batched report)."""
    whole = load_events(p)
    events, rows, r = read_batched(p, batch_rows=batch_rows)
    assert [ev(e) for e in events] == [ev(e) for e in whole.events]
    assert rows == whole.rows
    got, want = r.report(), whole.report
    assert [i.format() for i in got.issues] == [i.format() for i in want.issues]
    assert got.summary() == want.summary()
    return whole, r, got


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 4, 1000])
def test_csv_batches_give_the_whole_file_events_and_report(tmp_path, batch_rows):
    p = write(tmp_path, "d.csv", CSV)
    whole, r, got = assert_batches_equal_whole(p, batch_rows)
    assert r.schema() == whole.schema
    assert any(i.format() == "line 10 (data row 6), column id: duplicate id 2 (first on line 4)"
               for i in got.issues)


JSONL_LINES = [
    '{"id": 1, "type": "A", "ts": 1, "x": 5}',
    '',
    '{"id": 2, "type": "B", "ts": 2, "x": "NA"}',
    'not json',
    '[1, 2]',
    '{"id": 3, "type": "A", "ts": 3, "x": 1, "x": 2}',
    '{"id": [4], "type": "B", "ts": 4}',
    '{"id": 5, "type": "A", "ts": "2011-01-01", "x": 3}',
    '{"id": 1, "type": "B", "ts": 6, "y": true}',
    '{"type": "A", "ts": 7, "x": 9}',
]


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 1000])
def test_jsonl_batches_give_the_whole_file_events_and_report(tmp_path, batch_rows):
    p = write(tmp_path, "d.jsonl", "\n".join(JSONL_LINES) + "\n")
    assert_batches_equal_whole(p, batch_rows)


def test_parquet_batches_give_the_whole_file_events(tmp_path):
    import pandas as pd

    rng = random.Random(3)
    n = 1000
    df = pd.DataFrame({"id": range(n), "type": [rng.choice("AB") for _ in range(n)],
                       "ts": sorted(rng.random() * 100 for _ in range(n)),
                       "x": [rng.choice([None, 1.5, 2.0]) for _ in range(n)]})
    df.loc[17, "type"] = None
    p = tmp_path / "d.parquet"
    df.to_parquet(p)
    whole = load_events(p)
    events, rows, r = read_batched(p, batch_rows=64)
    assert [ev(e) for e in events] == [ev(e) for e in whole.events]
    assert [i.format() for i in r.report().issues] == [i.format() for i in whole.report.issues]


def test_an_out_of_order_row_is_an_error_naming_both_lines(tmp_path):
    p = write(tmp_path, "u.csv", "type,ts\nA,1\nA,2\nB,bad\nA,5\nB,4\nA,6\n")
    for batch_rows in (1, 2, 100):
        with pytest.raises(Unsorted) as exc:
            read_batched(p, batch_rows=batch_rows)
        msg = str(exc.value)
        assert "line 6 (data row 5) has ts 4, before ts 5 on line 5 (data row 4)" in msg, msg
        assert "--read whole" in msg
    # ties keep file order, and rejected rows do not count
    ok = write(tmp_path, "t.csv", "type,ts\nA,1\nB,1\nC,x\nA,2\n")
    events, _, _ = read_batched(ok, batch_rows=1)
    assert [e.type for e in events] == ["A", "B", "A"]


def test_duplicate_ids_across_batches_within_the_remembered_window(tmp_path):
    rows = ["id,type,ts"] + [f"{k},A,{k}" for k in range(1, 41)] + ["3,B,41", "38,B,42"]
    p = write(tmp_path, "d.csv", "\n".join(rows) + "\n")
    _, _, r = read_batched(p, batch_rows=5, dup_window=10)
    dups = [i for i in r.report().issues if i.code == "duplicate_id"]
    # id 38 (4 distinct ids before the repeat) is found; id 3 (38 distinct ids back) is
    # beyond 2 x dup_window and is not
    assert [i.format() for i in dups] == ["line 43 (data row 42), column id: duplicate id 38 (first on line 39)"]
    _, _, r = read_batched(p, batch_rows=5, dup_window=100)
    assert len([i for i in r.report().issues if i.code == "duplicate_id"]) == 2


def test_issues_past_the_cap_are_counted(tmp_path):
    rows = ["type,ts"] + [f"A,{'x' if k % 2 else k}" for k in range(100)]
    p = write(tmp_path, "b.csv", "\n".join(rows) + "\n")
    _, _, r = read_batched(p, batch_rows=7, max_issues=10)
    rep = r.report()
    assert len(rep.issues) == 10 and rep.omitted == {"error": 40}
    assert not rep.ok
    assert "50 errors" in rep.summary()
    assert "40 more issues counted but not kept" in rep.format()


def test_batches_do_not_keep_the_events_they_gave_out(tmp_path):
    rows = ["type,ts,x"] + [f"A,{k},{k}" for k in range(2000)]
    p = write(tmp_path, "m.csv", "\n".join(rows) + "\n")
    from engine.events import Event

    def live_events() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if type(o) is Event)

    before = live_events()
    n = 0
    for batch in BatchReader(p, batch_rows=100):
        n += len(batch.events)
        assert live_events() - before <= 200  # this batch (and the one being dropped)
    assert n == 2000


# --------------------------------------------------------------------------- CSV field counts

def test_a_ragged_line_at_a_pandas_chunk_start_is_refused(tmp_path):
    # pandas keeps the first fields of a too-long record that starts one of its internal
    # chunks (2^18 records for two columns) and drops the rest without a word
    lines = ["type,ts"] + [f"A,{k}" for k in range(300_000)]
    lines[262_145] = "B,2,3,4"
    p = write(tmp_path, "r.csv", "\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"expected 2 fields in line 262146, saw 4"):
        load_events(p)
    small = write(tmp_path, "s.csv", "type,ts\nA,1\nA,2\nA,3\nA,4\nB,5,6\nC,6\n")
    for batch_rows in (1, 2, 4):  # a chunk starting at the ragged line
        with pytest.raises(DataError, match=r"expected 2 fields in line 6, saw 3"):
            read_batched(small, batch_rows=batch_rows)


def test_field_count_check_names_the_editor_line(tmp_path):
    p = write(tmp_path, "q.csv", '\ntype,ts\nA,1\n\n"A\nx",2\n  \nA,3\nB,2,3,4\nC\n')
    with pytest.raises(DataError, match=r"expected 2 fields in line 9, saw 4: 'B,2,3,4'"):
        check_csv_fields(p)
    check_csv_fields(write(tmp_path, "ok.csv", "type,ts\nA,1\nB,\n"))  # an empty cell is a missing value
    with pytest.raises(DataError, match=r"expected 2 fields in line 3, saw 1: 'B'"):
        check_csv_fields(write(tmp_path, "short.csv", "type,ts\nA,1\nB\n"))  # fewer fields: refused too


# --------------------------------------------------------------------------- output

def _matches(rng: random.Random, n: int) -> list[Match]:
    out = []
    for k in range(n):
        ids = tuple(rng.choice([k, str(k), f'q"{k}', "é", -k]) for _ in range(rng.randint(0, 3)))
        start = rng.choice([float(k), k, 0.1 * k, -0.0, 1e300])
        out.append(Match(bindings=(("a", ids), ("b", (k,))), start=start, end=start, start_seq=k, end_seq=k))
    return out


def test_match_json_is_json_dumps():
    for m in _matches(random.Random(5), 300):
        assert match_json(m) == json.dumps(m.to_json(), default=json_default)
    # a non-finite number is written as null, never as Infinity (not JSON)
    m = Match(bindings=(("a", (True, 1.5, None)),), start=float("inf"), end=1, start_seq=0, end_seq=0)
    assert match_json(m) == json.dumps({**m.to_json(), "start": None}, default=json_default)


def test_writer_writes_each_line_when_the_match_comes():
    buf = io.StringIO()
    w = MatchWriter("jsonl", buf, ["a", "b"])
    ms = _matches(random.Random(1), 3)
    for k, m in enumerate(ms, 1):
        w.write(m)
        assert buf.getvalue().count("\n") == k
    buf = io.StringIO()
    w = MatchWriter("csv", buf, ["a", "b"])
    w.write(ms[0])
    assert buf.getvalue().count("\n") == 2  # header and the match


def test_table_shows_its_first_rows_and_counts_the_rest():
    ms = _matches(random.Random(2), 7)
    buf = io.StringIO()
    w = MatchWriter("table", buf, ["a", "b"], table_max_rows=3)
    for m in ms:
        w.write(m)
    w.close()
    text = buf.getvalue()
    assert text.count("\n") == 1 + 3 + 2
    assert "4 more not shown" in text and "--format jsonl" in text and text.endswith("(7 matches)\n")
    assert TABLE_MAX_ROWS >= 1000
    buf = io.StringIO()
    format_matches(ms, "count", buf, ["a", "b"])
    assert buf.getvalue() == "7\n"


def test_the_run_writes_a_match_before_it_reads_the_next_event():
    from engine.events import make_stream
    from engine.engines.planner import make_matcher
    from engine.commands.run_matches import feed_events

    pat = parse("PATTERN SEQ(A a, B b) WITHIN 100")
    stream = make_stream([{"type": "AB"[k % 2], "ts": k, "id": k} for k in range(6)])
    buf = io.StringIO()
    writer = MatchWriter("jsonl", buf, ["a", "b"])
    seen: list[int] = []

    def events():
        for e in stream:
            seen.append(buf.getvalue().count("\n"))
            yield e

    feed_events(make_matcher(pat, "nfab"), events(), writer, MemoryGuard(None))
    # before event k, the matches of events < k are written: 0, 0, 1 (A0 B1), 1, 3, 3
    assert seen == [0, 0, 1, 1, 3, 3]


# --------------------------------------------------------------------------- memory guard

def test_parse_size():
    assert parse_size("2GB") == 2 << 30 and parse_size("800m") == 800 << 20
    assert parse_size("1.5 g") == int(1.5 * (1 << 30)) and parse_size("123") == 123
    assert parse_size("off") is None
    assert 0 < parse_size("50%") <= (1 << 50)
    for bad in ("nan", "NaN GB", "inf", "-1GB", "0", "2 parsecs", "", "150%", float("nan"), float("inf"), -5):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_guard_stops_with_a_message_naming_the_cause():
    g = MemoryGuard(1 << 20, every=3, holds=lambda: "the matcher holds 7 live runs",
                    where=lambda: "after 9 events")
    g.tick()
    g.tick()
    with pytest.raises(MemoryLimit, match=r"passed the limit of 1 MB \(--max-memory\); after 9 events; "
                                          r"the matcher holds 7 live runs"):
        g.tick()
    MemoryGuard(None).check()


# --------------------------------------------------------------------------- cep run

PAT = "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 5"


def _stream_csv(tmp: Path, n: int, bad_every: int = 0, name: str = "s.csv") -> Path:
    rng = random.Random(n)
    lines = ["id,type,ts,x"]
    for k in range(n):
        ts = "?" if bad_every and k % bad_every == bad_every - 1 else str(k)
        lines.append(f"{k + 1},{rng.choice('AB')},{ts},{rng.randint(0, 9)}")
    return write(tmp, name, "\n".join(lines) + "\n")


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "count", "table"])
def test_run_in_batches_equals_run_whole(tmp_path, capsys, fmt, monkeypatch):
    import engine.events.batches as batches

    monkeypatch.setattr(batches, "BATCH_ROWS", 37)
    p = _stream_csv(tmp_path, 600, bad_every=50)
    a = run(capsys, "run", PAT, "--data", str(p), "--format", fmt, "--skip-bad-rows", "--read", "whole")
    b = run(capsys, "run", PAT, "--data", str(p), "--format", fmt, "--skip-bad-rows", "--read", "batches")
    assert a[0] == b[0] == 0
    assert a[1] == b[1] and a[1].strip()
    assert a[2].strip() == b[2].strip()  # the same report (whole: before the run, batches: after)
    assert "12 rejected" in b[2]


@pytest.mark.parametrize("read", ["whole", "batches"])
def test_count_is_the_number_of_matches_written(tmp_path, capsys, read):
    p = _stream_csv(tmp_path, 400)
    for engine in ("nfab", "auto"):  # NFA^b counts without building matches
        code, out, _ = run(capsys, "run", PAT, "--data", str(p), "--format", "jsonl", "--engine", engine,
                           "--read", read)
        code2, count, _ = run(capsys, "run", PAT, "--data", str(p), "--format", "count", "--engine", engine,
                              "--read", read)
        assert code == code2 == 0
        assert int(count) == len(out.splitlines()) > 0


def test_run_in_batches_refuses_bad_rows_with_the_whole_report(tmp_path, capsys):
    p = _stream_csv(tmp_path, 300, bad_every=100)
    out = tmp_path / "o.jsonl"
    code, _, err = run(capsys, "run", PAT, "--data", str(p), "--format", "jsonl", "--out", str(out),
                       "--read", "batches")
    assert code == 2
    assert "3 errors" in err and "line 101 (data row 100)" in err and "line 301 (data row 300)" in err
    assert "stopped before the batch holding line 101" in err and "--skip-bad-rows" in err
    assert not out.exists()


def test_run_in_batches_stops_at_an_unsorted_row(tmp_path, capsys, monkeypatch):
    import engine.events.batches as batches

    monkeypatch.setattr(batches, "BATCH_ROWS", 10)
    lines = ["id,type,ts,x"] + [f"{k},{'AB'[k % 2]},{k},{k % 7}" for k in range(50)]
    lines[31] = "30,B,3,1"
    p = write(tmp_path, "u.csv", "\n".join(lines) + "\n")
    out = tmp_path / "o.jsonl"
    code, _, err = run(capsys, "run", PAT, "--data", str(p), "--format", "jsonl", "--out", str(out))
    assert code == 0  # small: read whole, sorted in memory
    code, _, err = run(capsys, "run", PAT, "--data", str(p), "--format", "jsonl", "--out", str(out) + "2",
                       "--read", "batches")
    assert code == 2
    assert "line 32 (data row 31) has ts 3, before ts 29 on line 31 (data row 30)" in err
    partial = Path(str(out) + "2.partial")
    assert f"matches found before it were written in {partial}" in err
    # the batches before the one holding line 32 (data rows 0-29) were matched
    prefix = write(tmp_path, "p.csv", "\n".join(lines[:31]) + "\n")
    code, want, _ = run(capsys, "run", PAT, "--data", str(prefix), "--format", "jsonl")
    assert code == 0 and want
    assert partial.read_text() == want


def test_run_stops_at_the_memory_limit(tmp_path, capsys):
    p = _stream_csv(tmp_path, 200)
    out = tmp_path / "o.jsonl"
    code, _, err = run(capsys, "run", PAT, "--data", str(p), "--format", "jsonl", "--out", str(out),
                       "--max-memory", "1MB")
    assert code == 1
    assert "resident memory" in err and "passed the limit of 1 MB (--max-memory)" in err
    assert "the matcher holds" in err and "whole file is loaded" in err
    for bad in ("nan", "lots"):
        code, _, err = run(capsys, "run", PAT, "--data", str(p), "--max-memory", bad)
        assert code == 2 and "--max-memory" in err


def test_run_out_file_appears_only_when_complete(tmp_path, capsys):
    p = _stream_csv(tmp_path, 100)
    out = tmp_path / "o.csv"
    code, _, _ = run(capsys, "run", PAT, "--data", str(p), "--format", "csv", "--out", str(out))
    assert code == 0 and out.exists() and not Path(str(out) + ".partial").exists()
    assert out.read_text().startswith("match,start,end,a,b\n")


def test_read_batches_refuses_a_json_array(tmp_path, capsys):
    p = write(tmp_path, "a.json", '[{"type": "A", "ts": 1}]')
    code, _, err = run(capsys, "run", PAT, "--data", str(p), "--read", "batches")
    assert code == 2 and "JSON array" in err


# --------------------------------------------------------------------------- cep stream files

def test_stream_file_rejections_name_the_file_and_line():
    from engine.partition import partition_key
    from engine.spark.stream_files import event_from_json, read_file

    pat = parse("PATTERN SEQ(A a, B b) WHERE [key] WITHIN 10")
    key = partition_key(pat)
    got = read_file("f1.csv", b"id,type,ts,key\n1,A,1,k1\n2,B,x,k1\n\n3,B,3,2.0\n", ColumnMapping(), "csv", key)
    assert got.messages == ["f1.csv: rejected line 3 (data row 2), column ts: cannot parse 'x' as a number or ISO "
                            "date-time"]
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in got.rows] == [("k1", "f1.csv", 0, 2, 1.0), ("2", "f1.csv", 2, 5, 3.0)]
    e = event_from_json(got.rows[1][5], seq=7)
    assert (e.id, e.type, e.ts, e.seq, e.attrs) == (3, "B", 3.0, 7, {"key": 2})
    ragged = read_file("f2.csv", b"id,type,ts,key\n1,A,1,k1\n2,B,2,k1,extra\n", ColumnMapping(), "csv", key)
    assert ragged.rows == []
    assert ragged.messages == ["f2.csv: skipped the whole file: cannot read 'f2.csv' as CSV: expected 4 fields "
                               "in line 3, saw 5: '2,B,2,k1,extra'"]
    j = read_file("f3.jsonl", b'{"type": "A", "ts": 1, "key": 1}\nnope\n', ColumnMapping(), "json", key)
    assert j.messages == ["f3.jsonl: rejected line 2: invalid JSON: Expecting value at column 1"]


def test_stream_parquet_file_rejections_name_the_data_row(tmp_path):
    import pandas as pd

    from engine.spark.stream_files import read_file

    f = tmp_path / "p.parquet"
    pd.DataFrame({"type": ["A", None, "B"], "ts": [1.0, 2.0, 3.0], "key": ["k", "k", "k"]}).to_parquet(f)
    got = read_file("p.parquet", f.read_bytes(), ColumnMapping(), "parquet", None)
    assert got.messages == ["p.parquet: rejected data row 2, column type: missing event type"]
    assert [(r[0], r[2], r[3]) for r in got.rows] == [("*", 0, None), ("*", 2, None)]


def test_key_text_merges_values_python_finds_equal():
    from engine.events import Event
    from engine.partition import partition_key
    from engine.spark.stream_files import key_text

    key = partition_key(parse("PATTERN SEQ(A a, B b) WHERE [k] WITHIN 10"))
    texts = [key_text(key, Event(1, "A", 0.0, 0, {"k": v})) for v in (1, 1.0, True, "1")]
    assert texts[0] == texts[1] == texts[2]
    assert key_text(key, Event(1, "A", 0.0, 0, {})) == "null"
    assert key_text(None, Event(1, "A", 0.0, 0, {})) == "*"


def _log(meta: Path, name: str, paths: list[str], action: str = "add") -> None:
    lines = ["v1"] + [json.dumps({"path": f"file://{p}", "size": 1, "isDir": False, "modificationTime": 0,
                                  "blockReplication": 1, "blockSize": 1, "action": action}) for p in paths]
    (meta / name).write_text("\n".join(lines) + "\n")


def test_stream_output_is_what_the_commit_log_lists(tmp_path):
    from engine.spark.stream_files import committed_files, read_committed
    from engine.spark.streaming import read_stream_output

    out = tmp_path / "out"
    out.mkdir()
    assert read_stream_output(str(out)) == []
    parts = {}
    for k in range(5):
        parts[k] = out / f"part-{k:05d}-x.json"
        parts[k].write_text(json.dumps({"match_id": str(k)}) + "\n")
    meta = out / "_spark_metadata"
    meta.mkdir()
    assert read_stream_output(str(out)) == []  # nothing committed yet
    _log(meta, "0", [str(parts[0])])
    _log(meta, "1", [str(parts[1])])
    (meta / ".2.abc.tmp").write_text("v1\n" + json.dumps({"path": str(parts[2])}) + "\n")  # being written
    assert [r["match_id"] for r in read_stream_output(str(out))] == ["0", "1"]  # part 2..4: uncommitted
    # compaction repeats everything so far; older entries may be gone; deletes remove files
    _log(meta, "2.compact", [str(parts[0]), str(parts[1]), str(parts[2])])
    (meta / "0").unlink()
    _log(meta, "3", [str(parts[0])], action="delete")
    _log(meta, "4", [str(parts[3])])
    assert [r["match_id"] for r in read_committed(out)] == ["1", "2", "3"]
    # a moved directory: the log's absolute paths are found by name in the directory
    moved = tmp_path / "moved"
    out.rename(moved)
    assert [f.name for f in committed_files(moved)] == [parts[k].name for k in (1, 2, 3)]
    (moved / parts[3].name).unlink()
    with pytest.raises(DataError, match="listed in the commit log"):
        read_committed(moved)


# --------------------------------------------------------------------------- the app's limits

def test_upload_cap_and_engine_errors_as_messages():
    from app.limits import UPLOAD_MAX_BYTES, EngineFailure, call_engine, finite_number, upload_problem

    assert upload_problem("a.csv", UPLOAD_MAX_BYTES) is None
    msg = upload_problem("big.csv", UPLOAD_MAX_BYTES + 1)
    assert msg is not None and "big.csv" in msg and f"{UPLOAD_MAX_BYTES >> 20} MB" in msg and "cep run" in msg

    def deep(n: int) -> int:
        return deep(n + 1)

    with pytest.raises(EngineFailure, match="too deeply nested") as exc:
        call_engine(deep, 0)
    assert exc.value.__cause__ is None and exc.value.__suppress_context__
    with pytest.raises(EngineFailure, match="number too large"):
        call_engine(lambda: 10.0 ** 400)
    with pytest.raises(EngineFailure, match="ZeroDivisionError"):
        call_engine(lambda: 1 / 0)
    assert call_engine(lambda x: x + 1, 1) == 2
    assert finite_number(2.5, "window") == 2.5
    for bad in (float("nan"), float("inf"), "nan", None):
        with pytest.raises(ValueError, match="window"):
            finite_number(bad, "window")
