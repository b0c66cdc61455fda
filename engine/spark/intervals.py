"""Interval data (imprecise timestamps) on Spark: the uncertain engines inside
``mapInArrow`` tasks, by partition key or in time chunks (docs/semantics.md, "Imprecise
timestamps"). The result equals the in-process one.

Modes (:func:`plan_intervals`):

``keyed``
    skip_till_any_match with a partition key: a signature's events share the key value,
    and its range and confidence depend on its own events only, so one matcher per key value.
    (Under skip_till_next_match the spoilers need not share the key, so it is not used.)
``time-chunked``
    A window W and ``U_max``: chunk k of size C >= W + U_max owns the signatures whose range
    starts in ``[kC, (k+1)C)`` and sees every event whose interval meets
    ``[kC, (k+1)C + W + U_max)``. Every point of an owned signature lies in
    ``[lo, lo + U_max + W - 1]`` (its first event's points start at ``lo`` and end within
    ``U_max``, the others within the window), so its events and all its possible spoilers
    are in the chunk and the chunk computes it exactly; a chunk that misses some of a
    signature's spoilers can only find a range starting earlier than the true one, which it
    does not own.
``single-partition``
    No window: one task.

Match rows: ``match_id``, ``key``, ``match`` (JSON ``{var: [id]}``), ``range_lo``,
``range_hi``, ``confidence_exact`` (``n/d``), ``start_seq``, ``end_seq``.
"""
from __future__ import annotations

import json
import math
import time
import zlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, ClassVar, Iterator

import pyarrow as pa

from engine.events import LOWER_COL, TYPE_COL, UPPER_COL
from engine.model import ANY_TYPE, Pattern, Strategy
from engine.partition import partition_key
from engine.spark.io import KEY_COL, SparkEvents
from engine.spark.partition_runner import group_column, matcher_errors, run_partition, sort_by_group
from engine.spark.result import SparkResult

__all__ = ["plan_intervals", "run_intervals", "IntervalRunResult", "INTERVAL_SCHEMA"]

INTERVAL_SCHEMA = ("match_id string, key string, `match` string, range_lo long, range_hi long, "
                   "confidence_exact string, start_seq long, end_seq long")
_CHUNK = "__cep_chunk"


def plan_intervals(pattern: Pattern) -> tuple[str, Any, str]:
    """(mode, key, why)."""
    key = partition_key(pattern)
    if key is not None and pattern.strategy is Strategy.ANY:
        return "keyed", key, f"partition key {key.columns()}"
    if pattern.window is not None:
        why = ("skip_till_next_match: spoilers need not share the key; " if key is not None else "") + \
              "time chunks overlapping by W + U_max"
        return "time-chunked", None, why
    return "single-partition", None, "no WITHIN: a signature may span the whole stream"


@dataclass(frozen=True)
class _Task:
    pattern: Pattern
    engine: str
    u_max: int
    pmf: str | None
    mode: str
    chunk: tuple[float, float] | None = None  # (origin, size)
    factory: Callable[..., Any] | None = None


def _make(task: _Task) -> Any:
    if task.factory is not None:
        return task.factory(task.pattern)
    from engine.engines.planner import make_matcher

    return make_matcher(task.pattern, task.engine, interval=True, u_max=task.u_max, pmf=task.pmf)


class _SignatureSink:
    """Signature rows as tuples (``INTERVAL_SCHEMA``); a time chunk keeps the signatures
    whose range starts in it; the key column is the group when keyed."""

    def __init__(self, task: _Task):
        self.chunk = task.chunk
        self.keyed = task.mode == "keyed"
        self.rows: list[tuple] = []

    def add(self, ms: list[Any], group: Any) -> None:
        out = self.rows
        for m in ms:
            if self.chunk is not None:
                origin, size = self.chunk
                if math.floor((m.range[0] - origin) / size) != group:
                    continue  # owned by another chunk
            mj = json.dumps(m.as_dict(), default=str)
            j = m.to_json()
            mid = f"{m.end_seq}-{m.start_seq}-{zlib.crc32(mj.encode()):08x}"
            out.append((mid, group if self.keyed else None, mj, int(m.range[0]), int(m.range[1]),
                        j["confidence_exact"], int(m.start_seq), int(m.end_seq)))

    def __len__(self) -> int:
        return len(self.rows)

    def batch(self) -> pa.RecordBatch:
        rows, self.rows = self.rows, []
        cols = list(zip(*rows)) if rows else [[] for _ in range(8)]
        types = [pa.string(), pa.string(), pa.string(), pa.int64(), pa.int64(), pa.string(), pa.int64(),
                 pa.int64()]
        names = ["match_id", "key", "match", "range_lo", "range_hi", "confidence_exact", "start_seq", "end_seq"]
        return pa.RecordBatch.from_arrays([pa.array(c, t) for c, t in zip(cols, types)], names=names)


