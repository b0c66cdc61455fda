"""cep explain (engine/explain): why a match fired, step by step, and why chosen events did
not match -- on the SASE+ stock example (papers/sase-nfab.md §6), the shoplifting query, and
random small streams and patterns under every strategy, against `cep run`'s engine and the
oracle."""
from __future__ import annotations

import argparse
import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sample_streams
from engine.engines.oracle import oracle
from engine.commands.arguments import CommandError
from engine.dsl import parse
from engine.events import make_stream
from engine.explain import ExplainError, explain_match, explain_why_not, format_text
from engine.explain.checks import equivalence_conjuncts, pattern_conjuncts
from engine.expr import to_text
from engine.match import EngineUnsupported, StateExplosion, run_all
from engine.model import Strategy
from engine.engines.oracle.oracle import OracleTooLarge
from engine.engines.planner import choose, make_matcher
from engine.trace import check_conjunct, type_rates
from tests.strategies import small_patterns, small_streams

STOCK = sample_streams.events("stocks_sase")
Q3 = parse(sample_streams.load("stocks_sase").presets["stock_trend"])
RFID = sample_streams.events("rfid")
Q1 = parse(sample_streams.load("rfid").presets["shoplifting"])

DECLARATIVE = ("type", "order", "predicate", "equivalence", "window", "negation")
ENGINE_SIDE = ("strategy", "contiguity", "output", "guard", "selection")


def _steps(result, kind):
    return [s for s in result["steps"] if s["kind"] == kind]


# --------------------------------------------------------------------------- the stock example

def test_stock_matches_are_explained_in_cep_run_order():
    got = [explain_match(Q3, STOCK, k)["match"] for k in (1, 2, 3)]
    assert got == [{"a": [1, 2, 3, 4, 5], "b": [6]}, {"a": [3, 4], "b": [6]}, {"a": [1, 2, 3, 4, 5, 6, 7], "b": [8]}]


def test_stock_match_2_shows_the_skipped_event_and_its_false_take_predicate():
    r = explain_match(Q3, STOCK, 2)
    assert r["verdict"] == "match" and r["index"] == 2 and r["engine"] == "nfab"
    assert (r["start"], r["end"]) == (3, 6)
    kinds = [(s["kind"], s.get("event"), s.get("state"), s.get("to")) for s in r["steps"]]
    assert kinds[:5] == [("begin", 3, "a[1]", "a[i]"), ("take", 4, "a[i]", "a[i]"), ("skip", 5, "a[i]", None),
                         ("proceed", 6, "a[i]", "b"), ("begin", 6, "b", "F")]
    skip = _steps(r, "skip")[0]
    assert skip["formula"] == "¬take"
    price = next(p for p in skip["predicates"] if p["text"].startswith("a[i].price"))
    assert price == {"text": "a[i].price > avg(a[..i-1].price)",
                     "values": {"a[3].price": 120, "avg(a[..2].price)": 120.5}, "result": False}
    take = _steps(r, "take")[0]
    assert {"text": "a[i].price > avg(a[..i-1].price)", "values": {"a[2].price": 121, "avg(a[..1].price)": 120.0},
            "result": True} in take["predicates"]
    b = [s for s in r["steps"] if s["kind"] == "begin" and s["var"] == "b"][0]
    assert b["predicates"][0]["values"] == {"b.volume": 750, "a[a.len].volume": 999}
    w = _steps(r, "window")[0]
    assert w["result"] and w["values"] == {"first.ts": 3, "last.ts": 6, "W": 3600}
    assert r["steps"][-1]["kind"] == "match" and r["steps"][-1]["state"] == "F"
    txt = format_text(r)
    assert "event #5 (id 5) (Stock @ 5) skipped" in txt and "120.5" in txt
    json.dumps(r)


def test_every_predicate_of_a_match_holds():
    for k in (1, 2, 3):
        r = explain_match(Q3, STOCK, k)
        for s in r["steps"]:
            if s["kind"] in ("begin", "take", "proceed"):
                assert all(p["result"] for p in s["predicates"]), s


