"""The Spark pipeline's fast paths give what the plain paths give: column-wise match rows
(``engine.spark.match_rows``) the same text as ``json.dumps`` + CRC-32, ``run(collect=True)``
the same matches as a persisted run, ``read_local`` (driver read for small files) the same
events and matches as Spark's reader and as in-process, and ``warm_up`` runs that path."""
from __future__ import annotations

import json
import zlib

import pytest

import sample_streams
from engine.dsl import parse
from engine.events import ColumnMapping, load_events
from engine.match import Match, run_all
from sample_streams import generators


def _old_row(m: Match, key):
    mj = json.dumps(m.as_dict(), default=str)
    mid = f"{m.end_seq}-{m.start_seq}-{zlib.crc32(mj.encode()):08x}"
    return (mid, key, mj, float(m.start), float(m.end), int(m.start_seq), int(m.end_seq))


MATCHES = [
    Match(bindings=(("a", (1,)), ("b", (2, 3)), ("c", ())), start=1.0, end=3.0, start_seq=1, end_seq=3),
    Match(bindings=(("a", ("x",)), ("b", ('q"uote', "é"))), start=0.5, end=2, start_seq=0, end_seq=9),
    Match(bindings=(("a", (True, 1)), ("b", (2.5, None))), start=1, end=2, start_seq=4, end_seq=5),
    Match(bindings=(('v"%s', (10**20, -3)),), start=7.0, end=7.0, start_seq=7, end_seq=7),
    Match(bindings=(), start=0.0, end=0.0, start_seq=0, end_seq=0),
]


def test_match_json_is_json_dumps():
    from engine.spark.match_rows import match_json

    for m in MATCHES:
        assert match_json(m.bindings) == json.dumps(m.as_dict(), default=str)
    ints = MATCHES[0]
    assert match_json(ints.bindings, ints=True) == json.dumps(ints.as_dict())


def test_match_columns_equal_row_tuples():
    from engine.spark.match_rows import MatchColumns, match_row

    cols = MatchColumns()
    cols.add(MATCHES[:2], "k1")
    cols.add(MATCHES[2:], None)
    assert len(cols) == len(MATCHES)
    batch = cols.batch()
    assert len(cols) == 0
    want = [_old_row(m, "k1") for m in MATCHES[:2]] + [_old_row(m, None) for m in MATCHES[2:]]
    got = [tuple(r.values()) for r in batch.to_pylist()]
    assert got == want
    assert [match_row(m, "k") for m in MATCHES] == [_old_row(m, "k") for m in MATCHES]
    assert batch.schema.names == ["match_id", "key", "match", "start", "end", "start_seq", "end_seq"]


@pytest.mark.parametrize("text", [
    "PATTERN SEQ(A a, B b, C c) WHERE [key] AND b.value > a.value WITHIN 200",
    "PATTERN SEQ(A a, B+ b[], C c) WHERE [key] WITHIN 60",
    "PATTERN SEQ(A a, !B n, C c) WITHIN 30",
    "PATTERN SEQ(A a, B b) WITHIN 40 OUTPUT NON_OVERLAP",
])
def test_match_text_from_nfab_paths_is_match_json(text):
    """The ``match`` column of integer ids sliced from an NFA^b match's own JSON Lines text
    equals ``json.dumps`` of its bindings (``match_rows._match_text``), merged members too."""
    from engine.engines.planner import make_matcher
    from engine.spark.match_rows import MatchColumns, _match_text

    events = generators.keyed(3000, keys=7, types=("A", "B", "C"), seed=5)
    stream = load_events(events).events
    matcher = make_matcher(parse(text), "nfab")
    found = [m for e in stream for m in matcher.feed(e)] + list(matcher.close())
    assert found
    if "!B" not in text:  # (negation's matches are plain ones: match_json)
        assert all(m.json_text() is not None for m in found)
    for m in found:
        assert _match_text(m) == json.dumps(m.as_dict(), default=str)
    cols = MatchColumns(ints=True)
    cols.add(found, None)
    assert [r["match"] for r in cols.batch().to_pylist()] == [json.dumps(m.as_dict()) for m in found]


def test_match_columns_with_events():
    from engine.spark.match_rows import MatchColumns

    cols = MatchColumns(ints=True, events=lambda m: f"ev{m.end_seq}")
    cols.add([MATCHES[0]], "k")
    batch = cols.batch()
    assert batch.schema.names[-1] == "events" and batch.column(7).to_pylist() == ["ev3"]


# --------------------------------------------------------------------------- Spark


PATTERNS = [
    ("PATTERN SEQ(A a, B b, C c) WHERE [key] AND b.value > a.value WITHIN 30", "keyed"),
    ("PATTERN SEQ(A a, B b) WHERE b.value > a.value WITHIN 6", "time-chunked"),
    ("PATTERN SEQ(A a, B b) WITHIN 3 OUTPUT NON_OVERLAP", "single-partition"),
]


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory):
    df = generators.keyed(300, keys=5, types=("A", "B", "C"), seed=5, value=(1, 20))
    path = tmp_path_factory.mktemp("fast") / "keyed.csv"
    df.to_csv(path, index=False)
    return str(path)


def _canon(matches):
    return sorted(json.dumps(m.to_json(), sort_keys=True) for m in matches)


