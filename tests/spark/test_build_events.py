"""``build_events`` straight from Arrow (``read.events.arrow_events``) gives the events of the pandas
path (``arrow_to_pandas`` + ``events_from_frame``) on random canonical batches: ints with and
without nulls, floats with NaN and nulls, booleans, strings, JSON attributes and ids, promoted
keys, interval bounds. No Spark session is needed."""
from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest

from engine.events import ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UPPER_COL, arrow_to_pandas
from engine.spark.read.columns import JSON_COL, SEQ_COL
from engine.spark.read.events import EventSpec, arrow_events, build_events


def _key(e):
    return (type(e.id), e.id, e.type, e.ts, e.seq, e.attrs, [type(v) for v in e.attrs.values()], e.lower, e.upper)


def _batch(rng: random.Random, n: int, id_json: bool, interval: bool, nulls: bool):
    def maybe(v):
        return None if nulls and rng.random() < 0.2 else v

    cols = {
        ROW_COL: pa.array(list(range(n)), pa.int64()),
        SEQ_COL: pa.array([10 + i for i in range(n)], pa.int64()),
        TYPE_COL: pa.array([rng.choice("ABC") for _ in range(n)], pa.string()),
        TS_COL: pa.array([float(i) / 3 for i in range(n)], pa.float64()),
        ID_COL: (pa.array([json.dumps(rng.choice([i, f"s{i}", 1.5 * i])) for i in range(n)], pa.string())
                 if id_json else pa.array([10**17 + i for i in range(n)], pa.int64())),
    }
    if interval:
        cols[LOWER_COL] = pa.array([float(i) for i in range(n)], pa.float64())
        cols[UPPER_COL] = pa.array([float(i) + 2 for i in range(n)], pa.float64())
    cols["k"] = pa.array([maybe(rng.randint(-5, 2**62)) for _ in range(n)], pa.int64())
    cols["v"] = pa.array([maybe(rng.choice([0.1, -2.0, float("nan"), 1e300])) for _ in range(n)], pa.float64())
    cols["f"] = pa.array([maybe(rng.choice([True, False])) for _ in range(n)], pa.bool_())
    cols["s"] = pa.array([maybe(rng.choice(["x", "", "é y"])) for _ in range(n)], pa.string())
    cols["i32"] = pa.array([maybe(rng.randint(-9, 9)) for _ in range(n)], pa.int32())
    cols[JSON_COL] = pa.array([maybe(json.dumps({"m": rng.choice([1, "one", 2.5]), "p": rng.choice([3, 4.5])}))
                               for _ in range(n)], pa.string())
    return pa.RecordBatch.from_pydict(cols)


@pytest.mark.parametrize("seed", range(6))
def test_arrow_events_equal_the_pandas_path(seed):
    rng = random.Random(seed)
    for id_json in (False, True):
        for interval in (False, True):
            rb = _batch(rng, rng.randint(1, 60), id_json, interval, nulls=seed % 2 == 0)
            spec = EventSpec(attr_columns=["k", "v", "f", "s", "i32"], has_json=True, id_json=id_json,
                             interval=interval, promote=("p",))
            fast = arrow_events(rb, spec)
            slow = build_events(rb, spec, frame=arrow_to_pandas(rb))
            assert fast is not None
            assert [_key(e) for e in fast] == [_key(e) for e in slow]


def test_other_arrow_types_take_the_pandas_path():
    rb = pa.RecordBatch.from_pydict({
        ROW_COL: pa.array([0], pa.int64()), SEQ_COL: pa.array([0], pa.int64()), TYPE_COL: pa.array(["A"]),
        TS_COL: pa.array([1.0]), ID_COL: pa.array([1], pa.int64()),
        "when": pa.array([0], pa.timestamp("us", tz="UTC"))})
    spec = EventSpec(attr_columns=["when"], has_json=False, id_json=False, interval=False)
    assert arrow_events(rb, spec) is None
    assert build_events(rb, spec)[0].attrs == build_events(rb, spec, frame=arrow_to_pandas(rb))[0].attrs
