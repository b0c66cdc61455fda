"""Every ``cep`` path guarded and dispatched on the parsed pattern: AGG patterns honour
--max-memory, --read batches, --time-limit and the state guard with the messages of the
match path; interval data and event-set selections stop with a message; bad flag values
and mistyped sample or preset names are clean errors (exit 2) on every command."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.commands.cli import main
from tests.support import run


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def abc_csv(tmp_path: Path, n: int, name: str = "abc.csv") -> str:
    rows = [f"{'ABC'[(i * 7 + i // 3) % 3]},{i},{i},{i % 9 + 1}" for i in range(n)]
    return write(tmp_path, name, "type,id,ts,x\n" + "\n".join(rows) + "\n")


# --------------------------------------------------------------------------- parse, then dispatch

def test_a_string_literal_holding_agg_count_is_not_an_agg_pattern(tmp_path, capsys):
    data = write(tmp_path, "s.csv", "type,id,ts,name\nA,1,1,x AGG COUNT\nB,2,2,y\n")
    pattern = "PATTERN SEQ(A a, B b)\nWHERE a.name = 'x AGG COUNT'"
    rc, out, err = run(capsys, "run", pattern, "--data", data, "--format", "jsonl")
    assert rc == 0, err
    assert [json.loads(line)["match"] for line in out.splitlines()] == [{"a": [1], "b": [2]}]
    from engine.commands.run import wants_aggregate

    class Args:
        pass

    a = Args()
    a.pattern, a.more = pattern, []
    assert wants_aggregate(a) is False
    a.pattern = "PATTERN SEQ(A a, B b)\nAGG COUNT"
    assert wants_aggregate(a) is True


def test_agg_and_workload_still_dispatch(tmp_path, capsys):
    data = write(tmp_path, "s.csv", "type,id,ts\nA,1,1\nB,2,2\nB,3,3\n")
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--format", "jsonl")
    assert rc == 0, err
    assert [json.loads(line)["value"] for line in out.splitlines()] == [1, 2]
    wl = write(tmp_path, "w.cep", "QUERY q1\nPATTERN SEQ(A a, B b)\nAGG COUNT\n\nQUERY q2\nPATTERN SEQ(A a)\nAGG COUNT\n")
    rc, out, err = run(capsys, "run", wl, "--data", data, "--format", "jsonl")
    assert rc == 0, err
    assert {json.loads(line)["query"] for line in out.splitlines()} == {"q1", "q2"}


# --------------------------------------------------------------------------- the AGG path guarded

def test_agg_max_memory_bad_value_is_a_clean_error(tmp_path, capsys):
    data = abc_csv(tmp_path, 10)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--max-memory", "lots")
    assert rc == 2 and "--max-memory" in err and "lots" in err


def test_agg_max_memory_stops_the_run(tmp_path, capsys):
    data = abc_csv(tmp_path, 50)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--max-memory", "1MB")
    assert rc == 1
    assert "stopped" in err and "passed the limit of 1 MB (--max-memory)" in err


def test_agg_read_batches_gives_the_rows_of_a_whole_read(tmp_path, capsys):
    data = abc_csv(tmp_path, 300)
    p = "PATTERN SEQ(A a, B b) WHERE b.x > a.x AGG SUM(b.x) WITHIN 20"
    rc, whole, err = run(capsys, "run", p, "--data", data, "--format", "jsonl", "--read", "whole")
    assert rc == 0, err
    rc, batched, err = run(capsys, "run", p, "--data", data, "--format", "jsonl", "--read", "batches")
    assert rc == 0, err
    assert batched == whole and whole


def test_agg_read_batches_streams_the_file(tmp_path, capsys, monkeypatch):
    """--read batches hands the engine events as batches come (never load_data)."""
    import engine.commands.arguments as arguments

    def refuse(*_a, **_k):
        raise AssertionError("the AGG path loaded the whole file under --read batches")

    data = abc_csv(tmp_path, 50)
    monkeypatch.setattr(arguments, "load_data", refuse)
    rc, out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--read", "batches",
                       "--format", "count")
    assert rc == 0, err
    assert int(out) > 0


def test_agg_state_guard_has_the_match_path_message(tmp_path, capsys):
    data = abc_csv(tmp_path, 200)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--engine",
                        "aseq-baseline", "--max-runs", "20")
    assert rc == 1 and err.startswith("cep: stopped: state explosion")


@pytest.mark.parametrize("engine", ["aseq-baseline", "nfab"])
def test_dense_agg_on_baseline_engines_is_stopped_by_the_time_limit(tmp_path, capsys, engine):
    data = abc_csv(tmp_path, 3000)
    t0 = time.monotonic()
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A+ a[], B b, C c) AGG COUNT", "--data", data, "--engine", engine,
                        "--time-limit", "1", "--format", "count")
    assert time.monotonic() - t0 < 8
    assert rc == 1 and "time limit of 1 s" in err


@pytest.mark.parametrize("out", ["DIR/", "missing/x.csv", "DATA"])
def test_agg_out_problems_are_clean_errors(tmp_path, capsys, out):
    data = abc_csv(tmp_path, 10)
    before = Path(data).read_bytes()
    target = {"DIR/": str(tmp_path) + "/", "missing/x.csv": str(tmp_path / "missing" / "x.csv"), "DATA": data}[out]
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) AGG COUNT", "--data", data, "--out", target)
    assert rc == 2 and err.startswith("cep: --out")
    assert Path(data).read_bytes() == before


# --------------------------------------------------------------------------- interval data, SES

def interval_csv(tmp_path: Path, n: int, width: int) -> str:
    rows = [f"{'AB'[i % 2]},{i},{i},{i + width}" for i in range(n)]
    return write(tmp_path, "iv.csv", "type,id,lower,upper\n" + "\n".join(rows) + "\n")


def test_wide_overlapping_intervals_on_the_point_engine_stop_with_a_message(tmp_path, capsys):
    data = interval_csv(tmp_path, 400, 200)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 500", "--data", data, "--lower-col", "lower",
                        "--upper-col", "upper", "--engine", "uncertain-point", "--max-runs", "20000")
    assert rc == 1 and "point matches waiting to be collapsed" in err


@pytest.mark.parametrize("width", [10**30, 25_000_000])
def test_an_interval_too_wide_to_expand_into_points_is_refused_before_any_point(tmp_path, capsys, width):
    """The point-based framework makes a point event of every instant: an interval of more instants
    than the per-event work limit is refused at once (a 10**30-wide one filled 22 GB before)."""
    data = write(tmp_path, "wide.csv", f"type,id,lower,upper\nA,e0,0,{width - 1}\nB,e1,{width},{width + 1}\n")
    t0 = time.monotonic()
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 4", "--data", data, "--lower-col", "lower",
                        "--upper-col", "upper", "--engine", "uncertain-point")
    assert rc == 1 and f"event 'e0' holds {width:,} instants" in err and "state explosion" in err, err
    assert time.monotonic() - t0 < 20


def test_a_wide_interval_expanding_into_points_honours_max_memory(tmp_path, capsys):
    from engine.memory import rss_bytes

    data = write(tmp_path, "wide.csv", "type,id,lower,upper\nA,e0,0,5000000\nB,e1,5000001,5000002\n")
    limit = rss_bytes() + 150 * 2**20  # (this process's own memory, plus what the 5M points would pass)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 4", "--data", data, "--lower-col", "lower",
                        "--upper-col", "upper", "--engine", "uncertain-point", "--max-memory", str(limit))
    assert rc == 1 and "(--max-memory)" in err and "after 0 events" in err, err


def test_interval_run_honours_the_time_limit(tmp_path, capsys):
    data = interval_csv(tmp_path, 2000, 500)
    t0 = time.monotonic()
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 1000", "--data", data, "--lower-col", "lower",
                        "--upper-col", "upper", "--time-limit", "1", "--format", "count")
    assert time.monotonic() - t0 < 8
    assert rc == 1 and "time limit of 1 s" in err and "signatures found so far" in err


def test_interval_run_honours_max_memory(tmp_path, capsys):
    data = interval_csv(tmp_path, 20, 3)
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(A a, B b) WITHIN 10", "--data", data, "--lower-col", "lower",
                        "--upper-col", "upper", "--max-memory", "1MB")
    assert rc == 1 and "(--max-memory)" in err


def test_and_kleene_earliest_maximal_is_stopped_by_the_state_guard(tmp_path, capsys):
    """Without WITHIN the matches of one start are held until the end: the state guard
    counts the events they bind (default limit) and stops the run within seconds."""
    data = abc_csv(tmp_path, 3000)
    t0 = time.monotonic()
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal",
                        "--data", data, "--format", "count")
    assert time.monotonic() - t0 < 10
    assert rc == 1 and "matches held for the earliest_maximal selection" in err


def test_and_kleene_earliest_maximal_within_is_stopped_by_the_time_limit(tmp_path, capsys):
    """With WITHIN, match windows call SES per window: the time limit stops it inside a window."""
    data = abc_csv(tmp_path, 1500)
    t0 = time.monotonic()
    rc, _out, err = run(capsys, "run", "PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal WITHIN 1000",
                        "--data", data, "--format", "count", "--time-limit", "1")
    assert time.monotonic() - t0 < 8
    assert rc == 1 and "time limit of 1 s" in err


# --------------------------------------------------------------------------- bad flag values

BAD_VALUES = ["-5", "0", "nan", "lots"]


@pytest.mark.parametrize("value", BAD_VALUES)
@pytest.mark.parametrize("command,flag", [
    ("run", "--max-runs"), ("run", "--u-max"), ("run", "--min-confidence"), ("run", "--max-memory"),
    ("run", "--time-limit"), ("trace", "--limit"), ("trace", "--max-runs"), ("trace", "--u-max"),
    ("explain", "--match"), ("explain", "--u-max"), ("stream", "--u-max"),
])
def test_bad_numeric_flag_values_are_clean_errors(tmp_path, capsys, command, flag, value):
    if flag == "--u-max" and value == "0":
        pytest.skip("U_max 0 is a valid value (point-wide intervals)")
    if flag == "--min-confidence" and value == "0":
        pytest.skip("confidence 0 is a valid threshold")
    argv = [command, "preset:cluster/query1", "--data", "sample:cluster"]
    if command == "explain" and flag != "--match":
        argv += ["--match", "1"]
    if command == "stream":
        argv = ["stream", "preset:cluster/query1", "--source", str(tmp_path), "--out", str(tmp_path / "o")]
    argv += [flag, value]
    try:
        rc = main(argv)
    except SystemExit as exit_:  # argparse's own refusal (a value of the wrong type)
        rc = exit_.code
    err = capsys.readouterr().err
    assert rc == 2, (argv, err)
    assert "Traceback" not in err and flag in err


# --------------------------------------------------------------------------- names

BAD_NAMES = [
    ["run", "preset:stocks_sase/stock_trend", "--data", "sample:stocks"],
    ["run", "preset:stocks_sase/stock_trend", "--data", "sample:stocks", "--spark"],
    ["run", "preset:stock/stock_trend", "--data", "sample:stocks_sase"],
    ["run", "preset:stocks_sase/stock_trnd", "--data", "sample:stocks_sase", "--spark"],
    ["trace", "preset:stocks_sase/stock_trend", "--data", "sample:stock_sase"],
    ["trace", "preset:chemos/p1", "--data", "sample:chemo"],
    ["explain", "preset:cluster/query1", "--data", "sample:clustr", "--match", "1"],
    ["explain", "preset:clusters/query1", "--data", "sample:cluster", "--match", "1"],
    ["check", "preset:rfid/shoplift"],
    ["stream", "preset:trade/x", "--source", ".", "--out", "/tmp/cep-never-made"],
]


@pytest.mark.parametrize("argv", BAD_NAMES, ids=lambda a: " ".join(a))
def test_mistyped_sample_or_preset_names_are_clean_errors(capsys, argv):
    rc, _out, err = run(capsys, *argv)
    assert rc == 2
    assert err.startswith("cep: unknown sample") or err.startswith("cep: unknown preset")
    assert "Traceback" not in err


def test_unknown_sample_message_lists_and_suggests(capsys):
    rc, _out, err = run(capsys, "run", "preset:stocks_sase/stock_trend", "--data", "sample:stocks")
    assert rc == 2
    assert err.strip().startswith("cep: unknown sample 'stocks'; the samples are stocks_sase, ")
    assert "did you mean 'stocks_sase'?" in err


def test_an_unexpected_error_prints_no_traceback(capsys, monkeypatch):
    import engine.commands.cli as cli

    def boom(_args):
        raise KeyError("match")

    from engine.commands import check

    monkeypatch.setitem(cli.COMMANDS, "check", cli.Builtin(check.add_parser, boom))
    monkeypatch.delenv("CEP_DEBUG", raising=False)
    rc, _out, err = run(capsys, "check", "PATTERN SEQ(A a)")
    assert rc == 2 and err.startswith("cep: unexpected error (KeyError") and "Traceback" not in err


def test_interval_read_batches_gives_the_whole_read_and_derives_u_max_in_a_first_pass(capsys, monkeypatch):
    base = ["run", "preset:cluster/query1", "--data", "sample:cluster", "--format", "jsonl"]
    rc, whole, err = run(capsys, *base, "--u-max", "15")
    assert rc == 0, err
    rc, batched, err = run(capsys, *base, "--u-max", "15", "--read", "batches")
    assert rc == 0, err
    assert batched == whole and whole
    rc, derived_whole, err = run(capsys, *base, "--read", "whole", "--stats")
    assert rc == 0, err
    rc, derived_batched, err2 = run(capsys, *base, "--read", "batches", "--stats")
    assert rc == 0, err2
    assert derived_batched == derived_whole and derived_whole
    import re

    u_max = re.findall(r"\bu_max=\d+", err)
    assert u_max == ["u_max=14"] and re.findall(r"\bu_max=\d+", err2) == u_max
    # auto reads a big file in batches (here: any file above 1 byte), with the same output
    import engine.events.sources as sources

    monkeypatch.setattr(sources, "BATCH_ABOVE_BYTES", 1)
    import engine.commands.arguments as arguments

    def never(*_a, **_k):
        raise AssertionError("the file was loaded whole")

    monkeypatch.setattr(arguments, "load_data", never)
    rc, auto, err = run(capsys, *base)
    assert rc == 0, err
    assert auto == derived_whole  # U_max from the first pass, batch by batch


@pytest.mark.parametrize("fmt", ["jsonl", "count"])
def test_agg_read_batches_writes_rows_as_they_come(tmp_path, capsys, monkeypatch, fmt):
    """In batches, jsonl/count rows are not collected in a list (a big file's rows would all
    be held); --out is written as OUT.partial and renamed at the end."""
    import engine.engines.aseq.row_sink as row_sink

    def never(*_a, **_k):
        raise AssertionError("rows were collected and written at the end")

    monkeypatch.setattr(row_sink, "emit_rows", never)
    data = abc_csv(tmp_path, 300)
    p = "PATTERN SEQ(A a, B b) AGG COUNT WITHIN 10"
    rc, whole, err = run(capsys, "run", p, "--data", data, "--format", fmt, "--read", "batches")
    assert rc == 0, err
    out = tmp_path / "rows.out"
    rc, _o, err = run(capsys, "run", p, "--data", data, "--format", fmt, "--read", "batches", "--out", out)
    assert rc == 0, err
    assert not (tmp_path / "rows.out.partial").exists()
    monkeypatch.undo()
    rc, expected, err = run(capsys, "run", p, "--data", data, "--format", fmt, "--read", "whole")
    assert whole == expected == out.read_text(encoding="utf-8")
