"""engine/checkpoints.py: a trace started from an untraced snapshot equals the same steps of a
trace from the start, for every engine, on random patterns and streams, at every cut."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.checkpoints import CheckpointedRun, snapshot
from engine.engines.planner import ENGINES
from engine.match import EngineUnsupported, StateExplosion
from engine.model import Strategy
from engine.run_choice import choose_run
from engine.trace import Recorder, buffer_at, record
from engine.dsl import parse
from tests.engines.aseq.test_properties import patterns as aseq_patterns, streams as aseq_streams
from tests.engines.uncertain.test_matchers import interval_streams, u_max_of, uncertain_patterns
from tests.strategies import small_patterns, small_streams

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=25)
SWEEPS = [("engine.engines.nfab.matcher", "SWEEP_EVERY"), ("engine.engines.lazy.chain_matcher", "SWEEP_EVERY"),
          ("engine.engines.lazy.tree_matcher", "SWEEP_EVERY"), ("engine.engines.lazy.eager_matcher", "SWEEP_EVERY"),
          ("engine.engines.windows.algorithm", "SWEEP_EVERY")]


@pytest.fixture
def frequent_sweeps(monkeypatch):
    """The engines' periodic sweeps (every 1,024-4,096 events) every 3 events, so that small
    streams cut runs, buffer entries and windows the sweeps drop."""
    import importlib

    for module, name in SWEEPS:
        mod = importlib.import_module(module)
        if hasattr(mod, name):
            monkeypatch.setattr(mod, name, 3)


POINT_ENGINES = [s.name for s in ENGINES.values() if s.language == "dsl" and not s.interval and not s.name.startswith("aseq")]


def _json(steps):
    return [json.loads(json.dumps(s.to_json())) for s in steps]


def _full(choice, p, events, **options):
    return _json(record(choice.build(p, tracer=Recorder(), **options), events, limit=None))


def _from_cut(choice, p, events, k, **options):
    """Two traces from one untraced snapshot at ``k`` (the original fed on to the end between
    them): a snapshot shares no state with the matcher it was taken from nor with its copies."""
    m = choice.build(p, **options)
    for e in events[:k]:
        m.feed(e)
    snap = snapshot(m)
    out = []
    for _ in range(2):
        run = snapshot(snap)
        run.attach_tracer(Recorder(), events[k - 1] if k else None)
        out.append(_json(record(run, events[k:], limit=None, start=k)))
        if len(out) == 1:
            for e in events[k:]:
                m.feed(e)
            m.close()
    assert out[0] == out[1]
    return out[0]


@pytest.mark.parametrize("engine", POINT_ENGINES)
@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(max_size=10))
def test_a_trace_from_any_cut_equals_the_full_trace(engine, p, events):
    if ENGINES[engine].supports(p) is not None:
        assume(False)
    try:
        choice = choose_run(p, engine, "off")
        full = _full(choice, p, events)
    except (StateExplosion, EngineUnsupported):
        assume(False)
    for k in range(len(events) + 1):
        assert _from_cut(choice, p, events, k) == full[k:], (engine, k)


def _check_all_cuts(engine, p, events, interval=False, **options):
    try:
        choice = choose_run(p, engine, "off", interval=interval)
        full = _full(choice, p, events, **options)
    except (StateExplosion, EngineUnsupported):
        assume(False)
    for k in range(len(events) + 1):
        assert _from_cut(choice, p, events, k, **options) == full[k:], (engine, k)


@pytest.mark.parametrize("engine", ["aseq", "aseq-baseline"])
@settings(**SETTINGS)
@given(text=aseq_patterns(), events=aseq_streams())
def test_a_trace_from_any_cut_equals_the_full_trace_for_aggregates(engine, text, events):
    p = parse(text)
    if ENGINES[engine].supports(p) is not None:
        assume(False)
    _check_all_cuts(engine, p, events)


@pytest.mark.parametrize("engine", [s.name for s in ENGINES.values() if s.interval])
@settings(**{**SETTINGS, "max_examples": 25})
@given(p=uncertain_patterns(), events=interval_streams(), known_u_max=st.booleans())
def test_a_trace_from_any_cut_equals_the_full_trace_on_interval_data(engine, p, events, known_u_max):
    if ENGINES[engine].supports(p) is not None:
        assume(False)
    options = {"u_max": u_max_of(events)} if known_u_max and engine != "uncertain-oracle" else {}
    _check_all_cuts(engine, p, events, interval=True, **options)


@pytest.mark.parametrize("engine", ["nfab", "lazy-chain", "match-windows"])
@settings(**{**SETTINGS, "max_examples": 25})
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(max_size=10),
       every=st.integers(1, 4), chunk=st.integers(1, 4), windows=st.lists(st.tuples(st.integers(0, 11),
                                                                                     st.integers(0, 12)), max_size=6))
def test_checkpointed_run_reads_any_window_of_the_full_trace(frequent_sweeps, engine, p, events, every, chunk, windows):
    if ENGINES[engine].supports(p) is not None:
        assume(False)
    try:
        choice = choose_run(p, engine, "off")
        full_steps = list(record(choice.build(p, tracer=Recorder()), events, limit=None))
    except (StateExplosion, EngineUnsupported):
        assume(False)
    full = _json(full_steps)
    run = CheckpointedRun(choice, p, events, every=every, chunk=chunk)
    assert [(m.step, m.match) for m in run.matches] == [(k, m) for k, s in enumerate(full) for m in s["matches"]]
    assert [m.number for m in run.matches] == list(range(1, len(run.matches) + 1))
    assert run.total_steps == len(full)
    for a, b in windows:  # in any order: forwards (the cursor), backwards (a snapshot), cached
        assert _json(run.steps(a, b)) == full[max(0, a):min(b, len(full))]
    for k in range(len(full)):
        assert run.buffer_at(k) == buffer_at(full_steps, k), k
    assert _json(run.steps(0, run.total_steps)) == full


@pytest.mark.parametrize("engine", POINT_ENGINES)
@settings(**{**SETTINGS, "max_examples": 20})
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(min_size=6, max_size=16))
def test_a_trace_from_any_cut_equals_the_full_trace_with_sweeps(frequent_sweeps, engine, p, events):
    if ENGINES[engine].supports(p) is not None or p.window is None:
        assume(False)
    _check_all_cuts(engine, p, events)


@pytest.mark.parametrize("engine", ["match-windows", "nfab", "lazy-chain"])
def test_a_run_under_a_guard_snapshots_its_state_not_the_guard(engine):
    """The guard (a lock, a cancel event) is the run's: snapshots taken under it share it."""
    import threading

    from engine.memory import MemoryGuard
    from tests.strategies import make_stream

    p = parse("PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 5")
    events = make_stream([{"id": i, "type": "AB"[i % 2], "ts": i, "x": i % 4} for i in range(60)])
    choice = choose_run(p, engine, "off")
    full = _json(record(choice.build(p, tracer=Recorder()), events, limit=None))
    guard = MemoryGuard(None, time_limit=60, cancel=threading.Event())
    run = CheckpointedRun(choice, p, events, guard=guard, every=7, chunk=5)
    assert _json(run.steps(40, 61)) == full[40:]
    assert _json(run.steps(3, 12)) == full[3:12]
