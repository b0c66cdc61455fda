"""``engine.spark.match(df, pattern, **options)``: a pattern as a lazy DataFrame transformation.

The result is a Spark DataFrame; building it runs no Spark job (the events are validated in
the tasks, ``engine.spark.lazy_events``), so the caller's action (``count``, ``write``,
``toPandas`` ...) runs the match with the rest of their job. The plans are the ones of
``engine.spark.pipeline`` (keyed, time-chunked, single-partition; ``plan_mode``) and
``engine.spark.aseq`` (AGG patterns), with one difference: time chunks start at 0 and
their size is a multiple of the window (``CHUNK_WINDOWS``; ``chunk_size`` overrides it)
instead of a size computed from the data's time range (which needs a job). The matches are
the in-process ones.

Rows: see ``engine.spark.match_columns`` (key columns, ``match_id``, ``start``, ``end``, a
column per variable, optionally ``events``). AGG patterns give ``ts``, ``event`` (the TRIG
event's id; null for a row of ``emit="changes"`` when a START leaves the window),
``group`` and ``value`` (JSON text, exact: an aggregate may be an integer beyond 64 bits;
null for a value beyond the float range). Interval data: ``engine.spark.lazy_intervals``.
A streaming DataFrame gives a streaming DataFrame (``engine.spark.stream_match``).

Only DataFrame APIs a Spark Connect server has too are used (``mapInArrow``, windows,
functions; no ``sparkContext``).

Example::

    from engine.spark import match
    rows = match(events_df, "PATTERN SEQ(A a, B b) WHERE [user] WITHIN 1 hour")
    rows.filter("end - start < 60").write.parquet("out")   # the match runs here
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Iterator

import pyarrow as pa

from engine.events import TS_COL, TYPE_COL, ColumnMapping
from engine.model import Pattern
from engine.spark.io import KEY_COL, SEQ_COL, SparkEvents
from engine.spark.keys import key_expr
from engine.spark.lazy_events import lazy_events, renumber
from engine.spark.match_columns import MatchShape, TypedMatchSink, match_shape
from engine.spark.partition_runner import EventMemory, group_column, run_partition, sort_by_group

__all__ = ["match", "CHUNK_WINDOWS", "AGG_SCHEMA", "column_mapping", "key_columns"]

#: a time chunk is this many windows long unless ``chunk_size`` is given
CHUNK_WINDOWS = 4
_CHUNK = "__cep_chunk"
_KEY_VALUE = "__cep_kv"
_OUT_ROWS = 8192
_MAPPING_OPTIONS = ("type_col", "ts_col", "id_col", "lower_col", "upper_col", "ts_unit", "pmf_col", "u_max")


def column_mapping(columns: list[str], mapping: Any = None, **names: Any) -> ColumnMapping | None:
    """The mapping of ``match``: ``mapping`` (a ``ColumnMapping`` or a dict) with the column
    options (``type_col=``, ``ts_col=`` ... as the CLI's flags) over it; None: guessed."""
    from engine.events import guess_mapping

    given = {k: v for k, v in names.items() if v is not None}
    if mapping is None and not given:
        return None
    if isinstance(mapping, ColumnMapping):
        base = mapping.model_dump()
    elif isinstance(mapping, dict):
        base = dict(mapping)
    else:
        base = guess_mapping(columns).model_dump()
    base.update(given)
    if base.get("ts_col") is None:
        base.pop("ts_col", None)
    return ColumnMapping(**base)


def match(df: Any, pattern: Pattern | str, *, engine: str = "auto", mapping: Any = None, mode: str | None = None,
          with_events: bool = False, partitions: int | None = None, chunk_size: float | None = None,
          emit: str = "trig", max_runs: int | None = None, bad_rows: str = "fail", **columns: Any) -> Any:
    """The matches of ``pattern`` (text or a parsed ``Pattern``) over the events of ``df`` as a
    DataFrame, without running a Spark job (see the module).

    ``engine``: as ``cep run --engine``; ``mapping`` or ``type_col=``, ``ts_col=``, ``id_col=``,
    ``lower_col=``, ``upper_col=``, ``ts_unit=``, ``pmf_col=``, ``u_max=``: which columns are
    what (guessed from the names otherwise); ``mode``: force ``keyed``, ``time-chunked`` or
    ``single-partition`` (a forced mode must be valid for the pattern); ``partitions``: tasks
    of the keyed and time-chunked plans (default ``spark.sql.shuffle.partitions``);
    ``chunk_size``: time chunk size in ts units (at least the window); ``emit``, ``max_runs``:
    AGG patterns, as the CLI's; ``bad_rows``: ``fail`` (a row that is not a valid event fails
    the job, naming the row and why) or ``drop`` (such rows are left out).

    >>> rows = match(df, "PATTERN SEQ(A a, B+ b[]) WHERE [user] WITHIN 10")  # doctest: +SKIP
    >>> rows.columns                                                         # doctest: +SKIP
    ['user', 'match_id', 'start', 'end', 'a', 'b']
    """
    from engine.dsl import parse

    unknown = sorted(set(columns) - set(_MAPPING_OPTIONS))
    if unknown:
        raise TypeError(f"unknown option {unknown[0]!r}; the column options are {', '.join(_MAPPING_OPTIONS)}")
    if isinstance(pattern, str):
        pattern = parse(pattern)
    cm = column_mapping(list(df.columns), mapping, **columns)
    if df.isStreaming:
        from engine.spark.stream_match import match_stream

        return match_stream(df, pattern, engine=engine, mapping=cm, with_events=with_events, bad_rows=bad_rows)
    count_window = bool(pattern.window is not None and pattern.window.is_count)
    ev = lazy_events(df, cm, bad_rows=bad_rows, dense_seq=count_window)
    from engine.spark.pipeline import scale_window

    pat = scale_window(pattern, ev)
    spark = df.sparkSession
    n = partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))
    if ev.is_interval:
        from engine.spark.lazy_intervals import match_intervals

        return match_intervals(pat, ev, engine=engine, mode=mode, partitions=n, chunk_size=chunk_size)
    if pat.aggregate is not None:
        return _aggregate(pat, ev, engine, emit, max_runs, mode, n, chunk_size)
    return _matches(pat, ev, engine, mode, with_events, n, chunk_size)