def _worker(task: _Task, spec: Any, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Rows arrive sorted by (group, ts, seq): one matcher per group, across batches
    (``partition_runner.run_partition``)."""
    return run_partition(batches, spec, group_column(task.mode, _CHUNK), lambda: _make(task),
                         lambda rb: _SignatureSink(task))


@dataclass
class IntervalRunResult(SparkResult):
    """The signatures DataFrame (persisted), the mode, and the same helpers as
    ``pipeline.SparkRunResult``; ``to_matches()`` gives ``UncertainMatch`` objects."""

    interval: ClassVar[bool] = True

    def ordered(self) -> Any:
        return self.matches.orderBy("range_lo", "range_hi", "start_seq", "end_seq", "match")

    def to_matches(self) -> list[Any]:
        from engine.engines.uncertain.result import UncertainMatch, sort_uncertain

        order = [c.var for c in self.pattern.positive]
        out = []
        for r in self.matches.collect():
            d = json.loads(r["match"])
            out.append(UncertainMatch(bindings=tuple((v, tuple(d.get(v, ()))) for v in order),
                                      start=r["range_lo"], end=r["range_hi"], start_seq=r["start_seq"],
                                      end_seq=r["end_seq"], range=(r["range_lo"], r["range_hi"]),
                                      confidence=Fraction(r["confidence_exact"])))
        return sort_uncertain(out)


def run_intervals(pattern: Pattern, ev: SparkEvents, spark: Any, engine: str = "auto", *,
                  u_max: int | None = None, partitions: int | None = None, chunk_size: float | None = None,
                  mode: str | None = None, factory: Callable[..., Any] | None = None) -> IntervalRunResult:
    """Run ``pattern`` (window already in the unit of the data) over interval events."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from engine.engines.planner import choose
    from engine.spark.keys import key_expr

    t0 = time.perf_counter()
    info_engine = choose(pattern, engine, interval=True).name
    if u_max is None:
        u_max = ev.mapping.u_max
    if u_max is None:
        got = ev.df.agg(F.max(F.col(UPPER_COL) - F.col(LOWER_COL))).collect()[0][0]
        u_max = int(got or 0)
    planned, key, why = plan_intervals(pattern)
    if mode is not None and mode != planned:
        if mode == "keyed" and (key is None or pattern.strategy is not Strategy.ANY):
            raise ValueError(f"keyed mode is not valid for this pattern: {why}")
        if mode == "time-chunked" and pattern.window is None:
            raise ValueError("time chunks need a WITHIN window")
        planned = mode
    warnings: list[str] = []
    df = ev.df
    types = {c.type for c in pattern.components()}
    if ANY_TYPE not in types:
        df = df.filter(F.col(TYPE_COL).isin(sorted(types)))
    n = partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))
    info: dict[str, Any] = {"partitions": n, "u_max": u_max, "engine": info_engine, "plan": why}
    chunk = None
    if planned == "keyed":
        if key is None:
            raise ValueError("the pattern has no partition key")
        df = df.withColumn(KEY_COL, key_expr(key, ev, pattern.strategy)).filter(F.col(KEY_COL).isNotNull())
        info["key"] = key.columns()
    elif planned == "time-chunked":
        w = float(pattern.window.size)  # type: ignore[union-attr]
        reach = math.ceil(w) + u_max
        r = ev.df.agg(F.min(LOWER_COL), F.max(UPPER_COL)).collect()[0]
        origin, hi = float(r[0] or 0.0), float(r[1] or 0.0)
        size = float(chunk_size) if chunk_size is not None else max((hi - origin) / (4 * max(1, n)), 2.0 * reach)
        size = max(size, float(reach))
        # generous by one chunk: an extra event in a chunk is a real event, it cannot hurt
        first = F.greatest(F.floor((F.col(LOWER_COL) - F.lit(origin) - F.lit(float(reach))) / F.lit(size)) - 1,
                           F.lit(0)).cast("long")
        last = F.floor((F.col(UPPER_COL) - F.lit(origin)) / F.lit(size)).cast("long")
        df = df.withColumn(_CHUNK, F.explode(F.sequence(first, last)))
        chunk = (origin, size)
        info.update(chunk_size=size, origin=origin, overlap=reach)
    else:
        info["partitions"] = 1
        warnings.append(f"running on a single partition (no parallelism): {why}")
    df = sort_by_group(df, group_column(planned, _CHUNK), n)
    task = _Task(pattern=pattern, engine=info_engine, u_max=u_max, pmf=ev.mapping.pmf_col, mode=planned,
                 chunk=chunk, factory=factory)
    spec = ev.event_spec()

    def worker(batches: Iterator[pa.RecordBatch], task: _Task = task, spec: Any = spec) -> Iterator[pa.RecordBatch]:
        return _worker(task, spec, batches)

    matches = df.mapInArrow(worker, INTERVAL_SCHEMA).persist(StorageLevel.MEMORY_AND_DISK)
    with matcher_errors(matches):
        count = matches.count()
    return IntervalRunResult(matches, planned, warnings, ev, pattern, count, time.perf_counter() - t0, info)
