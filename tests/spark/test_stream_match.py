"""engine.spark.match on a Structured Streaming DataFrame: a streaming DataFrame of typed
match rows, written to a file sink over several micro-batches (trigger availableNow), equal
to the in-process matches; what a stream cannot do is refused with the reason."""
from __future__ import annotations

import json

import pytest

from engine.dsl import parse
from engine.events import load_events
from engine.match import run_all
from sample_streams import generators

pytestmark = pytest.mark.spark

KLEENE = "PATTERN SEQ(A a, B+ b[], C c) WHERE [key] AND b[i].value > b[i-1].value WITHIN 15"


@pytest.fixture(scope="module")
def stream_dir(spark, tmp_path_factory):
    """160 events over 4 keys in two Parquet files, in time order (one file per micro-batch)."""
    pdf = generators.keyed(160, keys=4, types=("A", "B", "C"), seed=3, value=(1, 20))
    src = tmp_path_factory.mktemp("stream-in")
    for i, part in enumerate((pdf.iloc[:80], pdf.iloc[80:])):
        part.to_parquet(src / f"part{i}.parquet", index=False)
    return pdf, src, spark.read.parquet(str(src)).schema


@pytest.fixture
def narrow_state(spark):
    """Two state partitions (each one is a state store per micro-batch)."""
    old = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    yield
    spark.conf.set("spark.sql.shuffle.partitions", old)


def test_stream_to_a_file_sink_equals_in_process(spark, stream_dir, narrow_state, tmp_path):
    from pyspark.sql import types as T

    from engine.engines.planner import make_matcher
    from engine.spark import match

    pdf, src, schema = stream_dir
    events = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).parquet(str(src))
    rows = match(events, KLEENE, with_events=True)
    assert rows.isStreaming
    types = {f.name: f.dataType for f in rows.schema.fields}
    assert types["key"] == T.LongType() and types["b"] == T.ArrayType(T.LongType(), True)
    query = (rows.writeStream.format("parquet").option("path", str(tmp_path / "out"))
             .option("checkpointLocation", str(tmp_path / "checkpoint")).trigger(availableNow=True).start())
    query.awaitTermination(240)
    assert query.exception() is None
    assert len(query.recentProgress) >= 2  # one micro-batch per file: state carried across them
    got_rows = spark.read.parquet(str(tmp_path / "out")).collect()
    pattern = parse(KLEENE)
    got = sorted(json.dumps({"match": {"a": [r["a"]], "b": list(r["b"]), "c": [r["c"]]}, "start": r["start"],
                             "end": r["end"]}, sort_keys=True) for r in got_rows)
    ref = sorted(json.dumps(m.to_json(), sort_keys=True)
                 for m in run_all(make_matcher(pattern), load_events(pdf).events))
    assert got == ref and got
    for r in got_rows[:10]:
        assert [e["id"] for e in r["events"]["b"]] == list(r["b"]) and r["events"]["a"]["key"] == r["key"]


def test_what_a_stream_cannot_do_is_refused(spark, stream_dir):
    from engine.events import DataError
    from engine.spark import match

    _, src, schema = stream_dir
    events = spark.readStream.schema(schema).parquet(str(src))
    with pytest.raises(ValueError, match="count window"):
        match(events, "PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5 events")
    with pytest.raises(DataError, match="needs an id column"):
        match(events.drop("id"), "PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5")
    from engine.spark.stream_match import match_stream

    with pytest.raises(ValueError, match="AGG patterns on a stream"):
        match_stream(events, parse("PATTERN SEQ(A a, B b) WHERE [key] AGG COUNT WITHIN 5"))