# --------------------------------------------------------------------------- matches

@dataclass(frozen=True)
class _Task:
    """What a matching task needs (pickled to the workers)."""

    pattern: Pattern
    factory: Any
    spec: Any
    shape: MatchShape
    mode: str
    chunk: tuple[float, float, bool] | None
    keep_events: float | None
    count_window: bool
    key_values: int          # key value columns carried to the task (keyed)


def chunk_of(coord: Any, window: float, size: float) -> Any:
    """The time chunks (origin 0, ``size``) an event at ``coord`` is seen by: chunk ``k`` sees
    ``[kC, (k+1)C + W)`` (``pipeline``'s rule)."""
    from pyspark.sql import functions as F

    first = F.floor((coord - F.lit(window)) / F.lit(size)).cast("long")
    last = F.floor(coord / F.lit(size)).cast("long")
    return F.explode(F.sequence(first, last))


def _chunk_size(window: float, chunk_size: float | None) -> float:
    if chunk_size is not None:
        if not chunk_size > 0:
            raise ValueError(f"chunk_size must be a positive number of ts units, not {chunk_size!r}")
        return max(float(chunk_size), window)
    return CHUNK_WINDOWS * window if window > 0 else 1.0


def _key_value(attr: str, ev: SparkEvents) -> tuple[Any, Any]:
    """The typed value of a key attribute as a Spark column, and its type."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from engine.events import ID_COL
    from engine.spark.io import JSON_COL

    if attr in ev.attr_columns:
        return F.col(f"`{attr}`"), ev.df.schema[attr].dataType
    builtin = {"type": TYPE_COL, "ts": TS_COL, "id": ID_COL}
    if attr in builtin and attr not in ev.json_attrs:
        c = builtin[attr]
        return F.col(c), ev.df.schema[c].dataType
    if attr in ev.json_attrs and ev.has_json:
        path = "$['" + attr.replace("\\", "\\\\").replace("'", "\\'") + "']"
        return F.get_json_object(F.col(JSON_COL), path), T.StringType()
    return F.lit(None).cast("string"), T.StringType()


def key_columns(key: Any, ev: SparkEvents) -> list[tuple[str, Any, Any]]:
    """(name, Spark type, value expression) of each partition key column: the attribute's own
    name and type when every event type uses the same attribute at that position; else the
    attribute names joined by ``_`` as text."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    per_type = dict(key.by_type)
    out = []
    for i in range(key.width):
        names = []
        for attrs in list(per_type.values()) + ([key.default] if key.default else []):
            if attrs[i] not in names:
                names.append(attrs[i])
        if len(names) == 1:
            expr, dt = _key_value(names[0], ev)
            out.append((names[0], dt, expr))
            continue
        values = {a: _key_value(a, ev) for a in names}
        types = {v[1] for v in values.values()}
        dt = types.pop() if len(types) == 1 else T.StringType()
        expr = None
        for t, attrs in sorted(per_type.items()):
            v = values[attrs[i]][0].cast(dt)
            expr = F.when(F.col(TYPE_COL) == F.lit(t), v) if expr is None else expr.when(F.col(TYPE_COL) == F.lit(t), v)
        rest = values[key.default[i]][0].cast(dt) if key.default else F.lit(None).cast(dt)
        out.append(("_".join(names), dt, rest if expr is None else expr.otherwise(rest)))
    return out


