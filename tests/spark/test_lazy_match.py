"""engine.spark.match: building the DataFrame runs no Spark job (a job counter over a job
group proves it), the action does, and the rows equal the in-process matches (keyed,
time-chunked and single-partition plans, count windows, Kleene variables as arrays, AGG rows,
interval data), with typed columns checked by schema."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager

import pandas as pd
import pytest

import sample_streams
from engine.dsl import parse
from engine.events import ColumnMapping, load_events
from engine.match import run_all
from sample_streams import generators

pytestmark = pytest.mark.spark


# --------------------------------------------------------------------------- job counter

class JobGroup:
    """Spark jobs started while a job group was set (``statusTracker().getJobIdsForGroup``)."""

    def __init__(self, spark):
        self.sc = spark.sparkContext
        self.name = f"cep-test-{uuid.uuid4().hex[:8]}"

    @contextmanager
    def active(self):
        self.sc.setJobGroup(self.name, "engine.spark.match test")
        try:
            yield self
        finally:
            self.sc.setLocalProperty("spark.jobGroup.id", None)

    def jobs(self, wait_for_one: bool = False) -> list[int]:
        """The group's job ids (the listener bus is asynchronous: wait up to 10 s for a job that ran)."""
        deadline = time.monotonic() + 10
        while True:
            got = list(self.sc.statusTracker().getJobIdsForGroup(self.name))
            if got or not wait_for_one or time.monotonic() > deadline:
                return got
            time.sleep(0.05)


def lazily(spark, build):
    """``build()`` under one job group, ``collect()`` under another; asserts no job while
    building and at least one at the action (checked after the action, when the listener has
    seen every earlier job); returns (the DataFrame, its rows)."""
    from engine.spark import match  # noqa: F401 - the package face, as users import it

    building, acting = JobGroup(spark), JobGroup(spark)
    with building.active():
        out = build()
        schema = out.schema  # analysing the plan is not a job either
    with acting.active():
        rows = out.collect()
    assert acting.jobs(wait_for_one=True), "the action ran no Spark job"
    assert building.jobs() == [], "building the DataFrame ran a Spark job"
    assert schema == out.schema
    return out, rows


# --------------------------------------------------------------------------- data

@pytest.fixture(scope="module")
def keyed(spark):
    """300 events over 4 keys, types A/B/C, ts = id (pandas and the same rows on Spark, 2 partitions)."""
    pdf = generators.keyed(300, keys=4, types=("A", "B", "C"), seed=7, value=(1, 20))
    return pdf, spark.createDataFrame(pdf).repartition(2), load_events(pdf).events


def matches_json(pattern, events, **options):
    from engine.engines.planner import make_matcher

    return sorted(json.dumps(m.to_json(), sort_keys=True, default=str) for m in run_all(make_matcher(pattern, **options),
                                                                                        events))


def rows_json(rows, pattern):
    out = []
    for r in rows:
        d = {}
        for c in pattern.positive:
            v = r[c.var]
            d[c.var] = (list(v) if v is not None else []) if c.kleene else ([] if v is None else [v])
        out.append(json.dumps({"match": d, "start": r["start"], "end": r["end"]}, sort_keys=True, default=str))
    return sorted(out)


def scaled(text, events_df, mapping=None):
    from engine.spark.lazy_events import lazy_events
    from engine.spark.pipeline import scale_window

    return scale_window(parse(text), lazy_events(events_df, mapping))


