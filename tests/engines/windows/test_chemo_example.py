"""Match windows on the paper's Chemo example (papers/match-windows.md §5): the match
windows, filtering, partitioning, the summary statistic and its bit vectors (Examples 10,
13, Figure 5 with the counter fix), the necessary conditions (Example 9), the calls of A
end to end (§5.8) with the SES automaton and with an all-matches engine, and
``cep run --match-windows``."""
from __future__ import annotations

import json

import pytest

import sample_streams
from engine.engines.oracle import oracle
from engine.dsl import parse
from engine.events import make_stream
from engine.match import EngineUnsupported, run_all
from engine.model import Selection
from engine.engines.windows.matcher import MatchWindowMatcher, decide
from engine.engines.windows.algorithm import Techniques
from engine.engines.windows.analysis import analyse, unsound_reason
from engine.engines.windows.algorithm import KeyWindow
from tests.support import ids_by_variable as ids
from tests.support import run as _cep

P1 = sample_streams.load("chemo").presets["chemo_cycle"]
DAY = 86400.0


def chemo(e10_pid: int = 1, e14_pid: int = 1):
    """The Chemo relation of §5.1; the reconstructed PIDs of e10 and e14 are parameters."""
    rows = sample_streams.rows("chemo")
    for r in rows:
        if r["id"] == 10:
            r["PID"] = e10_pid
        if r["id"] == 14:
            r["PID"] = e14_pid
    return make_stream(rows, type_key="L", ts_key="T")


def p1(selection: str = "") -> object:
    return parse(P1.replace("WHERE [PID]", "WHERE [PID]" + (f" AND {selection}" if selection else "")))


def keys(ms):
    return sorted(json.dumps(ids(m)) for m in ms)


def run_windows(pattern, events, tech=Techniques(), inner="ses"):
    """Algorithm 1 with a log of every completed window: (first id, ids, verdict, found)."""
    log = []
    m = MatchWindowMatcher(pattern, inner=inner, techniques=tech)
    m.algo.on_window = lambda kw, v, f: log.append(([e.id for e in kw.events], v, f))
    out = run_all(m, events)
    return out, m.algo.stats, log


# --------------------------------------------------------------------------- §5.3-§5.4 matches


def test_the_window_is_the_papers_inclusive_fifteen_days():
    p = p1()
    assert p.window.value == 16 and p.window.unit == "day"  # span < 16 days == span <= 15 whole days
    ev = chemo()
    spans = [(m.end - m.start) / DAY for m in oracle.run(p, ev)]
    assert max(spans) <= 15


def test_all_matches_per_definition_2_are_ten_and_contain_the_papers_list():
    got = {json.dumps(ids(m)) for m in oracle.run(p1(), chemo())}
    assert len(got) == 10
    paper = [  # the 8 entries of the paper's (OCR-cut) list, §5.3
        {"c": [1], "p": [3], "b": [11]}, {"c": [1], "p": [3, 9], "b": [11]},
        {"c": [7], "p": [5], "b": [12]}, {"c": [7], "p": [5], "b": [13]},
        {"c": [7], "p": [8], "b": [12]}, {"c": [7], "p": [8], "b": [13]},
        {"c": [7], "p": [5, 8], "b": [12]}, {"c": [7], "p": [5, 8], "b": [13]}]
    assert {json.dumps(m) for m in paper} <= got
    extra = got - {json.dumps(m) for m in paper}  # Def. 2 also admits p=<e9> and p=<e10> (notes FLAG)
    assert extra == {json.dumps({"c": [1], "p": [9], "b": [11]}), json.dumps({"c": [1], "p": [10], "b": [11]})}
    used = {i for m in got for v in json.loads(m).values() for i in v}
    assert not used & {2, 4, 14}  # e2, e4 and e14 are in no match