def test_out_of_range_match_names_how_many_there_are():
    with pytest.raises(ExplainError, match=r"3 matches \(1\.\.3\)"):
        explain_match(Q3, STOCK, 4)
    with pytest.raises(ExplainError, match="3 matches"):
        explain_match(Q3, STOCK, 0)


def test_why_not_a_3_4_5_b_6_is_the_false_average_predicate():
    r = explain_why_not(Q3, STOCK, "a=3,4,5;b=6")
    assert r["verdict"] == "no_match"
    reason = r["reason"]
    assert reason["kind"] == "predicate" and reason["event"] == 5
    assert reason["predicate"] == "a[i].price > avg(a[..i-1].price)"
    assert reason["values"] == {"a[3].price": 120, "avg(a[..2].price)": 120.5}
    assert r["furthest"] == {"a": [3, 4]}
    assert r["nearest"]["index"] in (1, 2)
    assert "120.5" in format_text(r)


def test_why_not_a_1_2_b_8_is_the_strategy_taking_event_3():
    for spec in ("a=1,2;b=8", "1,2,8", "8, 2,1"):
        r = explain_why_not(Q3, STOCK, spec)
        reason = r["reason"]
        assert reason["kind"] == "strategy", spec
        assert reason["event"] == 3 and reason["run"] == "1" and reason["state"] == "a[i]"
        assert reason["values"]["a[3].price"] == 120 and reason["values"]["avg(a[..2].price)"] == 110.0
        assert r["furthest"] == {"a": [1, 2]}
        assert r["candidate"] == {"a": [1, 2], "b": [8]}
        assert r["nearest"] == {"index": 3, "match": {"a": [1, 2, 3, 4, 5, 6, 7], "b": [8]}, "shared": 3,
                                "start": 1.0, "end": 8.0}
        assert "did you mean match #3" in format_text(r)


def test_why_not_on_a_reported_match_says_match_with_its_index():
    for spec in ("3,4,6", "a=3,4;b=6", "6,4,3"):
        r = explain_why_not(Q3, STOCK, spec)
        assert r["verdict"] == "match" and r["index"] == 2 and r["match"] == {"a": [3, 4], "b": [6]}
        assert r["steps"]


def test_why_not_on_other_stock_candidates():
    r = explain_why_not(Q3, STOCK, "a=1;b=2")
    assert r["reason"]["kind"] == "predicate" and r["reason"]["event"] == 2
    assert r["reason"]["values"] == {"b.volume": 990, "a[a.len].volume": 1010}
    r = explain_why_not(Q3, STOCK, "a=1,2")
    assert r["reason"]["kind"] == "type" and "`b`" in r["reason"]["text"]
    r = explain_why_not(Q3, STOCK, "a=6;b=4")
    assert r["reason"]["kind"] == "order" and r["reason"]["event"] == 4
    r = explain_why_not(Q3, STOCK, "a=2,3;b=6")  # 990 is not > 1000
    assert r["reason"]["kind"] == "predicate" and r["reason"]["event"] == 2
    assert r["reason"]["values"] == {"a[1].volume": 990}


def test_why_not_under_the_other_strategies():
    stock = Q3.model_copy(update={"strategy": Strategy.STRICT})
    r = explain_why_not(stock, STOCK, "a=3,4;b=6")  # ρ2 dies at e5 (sase-nfab §6.3)
    assert r["reason"]["kind"] == "contiguity" and r["reason"]["event"] == 5
    assert r["furthest"] == {"a": [3, 4]}
    anym = Q3.model_copy(update={"strategy": Strategy.ANY})
    r = explain_why_not(anym, STOCK, "a=1,2;b=8")
    assert r["verdict"] == "match"


def test_bad_specs_are_clear_errors():
    with pytest.raises(ExplainError, match="unknown event id `9`: the data has 8 events"):
        explain_why_not(Q3, STOCK, "1,9")
    with pytest.raises(ExplainError, match="unknown variable `c`"):
        explain_why_not(Q3, STOCK, "c=1")
    with pytest.raises(ExplainError, match="given twice"):
        explain_why_not(Q3, STOCK, "a=1;b=1")
    with pytest.raises(ExplainError, match="no events"):
        explain_why_not(Q3, STOCK, " ")
    with pytest.raises(ExplainError, match="negated"):
        explain_why_not(Q1, RFID, "a=1;b=3;c=4")


