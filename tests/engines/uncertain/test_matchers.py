"""Imprecise timestamps: the possible-worlds oracle on the notes' worked examples
(papers/imprecise-timestamps.md §4, T1–T7, exact fractions), the point-based and
event-based engines against it (worked examples, random small cases with hypothesis, each
other on larger streams), emission as soon as final (§3.7), bounds, pmfs, guard and trace."""
from __future__ import annotations

import math
from fractions import Fraction as Fr

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.dsl import parse
from engine.match import StateExplosion
from engine.engines.uncertain.bounds import three_pass, tighten
from engine.engines.uncertain.common import ArrivalError
from engine.engines.uncertain.event import EventBasedMatcher, run_event_based
from engine.engines.uncertain.examples import EXAMPLES, interval_events
from engine.engines.uncertain.oracle import UncertainOracleTooLarge, run_uncertain
from engine.engines.uncertain.pmf import PmfError, parse_pmf
from engine.engines.uncertain.point import PointBasedMatcher, run_point_based
from engine.engines.uncertain.query import compile_query, unsupported_reason
from engine.engines.uncertain.result import as_table

ANY, NEXT = "skip_till_any_match", "skip_till_next_match"
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
MODES = ("any-state", "sorted", "selectivity")


def pat(name: str, strategy: str = ANY, window: str | None = None):
    text = EXAMPLES[name].with_strategy(strategy)
    if window is not None:
        text = text.split(" WITHIN")[0] + (f" WITHIN {window}" if window else "")
    return parse(text)


def u_max_of(events) -> int:
    return max(e.upper - e.lower for e in events)


def every_engine(p, events, u_max=None):
    """Engine label -> result table, for every engine and evaluation order."""
    out = {f"event/{m}": as_table(run_event_based(p, events, u_max=u_max, mode=m)) for m in MODES}
    out["point"] = as_table(run_point_based(p, events, u_max=u_max))
    return out


def assert_all_equal_oracle(p, events, u_max=None):
    expected = as_table(run_uncertain(p, events))
    for label, got in every_engine(p, events, u_max).items():
        assert got == expected, f"{label}: {got} != oracle {expected}"
    return expected


# --------------------------------------------------------------------------- the oracle on T1-T7

def test_t1_running_example_stam_and_stnm():
    """T1: 25/225 and 27/225 under STAM, 24/225 and 25/225 under STNM, ranges [1,5] and [1,7]."""
    ev = EXAMPLES["T1"].events()
    assert as_table(run_uncertain(pat("T1", ANY), ev)) == {
        ("a1", "b3", "c2"): ((1, 5), Fr(25, 225)), ("a1", "b3", "c4"): ((1, 7), Fr(27, 225))}
    assert as_table(run_uncertain(pat("T1", NEXT), ev)) == {
        ("a1", "b3", "c2"): ((1, 5), Fr(24, 225)), ("a1", "b3", "c4"): ((1, 7), Fr(25, 225))}


def test_t1_variants_without_window_and_w5():
    ev = EXAMPLES["T1"].events()
    assert as_table(run_uncertain(pat("T1", ANY, ""), ev)) == {
        ("a1", "b3", "c2"): ((1, 5), Fr(7, 45)), ("a1", "b3", "c4"): ((1, 8), Fr(34, 75))}
    assert as_table(run_uncertain(pat("T1", NEXT, ""), ev)) == {
        ("a1", "b3", "c2"): ((1, 5), Fr(11, 75)), ("a1", "b3", "c4"): ((1, 8), Fr(79, 225))}
    assert as_table(run_uncertain(pat("T1", ANY, "5"), ev)) == {
        ("a1", "b3", "c2"): ((1, 5), Fr(7, 45)), ("a1", "b3", "c4"): ((1, 8), Fr(17, 75))}


def test_t3_three_pass_prune_and_w5():
    ev = EXAMPLES["T3"].events()
    assert as_table(run_uncertain(pat("T3", ANY), ev)) == {}
    assert as_table(run_uncertain(pat("T3", ANY, "5"), ev)) == {("a1", "b5", "c6"): ((2, 6), Fr(1, 20))}


def test_t5_nelt():
    ev = EXAMPLES["T5"].events()
    assert as_table(run_uncertain(pat("T5", ANY), ev)) == {
        ("a1", "b2"): ((1, 3), Fr(3, 8)), ("a1", "b3"): ((1, 4), Fr(5, 8)), ("a1", "b4"): ((1, 7), Fr(1)),
        ("a1", "b5"): ((1, 6), Fr(1)), ("a1", "b6"): ((1, 9), Fr(1))}
    assert as_table(run_uncertain(pat("T5", NEXT), ev)) == {
        ("a1", "b2"): ((1, 3), Fr(3, 8)), ("a1", "b3"): ((1, 4), Fr(3, 8)), ("a1", "b4"): ((3, 6), Fr(1, 4)),
        ("a1", "b5"): ((3, 6), Fr(1, 4))}


