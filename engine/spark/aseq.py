"""AGG patterns on Spark (A-Seq): the same rows as in-process, computed in parallel.

A-Seq is sequential per partition (docs/papers.md, "A-Seq"); this module
only decides which events each task's matcher sees (the matcher is ``aseq``, or what
``--engine`` names, exactly as in-process), like engine/spark/pipeline.py does for matches:

``keyed``
    GROUP BY: every match counts in one group (partition semantics, A11), and a row is
    about the TRIG's group only, so ``repartition(group).sortWithinPartitions(group, ts,
    seq)`` and one matcher per group give that group's rows exactly (with ``--emit
    changes`` too, whose rows carry the moment a START leaves the window).
``time-chunked``
    No GROUP BY, a window ``W``, skip_till_any_match and OUTPUT ALL: a row at coordinate
    ``x`` (the TRIG's ts or seq; for ``--emit changes`` the moment a START leaves) depends
    only on the events in ``(x - W, x]``. Chunk ``k`` sees the events in ``[kC - W, (k+1)C)``
    and keeps the rows it *owns*, those with ``x`` in ``[kC, (k+1)C)``.
``single-partition``
    Anything else (no window and no GROUP BY, count windows with ``--emit changes``, other
    strategies), with a warning.

Rows come back in canonical order: by ts, expiry rows before TRIG rows, then stream
position, then group.
"""
from __future__ import annotations

import base64
import json
import math
import pickle
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Iterator

import pyarrow as pa

from engine.engines.aseq.values import AggRow, TooLarge
from engine.events import TS_COL, TYPE_COL
from engine.model import ANY_TYPE, Pattern, Strategy
from engine.partition import PartitionKey
from engine.spark.io import KEY_COL, SEQ_COL, SparkEvents, read_events
from engine.spark.keys import key_expr
from engine.spark.partition_runner import group_column, matcher_errors, run_partition, sort_by_group
from engine.spark.pipeline import Progress, scale_window

__all__ = ["run", "AggRunResult", "plan_mode", "ROW_SCHEMA", "canonical"]

ROW_SCHEMA = "ts double, event string, grp string, value string, seq long, kind int"
_CHUNK = "__cep_agg_chunk"


@dataclass
class AggPlan:
    mode: str
    group_key: PartitionKey | None = None
    warnings: list[str] = field(default_factory=list)
    reason: str = ""


def plan_mode(pattern: Pattern, emit: str = "trig") -> AggPlan:
    """How an AGG pattern runs on Spark (see the module docstring)."""
    agg = pattern.aggregate
    assert agg is not None
    w = pattern.window
    count_changes = bool(w and w.is_count and emit == "changes")
    if agg.group_by and not count_changes:
        types = sorted({c.type for c in pattern.components()})
        attrs = tuple(agg.group_by)
        key = PartitionKey(by_type={t: attrs for t in types if t != ANY_TYPE},
                           default=attrs if ANY_TYPE in types else None, width=len(attrs))
        return AggPlan("keyed", key, [], f"GROUP BY {', '.join(attrs)}")
    if w is not None and pattern.strategy == Strategy.ANY and pattern.output == "ALL" and not count_changes:
        return AggPlan("time-chunked", None, [], "no GROUP BY; windowed")
    if w is None:
        why = "no GROUP BY and no WITHIN: every row depends on the whole stream"
    elif count_changes:
        why = "`--emit changes` with a count window: an expiry happens at a stream position of any group"
    else:
        why = f"{pattern.strategy.value} / OUTPUT {pattern.output}: matches depend on earlier events"
    return AggPlan("single-partition", None, [f"running on a single partition (no parallelism): {why}"], why)


@dataclass(frozen=True)
class _Task:
    pattern: Pattern
    engine: str
    options: dict
    spec: Any
    mode: str
    chunk: tuple[float, float] | None
    count_window: bool


