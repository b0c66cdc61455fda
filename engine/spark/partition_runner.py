"""One Spark partition runner: the per-group worker the match, A-Seq and interval paths share.

Each path lays its events out the same way before ``mapInArrow``
(``sort_by_group``): every group (a partition key value, or a time chunk) whole in one
task, in stream order ``(group, ts, seq)``; without groups the whole stream in one task.
Inside the task ``run_partition`` builds the events of each Arrow batch, starts one
matcher per group through the path's factory, feeds it, closes it when its group ends,
and hands what it returns, with the group, to the path's ``RowSink`` (which keeps what
the group owns and turns it into rows); it yields an Arrow batch of rows whenever the sink
holds ``flush_rows`` of them at the end of an input batch, and the rest at the end.

A matcher's error is not caught in the task: Spark carries it to the driver, where
``matcher_errors`` turns it into a ``PipelineError`` with the matcher's own message.

Only ``engine/spark`` imports pyspark; this module imports it in ``sort_by_group`` only.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Protocol, Sequence

import pyarrow as pa

from engine.events import TS_COL, Event
from engine.spark.errors import task_error
from engine.spark.io import KEY_COL, SEQ_COL, build_events

__all__ = ["RowSink", "EventMemory", "run_partition", "group_column", "sort_by_group", "matcher_errors",
           "round_robin", "spark_hash_long"]


class RowSink(Protocol):
    """Where a partition's outputs go: ``add`` takes what one matcher returned for
    ``group`` (keeping what the group owns), ``batch`` turns the collected rows into one
    Arrow batch and empties the sink."""

    def add(self, outputs: Sequence[Any], group: Any) -> None: ...

    def __len__(self) -> int: ...

    def batch(self) -> pa.RecordBatch: ...


class EventMemory:
    """The events of the current group by id, for rows that carry their events
    (``with_events``). With a window ``keep`` (coordinate units), events more than
    ``2 * keep`` behind the newest one are forgotten every 4096 events (no pending match
    can still use them)."""

    def __init__(self, keep: float | None = None, count_window: bool = False):
        self.keep = keep
        self.count_window = count_window
        self.index: dict[Any, Event] = {}
        self.recent: list[Event] = []

    def start(self) -> None:
        """A new group: forget every event."""
        self.index = {}
        self.recent = []

    def remember(self, e: Event) -> None:
        idx = self.index
        idx[e.id] = e
        w = self.keep
        if w is None:
            return
        self.recent.append(e)
        if len(self.recent) > 4096:  # forget events that no pending match can still use
            count = self.count_window
            now = e.seq if count else e.ts
            kept = []
            for old in self.recent:
                if now - (old.seq if count else old.ts) <= 2 * w:
                    kept.append(old)
                elif idx.get(old.id) is old:
                    del idx[old.id]
            self.recent = kept


_NO_GROUP = object()  # before the first group: equal to no group value


def run_partition(batches: Iterator[pa.RecordBatch], spec: Any, group_col: str | None,
                  make_matcher: Callable[[], Any], open_sink: Callable[[pa.RecordBatch], RowSink], *,
                  flush_rows: int = 1, memory: EventMemory | None = None) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` worker body: rows arrive sorted by ``(group_col, ts, seq)``
    (``group_col`` None: one group, the whole partition); one matcher per group
    (``make_matcher()``), fed across Arrow batches, its outputs to the sink that
    ``open_sink(first non-empty batch)`` makes. ``memory``: remember each event before it
    is fed (the slow path, for rows with events)."""
    with _collections_paced():
        yield from _run_partition(batches, spec, group_col, make_matcher, open_sink, flush_rows, memory)


# Events fed between two garbage collections in a partition (see ``_collections_paced``).
GC_EVERY = 100_000


