"""The distributed pipeline: run a pattern over events on Spark (docs/design.md, "Spark").

``run(pattern, source)`` reads and validates the events (``engine.spark.io``), picks an
execution mode and feeds any ``Matcher`` (``engine.engines.planner.make_matcher`` by default)
inside ``mapInArrow`` tasks, batch by batch, carrying the matcher's state across Arrow
batches. Like FlinkCEP's ``CepOperator`` this is a thin adapter: the matcher does the
matching, this module only decides which events a matcher sees and in what order.

Modes (``plan_mode``):

``keyed``
    The pattern has a partition key (``engine.partition.partition_key``: ``[attr]`` and
    equality predicates, transitively) and the strategy is not strict contiguity (which
    makes the whole stream one partition). Every match lies inside one key value, so
    ``repartition(key).sortWithinPartitions(key, ts, seq)`` gives each task whole keys in
    stream order, and one matcher per key sees exactly the events the in-process matcher
    would route to that key's runs. Events of types no component uses are dropped under
    skip_till_any/next_match (no run can use them); under partition contiguity they are
    kept in their key (they break contiguity there).

``time-chunked``
    No key, a window ``W`` and skip_till_any_match with OUTPUT ALL. Chunking is valid
    because the output of a run depends only on events after its first event: whether a
    set of events is a match depends on those events, on the events between them
    (negation) and on the events less than ``W`` after the first one (trailing negation),
    all inside ``[first, first + W)``. So time (or ``seq`` for count windows) is cut into
    chunks of size ``C >= W``; chunk ``k`` sees the events in ``[kC, (k+1)C + W)`` and
    reports a match only if its first event lies in ``[kC, (k+1)C)`` (the chunk *owns*
    it). Each match is found by exactly one chunk. Not valid for OUTPUT NON_OVERLAP (a
    reported match suppresses later ones across chunk borders) nor for the other
    strategies, whose runs interact (skip_till_next_match / contiguity decide per event
    which run takes it, given the runs alive before the chunk).

``single-partition``
    Anything else: one task feeds one matcher the whole stream; the result says so in
    ``warnings``.

Match rows: ``match_id`` (deterministic: end seq, start seq and a hash of the
bindings), ``key`` (the partition key value as text; null when unkeyed), ``match`` (the
JSON object ``{var: [event ids]}``, as ``Match.to_json()["match"]``), ``start``/``end``
(first/last ts), ``start_seq``/``end_seq``, and with ``with_events`` an ``events``
column (JSON ``{var: [{id, type, ts, seq, attrs}]}``).
"""
from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa

from engine.type_filter import TYPE_FILTERABLE  # strategies under which other types can be dropped
from engine.events import ID_COL, ROW_COL, TS_COL, TYPE_COL, arrow_to_pandas
from engine.match import Match, Matcher
from engine.model import ANY_TYPE, Pattern, Strategy, Window
from engine.partition import PartitionKey, partition_key
from engine.events.file_formats import written_format_of
from engine.spark.errors import PipelineError
from engine.spark.io import KEY_COL, SEQ_COL, SparkEvents, build_events, read_events
from engine.spark.keys import key_expr
from engine.spark.match_rows import MatchColumns, events_json
from engine.spark.partition_runner import (EventMemory, group_column, matcher_errors, round_robin, run_partition,
                                           sort_by_group)
from engine.spark.result import SparkResult

__all__ = ["run", "SparkRunResult", "plan_mode", "Plan", "PipelineError", "matches_from_rows",
           "default_factory", "scale_window", "MATCH_SCHEMA", "Progress", "warm_up", "partitions_for"]

MatcherFactory = Callable[[Pattern], Matcher]

MATCH_SCHEMA = ("match_id string, key string, `match` string, start double, `end` double, "
                "start_seq long, end_seq long")
EVENTS_FIELD = ", events string"

_CHUNK = "__cep_chunk"
_OWNER = "__cep_owner"
# matches per output Arrow batch (smaller outputs wait for the next input batch)
_OUT_ROWS = 8192

# Strategies under which time chunks are valid (see the module docstring).
CHUNKABLE = {Strategy.ANY}


# --------------------------------------------------------------------------- matcher factory