# --------------------------------------------------------------------------- negation, window

def test_shoplifting_negation_names_the_blocking_register_reading():
    r = explain_why_not(Q1, RFID, "1,4")
    assert r["reason"]["kind"] == "negation" and r["reason"]["event"] == 3
    assert r["reason"]["values"] == {"b.tag_id": 7, "a.tag_id": 7}
    r = explain_why_not(Q1, RFID, "10,16")
    assert r["reason"]["kind"] == "window" and r["reason"]["event"] == 16
    r = explain_match(Q1, RFID, 2)  # a=7, c=11: the Register of tag 9 lies between and fails [tag_id]
    neg = _steps(r, "negation")[0]
    assert neg["result"] and neg["between"] == [7, 11]
    assert neg["candidates"] == [{"event": 8, "position": 8, "type": "Register", "ts": neg["candidates"][0]["ts"],
                                  "qualifies": False,
                                  "failed": {"text": "b.tag_id = a.tag_id", "values": {"b.tag_id": 9, "a.tag_id": 10},
                                             "result": False}}]
    skips = {s["event"]: s["why"] for s in _steps(r, "skip")}
    assert "negated" in skips[8] and "other partition" in skips[9]


def test_non_overlap_output_is_named():
    p = parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match OUTPUT NON_OVERLAP")
    ev = make_stream([{"id": 1, "type": "A", "ts": 1}, {"id": 2, "type": "A", "ts": 2},
                      {"id": 3, "type": "B", "ts": 3}])
    assert [m.as_dict() for m in run_all(make_matcher(p, "auto"), ev)] == [{"a": [1], "b": [3]}]
    r = explain_why_not(p, ev, "2,3")
    assert r["reason"]["kind"] == "output"
    assert r["reason"]["blocked_by"] == {"index": 1, "match": {"a": [1], "b": [3]}}


def test_a_stopped_engine_is_the_guard(monkeypatch):
    import engine.match as base

    def stopped(matcher, events):
        raise StateExplosion("state explosion in `nfab`: too many runs")

    monkeypatch.setattr(base, "run_all", stopped)
    r = explain_why_not(Q3, STOCK, "3,4,6")  # a match, but cep run stops before printing any
    assert r["verdict"] == "no_match" and r["reason"]["kind"] == "guard" and r["nearest"] is None
    assert "state explosion" in r["reason"]["text"]
    r = explain_why_not(Q3, STOCK, "a=3,4,5;b=6")  # a declarative reason comes first
    assert r["reason"]["kind"] == "predicate"
    with pytest.raises(ExplainError) as err:
        explain_match(Q3, STOCK, 1)
    assert err.value.status == 1


# --------------------------------------------------------------------------- the command

def _cli(argv, capsys):
    from engine.commands import explain as explain_cli

    ap = argparse.ArgumentParser(prog="cep")
    sub = ap.add_subparsers(dest="command", required=True)
    explain_cli.add_parser(sub).set_defaults(func=explain_cli.run)
    args = ap.parse_args(argv)
    try:
        rc = args.func(args)
    except CommandError as err:
        rc = err.status
        print(f"cep: {err}")
    return rc, capsys.readouterr().out


def test_cli_match_and_why_not(capsys):
    base = ["explain", "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase"]
    rc, out = _cli(base + ["--match", "2", "--format", "json"], capsys)
    assert rc == 0
    assert json.loads(out) == explain_match(Q3, STOCK, 2)
    rc, out = _cli(base + ["--why-not", "a=1,2;b=8"], capsys)
    assert rc == 0 and "strategy" in out and "did you mean match #3" in out
    rc, out = _cli(base + ["--match", "5"], capsys)
    assert rc == 2 and "3 matches" in out
    rc, out = _cli(base + ["--why-not", "1,99"], capsys)
    assert rc == 2 and "unknown event id `99`" in out
    rc, out = _cli(base + ["--why-not", "1,2,8", "--engine", "lazy-chain"], capsys)
    assert rc == 2 and "lazy-chain" in out


# --------------------------------------------------------------------------- properties

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=100, derandomize=True)


