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
from engine.matchers.base import run_all

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


@pytest.mark.skipif(importlib.util.find_spec("engine.matchers.nfab") is None,
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
    from engine.planner import make_matcher

    ref = run_all(make_matcher(pat, "nfab"), load_events(str(whole)).events)
    assert sorted(json.dumps(json.loads(r["match"]), sort_keys=True) for r in rows) == \
        sorted(json.dumps(m.to_json()["match"], sort_keys=True) for m in ref)
    assert {r["key"] for r in rows} == {"k1", "k2"}


def test_stream_refuses_count_windows(spark, tmp_path):
    from engine.spark.streaming import start_stream

    with pytest.raises(ValueError, match="events"):
        start_stream(parse("PATTERN SEQ(A a, B b) WHERE [key] WITHIN 5 events"), str(tmp_path),
                     str(tmp_path / "o"))
