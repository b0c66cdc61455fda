"""``engine.spark.match`` on a Structured Streaming DataFrame: a streaming DataFrame of match rows.

The machinery of ``cep stream`` (``engine.spark.streaming``) on the caller's stream of
typed event rows instead of a directory of files: the events are validated in the tasks
(``lazy_events``), each gets its partition key (``engine.partition``, as batch runs; one group
``*`` when the pattern has no key or runs under strict contiguity), turns into its JSON form
(``stream_files.event_json``), and ``groupBy(key).applyInPandasWithState`` keeps one matcher per
key value across micro-batches: the state is the pickled matcher (cloudpickle) with the key's
position counter, its last time stamp, its typed key values and (``with_events``) the events a
pending match can still use. The rows are those of a batch ``match`` (``match_columns``).

Semantics on a stream, as ``cep stream`` documents them: positions count the events of one key
value, so count windows (``WITHIN n events``) are refused; events are matched per key in time
order within a micro-batch (ties in input order); an event older than the last matched event of
its key arrives too late and is skipped (named on stderr); a match that waits for a window to
close (trailing negation) is reported when a later event of its key closes it. The stream needs an
id column (row numbers need the whole input).

Example::

    events = spark.readStream.schema(schema).parquet("in/")
    rows = match(events, "PATTERN SEQ(A a, B b) WHERE [user] WITHIN 10 min")
    rows.writeStream.format("parquet").option("path", "out/").option("checkpointLocation", "ck/").start()
"""
from __future__ import annotations

import sys
from typing import Any, Iterator

import pandas as pd
import pyarrow as pa

from engine.events import TYPE_COL, ColumnMapping
from engine.model import Pattern
from engine.spark.io import KEY_COL, SEQ_COL, SparkEvents, build_events
from engine.spark.keys import key_expr
from engine.spark.lazy_events import lazy_events
from engine.spark.match_columns import MatchShape, TypedMatchSink, match_shape

__all__ = ["match_stream", "EVENT_FIELDS"]

#: the rows between the validation and the stateful step (plus the key value columns)
EVENT_FIELDS = "key string, ts double, pos long, event string"
_STATE = "state binary"
_KEY_VALUE = "__cep_kv"


def _say(text: str) -> None:
    print(f"engine.spark.match (stream): {text}", file=sys.stderr, flush=True)