@contextmanager
def _collections_paced() -> Iterator[None]:
    """Python's collector paced by the partition instead of by allocations: the objects alive
    before the task are frozen (a collection never scans the pandas, pyarrow and engine modules'
    objects again), automatic collections are off, and ``_run_partition`` collects every
    ``GC_EVERY`` events (reference cycles of finished matchers, bounded memory). Automatic
    collections cost the keyed benchmark's worker about 30% of its time (1e5 events: 8.7-8.9 s of
    CPU; paced 6.4-6.6 s; none at all 6.0-6.1 s): the full passes scanned the whole heap, the
    worker's imported modules included. The collector's state is restored when the partition ends."""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def _run_partition(batches: Iterator[pa.RecordBatch], spec: Any, group_col: str | None,
                   make_matcher: Callable[[], Any], open_sink: Callable[[pa.RecordBatch], RowSink],
                   flush_rows: int, memory: EventMemory | None) -> Iterator[pa.RecordBatch]:
    """``run_partition``'s loop (the collector paced by it)."""
    sink: RowSink | None = None
    matcher: Any = None
    group: Any = _NO_GROUP
    fed = 0
    for rb in batches:
        if rb.num_rows == 0:
            continue
        fed += rb.num_rows
        if fed >= GC_EVERY:
            fed = 0
            gc.collect()
        if sink is None:
            sink = open_sink(rb)
        add = sink.add
        evs = build_events(rb, spec)
        if memory is not None:  # the slow path: every event is remembered before it is fed
            groups = rb.column(group_col).to_pylist() if group_col is not None else [None] * len(evs)
            for g, e in zip(groups, evs):
                if g != group:
                    if matcher is not None:
                        out = matcher.close()
                        if out:
                            add(out, group)
                    memory.start()
                    matcher, group = make_matcher(), g
                memory.remember(e)
                out = matcher.feed(e)
                if out:
                    add(out, group)
        elif group_col is None:
            # Fast path, one group: the loop of the next branch without the group test, the
            # matcher's feed bound to a local once per batch.
            if matcher is None:
                matcher, group = make_matcher(), None
                out = matcher.feed(evs[0])  # the first feed puts the engine's own feed back (points_only)
                if out:
                    add(out, None)
                evs = evs[1:]
            feed = matcher.feed
            for e in evs:
                out = feed(e)
                if out:
                    add(out, None)
        else:
            # Fast path, groups: ``feed`` is the current matcher's bound feed, re-bound only
            # when a group starts, after its first event (``MatcherBase.points_only``: the
            # check of the first event puts the engine's own feed back).
            groups = rb.column(group_col).to_pylist()
            feed = matcher.feed if matcher is not None else None
            for g, e in zip(groups, evs):
                if g != group:
                    if matcher is not None:
                        out = matcher.close()
                        if out:
                            add(out, group)
                    matcher, group = make_matcher(), g
                    out = matcher.feed(e)
                    feed = matcher.feed
                else:
                    out = feed(e)  # type: ignore[misc]
                if out:
                    add(out, group)
        if len(sink) >= flush_rows:
            yield sink.batch()
    if sink is None:
        return
    if matcher is not None:
        out = matcher.close()
        if out:
            sink.add(out, group)
    if len(sink):
        yield sink.batch()


def group_column(mode: str, chunk_col: str) -> str | None:
    """The column whose value names a row's group: the key (``keyed``), the chunk
    (``time-chunked``), none (``single-partition``)."""
    if mode == "keyed":
        return KEY_COL
    return chunk_col if mode == "time-chunked" else None


def sort_by_group(df: Any, col: str | None, partitions: int, route: Any = None) -> Any:
    """``df`` laid out for ``run_partition``: hashed by ``col`` (or by the column expression
    ``route``, e.g. ``round_robin``) into ``partitions`` tasks, sorted by ``(col, ts, seq)``
    inside each; without ``col`` one task sorted by ``(ts, seq)``."""
    from pyspark.sql import functions as F

    if col is None:
        return df.repartition(1).sortWithinPartitions(TS_COL, SEQ_COL)
    by = F.col(col) if route is None else route
    return df.repartition(partitions, by).sortWithinPartitions(col, TS_COL, SEQ_COL)


def spark_hash_long(value: int) -> int:
    """Spark's ``hash`` of a long (``Murmur3Hash``, seed 42): what ``repartition(n, col)`` takes
    modulo ``n`` to place a row (``tests/spark/test_partition_runner.py`` checks it against Spark)."""
    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF

    def mix(h1: int, k1: int) -> int:
        k1 = rotl((k1 * 0xCC9E2D51) & 0xFFFFFFFF, 15)
        h1 ^= (k1 * 0x1B873593) & 0xFFFFFFFF
        return (rotl(h1, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF

    h1 = mix(mix(42, value & 0xFFFFFFFF), (value >> 32) & 0xFFFFFFFF)
    h1 ^= 8
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & 0xFFFFFFFF
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def round_robin(col: str, partitions: int) -> Any:
    """A column expression that sends the rows of integer group ``g`` (a time chunk) to task
    ``g mod partitions`` under ``repartition(partitions, ...)``: each task gets every
    ``partitions``-th chunk. Hashing the chunk numbers themselves is uneven (chunks 0-7 over
    4 tasks: 3, 3, 0 and 2), and a task with more chunks than the others is the run's tail."""
    from pyspark.sql import functions as F

    salts = []
    for target in range(partitions):
        v = target
        while spark_hash_long(v) % partitions != target:
            v += partitions
        salts.append(v)
    pick = F.array(*[F.lit(v).cast("long") for v in salts])
    return F.element_at(pick, (F.pmod(F.col(col), F.lit(partitions)) + 1).cast("int"))


@contextmanager
def matcher_errors(persisted: Any = None) -> Iterator[None]:
    """Around the Spark action of a run: a matcher's failure inside a task becomes a
    ``PipelineError`` with the matcher's own message (``errors.task_error``); ``persisted``
    (a persisted DataFrame) is unpersisted first."""
    try:
        yield
    except Exception as e:  # noqa: BLE001 - a matcher error inside a task
        if persisted is not None:
            persisted.unpersist()
        raise task_error(e) from None