def test_other_pid_layouts_change_only_the_count():
    assert len(oracle.run(p1(), chemo(e10_pid=2))) == 11
    assert len(oracle.run(p1(), chemo(e14_pid=2))) == 13
    assert len(oracle.run(p1(), chemo(e10_pid=2, e14_pid=2))) == 15
    for layout in ((1, 1), (2, 1)):
        assert keys(oracle.run(p1("earliest_maximal"), chemo(*layout))) == keys(
            oracle.run(p1("earliest_maximal"), chemo()))


def test_earliest_maximal_are_the_papers_three_one_per_start_event():
    want = [{"c": [1], "p": [3, 9], "b": [11]}, {"c": [7], "p": [5, 8], "b": [12]}, {"c": [7], "p": [8], "b": [12]}]
    got = oracle.run(p1("earliest_maximal"), chemo())
    assert keys(got) == sorted(json.dumps(m) for m in want)
    assert sorted(m.start_seq for m in got) == [0, 4, 6]  # e1, e5, e7
    assert keys(run_all(MatchWindowMatcher(p1("earliest_maximal")), chemo())) == keys(got)


def test_example_5_not_earliest_and_not_maximal():
    ev = chemo()
    earliest = {json.dumps(ids(m)) for m in oracle.run(p1("earliest"), ev)}
    maximal = {json.dumps(ids(m)) for m in oracle.run(p1("maximal"), ev)}
    late_b = json.dumps({"c": [7], "p": [5, 8], "b": [13]})
    short_p = json.dumps({"c": [7], "p": [5], "b": [12]})
    assert late_b in maximal and late_b not in earliest     # b binds e13, not the earlier e12
    assert short_p in earliest and short_p not in maximal   # p can be extended with e8
    # p = <e3, e9> cannot take e10: 88 < 116.5
    assert json.dumps({"c": [1], "p": [3, 9, 10], "b": [11]}) not in maximal


# --------------------------------------------------------------------------- §5.2 windows, filter, partition