def _remember_keys(batches: Iterator[pa.RecordBatch], keys: dict[Any, tuple], width: int
                   ) -> Iterator[pa.RecordBatch]:
    """The typed key values of each group's first row, into ``keys`` (group text -> values)."""
    for rb in batches:
        groups = rb.column(KEY_COL).to_pylist()
        values = [rb.column(f"{_KEY_VALUE}{i}").to_pylist() for i in range(width)]
        prev = object()
        for j, g in enumerate(groups):
            if g != prev:
                prev = g
                if g not in keys:
                    keys[g] = tuple(v[j] for v in values)
        yield rb


def _match_task(task: _Task, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    if not task.count_window:
        batches = renumber(batches)
    keys: dict[Any, tuple] | None = None
    if task.key_values:
        keys = {}
        batches = _remember_keys(batches, keys, task.key_values)
    memory = EventMemory(task.keep_events, task.count_window) if task.shape.with_events else None
    pattern, factory = task.pattern, task.factory
    return run_partition(batches, task.spec, group_column(task.mode, _CHUNK), lambda: factory(pattern),
                         lambda rb: TypedMatchSink(task.shape, task.chunk, keys, memory),
                         flush_rows=_OUT_ROWS, memory=memory)


def _matches(pat: Pattern, ev: SparkEvents, engine: str, mode: str | None, with_events: bool, n: int,
             chunk_size: float | None) -> Any:
    from pyspark.sql import functions as F

    from engine.spark.pipeline import Plan, default_factory, plan_mode

    factory = default_factory(engine)
    factory(pat)  # an unsupported pattern fails here, on the driver, with the engine's message
    plan = plan_mode(pat)
    if mode is not None and mode != plan.mode:
        if mode == "time-chunked":
            raise ValueError(f"time chunks are not valid for this pattern: {plan.reason}")
        if mode == "keyed" and plan.key is None:
            raise ValueError("the pattern has no partition key")
        if mode not in ("keyed", "single-partition"):
            raise ValueError(f"unknown mode {mode!r}; use keyed, time-chunked or single-partition")
        plan = Plan(mode, plan.key if mode == "keyed" else None, list(plan.warnings), plan.drop_irrelevant,
                    plan.reason)
    df = ev.df
    if plan.drop_irrelevant:
        df = df.filter(F.col(TYPE_COL).isin(sorted({c.type for c in pat.components()})))
    w = pat.window
    count_window = bool(w and w.is_count)
    chunk = None
    keys: list[tuple[str, Any, Any]] = []
    if plan.mode == "keyed":
        assert plan.key is not None
        df = df.withColumn(KEY_COL, key_expr(plan.key, ev, pat.strategy)).filter(F.col(KEY_COL).isNotNull())
        keys = key_columns(plan.key, ev)
        for i, (_, _, expr) in enumerate(keys):
            df = df.withColumn(f"{_KEY_VALUE}{i}", expr)
    elif plan.mode == "time-chunked":
        assert w is not None
        size = _chunk_size(float(w.size), chunk_size)
        coord = F.col(SEQ_COL).cast("double") if count_window else F.col(TS_COL)
        df = df.withColumn(_CHUNK, chunk_of(coord, float(w.size), size))
        chunk = (0.0, size, count_window)
    df = sort_by_group(df, group_column(plan.mode, _CHUNK), n)
    shape = match_shape(pat, ev, [(name, dt) for name, dt, _ in keys], with_events)
    task = _Task(pattern=pat, factory=factory, spec=ev.event_spec(), shape=shape, mode=plan.mode, chunk=chunk,
                 keep_events=float(w.size) if w else None, count_window=count_window, key_values=len(keys))

    def worker(batches: Iterator[pa.RecordBatch], task: _Task = task) -> Iterator[pa.RecordBatch]:
        return _match_task(task, batches)

    return df.mapInArrow(worker, shape.schema)


# --------------------------------------------------------------------------- AGG rows

def _agg_schema(id_type: str) -> str:
    return f"ts double, event {id_type}, `group` string, value string"


AGG_SCHEMA = _agg_schema("long")


def agg_value_text(v: Any) -> str | None:
    """An aggregate value as JSON text (every digit of an integer); None for a value beyond
    the float range (``TooLarge``, printed as null in-process)."""
    from engine.engines.aseq.values import TooLarge

    if isinstance(v, TooLarge) or v is None:
        return None
    if type(v) is int:
        return str(v)
    return json.dumps(v, default=str)


class _AggSink:
    """AGG rows of one task as typed rows; a time chunk keeps the rows it owns (as
    ``engine.spark.aseq``)."""

    def __init__(self, chunk: tuple[float, float] | None, count_window: bool, id_type: str, id_json: bool):
        self.chunk = chunk
        self.count_window = count_window
        self.id_type = id_type
        self.id_json = id_json
        self.rows: list[Any] = []

    def add(self, rows: list[Any], group: Any) -> None:
        for r in rows:
            if self.chunk is not None:
                origin, size = self.chunk
                x = r.seq if (self.count_window and r.event is not None) else r.ts
                if math.floor((x - origin) / size) != group:
                    continue
            self.rows.append(r)

    def __len__(self) -> int:
        return len(self.rows)

    def _event(self, e: Any) -> Any:
        if e is None or self.id_type == "long":
            return e
        return e if isinstance(e, str) and not self.id_json else json.dumps(e, default=str)

    def batch(self) -> pa.RecordBatch:
        rows, self.rows = self.rows, []
        id_type = pa.int64() if self.id_type == "long" else pa.string()
        return pa.RecordBatch.from_arrays(
            [pa.array([float(r.ts) for r in rows], pa.float64()), pa.array([self._event(r.event) for r in rows], id_type),
             pa.array([None if r.group is None else json.dumps(r.group, default=str) for r in rows], pa.string()),
             pa.array([agg_value_text(r.value) for r in rows], pa.string())],
            names=["ts", "event", "group", "value"])


def _aggregate(pat: Pattern, ev: SparkEvents, engine: str, emit: str, max_runs: int | None, mode: str | None,
               n: int, chunk_size: float | None) -> Any:
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from engine.spark.aseq import _CHUNK as AGG_CHUNK
    from engine.spark.aseq import _make, agg_plan_and_rows
    from engine.spark.aseq import _Task as AggTask

    options: dict[str, Any] = {"emit": emit}
    if max_runs is not None:
        options["max_runs"] = max_runs
    plan, df = agg_plan_and_rows(pat, ev.df, engine, options, emit, mode)
    w = pat.window
    count_window = bool(w and w.is_count)
    chunk = None
    if plan.mode == "keyed":
        assert plan.group_key is not None
        df = df.withColumn(KEY_COL, key_expr(plan.group_key, ev, pat.strategy))
    elif plan.mode == "time-chunked":
        assert w is not None
        W = float(w.size)
        size = _chunk_size(W, chunk_size)
        coord = F.col(SEQ_COL).cast("double") if count_window else F.col(TS_COL)
        first = F.floor(coord / F.lit(size)).cast("long")
        last = F.floor((coord + F.lit(W)) / F.lit(size)).cast("long")
        df = df.withColumn(AGG_CHUNK, F.explode(F.sequence(first, last)))
        chunk = (0.0, size)
    df = sort_by_group(df, group_column(plan.mode, AGG_CHUNK), n)
    task = AggTask(pat, engine, options, ev.event_spec(), plan.mode, chunk, count_window)
    id_type = "long" if not ev.id_json and ev.df.schema["__cep_id"].dataType == T.LongType() else "string"
    id_json = ev.id_json

    def worker(batches: Iterator[pa.RecordBatch], task: AggTask = task) -> Iterator[pa.RecordBatch]:
        if not task.count_window:
            batches = renumber(batches)
        return run_partition(batches, task.spec, group_column(task.mode, AGG_CHUNK), lambda: _make(task),
                             lambda rb: _AggSink(task.chunk, task.count_window, id_type, id_json))

    return df.mapInArrow(worker, _agg_schema("long" if id_type == "long" else "string"))
