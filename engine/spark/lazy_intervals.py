"""``engine.spark.match`` over interval data (imprecise timestamps), lazily.

The plans of ``engine.spark.intervals`` (``plan_intervals``: keyed, time-chunked,
single-partition) and its matcher (``intervals._make``: the uncertain engines), without the
two Spark jobs ``run_intervals`` runs before matching: ``U_max`` derived from the data, and the
chunk origin from the data's smallest lower bound. Here

- ``U_max`` is the mapping's (``u_max=``) when given. Without it the keyed and
  single-partition plans run the engines with no ``U_max`` (their signatures are the same; the
  engines hold back what they cannot yet finalise until the end of their partition, which
  costs memory, not results), and a time-chunked plan (which needs ``U_max`` to know how far
  chunks overlap) becomes single-partition; forcing ``mode="time-chunked"`` without ``u_max``
  is refused.
- chunks start at 0 and are ``CHUNK_WINDOWS`` times the overlap ``ceil(W) + U_max`` long
  (``chunk_size`` overrides, at least the overlap).

Rows: the partition key columns (keyed), ``match_id``, ``range_lo``, ``range_hi`` (the
signature's range, integers as in-process), ``confidence`` (double), ``confidence_exact``
(``n/d`` text, exact), and one column per variable with its event ids.

Example::

    rows = match(df, "PATTERN SEQ(A a, B b) WITHIN 10", lower_col="lo", upper_col="hi", u_max=3)
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterator

import pyarrow as pa

from engine.events import LOWER_COL, TYPE_COL, UPPER_COL
from engine.model import ANY_TYPE, Pattern, Strategy
from engine.spark.io import KEY_COL, SparkEvents
from engine.spark.lazy_events import renumber
from engine.spark.match_columns import stable_id
from engine.spark.match_rows import match_json
from engine.spark.partition_runner import group_column, run_partition, sort_by_group

__all__ = ["match_intervals"]

_CHUNK = "__cep_chunk"
_KEY_VALUE = "__cep_kv"


def _schema(key_fields: list[tuple[str, Any]], variables: list[tuple[str, bool]], id_long: bool) -> Any:
    from pyspark.sql import types as T

    id_type = T.LongType() if id_long else T.StringType()
    fixed = {"match_id", "range_lo", "range_hi", "confidence", "confidence_exact"}
    for n, _ in key_fields:
        if n.lower() in fixed:
            raise ValueError(f"the partition key attribute {n!r} would be a column of the same name as a column "
                             f"every row has; rename the attribute in the data and the pattern")
    taken = {n.lower() for n, _ in key_fields} | fixed
    for var, _ in variables:
        if var.lower() in taken:
            raise ValueError(f"the variable {var!r} would be a column of the same name as another column of the "
                             f"rows; rename the variable")
    fields = [T.StructField(n, t, True) for n, t in key_fields]
    fields += [T.StructField("match_id", T.StringType(), False), T.StructField("range_lo", T.LongType(), True),
               T.StructField("range_hi", T.LongType(), True), T.StructField("confidence", T.DoubleType(), True),
               T.StructField("confidence_exact", T.StringType(), True)]
    fields += [T.StructField(v, T.ArrayType(id_type) if k else id_type, True) for v, k in variables]
    return T.StructType(fields)


class _Sink:
    """Signatures of one task as typed rows; a time chunk keeps those whose range starts in it."""

    def __init__(self, schema: Any, variables: list[tuple[str, bool]], chunk: tuple[float, float] | None,
                 keys: dict[Any, tuple] | None, nkeys: int, id_long: bool, id_json: bool):
        self.schema, self.variables, self.chunk = schema, variables, chunk
        self.keys, self.nkeys, self.id_long, self.id_json = keys, nkeys, id_long, id_json
        self.rows: list[list[Any]] = []

    def _id(self, i: Any) -> Any:
        if self.id_long:
            return i
        return i if isinstance(i, str) and not self.id_json else json.dumps(i, default=str)

    def add(self, ms: list[Any], group: Any) -> None:
        for m in ms:
            if self.chunk is not None and math.floor((m.range[0] - self.chunk[0]) / self.chunk[1]) != group:
                continue  # owned by another chunk
            key = self.keys.get(group, ()) if self.keys is not None else ()
            j = m.to_json()
            row = list(key) + [None] * (self.nkeys - len(key))
            row += [stable_id(match_json(m.bindings)), int(m.range[0]), int(m.range[1]), j["confidence"],
                    j["confidence_exact"]]
            bound = dict(m.bindings)
            for var, kleene in self.variables:
                ids = [self._id(i) for i in bound.get(var, ())]
                row.append(ids if kleene else (ids[0] if ids else None))
            self.rows.append(row)

    def __len__(self) -> int:
        return len(self.rows)

    def batch(self) -> pa.RecordBatch:
        from pyspark.sql.pandas.types import to_arrow_schema

        rows, self.rows = self.rows, []
        schema = to_arrow_schema(self.schema)
        columns = list(zip(*rows)) if rows else [[] for _ in schema]
        return pa.RecordBatch.from_arrays([pa.array(list(c), f.type) for c, f in zip(columns, schema)], schema=schema)


def match_intervals(pattern: Pattern, ev: SparkEvents, *, engine: str = "auto", mode: str | None = None,
                    partitions: int = 8, chunk_size: float | None = None) -> Any:
    """The signatures of ``pattern`` (window in the data's unit) over interval events, as a
    DataFrame built without a Spark job (see the module)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from engine.engines.planner import choose
    from engine.spark.intervals import _make, _Task, plan_intervals
    from engine.spark.keys import key_expr
    from engine.spark.lazy_match import CHUNK_WINDOWS, _remember_keys, key_columns

    name = choose(pattern, engine, interval=True).name  # an unsupported pattern fails here
    u_max = ev.mapping.u_max
    planned, key, why = plan_intervals(pattern)
    if mode is not None and mode != planned:
        if mode == "keyed" and (key is None or pattern.strategy is not Strategy.ANY):
            raise ValueError(f"keyed mode is not valid for this pattern: {why}")
        if mode == "time-chunked" and pattern.window is None:
            raise ValueError("time chunks need a WITHIN window")
        if mode not in ("keyed", "time-chunked", "single-partition"):
            raise ValueError(f"unknown mode {mode!r}; use keyed, time-chunked or single-partition")
        planned = mode
    if planned == "time-chunked" and u_max is None:
        if mode == "time-chunked":
            raise ValueError("time chunks over interval data need U_max (u_max=, the largest upper - lower) to "
                             "know how far chunks overlap; without it this plan needs a pass over the data")
        planned = "single-partition"
    df = ev.df
    types = {c.type for c in pattern.components()}
    if ANY_TYPE not in types:
        df = df.filter(F.col(TYPE_COL).isin(sorted(types)))
    keys: list[tuple[str, Any, Any]] = []
    chunk = None
    if planned == "keyed":
        if key is None:
            raise ValueError("the pattern has no partition key")
        df = df.withColumn(KEY_COL, key_expr(key, ev, pattern.strategy)).filter(F.col(KEY_COL).isNotNull())
        keys = key_columns(key, ev)
        for i, (_, _, expr) in enumerate(keys):
            df = df.withColumn(f"{_KEY_VALUE}{i}", expr)
    elif planned == "time-chunked":
        assert u_max is not None and pattern.window is not None
        reach = math.ceil(float(pattern.window.size)) + u_max
        size = max(float(chunk_size) if chunk_size is not None else CHUNK_WINDOWS * float(reach), float(reach), 1.0)
        first = (F.floor((F.col(LOWER_COL) - F.lit(float(reach))) / F.lit(size)) - 1).cast("long")
        last = F.floor(F.col(UPPER_COL) / F.lit(size)).cast("long")
        df = df.withColumn(_CHUNK, F.explode(F.sequence(first, last)))
        chunk = (0.0, size)
    df = sort_by_group(df, group_column(planned, _CHUNK), partitions)
    task = _Task(pattern=pattern, engine=name, u_max=u_max, pmf=ev.mapping.pmf_col, mode=planned,  # type: ignore[arg-type]
                 chunk=chunk)
    spec = ev.event_spec()
    variables = [(c.var, bool(c.kleene)) for c in pattern.positive]
    id_long = not ev.id_json and ev.df.schema["__cep_id"].dataType == T.LongType()
    schema = _schema([(n, dt) for n, dt, _ in keys], variables, id_long)
    width, id_json = len(keys), ev.id_json

    def worker(batches: Iterator[pa.RecordBatch], task: _Task = task) -> Iterator[pa.RecordBatch]:
        batches = renumber(batches)
        found: dict[Any, tuple] | None = None
        if width:
            found = {}
            batches = _remember_keys(batches, found, width)
        return run_partition(batches, spec, group_column(task.mode, _CHUNK), lambda: _make(task),
                             lambda rb: _Sink(schema, variables, task.chunk, found, width, id_long, id_json))

    return df.mapInArrow(worker, schema)
