"""A-Seq on Spark (engine/spark/aseq.py): the rows equal the in-process rows, by GROUP BY key,
in time chunks that own their rows, and on one partition; Arrow batches of 7 rows so that
groups and chunks span many batches."""
from __future__ import annotations

import pytest

from engine.engines.aseq.engine import rows_for
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


def test_spark_sum_beyond_the_float_range_equals_in_process(spark, tmp_path):
    """A SUM beyond the float range (TooLarge: null with its warning) comes back from the
    tasks as the in-process run has it, not as text."""
    from engine.engines.aseq.values import TooLarge
    from engine.spark.aseq import canonical, run

    path = tmp_path / "big.csv"
    path.write_text("type,id,ts,x\n" + "".join(
        f"A,{i},{i},{'9' * 300}e5\n" if i % 2 else f"B,{i},{i},1.5e308\n" for i in range(1, 9)))
    events = load_events(str(path)).events
    p = parse("PATTERN SEQ(A a, B b) AGG SUM(b.x) WITHIN 5")
    want = canonical(rows_for(p, events))
    assert any(isinstance(r.value, TooLarge) for r in want)
    got = canonical(run(p, str(path), spark=spark, chunk_size=3).rows)
    assert [(r.ts, r.event, r.value) for r in got] == [(r.ts, r.event, r.value) for r in want]


def test_task_values_round_trip_exactly():
    """The value column carries TooLarge and ints too long for ``str`` exactly."""
    from fractions import Fraction

    from engine.engines.aseq.values import TooLarge
    from engine.spark.aseq import _value_of, _value_text

    for v in (3, 2.5, None, 10 ** 5000 + 7, TooLarge(Fraction(10 ** 400, 3))):
        assert _value_of(_value_text(v)) == v
