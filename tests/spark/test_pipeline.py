"""engine.spark.pipeline: the Spark result equals the in-process result exactly (the same
set of Match.to_json() dicts), for every preset and for generated streams in every mode,
with Arrow batches small enough that keys and chunks span many batches."""
from __future__ import annotations

import importlib.util
import json

import pytest

import sample_streams
from engine.dsl import parse
from engine.events import ColumnMapping, load_events
from engine.match import EngineUnsupported, run_all
from sample_streams import generators

pytestmark = pytest.mark.spark

ENGINES = ["oracle"] + (["nfab"] if importlib.util.find_spec("engine.engines.nfab.matcher") else [])


def make(pattern, engine):
    try:
        from engine.engines.planner import make_matcher
    except ImportError:  # pragma: no cover
        from engine.engines.oracle.oracle import OracleMatcher

        if engine != "oracle":
            pytest.skip(f"no planner for {engine}")
        return OracleMatcher(pattern)
    try:
        return make_matcher(pattern, engine)
    except EngineUnsupported as err:
        pytest.skip(str(err))


def canon(matches):
    return sorted(json.dumps(m.to_json(), sort_keys=True, default=str) for m in matches)


def check(pattern, ev, events, engine, mode=None, **kw):
    """Run in-process and on Spark; assert equal; return the Spark result."""
    from engine.spark import pipeline

    pat = parse(pattern) if isinstance(pattern, str) else pattern
    pat = pipeline.scale_window(pat, ev)
    ref = canon(run_all(make(pat, engine), events))
    res = pipeline.run(pat, ev, engine=engine, **kw)
    try:
        got = canon(res.to_matches())
        assert got == ref, f"{res.mode}: spark {len(got)} matches, in-process {len(ref)}"
        assert res.count == len(ref)
        if mode is not None:
            assert res.mode == mode
    finally:
        res.matches.unpersist()
    return res


# --------------------------------------------------------------------------- presets

_SAMPLES: dict[str, tuple] = {}


def sample(name):
    if name not in _SAMPLES:
        from engine.spark.io import read_events

        m = sample_streams.load(name).mapping
        mapping = ColumnMapping(**{k: v for k, v in m.items() if not (k == "ts_col" and v is None)})
        path = str(sample_streams.load(name).path)
        _SAMPLES[name] = (read_events(path, mapping), load_events(path, mapping).events)
    return _SAMPLES[name]


PRESETS = [(s, p) for s in sample_streams.names() for p in sample_streams.load(s).presets]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name,preset", PRESETS)
def test_preset_equals_in_process(spark, small_batches, name, preset, engine):
    text = sample_streams.load(name).presets[preset]
    if sample_streams.load(name).mapping.get("lower_col"):
        pytest.skip("interval data never runs on point engines: the planner refuses them")
    make(parse(text), engine)  # skip unsupported combinations before reading
    ev, events = sample(name)
    check(text, ev, events, engine)


# --------------------------------------------------------------------------- generated streams

@pytest.fixture(scope="module")
def keyed_stream(spark, tmp_path_factory):
    """400 events over 6 keys, types A/B/C, ts = id; written as CSV and read by both."""
    from engine.spark.io import read_events

    df = generators.keyed(400, keys=6, types=("A", "B", "C"), seed=7, value=(1, 20))
    path = tmp_path_factory.mktemp("keyed") / "keyed.csv"
    df.to_csv(path, index=False)
    ev = read_events(str(path))
    yield ev, load_events(str(path)).events
    ev.unpersist()


@pytest.fixture(scope="module")
def unsorted_stream(spark, tmp_path_factory):
    """Ties in ts (ts = id // 3) and rows shuffled: seq comes from the global stable sort."""
    from engine.spark.io import read_events

    df = generators.keyed(240, keys=3, types=("A", "B", "C"), seed=11, value=(1, 20))
    df["ts"] = df["id"] // 3
    df = df.sample(frac=1.0, random_state=5).reset_index(drop=True)
    path = tmp_path_factory.mktemp("unsorted") / "unsorted.csv"
    df.to_csv(path, index=False)
    ev = read_events(str(path))
    yield ev, load_events(str(path)).events
    ev.unpersist()


