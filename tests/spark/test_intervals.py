"""Interval data on Spark: by partition key or in time chunks overlapping
by W + U_max, equal to the in-process engine (signatures, ranges, exact confidences), with
many chunks and many small Arrow batches."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from engine.engines import planner

if "uncertain-event" not in planner.ENGINES or not hasattr(planner.EngineInfo, "interval"):
    pytest.skip("the planner's interval registration is not in this tree",
                allow_module_level=True)

from engine.dsl import parse  # noqa: E402
from engine.events import ColumnMapping, load_events  # noqa: E402
from engine.engines.uncertain.event import run_event_based  # noqa: E402
from engine.engines.uncertain.result import as_table  # noqa: E402

pytestmark = [pytest.mark.spark]

MAPPING = ColumnMapping(type_col="type", id_col="id", lower_col="lower", upper_col="upper")


def interval_frame(n: int = 400, seed: int = 3, keys: int = 4, width: int = 4) -> pd.DataFrame:
    """Random interval events in arrival (true-time) order: types A/B/C, key k, value v."""
    rng = random.Random(seed)
    rows, t = [], 0
    for i in range(n):
        t += rng.randint(0, 2)
        lo, hi = t - rng.randint(0, width), t + rng.randint(0, width)
        rows.append({"type": rng.choice("ABC"), "id": i, "lower": lo, "upper": hi, "k": rng.randrange(keys),
                     "v": rng.randint(0, 3)})
    rows.sort(key=lambda r: (r["lower"], r["id"]))
    return pd.DataFrame(rows)


def in_process(text: str, df: pd.DataFrame) -> dict:
    evs = load_events(df, MAPPING).events
    return as_table(run_event_based(parse(text), evs, u_max=int((df["upper"] - df["lower"]).max())))


@pytest.mark.parametrize("text, mode", [
    ("PATTERN SEQ(A a, B b, C c) WHERE [k] AND b.v >= a.v WITHIN 8", "keyed"),
    ("PATTERN SEQ(A a, B b, C c) WHERE b.v >= a.v WITHIN 8", "time-chunked"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND [k] WITHIN 6", "time-chunked"),
])
def test_spark_equals_in_process(spark, small_batches, text, mode, tmp_path):
    from engine.spark.pipeline import run

    df = interval_frame()
    path = tmp_path / "iv.csv"
    df.to_csv(path, index=False)
    res = run(text, str(path), mapping=MAPPING, spark=spark, chunk_size=20)
    try:
        assert res.mode == mode
        assert as_table(res.to_matches()) == in_process(text, df)
        if mode == "time-chunked":  # chunks overlap by W + U_max, and there are many of them
            w = int(text.rsplit("WITHIN", 1)[1])
            assert res.info["overlap"] == w + int((df["upper"] - df["lower"]).max())
            assert res.info["chunk_size"] >= res.info["overlap"]
            assert (df["upper"].max() - df["lower"].min()) / res.info["chunk_size"] > 10
    finally:
        res.unpersist()


def test_spark_cluster_sample_equals_in_process(spark):
    from engine.spark.pipeline import run
    from sample_streams import events, load

    s = load("cluster")
    text = s.presets["query1"]
    res = run(text, str(s.path), mapping=ColumnMapping(**{k: v for k, v in s.mapping.items() if v is not None}),
              spark=spark, chunk_size=15)
    try:
        evs = events("cluster")
        u = max(e.upper - e.lower for e in evs)
        assert as_table(res.to_matches()) == as_table(run_event_based(parse(text), evs, u_max=u))
        assert res.mode == "time-chunked" and res.count == len(res.to_matches()) >= 3
    finally:
        res.unpersist()