def _event_rows(spec: Any, width: int, schema: Any) -> Any:
    """``mapInArrow``: canonical rows -> (key, key values, ts, input position, event JSON)."""
    from engine.spark.stream_files import event_json

    def func(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark.sql.pandas.types import to_arrow_schema

        arrow = to_arrow_schema(schema)
        for rb in batches:
            if rb.num_rows == 0:
                continue
            evs = build_events(rb, spec)
            arrays = [rb.column(KEY_COL)]
            arrays += [rb.column(f"{_KEY_VALUE}{i}") for i in range(width)]
            arrays += [pa.array([float(e.ts) for e in evs], pa.float64()), rb.column(SEQ_COL),
                       pa.array([event_json(e) for e in evs], pa.string())]
            yield pa.RecordBatch.from_arrays(arrays, schema=arrow)

    return func


def _plain(v: Any) -> Any:
    """A pandas cell as a Python value (numpy scalars unwrapped, NaN/NA as None)."""
    if v is None or v is pd.NA:
        return None
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and v != v:
        return None
    return v


def _stateful(pattern: Pattern, factory: Any, shape: MatchShape, width: int, keep: float | None) -> Any:
    def func(key: tuple, pdfs: Iterator[pd.DataFrame], state: Any) -> Iterator[pd.DataFrame]:
        from pyspark import cloudpickle

        from engine.spark.partition_runner import EventMemory
        from engine.spark.stream_files import event_from_json

        if state.exists:
            matcher, nseq, last_ts, values, memory = cloudpickle.loads(state.get[0])
        else:
            matcher, nseq, last_ts, values = factory(pattern), 0, float("-inf"), None
            memory = EventMemory(keep) if shape.with_events else None
        parts = [p for p in pdfs if len(p)]
        sink = TypedMatchSink(shape, None, None, memory)
        if parts:
            pdf = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
            pdf = pdf.sort_values(["ts", "pos"], kind="stable").reset_index(drop=True)
            if values is None:
                first = pdf.iloc[0]
                values = tuple(_plain(first[f"{_KEY_VALUE}{i}"]) for i in range(width))
            late = pdf["ts"].to_numpy() < last_ts
            if late.any():
                _say(f"key {key[0]}: skipped {int(late.sum())} late event(s), older than the last matched event "
                     f"of the key")
                pdf = pdf[~late].reset_index(drop=True)
            sink.keys = {key[0]: values}
            for text in pdf["event"].tolist():
                e = event_from_json(text, nseq)
                nseq += 1
                if memory is not None:
                    memory.remember(e)
                out = matcher.feed(e)
                if out:
                    sink.add(out, key[0])
                last_ts = e.ts
        state.update((cloudpickle.dumps((matcher, nseq, last_ts, values, memory)),))
        columns = sink.columns()
        yield pd.DataFrame({f.name: pd.Series(col, dtype=object) for f, col in zip(shape.schema.fields, columns)})

    return func


def match_stream(df: Any, pattern: Pattern, *, engine: str = "auto", mapping: ColumnMapping | None = None,
                 with_events: bool = False, bad_rows: str = "fail") -> Any:
    """The streaming DataFrame of ``pattern``'s matches over the streaming DataFrame ``df``
    (see the module); ``engine.spark.match`` calls it for a streaming input."""
    from pyspark.sql import functions as F
    from pyspark.sql.streaming.state import GroupStateTimeout

    from engine.spark.lazy_match import key_columns
    from engine.spark.pipeline import default_factory, plan_mode, scale_window

    if pattern.window is not None and pattern.window.is_count:
        raise ValueError("a count window (WITHIN n events) needs positions in the whole stream, which a stream "
                         "does not have; use a time window")
    if pattern.aggregate is not None:
        raise ValueError("AGG patterns on a stream are not supported: give a batch DataFrame")
    from engine.engines.planner import choose

    chosen = choose(pattern, engine)
    if not chosen.incremental:  # it reports its matches only at the end: a stream has none
        raise ValueError(chosen.stream_refusal)
    ev: SparkEvents = lazy_events(df, mapping, bad_rows=bad_rows, streaming=True)
    if ev.is_interval:
        raise ValueError("interval data on a stream is not supported: give a batch DataFrame")
    pat = scale_window(pattern, ev)
    factory = default_factory(engine)
    factory(pat)
    plan = plan_mode(pat)
    data = ev.df
    if plan.drop_irrelevant:
        data = data.filter(F.col(TYPE_COL).isin(sorted({c.type for c in pat.components()})))
    keys: list[tuple[str, Any, Any]] = []
    if plan.mode == "keyed":
        assert plan.key is not None
        data = data.withColumn(KEY_COL, key_expr(plan.key, ev, pat.strategy)).filter(F.col(KEY_COL).isNotNull())
        keys = key_columns(plan.key, ev)
        for i, (_, _, expr) in enumerate(keys):
            data = data.withColumn(f"{_KEY_VALUE}{i}", expr)
    else:
        data = data.withColumn(KEY_COL, F.lit("*"))
    from pyspark.sql import types as T

    width = len(keys)
    rows_schema = T.StructType([T.StructField("key", T.StringType(), True)]
                               + [T.StructField(f"{_KEY_VALUE}{i}", dt, True) for i, (_, dt, _) in enumerate(keys)]
                               + [T.StructField("ts", T.DoubleType(), True), T.StructField("pos", T.LongType(), True),
                                  T.StructField("event", T.StringType(), True)])
    rows = data.mapInArrow(_event_rows(ev.event_spec(), width, rows_schema), rows_schema)
    shape = match_shape(pat, ev, [(name, dt) for name, dt, _ in keys], with_events)
    keep = float(pat.window.size) if pat.window is not None else None
    return rows.groupBy("key").applyInPandasWithState(
        _stateful(pat, factory, shape, width, keep), outputStructType=shape.schema, stateStructType=_STATE,
        outputMode="append", timeoutConf=GroupStateTimeout.NoTimeout)