def _make(task: _Task) -> Any:
    from engine.engines.aseq.engine import make_aggregator

    return make_aggregator(task.pattern, task.engine, **task.options)


_PICKLED = "pickle:"  # a value column that JSON cannot carry exactly (no JSON text starts with it)


def _value_text(v: Any) -> str:
    """A row's value for the string column: JSON text, or (a value beyond the float range,
    ``TooLarge``, or an int too long for ``str``) the pickled value, so that the driver
    prints it exactly as the in-process run does (null with its warning, or every digit)."""
    if isinstance(v, TooLarge) or (type(v) is int and v.bit_length() > 12_000):
        return _PICKLED + base64.b64encode(pickle.dumps(v)).decode("ascii")
    return json.dumps(v, default=str)


def _value_of(text: str) -> Any:
    """The inverse of ``_value_text`` (the text comes from this module's own tasks)."""
    if text.startswith(_PICKLED):
        return pickle.loads(base64.b64decode(text[len(_PICKLED):]))
    return json.loads(text)


def _row(r: AggRow) -> tuple:
    return (float(r.ts), json.dumps(r.event, default=str), json.dumps(r.group, default=str),
            _value_text(r.value), int(r.seq), 0 if r.event is None else 1)


def _batch(rows: list[tuple]) -> pa.RecordBatch:
    cols = list(zip(*rows)) if rows else [[] for _ in range(6)]
    return pa.RecordBatch.from_arrays(
        [pa.array(cols[0], pa.float64()), pa.array(cols[1], pa.string()), pa.array(cols[2], pa.string()),
         pa.array(cols[3], pa.string()), pa.array(cols[4], pa.int64()), pa.array(cols[5], pa.int32())],
        names=["ts", "event", "grp", "value", "seq", "kind"])


class _AggSink:
    """A-Seq rows as tuples (``ROW_SCHEMA``); a time chunk keeps the rows it owns (their
    coordinate: the TRIG's seq under a count window, else ts)."""

    def __init__(self, task: _Task):
        self.chunk = task.chunk
        self.count_window = task.count_window
        self.rows: list[tuple] = []

    def add(self, rows: list[AggRow], chunk: Any) -> None:
        out = self.rows
        for r in rows:
            if self.chunk is not None:
                origin, size = self.chunk
                x = r.seq if (self.count_window and r.event is not None) else r.ts
                if math.floor((x - origin) / size) != chunk:
                    continue
            out.append(_row(r))

    def __len__(self) -> int:
        return len(self.rows)

    def batch(self) -> pa.RecordBatch:
        rows, self.rows = self.rows, []
        return _batch(rows)


