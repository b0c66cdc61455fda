"""The step trace (engine/trace.py, docs/trace.md): faithful to every engine's own output
and to the oracle, well-formed for every engine and strategy, and bounded by --limit."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

import sample_streams
from engine.engines.oracle import oracle
from engine.dsl import parse
from engine.match import EngineUnsupported, StateExplosion, run_all
from engine.model import Strategy
from engine.engines.oracle.oracle import OracleTooLarge
from engine.engines.planner import ENGINES, make_matcher
from engine.run_choice import trace
from engine.trace import ACTION_KINDS, Recorder, Step, TraceLimit, buffer_at, record, trace_matches
from tests.strategies import small_patterns, small_streams
from tests.support import run as _cli

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=60)
ENGINE_NAMES = [n for n in ENGINES if n != "oracle"]
STOCK = sample_streams.events("stocks_sase")
Q3 = sample_streams.load("stocks_sase").presets["stock_trend"]


def _key(ms):
    return sorted(json.dumps(m["match"], sort_keys=True) for m in ms)


def _check_well_formed(steps: list[Step], events) -> None:
    assert [s.step for s in steps] == [*range(len(events)), "close"]
    for s, e in zip(steps, events):
        assert s.event["id"] == e.id and s.event["type"] == e.type and s.event["ts"] == e.ts
        for a in s.actions:
            assert a.kind in ACTION_KINDS
            for p in a.predicates:
                assert isinstance(p.result, bool) and isinstance(p.text, str)
        for r in s.runs:
            assert r.id and r.state
        json.dumps(s.to_json())  # the JSON Lines form serialises
        assert Step.from_json(json.loads(json.dumps(s.to_json()))).to_json() == json.loads(json.dumps(s.to_json()))


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(max_size=7))
def test_trace_matches_are_the_engines_own_output_for_every_engine_and_strategy(p, events):
    ran = 0
    for name in ENGINE_NAMES:
        if ENGINES[name].supports(p) is not None:
            continue
        try:
            plain = run_all(make_matcher(p, name), events)
            steps = trace(p, events, engine=name)
        except (StateExplosion, EngineUnsupported):  # e.g. an interval-data engine on point data
            continue
        ran += 1
        assert [m["match"] for m in trace_matches(steps)] == [m.as_dict() for m in plain], name
        _check_well_formed(steps, events)
        # the matches a step reports are those completed by its event (or at close)
        for s in steps[:-1]:
            for m in s.matches:
                assert m["end"] <= s.event["ts"]
    assume(ran)


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3), events=small_streams(max_size=7))
def test_trace_agrees_with_the_oracle(p, events):
    try:
        want = oracle.run(p, events)
    except OracleTooLarge:
        assume(False)
    for name in ENGINE_NAMES:
        if ENGINES[name].supports(p) is not None:
            continue
        try:
            steps = trace(p, events, engine=name)
        except EngineUnsupported:
            continue
        assert _key(trace_matches(steps)) == _key([m.to_json() for m in want]), name


def test_stock_example_under_every_engine_reports_bindings_and_predicates():
    p = parse(Q3.replace("skip_till_next_match", "skip_till_any_match"))
    counts = {}
    for name in ENGINE_NAMES:
        if ENGINES[name].supports(p) is not None:
            continue
        try:
            steps = trace(p, STOCK, engine=name)
        except EngineUnsupported:
            continue
        counts[name] = len(trace_matches(steps))
        takes = [a for s in steps for a in s.actions if a.kind in ("take", "begin")]
        assert takes, name
        assert any(pc.values for a in takes for pc in a.predicates), name
        # every live run's bindings name events already seen
        for s in steps[:-1]:
            seen = {e.id for e in STOCK[: s.step + 1]}
            for r in s.runs:
                assert all(i in seen for ids in r.bindings.values() for i in ids)
        assert {a.kind for s in steps for a in s.actions} & {"match"}
    assert set(counts.values()) == {68}, counts


def test_nfab_buffer_is_rebuilt_from_the_changes():
    steps = trace(parse(Q3), STOCK, engine="nfab")
    buf = buffer_at(steps, 7)
    assert len(buf) == steps[7].buffer["entries"] == 11
    # b@6 is shared by the runs 1.1 and 2.1: two pointers with their version labels
    assert sorted(p["label"] for p in buf["b@6"]["preds"]) == ["1.1", "2.1"]
    assert {p["to"] for p in buf["b@6"]["preds"]} == {"a[i]@5", "a[i]@4"}


def test_lazy_trace_shows_buffers_and_partial_matches():
    p = parse("PATTERN SEQ(Stock a, Stock b) WHERE skip_till_any_match AND b.price > a.price WITHIN 1 hour")
    steps = trace(p, STOCK, engine="lazy-tree")
    assert steps[3].buffer["kind"] == "lazy"
    assert steps[3].buffer["buffers"]["a"] == [1, 2, 3, 4]
    refused = [a for s in steps for a in s.actions if a.kind == "ignore"]
    assert refused and all(any(pc.result is False for pc in a.predicates) for a in refused)


def test_limit_stops_with_a_message():
    rec = Recorder()
    m = make_matcher(parse(Q3), "nfab", tracer=rec)
    with pytest.raises(TraceLimit, match="5 events"):
        list(record(m, STOCK, limit=5))


def test_record_needs_a_recorder():
    with pytest.raises(TypeError):
        list(record(make_matcher(parse(Q3), "nfab"), STOCK))


@pytest.mark.parametrize("engine", ["auto", "nfab", "lazy-chain", "lazy-tree", "eager"])
def test_cep_trace_jsonl_matches_equal_cep_run(capsys, engine):
    preset = "preset:stocks_sase/stock_trend_any" if engine in ("lazy-chain", "lazy-tree", "eager") \
        else "preset:stocks_sase/stock_trend"
    code, out, _ = _cli(capsys, "trace", preset, "--data", "sample:stocks_sase", "--engine", engine)
    assert code == 0
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["step"] for r in recs] == [*range(8), "close"]
    assert set(recs[0]) >= {"step", "event", "actions", "runs", "matches"}
    assert set(recs[0]["event"]) >= {"id", "type", "ts", "price", "volume", "symbol"}
    code, run_out, _ = _cli(capsys, "run", preset, "--data", "sample:stocks_sase", "--engine", engine,
                            "--format", "jsonl")
    assert [m for r in recs for m in r["matches"]] == [json.loads(line) for line in run_out.splitlines()]


def test_cep_trace_table_and_limit(capsys):
    code, out, _ = _cli(capsys, "trace", "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase",
                        "--format", "table")
    assert code == 0
    assert "ignore run 2 at a[i] event 5" in out and "a[3].price=120" in out and "MATCH a=3,4 b=6" in out
    code, out, err = _cli(capsys, "trace", "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase",
                          "--limit", "3")
    assert code == 1 and out == "" and "more than --limit 3" in err


def test_cep_trace_on_interval_data_uses_the_uncertain_engines(capsys):
    code, out, _ = _cli(capsys, "trace", "preset:cluster/query1", "--data", "sample:cluster")
    assert code == 0
    traced = [m for line in out.splitlines() for m in json.loads(line)["matches"]]
    code, run_out, _ = _cli(capsys, "run", "preset:cluster/query1", "--data", "sample:cluster", "--format", "jsonl")
    want = [json.loads(line) for line in run_out.splitlines()]
    assert want and _key(traced) == _key(want)
    assert {m["confidence_exact"] for m in traced} == {m["confidence_exact"] for m in want}


def test_trace_with_match_windows_emits_cep_runs_matches_in_its_order():
    """``trace(..., match_windows=...)`` runs the matcher ``cep run --match-windows`` runs
    (engine/run_choice.py); off, the named engine traces itself."""
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    chemo = sample_streams.events("chemo")
    p = parse(sample_streams.load("chemo").presets["chemo_cycle"])
    for mode in ("auto", "on", "off"):
        want = [m.to_json() for m in run_all(choose_run(p, "auto", mode, rates=type_rates("auto", chemo)).build(p),
                                             chemo)]
        steps = trace(p, chemo, match_windows=mode)
        assert trace_matches(steps) == want, mode
        assert any(s.buffer.get("kind") == "windows" for s in steps) == (mode != "off")