@pytest.mark.spark
@pytest.mark.parametrize("pattern,mode", PATTERNS)
def test_collect_and_local_read_equal_in_process(spark, small_batches, stream_file, pattern, mode):
    from engine.engines.planner import make_matcher
    from engine.spark import pipeline

    pat = parse(pattern)
    ref = _canon(run_all(make_matcher(pat, "oracle"), load_events(stream_file).events))
    persisted = pipeline.run(pat, stream_file, engine="oracle")
    collected = pipeline.run(pat, stream_file, engine="oracle", collect=True, local_bytes=1 << 20)
    try:
        assert persisted.mode == collected.mode == mode
        assert _canon(persisted.to_matches()) == ref
        assert _canon(collected.to_matches()) == ref
        assert collected.count == persisted.count == len(ref) and collected.table is not None
        assert collected.events.report.rows_loaded == persisted.events.report.rows_loaded
        assert list(pipeline.jsonl_lines(collected)) == list(pipeline.jsonl_lines(persisted))
        a = collected.ordered_table().to_pylist()
        b = persisted.ordered().toArrow().to_pylist()
        assert a == b  # same match_id, key, match text, times, seqs
    finally:
        persisted.unpersist()
        collected.unpersist()


@pytest.mark.spark
@pytest.mark.parametrize("name", ["stocks_sase", *[n for n in sample_streams.names() if n != "stocks_sase"][:6]])
def test_read_local_events_equal_load_events(spark, name):
    from engine.spark.local_source import read_local

    s = sample_streams.load(name)
    mapping = ColumnMapping(**{k: v for k, v in s.mapping.items() if not (k == "ts_col" and v is None)})
    loaded = load_events(str(s.path), mapping)
    ev = read_local(str(s.path), mapping)
    assert ev.count == len(loaded.events)
    assert ev.report == loaded.report and ev.schema == loaded.schema
    got = ev.to_events()
    assert [(e.id, e.type, e.ts, e.seq, e.attrs, e.lower, e.upper) for e in got] == \
        [(e.id, e.type, e.ts, e.seq, e.attrs, e.lower, e.upper) for e in loaded.events]


@pytest.mark.spark
def test_read_local_mixed_values_and_text_ids(spark, tmp_path):
    """Text ids, a column holding numbers and text, booleans, a missing cell: the JSON
    column carries them and the key expression reads them."""
    from engine.engines.planner import make_matcher
    from engine.spark import pipeline
    from engine.spark.local_source import read_local

    path = tmp_path / "mixed.csv"
    path.write_text("id,type,ts,key,v,flag\n"
                    "e1,A,1,1,3,true\ne2,B,2,1.0,x,false\ne3,A,3,k,2.5,\ne4,B,4,k,7,true\n"
                    "e5,B,5,1,9,true\ne6,A,6,2,1,false\ne7,B,7,2,\"4\",true\n")
    loaded = load_events(str(path))
    ev = read_local(str(path))
    assert ev.id_json
    assert [(e.id, e.attrs) for e in ev.to_events()] == [(e.id, e.attrs) for e in loaded.events]
    pat = parse("PATTERN SEQ(A a, B b) WHERE [key] WITHIN 10")
    ref = _canon(run_all(make_matcher(pat, "oracle"), loaded.events))
    res = pipeline.run(pat, ev, engine="oracle", collect=True)
    assert res.mode == "keyed" and _canon(res.to_matches()) == ref and ref


@pytest.mark.spark
def test_warm_up_runs_the_app_path(spark):
    from engine.spark.pipeline import partitions_for, warm_up

    s = sample_streams.load("stocks_sase")
    times = warm_up(s.presets["stock_trend"], s.path, mapping=s.mapping, spark=spark, rounds=2)
    assert len(times) == 2 and all(t > 0 for t in times)
    assert partitions_for(8, 2) == 2 and partitions_for(8, 1) == 1 and partitions_for(10**6, 2) == 4


def test_daemon_preloads_the_engine():
    from engine.spark import daemon

    assert daemon.preload() == []


@pytest.mark.spark
def test_ts_range_from_the_validation_pass(spark, stream_file, tmp_path):
    """Sorted input: (min, max) ts known without a Spark job (time chunks use it); unsorted: None."""
    from engine.spark.io import read_events

    events = load_events(stream_file).events
    ev = read_events(stream_file)
    assert ev.ts_range == (events[0].ts, events[-1].ts)
    path = tmp_path / "unsorted.csv"
    path.write_text("id,type,ts\n1,A,5\n2,B,3\n3,A,9\n")
    assert read_events(str(path)).ts_range is None


@pytest.mark.spark
def test_app_runner_spark_equals_in_process(spark):
    """The Run page's Spark path (driver read, one collect) gives the in-process matches."""
    from app import runner

    s = sample_streams.load("stocks_sase")
    pat = parse(s.presets["stock_trend_any"])
    mapping = runner.mapping_from(s.mapping)
    src = runner.Source("sample", "stocks_sase", str(s.path), None)
    loaded = runner.load(src, mapping)
    seen = []
    out = runner.run_spark(pat, src, mapping, rows=len(loaded.events), on_progress=lambda f, t: seen.append(t))
    ref = runner.run_local(pat, loaded)
    assert out.engine == "spark" and out.mode in ("keyed", "time-chunked", "single-partition")
    assert _canon(out.matches) == _canon(ref.matches) and ref.matches
    assert out.events == len(loaded.events) and seen[-1].startswith("done:")