def _worker(task: _Task, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Rows arrive sorted by (group or chunk, ts, seq): one matcher per group, fed across
    Arrow batches (``partition_runner.run_partition``); a chunk keeps the rows it owns."""
    return run_partition(batches, task.spec, group_column(task.mode, _CHUNK), lambda: _make(task),
                         lambda rb: _AggSink(task))


@dataclass
class AggRunResult:
    rows: list[AggRow]
    mode: str
    warnings: list[str]
    events: int
    seconds: float
    info: dict[str, Any] = field(default_factory=dict)


def canonical(rows: list[AggRow]) -> list[AggRow]:
    """Rows in canonical order: ts, expiry before TRIG, stream position, group."""
    return sorted(rows, key=lambda r: (r.ts, 0 if r.event is None else 1, r.seq if r.event is not None else 0,
                                       json.dumps(r.group, default=str)))


def agg_plan_and_rows(pat: Pattern, df: Any, engine: str, options: dict[str, Any], emit: str,
                      mode: str | None) -> tuple[AggPlan, Any]:
    """The plan of an AGG run (``mode`` forces single-partition) and the rows it reads (only the
    pattern's types unless a component is ``ANY``); an unsupported pattern fails here, on the
    driver, with the engine's message (``engine.spark.aseq.run`` and ``engine.spark.match``)."""
    from pyspark.sql import functions as F

    from engine.engines.aseq.engine import make_aggregator

    make_aggregator(pat, engine, **options)
    plan = plan_mode(pat, emit)
    if mode is not None and mode != plan.mode:
        if mode != "single-partition":
            raise ValueError(f"mode {mode} is not valid for this pattern: {plan.reason}")
        plan = AggPlan("single-partition", None, [], "forced")
    types = sorted({c.type for c in pat.components()})
    if ANY_TYPE not in types:
        df = df.filter(F.col(TYPE_COL).isin(types))
    return plan, df


def run(pattern: Pattern, source: Any, engine: str = "auto", *, emit: str = "trig", mapping: Any = None,
        data_format: str | None = None, spark: Any = None, partitions: int | None = None,
        chunk_size: float | None = None, mode: str | None = None, max_runs: int | None = None,
        progress: bool = False) -> AggRunResult:
    """The rows of an AGG pattern over ``source`` (a path, DataFrame or SparkEvents) on Spark;
    ``mode`` forces a mode (a forced mode must be valid for the pattern)."""
    from pyspark.sql import functions as F

    from engine.spark.session import get_spark, parallelism

    t0 = time.perf_counter()
    spark = spark or get_spark()
    options: dict[str, Any] = {"emit": emit}
    if max_runs is not None:
        options["max_runs"] = max_runs
    ctx: Any = Progress(spark) if progress else nullcontext()
    with ctx:
        ev: SparkEvents = source if isinstance(source, SparkEvents) else read_events(source, mapping, data_format,
                                                                                     spark)
        pat = scale_window(pattern, ev)
        plan, df = agg_plan_and_rows(pat, ev.df, engine, options, emit, mode)
        n = partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))
        w = pat.window
        count_window = bool(w and w.is_count)
        info: dict[str, Any] = {"partitions": n}
        chunk = None
        if plan.mode == "keyed":
            assert plan.group_key is not None
            df = df.withColumn(KEY_COL, key_expr(plan.group_key, ev, pat.strategy))
            info["key"] = plan.group_key.columns()
        elif plan.mode == "time-chunked":
            assert w is not None
            W = float(w.size)
            if count_window:
                lo, hi = 0.0, float(max(ev.count - 1, 0))
            else:
                r = ev.df.agg(F.min(TS_COL), F.max(TS_COL)).collect()[0]
                lo, hi = float(r[0] or 0.0), float(r[1] or 0.0)
            target = 4 * parallelism(spark)
            size = max(float(chunk_size), W) if chunk_size is not None else max((hi - lo) / target if hi > lo else W,
                                                                              2.0 * W)
            coord = F.col(SEQ_COL).cast("double") if count_window else F.col(TS_COL)
            rel = coord - F.lit(lo)
            first = F.floor(rel / F.lit(size)).cast("long")
            last = F.floor((rel + F.lit(W)) / F.lit(size)).cast("long")
            df = df.withColumn(_CHUNK, F.explode(F.sequence(first, last)))
            chunk = (lo, size)
            info.update(chunk_size=size, origin=lo)
        else:
            info["partitions"] = 1
        df = sort_by_group(df, group_column(plan.mode, _CHUNK), n)
        task = _Task(pat, engine, options, ev.event_spec(), plan.mode, chunk, count_window)

        def worker(batches: Iterator[pa.RecordBatch], task: _Task = task) -> Iterator[pa.RecordBatch]:
            return _worker(task, batches)

        with matcher_errors():
            got = df.mapInArrow(worker, ROW_SCHEMA).collect()
    rows = [AggRow(r["ts"], json.loads(r["event"]), json.loads(r["grp"]), _value_of(r["value"]), seq=r["seq"])
            for r in got]
    return AggRunResult(canonical(rows), plan.mode, list(plan.warnings), int(ev.count),
                        time.perf_counter() - t0, info)
