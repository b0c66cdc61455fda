"""Match windows on Spark: the pipeline partitions by the derived key
(``engine.partition.partition_key`` = the paper's X, Def. 6) and runs Algorithm 1 per key;
the result equals Algorithm 1 in-process and the SES automaton alone, for all matches and for
earliest_maximal, on the paper's Chemo table and on a generated cohort, with Arrow batches
small enough that a key spans many of them."""
from __future__ import annotations

import json

import pytest

import sample_streams
from engine.dsl import parse
from engine.events import ColumnMapping, load_events
from engine.match import run_all
from engine.engines.ses.matcher import SesMatcher
from engine.engines.windows.matcher import MatchWindowMatcher, spark_factory
from sample_streams.match_windows import chemo

pytestmark = pytest.mark.spark

MAPPING = ColumnMapping(type_col="L", ts_col="T", id_col="id")
P1 = sample_streams.load("chemo").presets["chemo_cycle"]


def canon(matches):
    return sorted(json.dumps(m.to_json(), sort_keys=True, default=str) for m in matches)


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    path = tmp_path_factory.mktemp("cohort") / "cohort.csv"
    chemo(patients=12, days=90, seed=5).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("source,selection", [("paper", ""), ("cohort", "earliest_maximal")])
def test_spark_by_the_derived_key_equals_in_process(spark, small_batches, cohort, selection, source):
    from engine.spark import pipeline
    from engine.spark.io import read_events

    path = str(sample_streams.load("chemo").path) if source == "paper" else cohort
    text = P1.replace("WHERE [PID]", f"WHERE {selection} AND [PID]") if selection else P1
    ev = read_events(path, MAPPING)
    pat = pipeline.scale_window(parse(text), ev)
    events = load_events(path, MAPPING).events
    inproc = run_all(MatchWindowMatcher(pat), events)
    assert canon(inproc) == canon(run_all(SesMatcher(pat), events))
    res = pipeline.run(pat, ev, factory=spark_factory("ses"))
    try:
        assert res.mode == "keyed" and res.info["key"] == ["PID"]
        got = canon(res.to_matches())
        assert got == canon(inproc) and len(got) > 0
        if source == "paper":
            assert len(got) == (3 if selection else 10)
    finally:
        res.matches.unpersist()


def test_cep_run_spark_with_match_windows(spark, capsys):
    from engine.commands.cli import main

    args = ["run", "preset:chemo/chemo_cycle", "--data", "sample:chemo", "--format", "jsonl"]
    assert main(args + ["--spark", "--match-windows", "on"]) == 0
    on = capsys.readouterr().out
    assert main(args + ["--match-windows", "off"]) == 0
    off = capsys.readouterr().out
    assert sorted(on.splitlines()) == sorted(off.splitlines()) and len(on.splitlines()) == 10