def default_factory(engine: str = "auto", **options: Any) -> MatcherFactory:
    """A picklable factory: ``engine.engines.planner.make_matcher(pattern, engine)``, imported lazily
    on the worker."""

    def make(pattern: Pattern, engine: str = engine, options: dict = dict(options)) -> Matcher:
        from engine.engines.planner import make_matcher

        if pattern.aggregate is not None:  # this pipeline lists matches; AGG rows: engine/spark/aseq.py
            pattern = pattern.model_copy(update={"aggregate": None})
        return make_matcher(pattern, engine, **options)

    return make


def scale_window(pattern: Pattern, events: SparkEvents) -> Pattern:
    """``WITHIN 1 hour`` in the unit of ts (``LoadResult.seconds_to_ts``); unchanged when
    ts is in seconds, unitless or a count window."""
    w = pattern.window
    if w is None or w.is_count or w.unit is None:
        return pattern
    size = events.seconds_to_ts(w.size)
    if size == w.size:
        return pattern
    return pattern.model_copy(update={"window": Window(value=size, unit=None)})


# --------------------------------------------------------------------------- planning

@dataclass
class Plan:
    mode: str                                   # keyed | time-chunked | single-partition
    key: PartitionKey | None
    warnings: list[str] = field(default_factory=list)
    drop_irrelevant: bool = False
    reason: str = ""


def plan_mode(pattern: Pattern) -> Plan:
    """Which mode runs ``pattern`` (see the module docstring) and why."""
    key = partition_key(pattern)
    types = {c.type for c in pattern.components()}
    drop = pattern.strategy in TYPE_FILTERABLE and ANY_TYPE not in types
    warnings: list[str] = []
    if pattern.aggregate is not None:
        warnings.append("this pipeline lists the matches the aggregate is over; the AGG rows on Spark are "
                        "engine.spark.aseq.run (what `cep run --spark` uses for AGG patterns)")
    if key is not None and pattern.strategy != Strategy.STRICT:
        return Plan("keyed", key, warnings, drop, f"partition key {key.columns()}")
    w = pattern.window
    if w is not None and pattern.strategy in CHUNKABLE and pattern.output == "ALL":
        return Plan("time-chunked", None, warnings, drop, "no partition key; windowed skip_till_any_match")
    if key is not None:
        why = "strict contiguity makes the whole stream one partition"
    elif w is None:
        why = "the pattern has no partition key and no WITHIN window"
    elif pattern.output != "ALL":
        why = "OUTPUT NON_OVERLAP without a partition key depends on the whole stream"
    else:
        why = (f"the pattern has no partition key and {pattern.strategy.value} runs depend on "
               f"earlier events, so the stream cannot be cut into time chunks")
    warnings.append(f"running on a single partition (no parallelism): {why}")
    return Plan("single-partition", None, warnings, drop, why)


# --------------------------------------------------------------------------- workers

@dataclass(frozen=True)
class _Task:
    """Everything a matching task needs (pickled to the workers)."""

    pattern: Pattern
    factory: MatcherFactory
    spec: Any
    with_events: bool
    mode: str
    chunk: tuple[float, float, bool] | None = None  # (origin, size, count window)
    keep_events: float | None = None                 # window (coord units) for with_events
    count_window: bool = False


class _MatchSink:
    """The matches of a partition as match rows (``MatchColumns``, column-wise); a time
    chunk keeps the matches whose first event it owns; the key column is the group when
    keyed."""

    def __init__(self, task: _Task, ints: bool, memory: EventMemory | None):
        self.chunk = task.chunk
        self.keyed = task.mode == "keyed"
        self.memory = memory
        self.cols = MatchColumns(ints, self._events if memory is not None else None)

    def _events(self, m: Match) -> str:
        assert self.memory is not None
        return events_json(m, self.memory.index)

    def add(self, ms: Iterable[Match], group: Any) -> None:
        if not isinstance(ms, list):
            ms = list(ms)
        if self.chunk is not None:
            origin, size, count = self.chunk
            floor = math.floor
            # keep the matches whose first event this chunk owns
            ms = [m for m in ms if floor(((m.start_seq if count else m.start) - origin) / size) == group]
            if not ms:
                return
        self.cols.add(ms, group if self.keyed else None)

    def __len__(self) -> int:
        return len(self.cols)

    def batch(self) -> pa.RecordBatch:
        return self.cols.batch()


