"""Where the meanings coincide, Flink 2.3's rows equal the studio's: 30 random queries from that
subset (fixed-length patterns, ``B{n}``, a Kleene whose successor's DEFINE is the complement of its
own with WITHIN, SKIP PAST LAST ROW / TO NEXT ROW, partitions, ONE ROW PER MATCH, navigation
FIRST / LAST and aggregates in MEASURES) over random data without ties, exported with
``cep convert --to flink-sql`` and run in one Flink process in batch and streaming mode (the
process the deviations' jobs run in too: ``shared_run``). Also
``cep verify`` end to end, and the verdicts without Flink."""
from __future__ import annotations

import random
from typing import Any

import pytest

from engine.engines.sql.flink.runner import FlinkJob, FlinkResult, unavailable_reason
from engine.engines.sql.flink.verify import MODES, compare, jobs_for
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import Table
from tests.support import run

from . import shared_run

REASON = unavailable_reason()
needs_flink = pytest.mark.skipif(REASON is not None, reason=f"Flink unavailable: {REASON}")
QUERIES = 30        # every one in streaming mode (40 took 62 s of CI)
BATCH_QUERIES = 10  # the first ones in batch mode too (each Flink job costs about a second)
VARS = ["A", "B", "C", "D"]


def random_query(r: random.Random) -> str:
    """A query from the subset where Flink 2.3 and SQL:2016 agree."""
    n = r.randint(2, 4)
    names = VARS[:n]
    defines = []
    parts = []
    kleene = r.random() < 0.4 and n >= 3
    for i, v in enumerate(names):
        if i == 0:
            cond = r.choice(["price > 2", "price <= 3", "volume > 10", None])
        elif kleene and i == 1:
            cond = f"{v}.price > A.price"
            defines.append(f"{v} AS {cond}")
            nxt = names[2]
            parts.extend([f"{v}+", nxt])
            defines.append(f"{nxt} AS NOT ({v}.price > A.price)" if r.random() < 0.5 else
                           f"{nxt} AS {nxt}.price <= A.price")
            continue
        elif kleene and i == 2:
            continue
        else:
            prev = names[i - 1]
            cond = r.choice([f"{v}.price > {prev}.price", f"{v}.price < {prev}.price", f"{v}.price >= A.price",
                             f"{v}.volume > {prev}.volume", f"{v}.price <> {prev}.price"])
        if cond is not None:
            defines.append(f"{v} AS {cond}")
        if i > 0 and r.random() < 0.25 and not kleene:
            parts.append(f"{v}{{{r.randint(2, 3)}}}")
        else:
            parts.append(v)
    last = names[-1]
    measures = ["FIRST(A.id) AS a", f"LAST({last}.id) AS z", r.choice(["count(*) AS n", f"sum({names[1]}.volume) AS s",
                                                                        f"max({names[1]}.price) AS m"])]
    skip = r.choice(["AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW"])
    within = f"WITHIN INTERVAL '{r.randint(3, 8)}' SECOND" if kleene or r.random() < 0.3 else ""
    return (f"SELECT * FROM quotes MATCH_RECOGNIZE (PARTITION BY sym ORDER BY ts MEASURES {', '.join(measures)} "
            f"ONE ROW PER MATCH {skip} PATTERN ({' '.join(parts)}) {within} DEFINE {', '.join(defines)})")


def random_table(r: random.Random) -> Table:
    rows = []
    for i in range(r.randint(20, 60)):
        rows.append({"id": i + 1, "sym": r.choice("xy"), "ts": i + 1, "price": r.randint(0, 6),
                     "volume": r.randint(0, 30)})
    return Table(["id", "sym", "ts", "price", "volume"], rows)


def _cases() -> tuple[list[tuple[Any, Table]], list[Any], list[FlinkJob], list[tuple[str, ...]]]:
    """The queries and tables (seeded), their exports, their Flink jobs and each one's modes."""
    r = random.Random(2026)
    cases = [(parse_query(random_query(r)), random_table(r)) for _ in range(QUERIES)]
    exported, jobs, modes = [], [], []
    for k, (q, t) in enumerate(cases):
        mine = ("streaming", "batch") if k < BATCH_QUERIES else ("streaming",)
        e, js = jobs_for(q, t, mine)
        exported.append(e)
        jobs.extend(js)
        modes.append(mine)
    return cases, exported, jobs, modes


shared_run.register("agreement", lambda: _cases()[2], timeout=1800)


@needs_flink
def test_thirty_random_queries_agree_with_flink(flink_results: dict) -> None:
    cases, exported, jobs, modes = _cases()
    results = flink_results["agreement"]
    assert len(results) == len(jobs)
    disagreements = []
    at = 0
    for k, (q, t) in enumerate(cases):
        rep = compare(q, t, exported[k], results[at:at + len(modes[k])], modes[k])
        at += len(modes[k])
        for m in rep.modes:
            if not m.equal:
                disagreements.append((q.source, m.to_json()))
    assert not disagreements, disagreements[:3]
    found = sum(isinstance(x, FlinkResult) and len(x.rows) > 0 for x in results)
    assert found >= len(results) // 2, f"only {found} of {len(results)} jobs found a match"  # not vacuous


@needs_flink
def test_cep_verify_names_the_flink_behaviour(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "p.csv"
    data.write_text("id,ts,price\n1,1,20\n2,2,13\n3,3,14\n4,4,5\n5,5,3\n")
    q = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, LAST(B.id) AS b, C.id AS c "
         "PATTERN (A B+ C) DEFINE A AS price = 20, B AS price < 15, C AS price > 12)")
    rc, out, err = run(capsys, "verify", q, "--data", str(data), "--modes", "streaming")
    assert rc == 0, err
    assert "streaming: explained" in out and 'only in the studio: {"a": 1, "b": 2, "c": 3}' in out
    assert "explained by: possessive greedy B+" in out


class _Exported:
    text = "SELECT ..."
    warnings: list[str] = []


def test_an_unexplained_difference_is_a_disagreement() -> None:
    q = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a PATTERN (A) DEFINE A AS x > 1)")
    t = Table(["id", "ts", "x"], [{"id": 1, "ts": 1, "x": 2}, {"id": 2, "ts": 2, "x": 0}])
    same = FlinkResult([{"a": 1}], 0.1, "2.3.0")
    other = FlinkResult([{"a": 2}], 0.1, "2.3.0")
    rep = compare(q, t, _Exported(), [same, other], MODES)
    assert [m.verdict for m in rep.modes] == ["equal", "disagreement"] and rep.disagreement
    assert rep.modes[1].only_studio == [{"a": 1}] and rep.modes[1].only_flink == [{"a": 2}]
