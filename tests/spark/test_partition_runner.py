"""engine.spark.partition_runner, in process (no Spark session): one matcher per group, fed
across Arrow batches, its outputs to the sink with their group; the slow path (events
remembered) and the two fast paths (one group; groups) give the same outputs; the match
path's worker gives the rows of per-key in-process matchers; and (with a session) the hash that
places time chunks on tasks round robin."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

from engine.events import ID_COL, ROW_COL, TS_COL, TYPE_COL, Event
from engine.spark.io import KEY_COL, SEQ_COL, EventSpec
from engine.spark.partition_runner import EventMemory, group_column, run_partition

SPEC = EventSpec(attr_columns=["k"], has_json=False, id_json=False, interval=False)


def batch(rows: list[tuple], group: bool = True) -> pa.RecordBatch:
    """Canonical rows ``(seq, type, ts, k)``; the key column is ``k`` as text."""
    data = {ROW_COL: [r[0] for r in rows], TYPE_COL: [r[1] for r in rows], TS_COL: [float(r[2]) for r in rows],
            ID_COL: [r[0] for r in rows], SEQ_COL: [r[0] for r in rows], "k": [r[3] for r in rows]}
    if group:
        data[KEY_COL] = [str(r[3]) for r in rows]
    return pa.RecordBatch.from_pydict(data, schema=pa.schema(
        [(ROW_COL, pa.int64()), (TYPE_COL, pa.string()), (TS_COL, pa.float64()), (ID_COL, pa.int64()),
         (SEQ_COL, pa.int64()), ("k", pa.int64())] + ([(KEY_COL, pa.string())] if group else [])))


class Recorder:
    """A matcher that returns each event's id when fed, and the ids it saw when closed."""

    made = 0

    def __init__(self) -> None:
        Recorder.made += 1
        self.seen: list[int] = []

    def feed(self, e: Event) -> list:
        self.seen.append(e.id)
        return [("feed", e.id)] if e.id % 2 == 0 else []

    def close(self) -> list:
        return [("close", tuple(self.seen))]


class ListSink:
    def __init__(self, rb: pa.RecordBatch) -> None:
        self.first_rows = rb.num_rows
        self.rows: list = []
        self.batches = 0

    def add(self, outputs, group) -> None:
        self.rows.extend((group, o) for o in outputs)

    def __len__(self) -> int:
        return len(self.rows)

    def batch(self) -> pa.RecordBatch:
        self.batches += 1
        rows, self.rows = self.rows, []
        return pa.RecordBatch.from_pydict({"row": [json.dumps(r) for r in rows]})


ROWS = [[(0, "A", 1, 1), (1, "B", 2, 1), (2, "A", 3, 1)], [], [(3, "A", 4, 1), (4, "B", 5, 2)],
        [(5, "A", 6, 2), (6, "A", 7, 3)]]
WANT_GROUPS = [["1", ["feed", 0]], ["1", ["feed", 2]], ["1", ["close", [0, 1, 2, 3]]], ["2", ["feed", 4]],
               ["2", ["close", [4, 5]]], ["3", ["feed", 6]], ["3", ["close", [6]]]]


def run(group: bool, memory: EventMemory | None = None, flush_rows: int = 1) -> list:
    got = run_partition(iter([batch(r, group) for r in ROWS]), SPEC, KEY_COL if group else None, Recorder,
                        ListSink, flush_rows=flush_rows, memory=memory)
    return [json.loads(r) for b in got for r in b.column("row").to_pylist()]


def test_groups_fast_path():
    Recorder.made = 0
    assert run(True) == WANT_GROUPS
    assert Recorder.made == 3


def test_slow_path_remembers_each_group():
    memory = EventMemory()
    assert run(True, memory) == WANT_GROUPS
    assert sorted(memory.index) == [6]  # the last group's events only


def test_one_group_fast_path_and_slow_path():
    want = [[None, ["feed", i]] for i in (0, 2, 4, 6)] + [[None, ["close", list(range(7))]]]
    assert run(False) == want
    assert run(False, EventMemory()) == want