def _int_ids(rb: pa.RecordBatch, spec: Any) -> bool:
    """Every id of the run is a Python ``int`` (an integer id column, not JSON text)."""
    return (not getattr(spec, "id_json", False) and ID_COL in rb.schema.names
            and pa.types.is_integer(rb.schema.field(ID_COL).type))


def _match_partition(task: _Task, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The mapInArrow worker: rows arrive sorted by (group, ts, seq); one matcher per group
    (``partition_runner.run_partition``); match rows out every ``_OUT_ROWS`` matches."""
    memory = EventMemory(task.keep_events, task.count_window) if task.with_events else None
    pattern, factory = task.pattern, task.factory
    return run_partition(batches, task.spec, group_column(task.mode, _CHUNK), lambda: factory(pattern),
                         lambda rb: _MatchSink(task, _int_ids(rb, task.spec), memory),
                         flush_rows=_OUT_ROWS, memory=memory)

# --------------------------------------------------------------------------- progress

class Progress:
    """A line per finished Spark stage on stderr, by polling ``sc.statusTracker()`` in a
    thread (no SparkListener, nothing on stdout). On Spark Connect (no SparkContext) the
    stages come from the server's progress reports (``registerProgressHandler``), after a
    first line naming the server."""

    def __init__(self, spark: Any, stream: Any = None, interval: float = 0.25, label: str = "spark"):
        from engine.spark.session import is_connect, master_of

        self.spark = spark
        self.connect = is_connect(spark)
        self.sc = None if self.connect else spark.sparkContext
        self.master = master_of(spark)
        self.stream = stream or sys.stderr
        self.interval = interval
        self.label = label
        self._stop = threading.Event()
        self._seen: dict[int, tuple[str, int, float]] = {}
        self._done: set[int] = set()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Progress":
        if self.connect:
            print(f"[{self.label}] running on {self.master}", file=self.stream, flush=True)
            try:
                self.spark.registerProgressHandler(self._on_connect)
            except Exception:  # noqa: BLE001 - an older server: no stage lines
                pass
            return self
        if not self.master.startswith("local"):
            print(f"[{self.label}] running on {self.master}", file=self.stream, flush=True)
        self._thread = threading.Thread(target=self._loop, name="cep-spark-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.connect:
            try:
                self.spark.removeProgressHandler(self._on_connect)
            except Exception:  # noqa: BLE001
                pass
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._poll(final=True)

    def _on_connect(self, stages: Any, inflight_tasks: int, operation_id: Any, done: bool) -> None:
        """A Spark Connect progress report: a line per stage the first time it is done."""
        try:
            for st in stages or ():
                if st.done and st.stage_id not in self._done:
                    self._done.add(st.stage_id)
                    print(f"[{self.label}] stage {st.stage_id}: {st.num_completed_tasks}/{st.num_tasks} tasks",
                          file=self.stream, flush=True)
        except Exception:  # noqa: BLE001 - progress must never break a run
            pass

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._poll()
            except Exception:  # noqa: BLE001 - progress must never break a run
                return

    def _poll(self, final: bool = False) -> None:
        assert self.sc is not None
        tr = self.sc.statusTracker()
        active = set(tr.getActiveStageIds())
        for sid in active:
            if sid not in self._seen:
                info = tr.getStageInfo(sid)
                if info is not None:
                    self._seen[sid] = (info.name, info.numTasks, time.perf_counter())
        for sid, (name, n, t0) in list(self._seen.items()):
            if sid in active and not final:
                continue
            info = tr.getStageInfo(sid)
            done = info.numCompletedTasks if info is not None else n
            failed = info.numFailedTasks if info is not None else 0
            short = name.split(" at ")[0]
            if short.startswith("$"):  # Spark-internal closure names
                short = "job"
            msg = f"[{self.label}] stage {sid} {short}: {done}/{n} tasks, {time.perf_counter() - t0:.1f} s"
            if failed:
                msg += f", {failed} failed"
            print(msg, file=self.stream, flush=True)
            del self._seen[sid]


# --------------------------------------------------------------------------- run

@dataclass
class SparkRunResult(SparkResult):
    """The matches DataFrame (persisted), the mode used and warnings."""

    table: pa.Table | None = None   # the matches on the driver (``run(collect=True)``)

    def ordered(self) -> Any:
        """Matches in canonical order (completing event, then first event, then bindings)."""
        return self.matches.orderBy("end_seq", "start_seq", "match")

    def ordered_table(self) -> pa.Table:
        """The matches in canonical order as an Arrow table (on the driver)."""
        if self.table is None:
            return self.ordered().toArrow()
        return self.table.sort_by([("end_seq", "ascending"), ("start_seq", "ascending"), ("match", "ascending")])

    def to_matches(self) -> list[Match]:
        """The matches as ``Match`` objects, in canonical order (collects to the driver)."""
        rows = self.table.to_pylist() if self.table is not None else self.matches.collect()
        return matches_from_rows(rows, self.pattern)


def matches_from_rows(rows: Iterable[Any], pattern: Pattern) -> list[Match]:
    order = [c.var for c in pattern.positive]
    out: list[Match] = []
    for r in rows:
        d = json.loads(r["match"])
        bindings = tuple((v, tuple(d.get(v, ()))) for v in order)
        out.append(Match(bindings=bindings, start=r["start"], end=r["end"], start_seq=r["start_seq"],
                         end_seq=r["end_seq"]))
    out.sort(key=lambda m: (m.end_seq, m.start_seq, repr(m.bindings)))
    return out


def _chunk_size(ev: SparkEvents, w: float, count: bool, spark: Any, chunk_size: float | None
                ) -> tuple[float, float]:
    from pyspark.sql import functions as F

    if count:
        lo, hi = 0.0, float(max(ev.count - 1, 0))
    elif ev.ts_range is not None:  # known from the validation pass: no extra Spark job
        lo, hi = ev.ts_range
    else:
        r = ev.df.agg(F.min(TS_COL), F.max(TS_COL)).collect()[0]
        lo, hi = float(r[0] or 0.0), float(r[1] or 0.0)
    if chunk_size is not None:
        return lo, max(float(chunk_size), w)
    from engine.spark.session import parallelism

    target = 4 * parallelism(spark)
    span = hi - lo
    # at least 2W so that an event is in at most ~1.5 chunks on average
    return lo, max(span / target if span > 0 else w, 2.0 * w)


def run(pattern: Pattern | str, source: Any, engine: str = "auto", with_events: bool = False,
        out: str | None = None, fmt: str | None = None, *, mapping: Any = None,
        data_format: str | None = None, spark: Any = None, factory: MatcherFactory | None = None,
        partitions: int | None = None, chunk_size: float | None = None, mode: str | None = None,
        progress: bool = False, collect: bool = False, local_bytes: int | None = None) -> SparkRunResult:
    """Run ``pattern`` over ``source`` on Spark.

    ``source``: a path (CSV/TSV/JSON Lines/Parquet; ``data_format`` overrides the
    extension), a Spark DataFrame, or a ``SparkEvents`` from ``io.read_events``.
    ``engine`` goes to ``planner.make_matcher`` unless ``factory`` (pattern -> Matcher) is
    given. ``mode`` forces a mode (a forced ``time-chunked`` must still be valid).
    ``out``/``fmt`` write the matches (jsonl, csv, parquet; see ``write_matches``).
    Rows rejected by validation are left out; see ``result.events.report``.

    ``collect``: one Spark action brings the matches to the driver as an Arrow table
    (``result.table``; nothing is persisted), instead of persisting them and counting.
    ``local_bytes``: a source file up to this size is read and validated on the driver and
    parallelised (``local_source.read_local``: fewer Spark jobs for small inputs).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from engine.dsl import parse
    from engine.spark.session import get_spark

    t0 = time.perf_counter()
    if isinstance(pattern, str):
        pattern = parse(pattern)
    spark = spark or get_spark()
    given_factory = factory
    factory = factory or default_factory(engine)
    ctx = Progress(spark) if progress else nullcontext()
    with ctx:
        ev = source if isinstance(source, SparkEvents) else read_source(source, mapping, data_format, spark, local_bytes)
        pat = scale_window(pattern, ev)
        if ev.is_interval:  # imprecise timestamps: the uncertain engines only (engine/spark/intervals.py)
            from engine.spark.intervals import run_intervals

            own = given_factory is not None and not getattr(given_factory, "__qualname__", "").startswith(
                "default_factory.")  # default_factory builds point engines: intervals make their own
            return run_intervals(pat, ev, spark, engine, partitions=partitions, chunk_size=chunk_size,  # type: ignore
                                 mode=mode, factory=given_factory if own else None)
        factory(pat)  # an unsupported pattern fails here, on the driver, with the engine's message
        plan = plan_mode(pat)
        if mode is not None and mode != plan.mode:
            if mode == "time-chunked" and plan.mode != "time-chunked":
                raise ValueError(f"time chunks are not valid for this pattern: {plan.reason}")
            plan = Plan(mode, plan.key if mode == "keyed" else None, list(plan.warnings), plan.drop_irrelevant,
                        plan.reason)
            if mode == "keyed" and plan.key is None:
                raise ValueError("the pattern has no partition key")
        df = ev.df.drop(ROW_COL)  # (the input row: the report's, not the matchers')
        if plan.drop_irrelevant:
            types = sorted({c.type for c in pat.components()})
            df = df.filter(F.col(TYPE_COL).isin(types))
        n = partitions or int(spark.conf.get("spark.sql.shuffle.partitions"))
        w = pat.window
        count_window = bool(w and w.is_count)
        info: dict[str, Any] = {"partitions": n}
        if plan.mode == "keyed":
            assert plan.key is not None
            df = df.withColumn(KEY_COL, key_expr(plan.key, ev, pat.strategy)).filter(F.col(KEY_COL).isNotNull())
            info["key"] = plan.key.columns()
            task_chunk = None
        elif plan.mode == "time-chunked":
            assert w is not None
            origin, size = _chunk_size(ev, float(w.size), count_window, spark, chunk_size)
            coord = F.col(SEQ_COL).cast("double") if count_window else F.col(TS_COL)
            rel = coord - F.lit(origin)
            first = F.greatest(F.floor((rel - F.lit(float(w.size))) / F.lit(size)), F.lit(0)).cast("long")
            last = F.floor(rel / F.lit(size)).cast("long")
            df = df.withColumn(_CHUNK, F.explode(F.sequence(first, last)))
            task_chunk = (origin, size, count_window)
            info.update(chunk_size=size, origin=origin)
        else:
            task_chunk = None
            info["partitions"] = 1
        route = round_robin(_CHUNK, n) if plan.mode == "time-chunked" else None
        df = sort_by_group(df, group_column(plan.mode, _CHUNK), n, route)
        task = _Task(pattern=pat, factory=factory, spec=ev.event_spec(), with_events=with_events,
                     mode=plan.mode, chunk=task_chunk, keep_events=float(w.size) if w else None,
                     count_window=count_window)
        schema = MATCH_SCHEMA + (EVENTS_FIELD if with_events else "")

        def worker(batches: Iterator[pa.RecordBatch], task: _Task = task) -> Iterator[pa.RecordBatch]:
            return _match_partition(task, batches)

        matches = df.mapInArrow(worker, schema)
        table = None
        with matcher_errors(matches):
            if collect:
                table = matches.toArrow()
                count = table.num_rows
            else:
                matches = matches.persist(StorageLevel.MEMORY_AND_DISK)
                count = matches.count()
    result = SparkRunResult(matches=matches, mode=plan.mode, warnings=list(plan.warnings), events=ev,
                            pattern=pat, count=count, seconds=time.perf_counter() - t0, info=info, table=table)
    if out is not None:
        write_matches(result, out, fmt)
    return result


def read_source(source: Any, mapping: Any, data_format: str | None, spark: Any, local_bytes: int | None) -> SparkEvents:
    """``io.read_events``, or ``local_source.read_local`` for a file up to ``local_bytes``."""
    if local_bytes is not None and isinstance(source, (str, os.PathLike)):
        try:
            small = os.path.isfile(source) and os.path.getsize(source) <= local_bytes
        except OSError:
            small = False
        if small:
            from engine.spark.local_source import read_local

            return read_local(source, mapping, data_format, spark)
    return read_events(source, mapping, data_format, spark)


def partitions_for(rows: int, parallelism: int) -> int:
    """Partitions for a run over ``rows`` events: one per core up to two for small inputs
    (each task costs a Python worker round trip), two per core for big ones."""
    if rows <= 100_000:
        return max(1, min(2, parallelism))
    return max(2, parallelism * 2)


def warm_up(pattern: Pattern | str, source: str | os.PathLike[str], mapping: Any = None,
            data_format: str | None = None, spark: Any = None, rounds: int = 2) -> list[float]:
    """Start the session and run ``pattern`` over the small file ``source`` ``rounds`` times
    the way the app runs a sample (driver read, ``partitions_for``, one collect): the JVM
    compiles that path and every core gets a Python worker that has imported the engine.
    Returns the seconds of each round."""
    from engine.spark.local_source import LOCAL_BYTES
    from engine.spark.session import get_spark, parallelism

    spark = spark or get_spark()
    n = partitions_for(0, parallelism(spark))
    times = []
    for _ in range(max(1, rounds)):
        t0 = time.perf_counter()
        r = run(pattern, str(source), mapping=mapping, data_format=data_format, spark=spark, partitions=n,
                collect=True, local_bytes=LOCAL_BYTES)
        r.to_matches()
        times.append(time.perf_counter() - t0)
    return times


# --------------------------------------------------------------------------- output

def write_matches(result: SparkRunResult, out: str, fmt: str | None = None) -> None:
    """Write the matches: ``jsonl`` (one ``Match.to_json()`` per line, plus ``events``
    with_events), ``csv`` (match_id, key, match, start, end, ...) or ``parquet`` (all
    columns, one file), in canonical order. ``fmt`` defaults from the extension."""
    import pyarrow.parquet as pq

    fmt = (fmt or written_format_of(out)).lower()
    if fmt in ("jsonl", "json", "ndjson"):
        with open(out, "w", encoding="utf-8") as fh:
            for line in jsonl_lines(result):
                fh.write(line + "\n")
    elif fmt == "csv":
        (result.ordered_table().to_pandas() if result.table is not None else result.ordered().toPandas()
         ).to_csv(out, index=False)
    elif fmt in ("parquet", "pq"):
        pq.write_table(result.ordered_table(), out)
    else:
        raise ValueError(f"unknown output format {fmt!r}; use jsonl, csv or parquet")


def jsonl_lines(result: SparkRunResult) -> Iterator[str]:
    """JSON Lines in canonical order: ``{"match": ..., "start": ..., "end": ...}`` like
    ``Match.to_json()`` (plus ``"events"`` when the run has them)."""
    has_events = "events" in result.matches.columns
    rows = result.ordered_table().to_pylist() if result.table is not None else result.ordered().toLocalIterator()
    for r in rows:
        d: dict[str, Any] = {"match": json.loads(r["match"]), "start": r["start"], "end": r["end"]}
        if has_events:
            d["events"] = json.loads(r["events"])
        yield json.dumps(d)


def numeric_issues(ev: SparkEvents, pattern: Pattern) -> list[Any]:
    """``LoadResult.numeric_issues`` on Spark: values a pattern compares numerically that
    are not numbers (only string, boolean and JSON-carried attributes can hold such)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from engine.events import ValidationIssue
    from engine.events import numeric_issues as _numeric
    from engine.events.lines import with_lines

    wanted = pattern.numeric_attrs()
    if not wanted:
        return []
    suspects = set()
    for attrs in wanted.values():
        for a in attrs:
            if a in ev.json_attrs:
                suspects.add(a)
            elif a in ev.attr_columns and not isinstance(ev.df.schema[a].dataType, T.NumericType):
                suspects.add(a)
    if not suspects:
        return []
    types = [t for t in wanted if t != ANY_TYPE]
    df = ev.df if ANY_TYPE in wanted else ev.df.filter(F.col(TYPE_COL).isin(types))
    spec = ev.event_spec()
    wanted_plain = {t: set(v) for t, v in wanted.items()}

    def worker(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for rb in batches:
            frame = arrow_to_pandas(rb)
            evs = build_events(rb, spec, frame)
            rows = dict(zip(frame[SEQ_COL].tolist(), frame[ROW_COL].tolist()))
            found = _numeric(evs, wanted_plain, rows=_SeqRows(rows))
            if found:
                yield pa.RecordBatch.from_arrays([pa.array([i.model_dump_json() for i in found])],
                                                 names=["issue"])

    got = df.mapInArrow(worker, "issue string").collect()
    out = [ValidationIssue.model_validate_json(r[0]) for r in got]
    out.sort(key=lambda i: (i.row if i.row is not None else -1))
    return with_lines(out, ev.lines)


class _SeqRows:
    """``rows[ev.seq]`` for ``events.numeric_issues`` when seqs are not 0..n-1."""

    def __init__(self, m: dict[int, int]):
        self.m = m

    def __getitem__(self, seq: int) -> int:
        return self.m[seq]