def test_t6_certain_timestamps_are_the_deterministic_strategies():
    ev = EXAMPLES["T6"].events()
    assert as_table(run_uncertain(pat("T6", ANY), ev)) == {
        ("a", "b1", "c", "d"): ((1, 5), Fr(1)), ("a", "b2", "c", "d"): ((1, 5), Fr(1))}
    assert as_table(run_uncertain(pat("T6", NEXT), ev)) == {("a", "b1", "c", "d"): ((1, 5), Fr(1))}


def test_t7_no_nelt_false_positive():
    got = as_table(run_uncertain(pat("T7", NEXT), EXAMPLES["T7"].events()))
    assert got == {("a", "b", "c'"): ((1, 5), Fr(2, 9)), ("a", "b'", "c'"): ((1, 5), Fr(8, 9))}
    assert ("a", "b", "c") not in got


def test_t7_window_shorter_than_pattern_and_nested_intervals():
    assert run_uncertain(pat("T7-window"), EXAMPLES["T7-window"].events()) == []
    got = as_table(run_uncertain(pat("T7-nested"), EXAMPLES["T7-nested"].events()))
    assert ("a", "b", "c") in got


def test_oracle_size_guard():
    ev = interval_events([(i, "A" if i % 2 else "B", 1, 40) for i in range(8)])
    with pytest.raises(UncertainOracleTooLarge, match="worlds"):
        run_uncertain(parse("PATTERN SEQ(A a, B b) WITHIN 50"), ev, max_worlds=10_000, joint=True)
    with pytest.raises(UncertainOracleTooLarge, match="worlds for the signature"):  # spoilers count too
        run_uncertain(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 50"), ev, max_worlds=10_000)
    assert len(run_uncertain(parse("PATTERN SEQ(A a, B b) WITHIN 50"), ev, max_worlds=10_000)) == 16


# --------------------------------------------------------------------------- engines on T1-T7

@pytest.mark.parametrize("name", sorted(EXAMPLES))
@pytest.mark.parametrize("strategy", [ANY, NEXT])
def test_engines_equal_oracle_on_worked_examples(name, strategy):
    ev = EXAMPLES[name].events()
    p = pat(name, strategy)
    for u in (None, u_max_of(ev), u_max_of(ev) + 3):
        assert_all_equal_oracle(p, ev, u)


def test_t1_window_in_the_confidence_dp():
    """Algorithm 2 without the window would give 7/45 and 1/3 (notes §3.5)."""
    got = as_table(run_event_based(pat("T1"), EXAMPLES["T1"].events(), u_max=4))
    assert got[("a1", "b3", "c2")][1] == Fr(1, 9) and got[("a1", "b3", "c4")][1] == Fr(3, 25)


def test_t7_nested_sorted_release_finds_the_match():
    ex = EXAMPLES["T7-nested"]
    ev = ex.events()
    m = EventBasedMatcher(parse(ex.pattern), u_max=u_max_of(ev), mode="sorted")
    assert m.mode == "sorted"
    out = [x for e in ev for x in m.feed(e)] + m.close()
    assert ("a", "b", "c") in as_table(out)


def test_t5_nelt_prunes_b6_in_both_frameworks():
    ev = EXAMPLES["T5"].events()
    for run in (run_point_based, run_event_based):
        assert ("a1", "b6") not in as_table(run(pat("T5", NEXT), ev, u_max=u_max_of(ev)))
    m = EventBasedMatcher(pat("T5", NEXT), u_max=u_max_of(ev))
    for e in ev:
        m.feed(e)
    m.close()
    assert m.stats.extra["nelt_pruned"] >= 1


def test_point_expansion_of_the_running_example():
    """§2.1: the point stream of Fig. 1 starts a1^1, a1^2, a1^3, c2^3, b3^3, a1^4, ..."""
    ev = EXAMPLES["T1"].events()
    m = PointBasedMatcher(pat("T1"), u_max=4)
    seen = []
    orig = m._on_point

    def spy(x, t):
        seen.append(f"{x.id}^{t}")
        return orig(x, t)

    m._on_point = spy
    for e in ev:
        m.feed(e)
    m.close()
    assert seen == ["a1^1", "a1^2", "a1^3", "c2^3", "b3^3", "a1^4", "c2^4", "b3^4", "c4^4", "a1^5", "c2^5",
                    "b3^5", "c4^5", "c4^6", "c4^7", "c4^8"]


# --------------------------------------------------------------------------- emission (§3.7)

def emission_steps(matcher, events):
    """signature -> the step (0-based event, len = close) at which it was emitted."""
    out = {}
    for k, e in enumerate(events):
        for m in matcher.feed(e):
            out[m.signature] = k
    for m in matcher.close():
        out[m.signature] = len(events)
    return out


def test_stam_event_based_emits_when_the_run_completes():
    ev = EXAMPLES["T5"].events()
    steps = emission_steps(EventBasedMatcher(pat("T5", ANY), u_max=u_max_of(ev), mode="any-state"), ev)
    pos = {e.id: k for k, e in enumerate(ev)}
    assert steps == {sig: max(pos[i] for i in sig) for sig in steps}


def test_stnm_emits_once_the_frontier_passes_the_last_event():
    """T5 with a late filler event: (a1, b2) is final once F > b2.upper (3)."""
    rows = list(EXAMPLES["T5"].rows) + [("z", "Z", 20, 20)]
    ev = interval_events(rows)
    u = u_max_of(ev)
    for matcher in (EventBasedMatcher(pat("T5", NEXT), u_max=u), PointBasedMatcher(pat("T5", NEXT), u_max=u)):
        steps = emission_steps(matcher, ev)
        by_id = {e.id: e for e in ev}
        now = -math.inf
        for k, e in enumerate(ev):
            now = max(now, e.lower)
            f = now - u
            for sig, at in steps.items():
                final = f > by_id[sig[-1]].upper
                if at == k:
                    assert final, f"{matcher.name} emitted {sig} at step {k} before it was final"
                if at > k:
                    assert not final, f"{matcher.name} held {sig} past step {k} although it was final"
        assert set(steps) == {("a1", "b2"), ("a1", "b3"), ("a1", "b4"), ("a1", "b5")}


def test_without_u_max_stnm_waits_for_the_end():
    ev = EXAMPLES["T5"].events()
    steps = emission_steps(EventBasedMatcher(pat("T5", NEXT)), ev)
    assert set(steps.values()) == {len(ev)}


def test_paper_finalization_waits_w_more():
    rows = list(EXAMPLES["T5"].rows) + [("z", "Z", 12, 12), ("z2", "Z", 30, 30)]
    ev = interval_events(rows)
    exact = emission_steps(EventBasedMatcher(pat("T5", NEXT), u_max=3), ev)
    paper = emission_steps(EventBasedMatcher(pat("T5", NEXT), u_max=3, paper_finalization=True), ev)
    assert set(exact) == set(paper)
    assert all(paper[s] >= exact[s] for s in exact) and any(paper[s] > exact[s] for s in exact)


# --------------------------------------------------------------------------- bounds

def test_three_pass_reproduces_fig3():
    steps = three_pass([1, 3, 3], [5, 5, 5], 3)  # a1, b3, c2 in query order, W = 4
    vals = {(s["what"], s["j"]): s["value"] for s in steps}
    assert [vals[("vlb", j)] for j in range(3)] == [1, 3, 4]
    assert [vals[("rub", j)] for j in range(3)] == [3, 4, 5]
    assert steps[-1]["ok"]
    steps = three_pass([1, 2, 6], [5, 3, 7], 3)  # a1, b5, c6 (Fig. 3(c)): pruned
    vals = {(s["what"], s["j"]): s["value"] for s in steps}
    assert [vals[("vlb", j)] for j in range(3)] == [1, 2, 6]
    assert [vals[("rub", j)] for j in (2, 1, 0)] == [7, 3, 2]
    assert vals[("T_m", 2)] == 5 and not steps[-1]["ok"]


def test_tight_bounds_of_the_running_example():
    lo, hi = [1, 3, 3], [5, 5, 5]
    assert tighten(lo, hi, [0, 1, 2], 3, 3) and (lo, hi) == ([1, 3, 4], [3, 4, 5])
    lo, hi = [1, 3, 4], [5, 5, 8]
    assert tighten(lo, hi, [0, 1, 2], 3, 3) and (lo, hi) == ([1, 3, 4], [4, 5, 7])
    lo, hi = [1, 2, 4], [3, 4, 6]
    assert not tighten(lo, hi, [0, 1, 2], 1, 3)  # W = 2 < l = 3


# --------------------------------------------------------------------------- pmf, arrival, scope, guard

def test_parse_pmf():
    assert parse_pmf("1 2 1", 3, 5) == (1, 2, 1)
    assert parse_pmf("0.25;0.5;0.25", 3, 5) == (1, 2, 1)
    assert parse_pmf("", 3, 5) is None
    for bad, msg in (("1 2", "2 weights"), ("1 -1 1", "negative"), ("0 0 0", "zero"), ("1 x 1", "not a number")):
        with pytest.raises(PmfError, match=msg):
            parse_pmf(bad, 3, 5)


def test_non_uniform_pmf_is_exact():
    ev = interval_events([("a", "A", 1, 2, {"pmf": "3 1"}), ("b", "B", 1, 2, {"pmf": "1 1"})])
    p = parse("PATTERN SEQ(A a, B b) WITHIN 5")
    expected = {("a", "b"): ((1, 2), Fr(3, 4) * Fr(1, 2))}
    assert as_table(run_uncertain(p, ev, pmf="pmf")) == expected
    assert as_table(run_event_based(p, ev, pmf="pmf", u_max=1)) == expected
    assert as_table(run_point_based(p, ev, pmf="pmf", u_max=1)) == expected


def test_arrival_assumption_and_u_max_are_checked():
    ev = interval_events([("a", "A", 10, 12), ("b", "B", 3, 5)])
    with pytest.raises(ArrivalError, match="arrival assumption"):
        run_event_based(parse("PATTERN SEQ(A a, B b) WITHIN 5"), ev)
    ev = interval_events([("a", "A", 1, 12)])
    with pytest.raises(ArrivalError, match="U_max"):
        run_point_based(parse("PATTERN SEQ(A a, B b) WITHIN 5"), ev, u_max=3)


@pytest.mark.parametrize("text, word", [
    ("PATTERN SEQ(A+ a[], B b) WITHIN 5", "Kleene"),
    ("PATTERN SEQ(A a, !C c, B b) WITHIN 5", "negation"),
    ("PATTERN AND(A a, B b) WITHIN 5", "AND"),
    ("PATTERN SEQ(A a, OR(B b, C c)) WITHIN 5", "OR"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity WITHIN 5", "strict_contiguity"),
    ("PATTERN SEQ(A a, B b) WHERE partition_contiguity WITHIN 5", "partition_contiguity"),
    ("PATTERN SEQ(A a, B b) WITHIN 5 events", "count window"),
    ("PATTERN SEQ(A a, B? b) WITHIN 5", "optional"),
])
def test_scope_refusals_name_the_construct(text, word):
    why = unsupported_reason(parse(text))
    assert why is not None and word in why and "SEQ of single events" in why


def test_scope_accepts_the_paper_language():
    for text in ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match AND [k] AND b.x > a.x WITHIN 5 s",
                 "PATTERN SEQ(ANY a, B b)"):
        assert unsupported_reason(parse(text)) is None
    assert compile_query(parse("PATTERN SEQ(A a, B b) WITHIN 500 ms")).span == 0  # t_b - t_a < 0.5


def test_guard_stops_with_the_cause():
    ev = interval_events([(i, "A" if i % 2 else "B", i, i + 6) for i in range(60)])
    p = parse("PATTERN SEQ(A a, B b, A c) WITHIN 100")
    for cls in (EventBasedMatcher, PointBasedMatcher):
        m = cls(p, u_max=6, max_runs=500)
        with pytest.raises(StateExplosion, match="Likely cause: wide uncertainty intervals"):
            for e in ev:
                m.feed(e)


def test_trace_records_runs_intervals_and_the_results():
    from engine.trace import Recorder, record, trace_matches

    ev = EXAMPLES["T1"].events()
    m = EventBasedMatcher(pat("T1"), tracer=Recorder(), u_max=4, mode="any-state")
    steps = list(record(m, ev))
    got = {tuple(ids[0] for ids in mm["match"].values()): mm["confidence_exact"] for mm in trace_matches(steps)}
    assert got == {("a1", "b3", "c2"): "1/9", ("a1", "b3", "c4"): "3/25"}
    after_b3 = steps[2]
    assert after_b3.runs_total == 6  # Fig. 3(d): 7 runs after b3, the completed one emitted
    assert after_b3.buffer["intervals"] and after_b3.buffer["kind"] == "uncertain"
    kinds = {a.kind for s in steps for a in s.actions}
    assert {"begin", "take", "match"} <= kinds


# --------------------------------------------------------------------------- random cases

TEMPLATES = [
    "SEQ(A a, B b)", "SEQ(A a, B b, C c)", "SEQ(A a, B b, A c)", "SEQ(A a, A b)", "SEQ(ANY a, B b, ANY c)",
    "SEQ(A a, B b, C c) WHERE b.v > a.v", "SEQ(A a, B b, C c) WHERE [v]", "SEQ(A a, ANY b) WHERE b.v = a.v",
    "SEQ(B a, C b) WHERE b.v != 1",
]


@st.composite
def interval_streams(draw, n_min=2, n_max=6, t_max=10, width=3, pmf=True):
    n = draw(st.integers(n_min, n_max))
    rows = []
    for i in range(n):
        t = draw(st.integers(1, t_max))
        d1, d2 = draw(st.integers(0, width)), draw(st.integers(0, width))
        lo, hi = t - d1, t + d2
        attrs = {"v": draw(st.integers(0, 2))}
        if pmf and draw(st.booleans()):
            ws = draw(st.lists(st.integers(0, 3), min_size=hi - lo + 1, max_size=hi - lo + 1))
            if sum(ws) and ws[t - lo]:
                attrs["pmf"] = " ".join(map(str, ws))
        rows.append((t, (i, draw(st.sampled_from("ABC")), lo, hi, attrs)))
    rows.sort(key=lambda r: r[0])  # arrival by true time: the arrival assumption holds (notes §1.3)
    return interval_events([r for _t, r in rows])


@st.composite
def uncertain_patterns(draw):
    base = draw(st.sampled_from(TEMPLATES))
    strategy = draw(st.sampled_from([ANY, NEXT]))
    w = draw(st.sampled_from(["", " WITHIN 2", " WITHIN 3", " WITHIN 5", " WITHIN 8"]))
    glue = " AND " if "WHERE" in base else " WHERE "
    return parse(f"PATTERN {base}{glue}{strategy}{w}")


@settings(max_examples=50, **SETTINGS)
@given(uncertain_patterns(), interval_streams(), st.booleans())
def test_engines_equal_oracle_on_random_small_cases(p, events, known_u_max):
    expected = as_table(run_uncertain(p, events, pmf="pmf", joint=True))  # the notes' reference, literally
    assert as_table(run_uncertain(p, events, pmf="pmf")) == expected  # per signature (the default)
    u = u_max_of(events) if known_u_max else None
    for m in MODES:
        assert as_table(run_event_based(p, events, pmf="pmf", u_max=u, mode=m)) == expected, m
    assert as_table(run_point_based(p, events, pmf="pmf", u_max=u)) == expected


@settings(max_examples=12, **SETTINGS)
@given(uncertain_patterns(), interval_streams(n_min=20, n_max=40, t_max=60, width=3, pmf=False))
def test_point_and_event_based_agree_on_larger_streams(p, events):
    u = u_max_of(events)
    event = as_table(run_event_based(p, events, u_max=u))
    assert as_table(run_event_based(p, events, u_max=u, mode="selectivity")) == event
    assert as_table(run_point_based(p, events, u_max=u)) == event


# --------------------------------------------------------------------------- the cluster sample

def test_cluster_sample_is_made_by_its_generator(tmp_path):
    from sample_streams import load
    from sample_streams.cluster import make_csv

    made = make_csv(tmp_path / "cluster.csv")
    assert made.read_text(encoding="utf-8") == load("cluster").path.read_text(encoding="utf-8")


def test_cluster_sample_intervals_and_arrival_order():
    from sample_streams import events
    from sample_streams.cluster import CPU_HALF, TASK_WIDTH

    evs = events("cluster")
    head = [(e.type, e.lower, e.upper) for e in evs[:5]]
    assert head == [("TaskStart", 1, 1), ("CPU", 2, 2), ("CPU", 3, 3), ("TaskFinish", 4, 4), ("CPU", 5, 5)]
    rest = evs[5:]
    assert {e.upper - e.lower for e in rest if e.type == "CPU"} == {2 * CPU_HALF}
    assert {e.upper - e.lower for e in rest if e.type != "CPU"} == {TASK_WIDTH}
    now = -math.inf
    for e in evs:  # the arrival assumption (§1.3) in file order
        assert e.upper >= now
        now = max(now, e.lower)


@pytest.mark.parametrize("strategy", [ANY, NEXT])
def test_engines_equal_oracle_on_the_cluster_sample(strategy):
    from sample_streams import events, load

    p = parse(load("cluster").presets["query1"].replace(ANY, strategy))
    evs = events("cluster")
    expected = assert_all_equal_oracle(p, evs, u_max_of(evs))
    assert len(expected) >= 3 and any(c < 1 for _r, c in expected.values())