def _engine_matches(p, events):
    rates = type_rates("auto", events)
    try:
        info = choose(p, "auto", rates=rates)
    except EngineUnsupported:
        return None
    try:
        return [m.as_dict() for m in run_all(make_matcher(p, info.name, rates=rates), events)]
    except StateExplosion:
        return None


def _declarative(p, events):
    """The oracle's matches of the pattern's declarative part (skip_till_any_match, OUTPUT ALL)."""
    try:
        return [m.as_dict() for m in oracle.run(p.model_copy(update={"strategy": Strategy.ANY, "output": "ALL"}),
                                                events)]
    except OracleTooLarge:
        return None


def _recheck_predicate(p, events, reason):
    by_id = {e.id: e for e in events}
    b = {v: [by_id[i] for i in ids] for v, ids in reason["bindings"].items()}
    kleene = {c.var for c in p.components() if c.kleene}
    order = [c.var for c in p.positive]
    anchor = min((v for v in b if b[v]), key=lambda v: b[v][0].seq)
    exprs = pattern_conjuncts(p) + [c.expr for c in equivalence_conjuncts(p, anchor, kleene, order)]
    expr = next(e for e in exprs if to_text(e) == reason["predicate"])
    pc = check_conjunct(expr, b, kleene, current=reason["current"])
    assert pc.result is False
    assert {k: v for k, v in pc.values.items()} == reason["values"]


def _spec(m, order, fixed):
    if fixed:
        return ";".join(f"{v}={','.join(map(str, m[v]))}" for v in order if m.get(v))
    return ",".join(str(i) for v in order for i in m.get(v, []))


def _candidates(p, events, got, declared, rnd):
    """Specs worth asking about: random id sets, random type-correct assignments, every
    reported match and near misses of it, and the declarative matches the engine does not report."""
    order = [c.var for c in p.positive]
    ids = [e.id for e in events]
    specs = [",".join(map(str, rnd.sample(ids, rnd.randint(1, min(4, len(ids)))))) for _ in range(2)]
    for _ in range(2):  # one or two events of the right type per component
        m = {}
        for c in p.positive:
            pool = [e.id for e in events if c.matches_type(e.type)]
            if c.optional and rnd.random() < 0.3:
                continue
            if pool:
                m[c.var] = sorted(rnd.sample(pool, min(len(pool), rnd.randint(1, 2) if c.kleene else 1)))
        flat = [i for x in m.values() for i in x]
        if m and len(set(flat)) == len(flat):
            specs.append(_spec(m, order, fixed=True))
    for m in got[:3]:
        specs += [_spec(m, order, True), _spec(m, order, False)]
        flat = [i for v in order for i in m[v]]
        if len(flat) > 1:
            specs.append(",".join(map(str, flat[:-1])))
            specs.append(",".join(map(str, flat[1:])))
        other = [i for i in ids if i not in flat]
        if other:
            swap = list(flat)
            swap[rnd.randrange(len(swap))] = rnd.choice(other)
            if len(set(swap)) == len(swap):
                specs.append(",".join(map(str, swap)))
    missed = [m for m in (declared or []) if m not in got]
    for m in rnd.sample(missed, min(3, len(missed))):
        specs += [_spec(m, order, True), _spec(m, order, False)]
    return specs


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy), non_overlap=True),
       events=small_streams(max_size=7), rnd=st.randoms(use_true_random=False))
