"""engine.spark.streaming: files dropped into a watched directory produce matches in the
sink, with matcher state carried per key across micro-batches."""
from __future__ import annotations

import importlib.util
import json
import os
import time

import pytest

from engine.dsl import parse
from engine.events import load_events
from engine.match import run_all

pytestmark = pytest.mark.spark

PATTERN = "PATTERN SEQ(A a, B b) WHERE [key] AND b.v > a.v WITHIN 100"
FILES = [
    "id,type,ts,key,v\n1,A,1,k1,5\n2,A,2,k2,5\n",
    "id,type,ts,key,v\n3,B,3,k1,7\n4,B,4,k2,1\n5,A,5,k1,1\n",
    "id,type,ts,key,v\n6,B,6,k1,9\n7,B,7,k2,8\n",
]


def _drop(src, name, text):
    tmp = src / f".{name}.tmp"
    tmp.write_text(text)
    os.replace(tmp, src / name)  # atomic: the file source never sees a half-written file


def _wait_for(out, n, timeout=60.0):
    from engine.spark.streaming import read_stream_output

    deadline = time.monotonic() + timeout
    rows = []
    while time.monotonic() < deadline:
        rows = read_stream_output(str(out))
        if len(rows) >= n:
            return rows
        time.sleep(0.3)
    return rows


@pytest.mark.skipif(importlib.util.find_spec("engine.engines.nfab.matcher") is None,
                    reason="streaming needs an incremental engine (the oracle answers only at the end)")
def test_stream_matches_appear_as_files_arrive(spark, tmp_path):
    from engine.spark.streaming import start_stream

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    pat = parse(PATTERN)
    _drop(src, "f0.csv", FILES[0])
    q = start_stream(pat, str(src), str(out), fmt="csv", engine="nfab",
                     trigger={"processingTime": "300 milliseconds"})
    try:
        q.processAllAvailable()
        assert _wait_for(out, 1, timeout=1) == []  # only A events so far
        _drop(src, "f1.csv", FILES[1])
        first = _wait_for(out, 1)
        assert [json.loads(r["match"]) for r in first] == [{"a": [1], "b": [3]}]
        _drop(src, "f2.csv", FILES[2])
        rows = _wait_for(out, 4)
        q.processAllAvailable()
    finally:
        q.stop()
    # the same matches as one in-process run over the concatenated stream
    whole = tmp_path / "whole.csv"
    whole.write_text(FILES[0] + "".join(f.split("\n", 1)[1] for f in FILES[1:]))
    from engine.engines.planner import make_matcher

    ref = run_all(make_matcher(pat, "nfab"), load_events(str(whole)).events)
    assert sorted(json.dumps(json.loads(r["match"]), sort_keys=True) for r in rows) == \
        sorted(json.dumps(m.to_json()["match"], sort_keys=True) for m in ref)
    assert {r["key"] for r in rows} == {"k1", "k2"}


def test_stream_refuses_count_windows(spark, tmp_path):
    from engine.spark.streaming import start_stream

    with pytest.raises(ValueError, match="events"):
        start_stream(parse("PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5 events"), str(tmp_path),
                     str(tmp_path / "o"))


# --------------------------------------------------------------------------- restart, rejections, commit log

KEYED = "PATTERN SEQ(A a, B b) WHERE [key] AND b.v > a.v WITHIN 40"


def _stream_files(n_files: int, rows: int) -> list[tuple[str, str]]:
    """CSV files in time order (keys k0..k4, types A/B, v in 0..9); f02 has a bad ts on
    line 5, f04 a line with one field too many (line 7)."""
    import random

    rng = random.Random(16)
    out, ts, ident = [], 0, 0
    for f in range(n_files):
        lines = ["id,type,ts,key,v"]
        for _ in range(rows):
            ts += 1
            ident += 1
            lines.append(f"{ident},{rng.choice('AB')},{ts},k{rng.randrange(5)},{rng.randrange(10)}")
        if f == 2:
            lines[4] = lines[4].split(",")[0] + ",A,oops,k1,3"
        if f == 4:
            lines[6] += ",extra"
        out.append((f"f{f:02d}.csv", "\n".join(lines) + "\n"))
    return out


def _cep_stream(src, out, log):
    import subprocess

    return subprocess.Popen(_cep_stream_cmd(src, out), stdout=subprocess.DEVNULL, stderr=open(log, "w"),
                            start_new_session=True)


def _stop(proc, sig, log) -> str:
    """Send ``sig``; after 60 s (and in any case, for a JVM that outlived its driver) kill
    the process group. Returns what the process wrote on stderr."""
    import signal
    import subprocess

    try:
        os.kill(proc.pid, sig)
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pass
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    return log.read_text(errors="replace")


@pytest.mark.slow
def test_stream_survives_sigterm_and_restart_exactly_and_names_rejections(tmp_path):
    """A stream killed by SIGTERM while files arrive and restarted from its checkpoint
    writes every match once (the in-process matches over the accepted rows); a reader
    sees only the batches the commit log lists; rejections name the file and its line,
    and the ragged file is refused by name."""
    import signal
    import subprocess

    from engine.spark.stream_files import committed_files
    from engine.spark.streaming import read_stream_output

    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    files = _stream_files(8, 250)
    for name, text in files[:3]:
        _drop(src, name, text)
    log = tmp_path / "first.stderr"
    first = _cep_stream(src, out, log)
    try:
        deadline = time.monotonic() + 300
        while not read_stream_output(str(out)) and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.5)
        assert read_stream_output(str(out)), "no batch committed before the kill"
        for name, text in files[3:]:
            _drop(src, name, text)
            time.sleep(0.4)
        seen = read_stream_output(str(out))
        listed = {str(p) for p in committed_files(out)}
    finally:
        err1 = _stop(first, signal.SIGTERM, log)
    second = subprocess.run([*_cep_stream_cmd(src, out), "--once"], capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr[-2000:]
    err = err1 + second.stderr
    assert "f02.csv: rejected line 5 (data row 4), column ts: cannot parse 'oops'" in err
    assert "f04.csv: skipped the whole file: cannot read 'f04.csv' as CSV: expected 5 fields in line 7, saw 6" in err
    assert "row 0" not in err
    rows = read_stream_output(str(out))
    ids = [r["match_id"] for r in rows]
    assert len(ids) == len(set(ids))
    # the reference: one in-process run over the accepted rows of the accepted files
    from engine.engines.planner import make_matcher

    whole = tmp_path / "whole.csv"
    accepted = [t for n, t in files if n != "f04.csv"]
    whole.write_text(accepted[0] + "".join(t.split("\n", 1)[1] for t in accepted[1:]))
    loaded = load_events(str(whole))
    assert loaded.report.rows_rejected == 1
    ref = run_all(make_matcher(parse(KEYED), "auto"), loaded.events)
    assert len(ref) > 100
    assert sorted(json.dumps(json.loads(r["match"]), sort_keys=True) for r in rows) == \
        sorted(json.dumps(m.to_json()["match"], sort_keys=True) for m in ref)
    # what a reader saw before the kill was committed output, all of it kept
    assert listed and all(p.startswith(str(out)) for p in listed)
    final = {r["match_id"] for r in rows}
    assert {r["match_id"] for r in seen} <= final


def _cep_stream_cmd(src, out):
    import sys

    return [sys.executable, "-m", "engine.commands.cli", "stream", KEYED, "--source", str(src), "--out", str(out),
            "--master", "local[2]"]