def test_flush_rows_holds_rows_to_the_end():
    assert run(True, flush_rows=100) == WANT_GROUPS


def test_nothing_for_no_rows():
    assert list(run_partition(iter([batch([])]), SPEC, KEY_COL, Recorder, ListSink)) == []


def test_memory_forgets_old_events():
    memory = EventMemory(keep=1.0)
    for i in range(5000):
        memory.remember(Event(id=i, type="A", ts=float(i), seq=i))
    assert len(memory.index) < 1000 and 4999 in memory.index


def test_group_column():
    assert group_column("keyed", "c") == KEY_COL
    assert group_column("time-chunked", "c") == "c"
    assert group_column("single-partition", "c") is None


@pytest.mark.parametrize("with_events", [False, True])
def test_match_worker_equals_per_key_matchers(with_events):
    from engine.dsl import parse
    from engine.match import run_all
    from engine.engines.planner import make_matcher
    from engine.spark import pipeline
    from engine.spark.match_rows import match_row

    pat = parse("PATTERN SEQ(A a, B b) WHERE [k] WITHIN 10")
    task = pipeline._Task(pattern=pat, factory=pipeline.default_factory("auto"), spec=SPEC,
                          with_events=with_events, mode="keyed", keep_events=10.0)
    rows = sorted([r for part in ROWS for r in part], key=lambda r: (str(r[3]), r[2], r[0]))
    batches = [batch(rows[:3]), batch(rows[3:])]
    got = [tuple(r.values())[:7] for b in pipeline._match_partition(task, iter(batches)) for r in b.to_pylist()]
    want = []
    for key in ("1", "2", "3"):
        evs = [e for e in (Event(id=r[0], type=r[1], ts=float(r[2]), seq=r[0], attrs={"k": r[3]}) for r in rows)
               if str(e.attrs["k"]) == key]
        want += [match_row(m, key) for m in run_all(make_matcher(pat, "auto"), evs)]
    assert sorted(got) == sorted(want) and want


def test_the_collector_is_paced_inside_a_partition_and_restored(monkeypatch):
    """No automatic collections while a partition runs, a collection every ``GC_EVERY`` events,
    and the collector as it was afterwards (also when the caller had turned it off)."""
    import gc

    from engine.spark import partition_runner

    monkeypatch.setattr(partition_runner, "GC_EVERY", 3)
    states: list[bool] = []
    collected: list[int] = []
    real_collect = gc.collect
    monkeypatch.setattr(partition_runner.gc, "collect", lambda *a: collected.append(1) or real_collect(*a))

    class Watching(Recorder):
        def feed(self, e):
            states.append(gc.isenabled())
            return super().feed(e)

    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            got = run_partition(iter([batch(r, True) for r in ROWS]), SPEC, KEY_COL, Watching, ListSink)
            assert [json.loads(r) for b in got for r in b.column("row").to_pylist()] == WANT_GROUPS
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert states and not any(states)
    assert len(collected) == 4  # 7 events in batches of 3, 0, 2, 2 rows: after 3, then after 4 more

@pytest.mark.spark
def test_spark_hash_long_is_sparks_hash(spark):
    from pyspark.sql import functions as F

    from engine.spark.partition_runner import spark_hash_long

    values = list(range(-50, 300)) + [2**40 + 7, -(2**50), 2**63 - 1, -(2**63)]
    df = spark.createDataFrame([(v,) for v in values], "v long")
    got = {r[0]: r[1] for r in df.select("v", F.hash("v")).collect()}
    assert all(got[v] == spark_hash_long(v) for v in values)


@pytest.mark.spark
def test_round_robin_sends_chunk_g_to_task_g_mod_n(spark):
    from pyspark.sql import functions as F

    from engine.spark.partition_runner import round_robin

    for n in (2, 3, 4, 8):
        df = spark.range(0, 40 * n).select((F.col("id") % (5 * n)).alias("chunk"))
        laid = df.repartition(n, round_robin("chunk", n)).select("chunk", F.spark_partition_id().alias("p"))
        rows = laid.collect()
        assert {(r[0], r[1]) for r in rows} == {(c, c % n) for c in range(5 * n)}
