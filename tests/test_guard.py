"""The state guard bounds live state, the work one event may cause and the output it may
build, on every engine, with a message that names the cause and a remedy; Kleene
enumeration is iterative (no RecursionError however long the run)."""
from __future__ import annotations

import time

import pytest

from engine.dsl import parse
from engine.events import make_stream
from engine.match import StateExplosion, run_all
from engine.engines.planner import make_matcher

ENGINES = ["nfab", "lazy-chain", "lazy-tree", "eager"]


def kleene_stream(n: int, x=lambda i: i) -> list:
    rows = [dict(type="A", ts=i * 0.1, id=i, x=x(i)) for i in range(n)]
    rows.append(dict(type="B", ts=n * 0.1 + 0.05, id=n, x=0))
    return make_stream(rows)


@pytest.mark.parametrize("engine", ["auto", "lazy-chain", "lazy-tree", "eager", "nfab"])
def test_kleene_explosion_stops_with_the_guard_not_a_traceback(engine):
    ev = kleene_stream(5000 if engine not in ("nfab", "auto") else 60)
    p = parse("PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match WITHIN 1000 s")
    t0 = time.perf_counter()
    with pytest.raises(StateExplosion) as err:
        run_all(make_matcher(p, engine, rates={"A": 5000, "B": 1} if engine == "auto" else None,
                             **({"max_runs": 100_000} if engine in ("nfab", "eager", "auto") else {})), ev)
    msg = str(err.value)
    assert "skip_till_any_match" in msg and "skip_till_next_match" in msg and "Kleene `a[]`" in msg
    assert time.perf_counter() - t0 < 60


@pytest.mark.parametrize("engine", ["lazy-chain", "lazy-tree"])
def test_long_kleene_runs_enumerate_without_recursion(engine):
    # only the prefixes of 0, 1, 2, ... qualify: 1,100 matches, the longest 1,100 elements deep
    # (deeper than Python's recursion limit of 1,000)
    n = 1100
    ev = kleene_stream(n)
    p = parse("PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match AND a[1].x = 0 "
              "AND a[i].x = a[i-1].x + 1 WITHIN 1000 s")
    got = run_all(make_matcher(p, engine), ev)
    assert len(got) == n
    assert max(len(m.ids("a")) for m in got) == n
    assert sorted(len(m.ids("a")) for m in got) == list(range(1, n + 1))


def test_work_budget_stops_a_cpu_bound_enumeration():
    ev = kleene_stream(400, x=lambda i: 400 - i)  # every subset is decreasing: 2^400 matches
    p = parse("PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match AND a[i].x < a[i-1].x WITHIN 1000 s")
    for engine in ("lazy-chain", "lazy-tree"):
        with pytest.raises(StateExplosion, match="per event"):
            run_all(make_matcher(p, engine, max_work=200_000), ev)


def test_nfab_bounds_the_output_of_one_event():
    # 800 runs wait at b; the B completes 800 matches at once
    ev = kleene_stream(800)
    p = parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 1000 s")
    assert len(run_all(make_matcher(p, "nfab"), ev)) == 800
    with pytest.raises(StateExplosion, match="one event completed"):
        run_all(make_matcher(p, "nfab", max_work=1_000), ev)


def test_auto_prefers_nfab_for_kleene_even_on_skewed_rates():
    from engine.engines.planner import choose

    skewed = {"A": 5000, "B": 1}
    assert choose(parse("PATTERN SEQ(A+ a[], B b) WITHIN 10"), rates=skewed).name == "nfab"
    assert choose(parse("PATTERN SEQ(A a, B b) WITHIN 10"), rates=skewed).name == "lazy-chain"


def test_numpy_values_from_make_stream_compare_like_python_values():
    import numpy as np

    ev = make_stream([dict(type="G", ts=np.int64(1), id=np.int64(1), peak=np.float64(1.0)),
                      dict(type="G", ts=np.int64(2), id=np.int64(2), peak=np.float64(2.5))])
    p = parse("PATTERN SEQ(G a, G b) WHERE a.peak < b.peak WITHIN 3 min")
    for engine in ENGINES:
        assert [m.as_dict() for m in run_all(make_matcher(p, engine), ev)] == [{"a": [1], "b": [2]}], engine
