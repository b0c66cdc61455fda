"""`cep run` for AGG patterns and workloads (engine/commands/run_aggregate.py, wired in engine/commands/cli.py
and engine/engines/planner.py): rows, never matches, in every format; --emit changes; --stats;
the fallback note; workloads of QUERY blocks or several files, tagged rows equal to each
query alone; auto picks aseq; a match engine's matches aggregated."""
from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

import sample_streams
from tests.support import run
from engine.dsl import parse
from engine.engines.planner import choose, make_matcher

LOGIN = sample_streams.load("clicks").presets["login_count"]
KINDLE = sample_streams.load("clicks").presets["kindle_bundle"]
LOGIN_ROWS = [(4, "10.0.0.1", 1), (5, "10.0.0.1", 2), (9, "10.0.0.2", 2), (10, "10.0.0.2", 2),
              (13, "10.0.0.3", 1), (15, "10.0.0.3", 3), (17, "10.0.0.3", 6)]


def test_auto_is_aseq_and_unrunnable_agg_is_refused_by_all():
    from engine.match import EngineUnsupported
    from engine.engines.planner import reasons

    p = parse(LOGIN)
    assert choose(p).name == "aseq" and type(make_matcher(p)).__name__ == "AseqMatcher"
    assert choose(parse("PATTERN SEQ(A a, B b)")).name != "aseq"
    trailing = parse("PATTERN SEQ(A a, !B b) AGG COUNT WITHIN 5")
    assert all(reasons(trailing).values())
    for eng in ("auto", "nfab", "aseq"):
        try:
            choose(trailing, eng)
            raise AssertionError(eng)
        except EngineUnsupported as err:
            assert "trailing negation" in str(err)


def test_jsonl_rows_and_the_same_from_every_engine(capsys):
    outs = {}
    for eng in ("auto", "aseq", "aseq-baseline", "nfab", "oracle"):
        code, out, _ = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks", "--format", "jsonl",
                           "--engine", eng)
        assert code == 0
        outs[eng] = [json.loads(x) for x in out.splitlines()]
    rows = outs["auto"]
    assert all(set(r) == {"ts", "event", "group", "value"} for r in rows)
    assert [(r["event"], r["group"], r["value"]) for r in rows] == LOGIN_ROWS
    assert all(o == rows for o in outs.values())


def test_table_csv_count_and_parquet(capsys, tmp_path):
    code, out, _ = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks")
    assert code == 0 and out.splitlines()[0].split() == ["ts", "event", "group", "value"] and "(7 rows)" in out
    code, out, _ = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks", "--format", "csv")
    got = list(csv.DictReader(io.StringIO(out)))
    assert [(int(r["event"]), r["group"], int(r["value"])) for r in got] == LOGIN_ROWS
    code, out, _ = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks", "--format", "count")
    assert out == "7\n"
    f = tmp_path / "rows.parquet"
    code, _, _ = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks", "--out", str(f))
    t = pq.read_table(f).to_pylist()
    assert [(r["event"], r["group"], r["value"]) for r in t] == [(str(e), g, float(v)) for e, g, v in LOGIN_ROWS]


def test_emit_changes_and_stats(capsys):
    code, out, err = run(capsys, "run", "preset:clicks/kindle_bundle", "--data", "sample:clicks", "--format", "jsonl",
                         "--emit", "changes", "--stats")
    rows = [json.loads(x) for x in out.splitlines()]
    drops = [r for r in rows if r["event"] is None]
    assert drops and all(r["ts"] % 1 == 0 for r in drops) and rows[-1]["value"] == 0
    assert "engine=aseq" in err and "counter_updates=" in err and "prefix_counters_peak=" in err


def test_fallback_is_noted_with_its_reason(capsys, tmp_path):
    f = tmp_path / "q.cep"
    f.write_text("PATTERN SEQ(TypeUsername a, TypePassword b, ClickSubmit c)\nWHERE c.user != b.user\nAGG COUNT\n"
                 "WITHIN 10 s\n")
    code, out, err = run(capsys, "run", str(f), "--data", "sample:clicks", "--format", "count")
    assert code == 0 and "note: A-Seq cannot aggregate" in err and "`c`" in err


def test_trailing_negation_is_refused(capsys):
    code, _, err = run(capsys, "run", "PATTERN SEQ(Kindle a, !Stylus s)\nAGG COUNT\nWITHIN 1 hour", "--data",
                       "sample:clicks")
    assert code == 2 and "trailing negation" in err


WORKLOAD = """
QUERY logins
PATTERN SEQ(TypeUsername a, TypePassword b, ClickSubmit c) WHERE [IP] AGG COUNT GROUP BY IP WITHIN 10 s
QUERY attempts
PATTERN SEQ(TypeUsername a, TypePassword b) WHERE [IP] AGG COUNT GROUP BY IP WITHIN 10 s
"""


def test_workload_file_rows_are_tagged_and_equal_each_query_alone(capsys, tmp_path):
    f = tmp_path / "w.cepw"
    f.write_text(WORKLOAD)
    code, out, err = run(capsys, "run", str(f), "--data", "sample:clicks", "--format", "jsonl", "--stats")
    assert code == 0
    rows = [json.loads(x) for x in out.splitlines()]
    assert list(rows[0]) == ["query", "ts", "event", "group", "value"]
    logins = [(r["event"], r["group"], r["value"]) for r in rows if r["query"] == "logins"]
    assert logins == LOGIN_ROWS
    q2 = tmp_path / "attempts.cep"
    q2.write_text(WORKLOAD.split("QUERY attempts")[1])
    _, alone, _ = run(capsys, "run", str(q2), "--data", "sample:clicks", "--format", "jsonl")
    assert [json.loads(x) for x in alone.splitlines()] == [{k: v for k, v in r.items() if k != "query"}
                                                           for r in rows if r["query"] == "attempts"]
    assert "counter_updates=" in err and "unshared_counter_updates=" in err
    shared = int(err.split(" counter_updates=")[1].split()[0])
    unshared = int(err.split("unshared_counter_updates=")[1].split()[0])
    assert shared < unshared  # (TypeUsername, TypePassword) is counted once for both


def test_several_pattern_files_are_a_workload(capsys, tmp_path):
    a, b = tmp_path / "logins.cep", tmp_path / "kindle.cep"
    a.write_text(LOGIN)
    b.write_text(KINDLE)
    code, out, _ = run(capsys, "run", str(a), str(b), "--data", "sample:clicks", "--format", "csv")
    got = list(csv.DictReader(io.StringIO(out)))
    assert {r["query"] for r in got} == {"logins", "kindle"}
    assert len([r for r in got if r["query"] == "logins"]) == 7


def test_workload_errors_name_the_query(capsys, tmp_path):
    f = tmp_path / "w.cepw"
    f.write_text("QUERY a\nPATTERN SEQ(A a, B b) AGG COUNT\nQUERY b\nPATTERN SEQ(A a, B b)\nWIHTIN 5\n")
    code, _, err = run(capsys, "run", str(f), "--data", "sample:clicks")
    assert code == 2 and "query `b`" in err and "line 5" in err


@pytest.mark.spark
def test_spark_rows_equal_in_process(spark, capsys):
    code, local, _ = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks", "--format", "jsonl")
    code2, on_spark, err = run(capsys, "run", "preset:clicks/login_count", "--data", "sample:clicks", "--format",
                               "jsonl", "--spark", "--stats")
    assert code == code2 == 0 and on_spark == local and "spark mode=keyed" in err