def test_plain_window_sizes_and_filtered_partitioned_windows():
    ev = chemo()
    _, st, log = run_windows(p1(), ev, Techniques(False, False, False))
    assert [len(w) for w, _v, _f in log] == [12, 12, 11, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert log[0][0] == list(range(1, 13)) and log[1][0] == list(range(2, 14))   # W1 = e1..e12, W2 = e2..e13
    _, st, log = run_windows(p1(), ev, Techniques(True, False, False))
    assert st.events_filtered == 1 and log[0][0] == [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]   # W'1 without e6
    assert log[1][0] == [2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13]                              # W'2
    plan = analyse(p1())
    assert plan.key is not None and plan.key.columns() == ["PID"]                          # Example 12: X = {PID}
    w1 = [e for e in ev if e.id in log[0][0]]
    parts: dict = {}
    for e in w1:
        parts.setdefault(plan.key_of(e), []).append(e.id)
    assert sorted(parts.values()) == [[1, 2, 3, 9, 10, 11], [4, 5, 7, 8, 12]]
    assert plan.reduced.equivalence == [] and p1().equivalence == ["PID"]                  # P' without [PID]


def test_filter_keeps_only_events_that_fit_some_variable():
    plan = analyse(p1())
    ev = chemo()
    assert [e.id for e in ev if plan.bits(e) == 0] == [6]  # e6 (L = D) only, Example 8
    q = parse("PATTERN SEQ(C c, B b) WHERE c.V > 1500 AND b.V < 5000 WITHIN 16 days")
    kept = [e.id for e in ev if analyse(q).bits(e)]
    assert kept == [1, 11, 12, 13, 14]  # properties are filters too; relationships are not


# --------------------------------------------------------------------------- §4.5, §5.6, §5.7 statistic


def _window(plan, events):
    kw = KeyWindow(None, plan, literal=False)
    for e in events:
        kw.add(e, plan.bits(e))
    return kw


def test_examples_10_and_13_counters_and_bit_vectors():
    plan = analyse(p1())
    ev = {e.id: e for e in chemo()}
    assert [plan.bitstring(plan.bits(ev[i])) for i in (1, 2, 3)] == ["100", "001", "010"]   # β_e1, β_e2, β_e3
    cl = plan.clauses[0]
    assert plan.bitstring(cl.pred_mask["c"]) == plan.bitstring(cl.pred_mask["p"]) == "000"  # β_b1
    assert plan.bitstring(cl.pred_mask["b"]) == "110"                                       # β_b2
    kw = KeyWindow(None, plan, literal=False)
    seen = [plan.bitstring(kw.stats[0].beta_s)]
    for i in (1, 2, 3):
        kw.add(ev[i], plan.bits(ev[i]))
        seen.append(plan.bitstring(kw.stats[0].beta_s))
    assert seen == ["111", "011", "011", "001"]
    assert kw.counters(plan) == {"c": 1, "p": 1, "b": 0}   # e2 fits b but no p precedes it


def test_figure_5_patient_1_with_the_counter_fix_and_the_literal_rule():
    plan = analyse(p1())
    ev = {e.id: e for e in chemo()}
    for literal, after_e2 in ((False, 0), (True, -1)):
        kw = KeyWindow(1, plan, literal=literal)
        steps = []
        for i in (1, 2, 3, 9, 10, 11):
            kw.add(ev[i], plan.bits(ev[i]))
            steps.append((tuple(kw.counters(plan).values()), plan.bitstring(kw.stats[0].beta_s)))
        assert steps == [((1, 0, 0), "011"), ((1, 0, 0), "011"), ((1, 1, 0), "001"), ((1, 2, 0), "001"),
                         ((1, 3, 0), "001"), ((1, 3, 1), "000")]
        kw.pop()  # e1 leaves after A's call: c hits 0, b is reset
        assert tuple(kw.counters(plan).values()) == (0, 3, 0) and plan.bitstring(kw.stats[0].beta_s) == "101"
        kw.pop()  # e2 (a b the counter never counted)
        assert kw.counters(plan)["b"] == after_e2
        kw.pop()
        assert tuple(kw.counters(plan).values())[:2] == (0, 2)
        kw.add(ev[14], plan.bits(ev[14]))  # not counted: c = 0
        assert kw.counters(plan)["b"] == after_e2


def test_counted_mask_fix_keeps_the_window_the_literal_rule_rejects():
    """Notes §4.5 counter-example: W = <b0, c1, p1, b1>; removing b0 must keep (c, p, b) > 0."""
    p = parse("PATTERN SEQ(AND(C c, P p), B b) WITHIN 10")
    ev = make_stream([{"id": i, "type": t, "ts": i} for i, t in enumerate("BCPB")])
    want = oracle.run(p, ev)
    assert [ids(m) for m in want] == [{"c": [1], "p": [2], "b": [3]}]
    assert keys(run_all(MatchWindowMatcher(p), ev)) == keys(want)
    literal = run_all(MatchWindowMatcher(p, techniques=Techniques(literal=True)), ev)
    assert literal == []  # the paper's literal decrement loses the match
    plan = analyse(p)
    kw = _window(plan, ev)
    kw.pop()
    assert all(v > 0 for v in kw.counters(plan).values())


def test_an_event_fitting_two_sets_does_not_precede_itself():
    """Self-precedence pitfall (§4.5): one event that fits a (set 1) and b (set 2)."""
    p = parse("PATTERN SEQ(ANY a, ANY b) WHERE a.x = 1 AND b.y = 1 WITHIN 10")
    ev = make_stream([{"id": 1, "type": "A", "ts": 1, "x": 1, "y": 1}])
    plan = analyse(p)
    kw = _window(plan, ev)
    assert kw.counters(plan) == {"a": 1, "b": 0}


# --------------------------------------------------------------------------- §5.5 NMC, §5.8 end to end


def test_example_9_candidate_windows():
    _, st, log = run_windows(p1("earliest_maximal"), chemo(), Techniques(True, False, True))
    (w1, v1, f1), (w2, v2, f2) = log[0], log[1]
    assert v1.passed and f1 and [ids(m) for m in f1] == [{"c": [1], "p": [3, 9], "b": [11]}]  # A(P1, W1)
    assert not v2.passed and v2.failed == "5" and f2 is None                                 # W'2: e2 fits no c, p
    assert "e2" in v2.reason


@pytest.mark.parametrize("tech,calls,events", [
    (Techniques(False, False, False), 14, 100),
    (Techniques(True, False, False), 13, 86),
    (Techniques(True, True, False), 13, 46),
    (Techniques(True, False, True), 4, 38),
    (Techniques(True, True, True), 3, 15),
])
@pytest.mark.parametrize("inner,n", [("ses", 3), ("lazy-tree", 10)])
def test_section_5_8_calls_and_events_given_to_A(tech, calls, events, inner, n):
    sel = "earliest_maximal" if inner == "ses" else ""
    got, st, _log = run_windows(p1(sel), chemo(), tech, inner)
    assert (st.calls, st.events_to_matcher, len(got)) == (calls, events, n)
    assert keys(got) == keys(oracle.run(p1(sel), chemo()))


def test_f_p_c_calls_in_detail():
    got, st, log = run_windows(p1("earliest_maximal"), chemo())
    calls = [(w, [ids(m) for m in f]) for w, v, f in log if f is not None]
    assert calls == [([1, 2, 3, 9, 10, 11], [{"c": [1], "p": [3, 9], "b": [11]}]),
                     ([5, 7, 8, 12, 13], [{"c": [7], "p": [5, 8], "b": [12]}]),
                     ([7, 8, 12, 13], [{"c": [7], "p": [8], "b": [12]}])]
    skipped = [(w[0], v.failed) for w, v, f in log if f is None]
    assert (4, "5") in skipped  # e4 is a b: (5) fails
    assert st.false_positives == 0 and st.partitions == 2 and st.drain_stopped > 0
    _, _, all_log = run_windows(p1(), chemo(), inner="lazy-tree")
    assert [len(f) for _w, _v, f in all_log if f is not None] == [4, 4, 2]


def test_without_partitioning_the_window_at_e3_is_a_false_positive():
    _, st, log = run_windows(p1("earliest_maximal"), chemo(), Techniques(True, False, True))
    fp = [w[0] for w, v, f in log if f == []]
    assert fp == [3] and st.false_positives == 1
    plan = analyse(p1())
    ev = {e.id: e for e in chemo()}
    kw = _window(plan, [ev[i] for i in (1, 2, 3, 4)])
    assert kw.counters(plan)["b"] == 1  # e4 (patient 2) counted thanks to patient 1's e1 and e3


# --------------------------------------------------------------------------- soundness, CLI


def test_match_windows_are_refused_where_unsound():
    assert "WITHIN" in unsound_reason(parse("PATTERN SEQ(A a, B b)"))
    assert "skip_till_next_match" in unsound_reason(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5"))
    assert "NON_OVERLAP" in unsound_reason(parse("PATTERN SEQ(A a, B b) WITHIN 5 OUTPUT NON_OVERLAP"))
    with pytest.raises(EngineUnsupported, match="WITHIN"):
        decide(parse("PATTERN SEQ(A a, AND(B b, C c))"), "on")
    assert decide(parse("PATTERN SEQ(A a, AND(B b, C c))"), "auto")[0] is False  # no WITHIN: off, no error
    assert decide(p1(), "auto")[0] and not decide(p1(), "off")[0]
    assert not decide(parse("PATTERN SEQ(A a, B b) WITHIN 5"), "auto")[0]   # not an event-set pattern
    assert decide(parse("PATTERN SEQ(A a, B b) WITHIN 5"), "on")[0]
    assert decide(parse("PATTERN SEQ(A a, B b) WHERE maximal WITHIN 5"), "auto")[0]


def test_cep_run_match_windows_on_and_off_print_the_same_matches(capsys):
    base = ["run", "preset:chemo/chemo_cycle", "--data", "sample:chemo", "--format", "jsonl"]
    s1, on, err_on = _cep(capsys, *base, "--match-windows", "on", "--stats")
    s2, off, err_off = _cep(capsys, *base, "--match-windows", "off", "--stats")
    s3, auto, _ = _cep(capsys, *base)
    assert s1 == s2 == s3 == 0
    parse_lines = lambda text: sorted(text.splitlines())  # noqa: E731
    assert parse_lines(on) == parse_lines(off) == parse_lines(auto) and len(on.splitlines()) == 10
    assert "engine=match-windows" in err_on and "calls=3" in err_on and "events_to_matcher=15" in err_on
    # the one event no component can bind is left out by the loader now (engine.type_filter), before
    # the windows' filter would see it: 13 of the file's 14 events reach the matcher
    assert "events=13 " in err_on and "events_filtered=0" in err_on and "partitions=2" in err_on
    assert "nmc_fail_5=2" in err_on
    assert "engine=match-windows" not in err_off


def test_cep_run_selection_and_refusals(capsys):
    text = P1.replace("WHERE [PID]", "WHERE earliest_maximal AND [PID]")
    status, out, _ = _cep(capsys, "run", text, "--data", "sample:chemo", "--format", "jsonl")
    assert status == 0 and len(out.splitlines()) == 3
    status, out2, _ = _cep(capsys, "run", text, "--data", "sample:chemo", "--format", "jsonl",
                           "--match-windows", "off")
    assert status == 0 and sorted(out2.splitlines()) == sorted(out.splitlines())  # the SES automaton alone
    status, _, err = _cep(capsys, "run", text, "--data", "sample:chemo", "--engine", "lazy-tree",
                          "--match-windows", "off")
    assert status == 2 and "earliest_maximal" in err
    status, out3, _ = _cep(capsys, "run", text, "--data", "sample:chemo", "--engine", "lazy-tree",
                           "--format", "jsonl")
    assert status == 0 and sorted(out3.splitlines()) == sorted(out.splitlines())  # A = lazy tree, then selected
    status, _, err = _cep(capsys, "run", "preset:stocks_sase/stock_trend", "--data", "sample:stocks_sase",
                          "--match-windows", "on")
    assert status == 2 and "skip_till_next_match" in err


def test_selection_enum_round_trip_in_json():
    p = p1("maximal")
    assert p.selection is Selection.MAXIMAL
    assert type(p).model_validate_json(p.model_dump_json()) == p


def test_auto_mode_keeps_an_all_matches_engine_alone_unless_a_selection_needs_windows():
    assert decide(p1(), "auto", "lazy-tree")[0] is False           # all matches: lazy tree alone
    assert decide(p1("earliest"), "auto", "lazy-tree")[0] is True   # only windows can select for it
    assert decide(p1(), "auto", "ses")[0] is True
    neg = parse("PATTERN SEQ(AND(C c, P p), !D d, B b) WHERE [PID] WITHIN 16 days")
    assert decide(neg, "auto")[0] is False and decide(neg, "on")[0] is True  # SES has no negation


def test_interval_engines_are_never_a_for_match_windows():
    from engine.engines.planner import ENGINES
    from engine.engines.windows.matcher import choose_inner

    interval = [n for n, i in ENGINES.items() if getattr(i, "interval", False)]
    for name in interval:
        with pytest.raises(EngineUnsupported, match="uncertainty intervals"):
            choose_inner(p1(), name)
    neg = parse("PATTERN SEQ(AND(C c, P p), !D d, B b) WHERE [PID] WITHIN 16 days")
    assert choose_inner(neg) not in interval + ["ses", "match-windows"]
