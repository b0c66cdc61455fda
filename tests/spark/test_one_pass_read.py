"""The Spark CSV reader types and validates in one pass (engine/spark/read/one_pass.py): random and
broken files give the events, report and schema of ``load_events``, split over several tasks and
in small batches; a clean file is read by one Spark job of one stage (job groups and the status
tracker count them); files whose batches disagree fall back to the older reader, still exact."""
from __future__ import annotations

import random

import pytest

from engine.events import DataError, load_events
from tests.spark.test_lazy_match import JobGroup
from tests.spark.test_read import assert_same

pytestmark = pytest.mark.spark

_WORDS = ["AAPL", "ibm", "x y", "NA", "null", "n/a", "-", "été"]


def _cell(kind: str, rng: random.Random, i: int) -> str:
    if rng.random() < 0.08:
        return ""
    if kind == "int":
        return str(rng.randint(-10**6, 10**6))
    if kind == "big":
        return str(rng.choice([10**17 + i, -(10**17) - 3 * i, 7]))  # (18 digits: 19 go to pandas)
    if kind == "float":
        return rng.choice([f"{rng.uniform(-1e4, 1e4):.3f}", str(rng.randint(0, 99)), f"{rng.random():.17g}"])
    if kind == "bool":
        return rng.choice(["True", "false", "TRUE", "False"])
    return rng.choice(_WORDS)


def _random_csv(path, seed: int, n: int, broken: bool) -> None:
    rng = random.Random(seed)
    kinds = ["int", "big", "float", "bool", "word"]
    rng.shuffle(kinds)
    names = ["id", "type", "ts"] + [f"{k}_{j}" for j, k in enumerate(kinds)]
    lines = [",".join(names)]
    t = 0
    for i in range(n):
        t += rng.choice([0, 1, 1, 2])
        ts = str(t)
        if broken and rng.random() < 0.1:
            ts = rng.choice(["", str(t - 7), f"{t}.5"])
        typ = rng.choice(["A", "B", "C"])
        if broken and rng.random() < 0.05:
            typ = ""
        idv = str(i)
        if broken and rng.random() < 0.05:
            idv = str(rng.randrange(max(i, 1)))
        cells = [_cell(k, rng, i) for k in kinds]
        lines.append(",".join([idv, typ, ts] + cells))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def one_pass_calls(monkeypatch):
    """What each call of ``read_csv_one_pass`` returned: True for a one-pass read, False for
    the fallback to the older reader."""
    from engine.spark.read import sources

    calls: list[bool] = []
    real = sources.read_csv_one_pass

    def spy(*args, **kwargs):
        got = real(*args, **kwargs)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(sources, "read_csv_one_pass", spy)
    return calls


@pytest.mark.parametrize("seed,broken", [(1, False), (2, True), (3, True), (4, False)])
def test_random_files_like_in_process(spark, tmp_path, one_pass_calls, seed, broken):
    p = tmp_path / f"r{seed}.csv"
    _random_csv(p, seed, 300, broken)
    ref = assert_same(str(p))
    assert one_pass_calls == [True]
    if broken:
        assert not ref.report.ok or not ref.report.sorted_by_ts


@pytest.mark.parametrize("seed", [5, 6])
def test_random_files_split_in_small_batches(spark, tmp_path, one_pass_calls, split_files, small_batches, seed):
    """Many segments and batches of 7 rows: global row numbers, seq, duplicate ids across tasks,
    an int batch beside float batches of one column (cast to double, as a whole read types it)."""
    p = tmp_path / f"s{seed}.csv"
    _random_csv(p, seed, 120, broken=True)
    assert_same(str(p))
    assert one_pass_calls == [True]


def test_tsv_and_directories(spark, tmp_path, one_pass_calls):
    p = tmp_path / "t.tsv"
    p.write_text("id\ttype\tts\tx\n1\tA\t1\t2.5\n2\tB\t2\t3\n3\tA\t2\thello world\n")
    assert_same(str(p))
    assert one_pass_calls == [True]


def test_disagreeing_batches_fall_back_exactly(spark, tmp_path, one_pass_calls, small_batches):
    """A text column holding numbers in some batches only, a mapped column typed two ways, a cell
    the Arrow typing is unsure of: the older reader (whole-file types first), same result."""
    p = tmp_path / "mixed.csv"
    rows = ["id,type,ts,x"] + [f"{i},A,{i},{i}" for i in range(20)] + [f"{i},B,{i},word{i}" for i in range(20, 30)]
    p.write_text("\n".join(rows) + "\n")
    assert_same(str(p))
    q = tmp_path / "types.csv"
    rows = ["id,type,ts"] + [f"{i},{i % 3},{i}" for i in range(14)] + [f"{i},T{i},{i}" for i in range(14, 21)]
    q.write_text("\n".join(rows) + "\n")
    assert_same(str(q))
    u = tmp_path / "unsure.csv"
    u.write_text("id,type,ts,x\n1,A,1, 7\n2,A,2,8\n")
    assert_same(str(u))
    assert one_pass_calls == [False, False, False]


def test_short_and_long_records_refused(spark, tmp_path, one_pass_calls):
    from engine.spark.io import read_events

    p = tmp_path / "short.csv"
    p.write_text("type,id,ts,x\nA,1,1,2\nA,2,2\nA,3,3,4\n")
    with pytest.raises(DataError, match=r"cannot read 'short.csv' as CSV: expected 4 fields, saw 3 in the line 'A,2,2'"):
        read_events(str(p))
    with pytest.raises(DataError):
        load_events(str(p))


def test_a_clean_file_is_one_job_of_one_stage(spark, tmp_path):
    """Typing and validation in one Spark job (before: a typing scan, then the validation pass)."""
    from engine.spark.io import read_events

    p = tmp_path / "clean.csv"
    _random_csv(p, 7, 2000, broken=False)
    group = JobGroup(spark)
    with group.active():
        got = read_events(str(p))
    try:
        jobs = group.jobs(wait_for_one=True)
        tracker = spark.sparkContext.statusTracker()
        stages = [s for j in jobs for s in tracker.getJobInfo(j).stageIds]
        assert len(jobs) == 1, jobs
        assert len(stages) == 1, stages
        assert got.count == len(load_events(str(p)).events)
    finally:
        got.unpersist()


def test_a_byte_order_mark_falls_back(spark, tmp_path, one_pass_calls):
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeffid,type,ts\n1,A,1\n2,B,2\n".encode("utf-8"))
    from engine.spark.io import read_events

    try:
        ref = load_events(str(p))
    except DataError as e:
        with pytest.raises(DataError) as exc:
            read_events(str(p))
        assert str(exc.value) == str(e)
    else:
        got = read_events(str(p))
        try:
            assert [(e.id, e.type, e.ts) for e in got.to_events()] == [(e.id, e.type, e.ts) for e in ref.events]
        finally:
            got.unpersist()
    assert one_pass_calls in ([False], [])