CASES = [
    # (pattern, options, the plan it takes)
    ("PATTERN SEQ(A a, B+ b[], C c) WHERE [key] AND b[i].value > b[i-1].value WITHIN 15", {}, "keyed"),
    ("PATTERN SEQ(A a, B b) WHERE [key] AND b.value > a.value WITHIN 12 events", {}, "keyed"),
    ("PATTERN SEQ(A a, !(C c), B b) WITHIN 10", {"chunk_size": 12}, "time-chunked"),
    ("PATTERN SEQ(A a, B b) WHERE a.value < b.value WITHIN 6 events", {"chunk_size": 10}, "time-chunked"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND b.value > a.value WITHIN 8", {}, "single-partition"),
]


@pytest.mark.parametrize("text,options,plan", CASES)
def test_lazy_and_equal_to_in_process(spark, keyed, text, options, plan):
    from engine.spark import match
    from engine.spark.pipeline import plan_mode

    pdf, df, events = keyed
    pattern = scaled(text, df)
    assert plan_mode(pattern).mode == plan
    out, rows = lazily(spark, lambda: match(df, text, **options))
    assert rows_json(rows, pattern) == matches_json(pattern, events)
    assert len({r["match_id"] for r in rows}) == len(rows)


def test_typed_columns(spark, keyed):
    """Key columns with their own names and types, a column per variable (arrays for Kleene),
    ids typed as the data's id column, events as structs."""
    from pyspark.sql import types as T

    from engine.spark import match

    pdf, df, events = keyed
    text = "PATTERN SEQ(A a, B+ b[], C c) WHERE [key] AND b[i].value > b[i-1].value WITHIN 15"
    out, rows = lazily(spark, lambda: match(df, text, with_events=True))
    assert out.columns == ["key", "match_id", "start", "end", "a", "b", "c", "events"]
    types = {f.name: f.dataType for f in out.schema.fields}
    assert types["key"] == T.LongType() and types["a"] == T.LongType()
    assert types["b"] == T.ArrayType(T.LongType(), True)
    assert types["start"] == T.DoubleType() and types["match_id"] == T.StringType()
    event = types["events"]["a"].dataType
    assert [f.name for f in event.fields] == ["id", "type", "ts", "key", "value"]
    assert types["events"]["b"].dataType == T.ArrayType(event, True)
    from engine.spark.match_columns import stable_id
    from engine.spark.match_rows import match_json

    by_id = pdf.set_index("id")
    for r in rows[:20]:
        bindings = (("a", (r["a"],)), ("b", tuple(r["b"])), ("c", (r["c"],)))
        assert r["match_id"] == stable_id(match_json(bindings))
        assert r["events"]["a"]["id"] == r["a"] and r["events"]["a"]["value"] == by_id.loc[r["a"], "value"]
        assert [e["id"] for e in r["events"]["b"]] == list(r["b"])
        assert r["key"] == by_id.loc[r["a"], "key"]
    # ids that are text stay text; a key of text keeps its name and type
    text_ids = df.withColumn("id", df["id"].cast("string")).withColumn("key", df["key"].cast("string"))
    out2, rows2 = lazily(spark, lambda: match(text_ids, "PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5"))
    types2 = {f.name: f.dataType for f in out2.schema.fields}
    assert types2["a"] == T.StringType() and types2["key"] == T.StringType()
    pattern = parse("PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5")
    ref = [json.loads(x) for x in matches_json(pattern, events)]
    got = [json.loads(x) for x in rows_json(rows2, pattern)]
    as_text = sorted(json.dumps({**m, "match": {v: [str(i) for i in ids] for v, ids in m["match"].items()}},
                                sort_keys=True) for m in ref)
    assert sorted(json.dumps(m, sort_keys=True) for m in got) == as_text


def test_ids_are_rows_without_an_id_column(spark, keyed):
    from engine.spark import match

    pdf, df, events = keyed
    shuffled = pdf.drop(columns=["id"])
    text = "PATTERN SEQ(A a, B b) WHERE [key] AND b.value > a.value WITHIN 4"
    out, rows = lazily(spark, lambda: match(spark.createDataFrame(shuffled), text))
    assert rows_json(rows, parse(text)) == matches_json(parse(text), load_events(shuffled).events)


def test_unsorted_input_with_ties(spark):
    """Rows out of time order with equal time stamps: the stable sort of in-process (ties in
    input order) is what the engines see."""
    from engine.spark import match

    pdf = generators.keyed(150, keys=3, types=("A", "B", "C"), seed=11, value=(1, 20))
    pdf["ts"] = pdf["id"] // 3
    pdf = pdf.sample(frac=1.0, random_state=5).reset_index(drop=True)
    df = spark.createDataFrame(pdf).coalesce(1)  # one input partition: its order is the rows' order
    events = load_events(pdf).events
    for text in ("PATTERN SEQ(A a, !(C c), B b) WHERE [key] WITHIN 6", "PATTERN SEQ(A a, B b) WITHIN 3 events"):
        out, rows = lazily(spark, lambda: match(df, text))
        assert rows_json(rows, parse(text)) == matches_json(parse(text), events)


def test_bad_rows_fail_at_the_action_or_are_left_out(spark, keyed):
    from engine.spark import match

    pdf, _, _ = keyed
    bad = pdf.head(40).astype({"ts": str})  # a text time column: numbers, and one word
    bad.loc[5, "ts"] = "soon"
    df = spark.createDataFrame(bad)
    text = "PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5"
    building = JobGroup(spark)
    with building.active():
        out = match(df, text)
    with pytest.raises(Exception, match="a row of the events is not valid .*column ts"):
        out.collect()
    assert building.jobs() == []
    _, rows = lazily(spark, lambda: match(df, text, bad_rows="drop"))
    assert rows_json(rows, parse(text)) == matches_json(parse(text), load_events(bad).events)


def test_refusals_name_what_and_why(spark, keyed):
    from engine.events import DataError
    from engine.spark import match

    _, df, _ = keyed
    with pytest.raises(ValueError, match="variable 'start'"):
        match(df, "PATTERN SEQ(A start, B b) WITHIN 5")
    with pytest.raises(TypeError, match="unknown option 'colour'"):
        match(df, "PATTERN SEQ(A a, B b) WITHIN 5", colour="red")
    with pytest.raises(DataError, match="tstamp"):
        match(df, "PATTERN SEQ(A a, B b) WITHIN 5", ts_col="tstamp")
    with pytest.raises(ValueError, match="time chunks are not valid"):
        match(df, "PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5", mode="time-chunked")
    renamed = df.withColumnRenamed("key", "start")
    with pytest.raises(ValueError, match="partition key attribute 'start'"):
        match(renamed, "PATTERN SEQ(A a, B b) WHERE [start] WITHIN 5")
    spaced = df.withColumn("lo", df["ts"]).withColumn("hi", df["ts"] + 2).drop("ts")
    with pytest.raises(ValueError, match="need U_max"):
        match(spaced, "PATTERN SEQ(A a, B b) WITHIN 5", lower_col="lo", upper_col="hi", mode="time-chunked")


def test_column_options_over_a_mapping():
    """``type_col=``, ``ts_col=`` ... over ``mapping`` (a ColumnMapping or a dict); none: guessed later."""
    from engine.spark.lazy_match import CHUNK_WINDOWS, _chunk_size, column_mapping

    assert column_mapping(["kind", "t", "id"]) is None
    got = column_mapping(["kind", "t", "id"], type_col="kind", ts_col="t")
    assert (got.type_col, got.ts_col, got.id_col) == ("kind", "t", "id")
    got = column_mapping(["kind", "t"], {"type_col": "kind", "ts_col": "t", "id_col": None}, ts_unit="ms")
    assert (got.type_col, got.id_col, got.ts_unit) == ("kind", None, "ms")
    assert _chunk_size(10.0, None) == CHUNK_WINDOWS * 10.0 and _chunk_size(10.0, 3) == 10.0
    with pytest.raises(ValueError, match="chunk_size must be a positive"):
        _chunk_size(10.0, 0)


# --------------------------------------------------------------------------- presets, AGG, intervals

def _sample(name):
    s = sample_streams.load(name)
    mapping = ColumnMapping(**{k: v for k, v in s.mapping.items() if not (k == "ts_col" and v is None)})
    pdf = pd.read_csv(s.path)
    return s, mapping, pdf


@pytest.mark.parametrize("name,preset", [("chemo", "chemo_cycle"), ("stocks_sase", "stock_trend"),
                                         ("rfid", "shoplifting"), ("shipments", "contamination")])
def test_presets_equal_in_process(spark, name, preset):
    from engine.spark import match

    s, mapping, pdf = _sample(name)
    text = s.presets[preset]
    df = spark.createDataFrame(pdf)
    loaded = load_events(pdf, mapping)
    pattern = scaled(text, df, mapping)
    _, rows = lazily(spark, lambda: match(df, text, mapping=mapping))
    assert rows_json(rows, pattern) == matches_json(pattern, loaded.events)


@pytest.mark.parametrize("preset,plan", [("kindle_bundle", "keyed"), ("login_count", "keyed")])
def test_agg_rows_equal_in_process(spark, preset, plan):
    from engine.engines.aseq.engine import make_aggregator
    from engine.spark import match

    s, mapping, pdf = _sample("clicks")
    text = s.presets[preset]
    df = spark.createDataFrame(pdf)
    out, rows = lazily(spark, lambda: match(df, text, mapping=mapping))
    assert out.columns == ["ts", "event", "group", "value"]
    pattern = parse(text)
    ref = sorted(json.dumps(r.to_json(), sort_keys=True) for r in run_all(make_aggregator(pattern), load_events(pdf, mapping).events))
    got = sorted(json.dumps({"ts": r["ts"], "event": r["event"], "group": None if r["group"] is None else json.loads(r["group"]),
                             "value": None if r["value"] is None else json.loads(r["value"])}, sort_keys=True) for r in rows)
    assert got == ref and got


def test_agg_time_chunked_equals_in_process(spark, keyed):
    from engine.engines.aseq.engine import make_aggregator
    from engine.spark import match

    pdf, df, events = keyed
    text = "PATTERN SEQ(A a, B b) WHERE b.value > a.value AGG COUNT WITHIN 6"
    _, rows = lazily(spark, lambda: match(df, text, chunk_size=9))
    ref = sorted(json.dumps(r.to_json(), sort_keys=True) for r in run_all(make_aggregator(parse(text)), events))
    got = sorted(json.dumps({"ts": r["ts"], "event": r["event"], "group": r["group"], "value": json.loads(r["value"])},
                            sort_keys=True) for r in rows)
    assert got == ref and got


@pytest.mark.parametrize("given,mode", [(False, None), (False, "keyed"), (True, "time-chunked")])
def test_interval_data_equals_in_process(spark, given, mode):
    """Without U_max: the keyed and single-partition plans; with it, time chunks."""
    from engine.engines.uncertain.pmf import derived_u_max
    from engine.spark import match

    s, mapping, pdf = _sample("cluster")
    text = s.presets["query1"]
    df = spark.createDataFrame(pdf)
    loaded = load_events(pdf, mapping)
    opts = {"mode": mode} if mode else {}
    if mode == "keyed":
        text = text.replace("WITHIN", "AND [nodeId]\nWITHIN").replace("AND a.taskId = c.taskId\n", "")
    if given:
        opts["u_max"] = derived_u_max(loaded.events)
    out, rows = lazily(spark, lambda: match(df, text, mapping=mapping, chunk_size=20, **opts))
    pattern = parse(text)
    from engine.engines.planner import make_matcher

    ref = sorted(json.dumps(m.to_json(), sort_keys=True) for m in run_all(
        make_matcher(pattern, interval=True, u_max=derived_u_max(loaded.events), pmf=None), loaded.events))
    got = sorted(json.dumps({"match": {c.var: [r[c.var]] for c in pattern.positive}, "range": [r["range_lo"], r["range_hi"]],
                             "confidence": r["confidence"], "confidence_exact": r["confidence_exact"]}, sort_keys=True)
                 for r in rows)
    assert got == ref and got


def test_package_import_stays_light():
    """``import engine.spark`` imports no pyspark; ``engine.spark.match`` is loaded on first use."""
    code = ("import sys, engine.spark; assert 'pyspark' not in sys.modules; "
            "assert 'match' in engine.spark.__all__; print('ok')")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert got.stdout.strip() == "ok", got.stderr
