"""The SES automaton (match-windows §4.8) and the trace of the SES and match-windows
engines: states (i, S), the lazy call A(P, W) of Example 7, eager runs and the emission of
selected matches when a start event's window closes, the step trace, and the guard."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

import sample_streams
from engine.engines.oracle import oracle
from engine.engines.ses.compiler import compile_ses, unsupported_reason
from engine.dsl import parse
from engine.events import make_stream
from engine.match import StateExplosion, run_all
from engine.engines.ses.matcher import SesMatcher
from engine.engines.oracle.oracle import OracleTooLarge
from engine.run_choice import trace
from engine.trace import ACTION_KINDS, Step, trace_matches
from tests.strategies import small_patterns, small_streams
from tests.support import ids_by_variable as ids

P1 = sample_streams.load("chemo").presets["chemo_cycle"]
CHEMO = sample_streams.events("chemo")
SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=50)


def p1(sel: str = ""):
    return parse(P1.replace("WHERE [PID]", "WHERE [PID]" + (f" AND {sel}" if sel else "")))


def test_p1_automaton_has_the_papers_states_and_loops():
    a = compile_ses(p1())
    assert a.sets == [["c", "p"], ["b"]]
    g = a.to_networkx()
    assert sorted(g.nodes) == sorted(["(1,{})", "(1,{c})", "(1,{p})", "(1,{c,p})", "(2,{b})"])
    assert g.nodes["(2,{b})"]["kind"] == "final" and g.nodes["(1,{})"]["kind"] == "initial"
    loops = sorted(u for u, v, d in g.edges(data=True) if u == v)
    assert loops == ["(1,{c,p})", "(1,{p})"]  # p+ loops where p is bound
    nxt = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "proceed"]
    assert nxt == [("(1,{c,p})", "(2,{b})")]
    assert "p[i].V > p[i-1].V" in g.edges["(1,{p})", "(1,{p})", "loop:p"]["cond"]
    # Σ 2^|Bi| states for a pattern of sets of sizes 3 and 2
    big = compile_ses(parse("PATTERN SEQ(AND(A a, B b, C c), AND(D d, E e)) WITHIN 5"))
    assert len(big.states()) == 2 ** 3 + (2 ** 2 - 1)


def test_ses_refuses_what_is_not_an_event_set_pattern():
    assert "SES patterns" in unsupported_reason(parse("PATTERN SEQ(A a, !B n, C c) WITHIN 5"))
    assert "SES patterns" in unsupported_reason(parse("PATTERN SEQ(A a, OR(B b, C c)) WITHIN 5"))
    assert "SES patterns" in unsupported_reason(parse("PATTERN AND(A a, SEQ(B b, C c)) WITHIN 5"))
    assert "skip_till_any_match" in unsupported_reason(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match"))
    assert unsupported_reason(parse("PATTERN AND(A a, B+ b[])")) is None


def test_example_7_the_lazy_call_returns_the_matches_from_the_first_event():
    a = SesMatcher(p1("earliest_maximal"))
    w1 = [e for e in CHEMO if 0 <= e.ts - CHEMO[0].ts <= 15 * 86400]
    assert [e.id for e in w1] == list(range(1, 13))
    assert [ids(m) for m in a.match_window(w1)] == [{"c": [1], "p": [3, 9], "b": [11]}]
    assert a.match_window(w1[1:] + [CHEMO[12]]) == []  # W2 starts at e2, a B event
    every = SesMatcher(p1()).match_window(w1)
    assert len(every) == 4 and {m.start_seq for m in every} == {0}


def test_eager_ses_equals_the_oracle_on_chemo_for_every_selection():
    for sel in ("", "earliest", "maximal", "earliest_maximal"):
        got = sorted(json.dumps(ids(m)) for m in run_all(SesMatcher(p1(sel)), CHEMO))
        want = sorted(json.dumps(ids(m)) for m in oracle.run(p1(sel), CHEMO))
        assert got == want, sel


def test_selected_matches_are_emitted_when_the_start_window_closes():
    m = SesMatcher(p1("earliest_maximal"))
    when = {}
    for e in CHEMO:
        for x in m.feed(e):
            when[json.dumps(ids(x))] = e.id
    for x in m.close():
        when[json.dumps(ids(x))] = "close"
    # e1's window (16 days from 3 Jul) closes at e13 (19 Jul); e5's and e7's only at the end
    assert when == {json.dumps({"c": [1], "p": [3, 9], "b": [11]}): 13,
                    json.dumps({"c": [7], "p": [5, 8], "b": [12]}): "close",
                    json.dumps({"c": [7], "p": [8], "b": [12]}): "close"}
    plain = SesMatcher(p1())
    first = [(e.id, ids(x)) for e in CHEMO for x in plain.feed(e)]
    assert first[0][0] == 11  # all matches: at the last event


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=4, optional=False, negation=False), events=small_streams(max_size=8))
def test_eager_ses_equals_the_oracle_on_random_ses_patterns(p, events):
    assume(unsupported_reason(p) is None)
    try:
        want = sorted(m.key for m in oracle.run(p, events))
    except OracleTooLarge:
        assume(False)
    assert sorted(m.key for m in run_all(SesMatcher(p), events)) == want


def _well_formed(steps, events):
    assert [s.step for s in steps] == [*range(len(events)), "close"]
    for s in steps:
        for a in s.actions:
            assert a.kind in ACTION_KINDS
        js = json.loads(json.dumps(s.to_json()))
        assert Step.from_json(js).to_json() == js


@pytest.mark.parametrize("engine", ["ses", "match-windows"])
@pytest.mark.parametrize("sel", ["", "earliest_maximal"])
def test_trace_of_ses_and_match_windows_is_their_output(engine, sel):
    p = p1(sel)
    steps = trace(p, CHEMO, engine=engine)
    _well_formed(steps, CHEMO)
    from engine.engines.planner import make_matcher

    plain = run_all(make_matcher(p, engine), CHEMO)
    assert [m["match"] for m in trace_matches(steps)] == [m.as_dict() for m in plain]
    takes = [a for s in steps for a in s.actions if a.kind in ("begin", "take")]
    assert takes and any(pc.values for a in takes for pc in a.predicates)
    refused = [a for s in steps for a in s.actions if a.kind == "discard" and a.predicates]
    assert any(not pc.result and "p[i].V > p[i-1].V" == pc.text for a in refused for pc in a.predicates)


def test_match_windows_trace_shows_filtering_windows_and_verdicts():
    steps = trace(p1("earliest_maximal"), CHEMO, engine="match-windows")
    by_event = {s.event["id"]: s for s in steps[:-1]}
    filt = [a for a in by_event[6].actions if a.kind == "discard"]
    assert filt and "filtered" in filt[0].reason                    # e6, L = D
    store = [a for a in by_event[3].actions if a.kind == "store"][0]
    assert store.detail["key"] == "1" and store.detail["window"] == [1, 2, 3]
    assert store.detail["counters"] == {"c": 1, "p": 1, "b": 0} and store.detail["beta_s"] == "001"
    assert by_event[3].buffer["kind"] == "windows" and by_event[3].buffer["changed"]["1"]["window"] == [1, 2, 3]
    search = [a for a in by_event[14].actions if a.kind == "search"]
    assert search and search[0].detail["window"] == [1, 2, 3, 9, 10, 11] and search[0].detail["matches"] == 1
    skipped = [a for s in steps for a in s.actions if a.kind == "expire" and a.reason
               and a.reason.startswith("skipped")]
    assert any("fits no first variable" in a.reason and a.detail["first"] == 4 for a in skipped)
    close = steps[-1]
    assert [a.detail["window"] for a in close.actions if a.kind == "search"] == [[5, 7, 8, 12, 13], [7, 8, 12, 13]]


def test_guard_stops_an_exploding_kleene_run():
    p = parse("PATTERN SEQ(A+ a[], B b) WITHIN 100")
    ev = make_stream([{"id": i, "type": "A", "ts": i} for i in range(40)] + [{"id": 99, "type": "B", "ts": 50}])
    with pytest.raises(StateExplosion, match="Kleene `a\\[\\]` under skip_till_any_match"):
        run_all(SesMatcher(p, max_runs=1000), ev)


EXHAUSTIVE = ["SEQ(A a, B b)", "AND(A a, B b)", "AND(A a, B+ b[])", "SEQ(A+ a[], B b)", "SEQ(AND(A a, B b), C c)",
              "SEQ(A a, AND(B b, C+ c[]))", "AND(A+ a[], B+ b[])", "SEQ(A+ a[], B b) WHERE a.len >= 2",
              "AND(A a, B b) WHERE a.id > b.id", "SEQ(AND(A a, B+ b[]), C c) WHERE b[i].id > b[i-1].id + 1"]


@pytest.mark.parametrize("shape", EXHAUSTIVE)
def test_ses_selections_on_every_short_stream(shape):
    """Every stream of up to 4 events over A, B, C: the SES automaton (eager and as A of the
    match windows), with its pruning of skip branches, equals the oracle for every selection."""
    import itertools

    from engine.engines.windows.matcher import MatchWindowMatcher

    for sel in ("earliest", "maximal", "earliest_maximal"):
        body, _, cond = shape.partition(" WHERE ")
        p = parse(f"PATTERN {body} WHERE {sel}{' AND ' + cond if cond else ''} WITHIN 10")
        for n in range(1, 5):
            for types in itertools.product("ABC", repeat=n):
                ev = make_stream([{"id": i + 1, "type": t, "ts": i} for i, t in enumerate(types)])
                want = sorted(m.key for m in oracle.run(p, ev))
                assert sorted(m.key for m in run_all(SesMatcher(p), ev)) == want, (sel, types)
                assert sorted(m.key for m in run_all(MatchWindowMatcher(p), ev)) == want, (sel, types)
