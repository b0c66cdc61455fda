"""``cep run --spark --master spark://...`` on a loopback standalone cluster (a Master and two
Workers whose Python cannot import the project) equals ``cep run`` in process, for a keyed, a
time-chunked, an AGG and an interval pattern; the workers import the engine from the zip the
session shipped (engine/spark/ship.py), not from the project's folder."""
from __future__ import annotations

import pytest

from tests.spark.cluster import cases

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def test_cluster_runs_equal_in_process(loopback_runs):
    run, want = loopback_runs["standalone"].check(), loopback_runs["want"]
    assert run.report["status"] == [0] * len(cases.CASES) + [1], run.stderr[-3000:]
    assert cases.EXPLOSION in run.stderr  # a matcher's failure in a task, in its own words
    assert run.report["master"] == run.url
    assert f"running on {run.url}" in run.stderr
    for case in cases.CASES:
        assert want[case.name].strip(), f"{case.name}: no output in process (a vacuous case)"
        assert run.got[case.name] == want[case.name], case.name
        if case.mode:
            assert f"spark mode={case.mode}" in run.stderr
    # the engine came to the workers as the shipped zip, run by the workers' own Python
    assert run.report["workers"]
    for w in run.report["workers"]:
        assert w["python"] == run.python
        assert ".zip" in w["engine"] and str(cases.PROJECT) not in w["engine"], w
    # the Run page's Spark option on the same cluster: where it runs, its progress, its matches
    app = run.report["app"]
    assert app["matches"] == len(want["keyed"].splitlines())
    assert app["cluster"] == app["info_cluster"] == f"{run.url} (2 executors)"
    assert any(f"on {run.url} (2 executors)" in t for t in app["texts"]) and app["stages"] > 0
    # the lazy DataFrame API (engine.spark.match) on the same session, over a DataFrame read there
    cases.check_lazy(run.report["lazy"], want)