KEYED = [
    "PATTERN SEQ(A a, B+ b[], C c) WHERE [key] AND b[i].value > b[i-1].value WITHIN 15",
    "PATTERN SEQ(A a, !(C c), B b) WHERE [key] WITHIN 30",
    "PATTERN SEQ(A a, B b) WHERE [key] AND b.value > a.value WITHIN 12 events",
    "PATTERN SEQ(A a, B b) WHERE [key] WITHIN 30 OUTPUT NON_OVERLAP",
    "PATTERN SEQ(A a, B b, C c) WHERE a.key = b.key AND b.key = c.key AND c.value < a.value WITHIN 50",
]


def _cases(patterns, nfab_too):
    """Every pattern with the oracle; the first ``nfab_too`` with NFA^b as well (time budget)."""
    out = [(p, "oracle") for p in patterns]
    if "nfab" in ENGINES:
        out += [(p, "nfab") for p in patterns[:nfab_too]]
    return out


@pytest.mark.parametrize("pattern,engine", _cases(KEYED, 3))
def test_keyed_equals_in_process(keyed_stream, small_batches, pattern, engine):
    ev, events = keyed_stream
    check(pattern, ev, events, engine, mode="keyed")


CHUNKED = [
    "PATTERN SEQ(A a, B b, C c) WHERE a.value < c.value WITHIN 8",
    "PATTERN SEQ(A a, B b) WHERE b.value > a.value WITHIN 6 events",
    "PATTERN SEQ(A a, B b, !(C c)) WITHIN 5",
    "PATTERN SEQ(A a, B+ b[]) WHERE b[i].value > b[i-1].value WITHIN 6",
]
CHUNKED = [CHUNKED[2], CHUNKED[1], CHUNKED[0], CHUNKED[3]]  # trailing negation and count window first


@pytest.mark.parametrize("pattern,engine", _cases(CHUNKED, 2))
def test_time_chunks_equal_in_process(keyed_stream, small_batches, pattern, engine):
    ev, events = keyed_stream
    res = check(pattern, ev, events, engine, mode="time-chunked", chunk_size=13)
    assert res.info["chunk_size"] >= 12  # at least 2W


def test_unsorted_input_keyed_and_chunked(unsorted_stream, small_batches):
    ev, events = unsorted_stream
    assert not ev.report.sorted_by_ts
    check("PATTERN SEQ(A a, B b) WHERE [key] AND b.value < a.value WITHIN 8 events", ev, events,
          "oracle", mode="keyed")
    check("PATTERN SEQ(A a, C c) WHERE c.value < a.value WITHIN 3", ev, events, "oracle",
          mode="time-chunked", chunk_size=7)


@pytest.mark.skipif("nfab" not in ENGINES, reason="needs the NFA^b engine")
@pytest.mark.parametrize("pattern,mode", [
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match AND [key] AND b[i].value >= b[i-1].value WITHIN 40",
     "keyed"),
    ("PATTERN SEQ(A a, B b) WHERE partition_contiguity AND [key] WITHIN 30", "keyed"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity AND [key] WITHIN 30", "single-partition"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5", "single-partition"),
])
def test_other_strategies_nfab(keyed_stream, small_batches, pattern, mode):
    ev, events = keyed_stream
    res = check(pattern, ev, events, "nfab", mode=mode)
    if mode == "single-partition":
        assert any("single partition" in w for w in res.warnings)


def test_single_partition_warns(keyed_stream):
    ev, events = keyed_stream
    res = check("PATTERN SEQ(A a, B b) WITHIN 3 OUTPUT NON_OVERLAP", ev, events, "oracle",
                mode="single-partition")
    assert res.info["partitions"] == 1
    assert any("NON_OVERLAP" in w for w in res.warnings)