def test_why_not_agrees_with_cep_run_and_the_oracle(p, events, rnd):
    got = _engine_matches(p, events)
    assume(got is not None)
    declared = _declarative(p, events)
    order = [c.var for c in p.positive]
    specs = _candidates(p, events, got, declared, rnd)
    for spec in specs:
        r = explain_why_not(p, events, spec)
        fixed = "=" in spec
        if fixed:
            want = {v: [] for v in order}
            for part in spec.split(";"):
                v, _, xs = part.partition("=")
                want[v] = sorted(int(x) for x in xs.split(","))
            hits = [k for k, m in enumerate(got, 1) if m == want]
        else:
            ids = {int(x) for x in spec.split(",")}
            hits = [k for k, m in enumerate(got, 1)
                    if sorted(i for v in order for i in m[v]) == sorted(ids)]
        assert (r["verdict"] == "match") == bool(hits), (spec, r)
        if hits:
            assert r["index"] == hits[0] and r["match"] == got[hits[0] - 1]
            continue
        reason = r["reason"]
        assert reason["kind"] in DECLARATIVE + ENGINE_SIDE and reason["text"]
        if reason["kind"] in ("predicate", "equivalence"):
            _recheck_predicate(p, events, reason)
        if declared is not None and r["candidate"]:
            cand = {v: r["candidate"].get(v, []) for v in order}
            # a declarative reason means skip_till_any_match has no such match; an engine-side one that it has
            assert (cand in declared) == (reason["kind"] in ENGINE_SIDE), (spec, r)
        if reason["kind"] in ("strategy", "contiguity"):
            assert p.strategy is not Strategy.ANY or p.output == "NON_OVERLAP"
        json.dumps(r)
        assert format_text(r)


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, strategies=tuple(Strategy)), events=small_streams(max_size=7))
def test_every_match_explained_holds_step_by_step(p, events):
    got = _engine_matches(p, events)
    assume(got)
    for k, m in enumerate(got[:4], 1):
        r = explain_match(p, events, k)
        assert r["match"] == m
        bound = [s["event"] for s in r["steps"] if s["kind"] in ("begin", "take")]
        assert sorted(bound) == sorted(i for ids in m.values() for i in ids)
        for s in r["steps"]:
            if s["kind"] in ("begin", "take", "proceed"):
                assert all(x["result"] for x in s["predicates"]), s
            if s["kind"] in ("window", "negation"):
                assert s["result"], s
            if s["kind"] == "skip":
                if p.strategy is Strategy.NEXT and s["predicates"]:
                    assert not all(x["result"] for x in s["predicates"]), s  # ignore = ¬take/begin
                if p.strategy in (Strategy.STRICT, Strategy.PARTITION):
                    assert s["formula"] in (None, "¬partition"), s
        json.dumps(r)
        assert format_text(r)


@settings(**{**SETTINGS, "max_examples": 60})
@given(p=small_patterns(max_positive=2, groups=False, optional=False, strategies=(
        Strategy.NEXT, Strategy.PARTITION, Strategy.STRICT)), events=small_streams(max_size=8))
def test_engine_side_reasons_follow_the_run_that_bound_a_prefix(p, events):
    """What skip_till_any_match would report but the engine does not: the reason is the
    strategy or contiguity, naming a run that bound a proper prefix of the candidate and
    the event (between the candidate's, not one of them) that took it elsewhere."""
    got = _engine_matches(p, events)
    declared = _declarative(p, events)
    assume(got is not None and declared)
    missed = [m for m in declared if m not in got]
    assume(missed)
    order = [c.var for c in p.positive]
    seq = {e.id: e.seq for e in events}
    for m in missed[:3]:
        r = explain_why_not(p, events, _spec(m, order, True))
        assert r["verdict"] == "no_match"
        reason = r["reason"]
        assert reason["kind"] in ("strategy", "contiguity"), r
        cand = sorted((i for ids in m.values() for i in ids), key=seq.get)
        far = sorted((i for ids in r["furthest"].values() for i in ids), key=seq.get)
        assert far == cand[:len(far)] and len(far) < len(cand), r
        if reason["event"] is not None and "run" in reason:
            assert seq[cand[0]] < seq[reason["event"]] <= seq[cand[-1]], r
        if p.strategy is Strategy.NEXT and reason.get("predicates"):
            assert all(x["result"] for x in reason["predicates"]), r  # the run could take it, so it had to


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(p=small_patterns(max_positive=3), events=small_streams(max_size=8), k=st.integers(1, 4))
def test_an_explanation_from_the_run_already_made_equals_one_that_runs_the_engine(p, events, k):
    """The Debug page explains from its pre-pass (``ran=``): the same answer as ``cep explain``."""
    from engine.checkpoints import CheckpointedRun
    from engine.explain.common import ExplainError as _Error
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    try:
        run = CheckpointedRun(choose_run(p, "auto", "auto", rates=type_rates("auto", events)), p, events)
        want = explain_match(p, events, k)
    except (_Error, EngineUnsupported, StateExplosion):
        assume(False)
    assert explain_match(p, events, k, ran=run) == want
