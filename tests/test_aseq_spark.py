"""A-Seq on Spark (engine/spark/aseq.py): the rows equal the in-process rows, by GROUP BY key,
in time chunks that own their rows, and on one partition; Arrow batches of 7 rows so that
groups and chunks span many batches."""
from __future__ import annotations

import pytest

from engine.aseq.engine import rows_for
from engine.dsl import parse
from engine.events import load_events
from sample_streams import generators
from tests.aseq_util import same_value

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def ticks(tmp_path_factory):
    """Stock ticks with the ticker as the event type (the paper's data, §6), a group g."""
    df = generators.stocks(300, symbols=3, seed=4)
    df["type"] = df["symbol"]
    df["g"] = df["volume"] % 2
    path = tmp_path_factory.mktemp("aseq") / "ticks.csv"
    df.to_csv(path, index=False)
    return str(path), load_events(str(path)).events


def same(a, b):
    from engine.spark.aseq import canonical

    a, b = canonical(a), canonical(b)
    return len(a) == len(b) and all((x.ts, x.event, x.group) == (y.ts, y.event, y.group) and
                                    same_value(x.value, y.value) for x, y in zip(a, b))


@pytest.mark.parametrize("text,emit,mode", [
    ("PATTERN SEQ(S0 a, !S2 n, S1 b, S0 c) AGG SUM(b.price) WITHIN 12", "trig", "time-chunked"),
    ("PATTERN SEQ(S0 a, S1 b, S2 c) AGG MAX(a.volume) WITHIN 9", "changes", "time-chunked"),
    ("PATTERN SEQ(S0 a, S1 b, S2 c) AGG COUNT GROUP BY g WITHIN 15", "changes", "keyed"),
    ("PATTERN SEQ(S0 a, S1 b) WHERE b.price > a.price AGG AVG(b.volume) WITHIN 20 events", "trig", "time-chunked"),
    ("PATTERN SEQ(S0 a, S1 b) AGG COUNT", "trig", "single-partition"),
])
def test_spark_rows_equal_in_process(spark, small_batches, ticks, text, emit, mode):
    from engine.spark.aseq import run

    path, events = ticks
    p = parse(text)
    res = run(p, path, emit=emit, spark=spark, chunk_size=40)
    assert res.mode == mode
    want = rows_for(p, events, emit=emit)
    assert want, "the case has rows"
    assert same(res.rows, want)
    if mode == "single-partition":
        assert res.warnings


def test_spark_baseline_fallback_equals_in_process(spark, ticks):
    from engine.spark.aseq import run

    path, events = ticks
    p = parse("PATTERN SEQ(S0 a, S1 b, S2 c) WHERE c.price > b.price AGG COUNT WITHIN 10")
    res = run(p, path, spark=spark, chunk_size=50)
    assert res.mode == "time-chunked" and same(res.rows, rows_for(p, events))