# --------------------------------------------------------------------------- output

def test_match_rows_and_events(keyed_stream, tmp_path):
    from engine.spark import pipeline

    ev, events = keyed_stream
    pat = parse("PATTERN SEQ(A a, B b) WHERE [key] AND b.value > a.value WITHIN 20")
    res = pipeline.run(pat, ev, engine="oracle", with_events=True, out=str(tmp_path / "m.jsonl"))
    try:
        assert res.matches.columns == ["match_id", "key", "match", "start", "end", "start_seq", "end_seq",
                                       "events"]
        rows = res.ordered().collect()
        by_id = {e.id: e for e in events}
        assert len({r["match_id"] for r in rows}) == len(rows)
        for r in rows[:20]:
            evs = json.loads(r["events"])
            a, b = evs["a"][0], evs["b"][0]
            assert a["attrs"] == by_id[a["id"]].attrs and b["seq"] == by_id[b["id"]].seq
            assert r["key"] == str(by_id[a["id"]].attrs["key"])
        lines = (tmp_path / "m.jsonl").read_text().splitlines()
        assert [json.loads(ln)["match"] for ln in lines] == [json.loads(r["match"]) for r in rows]
        pipeline.write_matches(res, str(tmp_path / "m.parquet"))
        pipeline.write_matches(res, str(tmp_path / "m.csv"))
        import pandas as pd

        assert len(pd.read_parquet(tmp_path / "m.parquet")) == len(rows)
        assert len(pd.read_csv(tmp_path / "m.csv")) == len(rows)
    finally:
        res.matches.unpersist()


def test_plan_modes():
    from engine.spark.pipeline import plan_mode

    assert plan_mode(parse("PATTERN SEQ(A a, B b) WHERE [k]")).mode == "keyed"
    assert plan_mode(parse("PATTERN SEQ(A a, B b) WITHIN 5")).mode == "time-chunked"
    assert plan_mode(parse("PATTERN SEQ(A a, B b)")).mode == "single-partition"
    assert plan_mode(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5")).mode == "single-partition"
    assert plan_mode(parse("PATTERN SEQ(A a, B b) WHERE strict_contiguity AND [k] WITHIN 5")).mode == \
        "single-partition"


def test_matcher_error_is_reported_without_spark_stack(keyed_stream):
    from engine.match import StateExplosion
    from engine.spark import pipeline

    ev, _ = keyed_stream

    def exploding(pattern):
        from engine.engines.oracle.oracle import OracleMatcher

        class Boom(OracleMatcher):
            def feed(self, e):
                if e.seq > 50:
                    raise StateExplosion("state explosion: 123 live runs (test)")
                return super().feed(e)

        return Boom(pattern)

    with pytest.raises(pipeline.PipelineError, match="StateExplosion: state explosion: 123 live runs"):
        pipeline.run("PATTERN SEQ(A a, B b) WHERE [key]", ev, factory=exploding)


def test_cli_spark_matches_in_process(spark, keyed_stream, tmp_path, capsys):
    from engine.commands import cli

    df = generators.keyed(150, keys=4, types=("A", "B"), seed=3)
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    pat = "PATTERN SEQ(A a, B b) WHERE [key] AND b.value > a.value WITHIN 30"
    assert cli.main(["run", pat, "--data", str(path), "--format", "jsonl", "--engine", "oracle"]) == 0
    ref = capsys.readouterr().out.splitlines()
    assert cli.main(["run", pat, "--data", str(path), "--format", "jsonl", "--engine", "oracle", "--spark"]) == 0
    cap = capsys.readouterr()
    got = cap.out.splitlines()
    assert sorted(got) == sorted(ref) and len(got) > 0
    assert all(json.loads(ln) for ln in got)  # stdout is clean JSON Lines
    assert "[spark] stage" in cap.err
