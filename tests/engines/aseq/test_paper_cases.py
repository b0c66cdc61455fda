"""A-Seq (engine/engines/aseq): the paper's test cases T1-T11 (papers/aseq-aggregation.md §5), each
on A-Seq and on the construct-then-aggregate baseline and checked against the oracle's
matches; the plan's classification, fallback and refusal; the trace; the guard.
Streams marked *synthesized* are the notes' verified reconstructions (A17)."""
from __future__ import annotations

import pytest

from engine.engines.aseq.baseline import BaselineMatcher, MatchAggregator, StackBaseline
from engine.engines.aseq.engine import AseqMatcher, make_aggregator, rows_for
from engine.engines.aseq.plan import compile_query
from engine.engines.aseq.values import AggRow
from engine.engines.aseq.workload import Query, WorkloadMatcher, parse_workload
from engine.dsl import parse
from engine.match import EngineUnsupported, StateExplosion
from engine.trace import Recorder, record
from tests.aseq_util import expected_rows, same_rows
from tests.support import stream

ENGINES = ["aseq", "aseq-baseline"]


def rows(p, ev, engine="aseq", **kw):
    return [(r.event, r.group, r.value) for r in rows_for(p, ev, engine, **kw)]


def check(text: str, ev, want: list[tuple]) -> None:
    """Both engines give ``want`` and so do the oracle's matches."""
    p = parse(text)
    oracle_rows = expected_rows(p, ev)
    assert same_rows(oracle_rows, want), (oracle_rows, want)
    for eng in ENGINES:
        assert same_rows(rows(p, ev, eng), want), eng


def counters_after(p, ev, upto: str):
    """A-Seq's prefix-counter table (trace_state) after the event with id ``upto``."""
    m = AseqMatcher(p, Recorder())
    for e in ev:
        m.feed(e)
        if e.id == upto:
            return m.trace_state()[1]
    raise AssertionError(upto)


# --------------------------------------------------------------------------- T1-T11

def test_t1_example1_sliding_window():
    """T1 (Ex. 1): COUNT 1, 2 at c3, c4; at b6 a1 has left the window (6 - 1 = 5 is not < 5): 0."""
    ev = stream("a1@1 b2@2 c3@3 c4@4 b6@6")
    check("PATTERN SEQ(A a, B b, C c) AGG COUNT WITHIN 5", ev, [("c3", None, 1), ("c4", None, 2)])
    p = parse("PATTERN SEQ(A a, B b, C c) AGG COUNT WITHIN 5")
    for eng in ENGINES:
        got = [r.to_json() for r in rows_for(p, ev, eng, emit="changes")]
        assert got[-1] == {"ts": 6.0, "event": None, "group": None, "value": 0}, eng


def test_t2_fig2_dpc():
    """T2 (Fig. 2, no window: DPC's one vector): (A,B) = 3 and (A,B,C) = 1 before c2, then 4."""
    ev = stream("a1 b1 c1 a2 b2 c2")
    text = "PATTERN SEQ(A a, B b, C c) AGG COUNT"
    check(text, ev, [("c1", None, 1), ("c2", None, 4)])
    buf = counters_after(parse(text), ev, "b2")
    assert buf["mode"] == "DPC" and len(buf["rows"]) == 1
    assert buf["rows"][0]["counts"] == [2, 3, 1]


def test_t3_example2_dpc_synthesized():
    """T3 (Ex. 2, synthesized stream): at t_i (A) = 3, (A,B) = 2; b2 makes (A,B) = 5; d1 outputs 2."""
    ev = stream("a1 a2 b1 c1 a3 b2 d1")
    text = "PATTERN SEQ(A a, B b, C c, D d) AGG COUNT"
    check(text, ev, [("d1", None, 2)])
    assert counters_after(parse(text), ev, "a3")["rows"][0]["counts"][:2] == [3, 2]
    assert counters_after(parse(text), ev, "b2")["rows"][0]["counts"] == [3, 5, 2, 0]


def test_t4_example3_sem_reconstructed():
    """T4 (Ex. 3, reconstructed timestamps, W = 7): 2 at d1 (a1: 2, a2: 0), a1 expires at 8,
    1 at d2; the per-START counters (AB/ABC/ABCD) as in the notes' table."""
    ev = stream("a1@1 b1@2 c1@3 a2@4 c2@5 b2@6 d1@7 c3@8 a3@9 d2@10")
    text = "PATTERN SEQ(A a, B b, C c, D d) AGG COUNT WITHIN 7"
    check(text, ev, [("d1", None, 2), ("d2", None, 1)])
    buf = counters_after(parse(text), ev, "d1")
    assert {r["start"]: r["counts"][1:] for r in buf["rows"]} == {"a1": [2, 2, 2], "a2": [1, 0, 0]}
    buf = counters_after(parse(text), ev, "c3")
    assert [r["start"] for r in buf["rows"]] == ["a2"]  # a1 (exp 8) is gone at 8
    p = parse(text)
    changes = [r.to_json() for r in rows_for(p, ev, emit="changes")]
    assert {"ts": 8.0, "event": None, "group": None, "value": 0} in changes


def test_t5_example4_negation_synthesized():
    """T5 (Ex. 4, synthesized): c1 resets (A,B) by the Recounting Rule; 2 at d1 (<a1,b1,d1> not counted)."""
    ev = stream("a1@1 b1@2 c1@3 a2@4 b2@5 d1@6")
    text = "PATTERN SEQ(A a, B b, !C c, D d) AGG COUNT"
    check(text, ev, [("d1", None, 2)])
    rec = Recorder()
    m = AseqMatcher(parse(text), rec)
    steps = list(record(m, ev))
    resets = [a for a in steps[2].actions if a.kind == "discard"]
    assert [a.detail["counter"] for a in resets] == ["(A,B)"] and resets[0].detail["old"] == 1
    assert steps[2].buffer["rows"][0]["counts"] == [1, 0, 0]
    # with a window the same, per START (the explicit cnt[0] of A8)
    check(text + " WITHIN 10", ev, [("d1", None, 2)])


def test_t6_hpc_group_by_synthesized():
    """T6 (Ex. 5, synthesized): HPC partitions by id; GROUP BY gives group 1: 1, group 2: 1,
    group 1: 4; with the equivalence only 1, 2, 5; without any predicate 5, 14, 23."""
    ids = {"a1": 1, "a2": 2, "b1": 1, "a3": 3, "b2": 2, "a4": 1, "c1": 1, "b3": 1, "c2": 2, "c3": 1}
    ev = stream("a1@1 a2@2 b1@3 a3@4 b2@5 a4@6 c1@7 b3@8 c2@9 c3@10", **{k: {"id_": v} for k, v in ids.items()})
    check("PATTERN SEQ(A a, B b, C c) WHERE [id_] AGG COUNT GROUP BY id_", ev,
          [("c1", 1, 1), ("c2", 2, 1), ("c3", 1, 4)])
    check("PATTERN SEQ(A a, B b, C c) WHERE a.id_ = b.id_ AND b.id_ = c.id_ AGG COUNT", ev,
          [("c1", None, 1), ("c2", None, 2), ("c3", None, 5)])
    check("PATTERN SEQ(A a, B b, C c) AGG COUNT", ev, [("c1", None, 5), ("c2", None, 14), ("c3", None, 23)])
    assert compile_query(parse("PATTERN SEQ(A a, B b, C c) WHERE a.id_ = b.id_ AND b.id_ = c.id_ AGG COUNT")
                         ).key is not None


PRETREE = """
QUERY Q1
PATTERN SEQ(VK a, BK b, VC c, BC d) AGG COUNT
QUERY Q2
PATTERN SEQ(VK a, BK b, VKF c) AGG COUNT
QUERY Q3
PATTERN SEQ(VK a, BK b, VC c, BC d, VE e, BE f) AGG COUNT
QUERY Q4
PATTERN SEQ(VK a, BK b, VC c, BC d, VL e, BL f) AGG COUNT
QUERY Q5
PATTERN SEQ(IP a, VKF b, VK c, BK d) AGG COUNT
"""
PRETREE_STREAM = "ip1@1 vkf1@2 vk1@3 bk1@4 vk2@5 bk2@6 vc1@7 vkf2@8 bc1@9 ve1@10 be1@11 vl1@12 bl1@13"


def _run(m, ev):
    out = []
    for e in ev:
        out += m.feed(e)
    return out + m.close()


@pytest.mark.parametrize("window", ["", "\nWITHIN 100"])
def test_t7_pretree_synthesized(window):
    """T7 (Ex. 7, synthesized stream): Q2 = 0 at vkf1, Q5 = 1 and 3, Q2 = 3, Q1 = Q3 = Q4 = 3;
    one shared tree; with a window Q5 is chopped and connected (its START is not shared)."""
    qs = parse_workload(PRETREE.replace("AGG COUNT", "AGG COUNT" + window))
    ev = stream(PRETREE_STREAM)
    m = WorkloadMatcher(qs)
    got = [(r.query, r.event, r.value) for r in _run(m, ev)]
    assert got == [("Q2", "vkf1", 0), ("Q5", "bk1", 1), ("Q5", "bk2", 3), ("Q2", "vkf2", 3), ("Q1", "bc1", 3),
                   ("Q3", "be1", 3), ("Q4", "bl1", 3)]
    for q in qs:  # each query alone, and the oracle
        assert same_rows([(r.event, r.group, r.value) for r in rows_for(q.pattern, ev)], expected_rows(q.pattern, ev))
    assert m.stats.extra["chopped"] == (["Q5"] if window else [])
    (_members, counters, _plan), = m.groups
    vk_nodes = [n for n in counters.nodes if n.label.startswith("(VK,BK")]
    assert {n.label for n in vk_nodes} >= {"(VK,BK)", "(VK,BK,VC,BC)"}
    assert len([n for n in counters.nodes if n.label == "(VK,BK)"]) == 1  # shared by Q1-Q4 (and Q5's tail)
    assert set(next(n for n in counters.nodes if n.label == "(VK,BK)").users) >= {"Q1", "Q2", "Q3", "Q4"}


def feed_with_snapshots(p, events, chops):
    """One query ``q`` chopped at ``chops``, fed ``events``: its rows, and the snapshots
    recorded at each event that began with some ({event id: {query part: snapshot}})."""
    rec = Recorder()
    m = WorkloadMatcher([Query("q", p)], rec, chops={"q": chops})
    snaps = {}
    got = []
    for e in events:
        got += m.feed(e)
        for a in rec.take_actions():
            if a.kind == "begin" and "snapshots" in a.detail:
                snaps[e.id] = a.detail["snapshots"]
    return got, snaps


def test_t8_snapshot_fig10():
    """T8 (Ex. 8, exact from Fig. 10): (A,B,C) + (D,E), W = 9: snapshots at d1 and d2, 1 at e1."""
    p = parse("PATTERN SEQ(A a, B b, C c, D d, E e) AGG COUNT WITHIN 9")
    ev = stream("a1@1 b1@2 c1@3 a2@4 b2@5 d1@6 c2@7 a3@8 d2@9 e1@10")
    got, snaps = feed_with_snapshots(p, ev, [3])
    snaps = {event: by_query["q:1"] for event, by_query in snaps.items()}
    assert [(r.event, r.value) for r in got] == [("e1", 1)] == [(i, v) for i, _g, v in expected_rows(p, ev)]
    # rows by tag (the tree of a1 is 0, of a2 is 1): [exp, count]; rows with count 0 are not kept
    assert snaps == {"d1": {"0": [10.0, 1]}, "d2": {"0": [10.0, 3], "1": [13.0, 1]}}


def test_t9_multi_connect_synthesized():
    """T9 (Ex. 9, synthesized): (A..G) = (A,B,C) + (D,E) + (F,G), W = 20: snap(f1) = {a1: 6, a2: 3}, 9 at g1."""
    p = parse("PATTERN SEQ(A a, B b, C c, D d, E e, F f, G g) AGG COUNT WITHIN 20")
    ev = stream("a1@1 b1@2 a2@3 b2@4 c1@5 d1@6 c2@7 d2@8 e1@9 f1@12 g1@13")
    got, snaps = feed_with_snapshots(p, ev, [3, 5])
    assert snaps["d1"]["q:1"] == {"0": [21.0, 2], "1": [23.0, 1]}
    assert snaps["d2"]["q:1"] == {"0": [21.0, 4], "1": [23.0, 2]}
    assert snaps["f1"]["q:2"] == {"0": [21.0, 6], "1": [23.0, 3]}
    assert [(r.event, r.value) for r in got] == [("g1", 9)] == [(i, v) for i, _g, v in expected_rows(p, ev)]


def test_t10_exact_sum_max_synthesized():
    """T10 (synthesized): SUM 12 at d2 where the paper's ratio formula gives 16.5; MAX stays 1
    after c2 (c2 is in no complete match yet) and is 10 at d2."""
    ev = stream("a1@1 b1@2 c1@3 d1@4 c2@5 d2@6", c1={"w": 1}, c2={"w": 10})
    base = "PATTERN SEQ(A a, B b, C c, D d) AGG {}"
    want = {"COUNT": (1, 3), "SUM(c.w)": (1, 12), "AVG(c.w)": (1, 4), "MAX(c.w)": (1, 10), "MIN(c.w)": (1, 1)}
    for f, (v1, v2) in want.items():
        check(base.format(f), ev, [("d1", None, v1), ("d2", None, v2)])
    buf = counters_after(parse(base.format("MAX(c.w)")), ev, "c2")
    assert buf["values"] == [{"group": None, "value": 1}]
    assert 12 != 11 * 3 / 2  # the paper's SUM formula (sum * count(ABCD) / count(ABC)) is not what we compute


@pytest.mark.parametrize("text,stream_text,want", [
    ("SEQ(A x, B y, A z)", "a1 b1 a2 b2 a3", 4),
    ("SEQ(A x, A y, B z)", "a1 a2 b1", 1),
    ("SEQ(A x, A y)", "a1 a2 a3", 3),
    ("SEQ(A x, !B n, B y)", "a1 b1 b2", 1),
    ("SEQ(A x, B y, !B n, C z)", "a1 b1 b2 c1", 1),
])
def test_t11_repeated_and_overlapping_types(text, stream_text, want):
    """T11 (synthesized): simultaneous update from the pre-event state (A6, A9): 4, 1, 3, 1, 1."""
    p = parse(f"PATTERN {text} AGG COUNT")
    ev = stream(stream_text)
    for eng in ENGINES:
        got = rows(p, ev, eng)
        assert got[-1][2] == want, eng
        assert same_rows(got, expected_rows(p, ev)), eng


# --------------------------------------------------------------------------- semantics details

def test_nothing_values_and_trig_without_match():
    """b1 is a TRIG with no match; a1 has no x, so at b2 there is one match and no value."""
    ev = stream("b1 a1 b2", b1={"x": 5})
    for f, want in [("COUNT", [0, 1]), ("SUM(a.x)", [0, 0]), ("AVG(a.x)", [None, None]), ("MAX(a.x)", [None, None]),
                    ("MIN(b.x)", [None, None]), ("COUNT(a.x)", [0, 0])]:
        check(f"PATTERN SEQ(A a, B b) AGG {f}", ev, [("b1", None, want[0]), ("b2", None, want[1])])


def test_missing_and_non_numbers_are_skipped():
    ev = stream("a1 a2 a3 b1", a1={"x": 2}, a2={"x": "n/a"}, a3={})
    for f, want in [("SUM(a.x)", 2), ("AVG(a.x)", 2), ("COUNT(a.x)", 2), ("COUNT", 3), ("MAX(a.x)", 2)]:
        check(f"PATTERN SEQ(A a, B b) AGG {f}", ev, [("b1", None, want)])


def test_local_predicate_is_a_prefilter_and_decides_trig():
    ev = stream("a1 b1 a2 b2", a1={"x": 1}, a2={"x": 9}, b1={"y": 0}, b2={"y": 5})
    check("PATTERN SEQ(A a, B b) WHERE a.x > 5 AND b.y > 1 AGG COUNT", ev, [("b2", None, 1)])


def test_start_anchored_predicate_per_counter():
    ev = stream("a1 a2 b1 c1", a1={"x": 1}, a2={"x": 5}, b1={"x": 3}, c1={"x": 4})
    text = "PATTERN SEQ(A a, B b, !C c, B d) WHERE b.x > a.x AND c.x > a.x AGG COUNT"
    plan = compile_query(parse(text))
    assert plan.anchored
    check("PATTERN SEQ(A a, B b) WHERE b.x > a.x AGG COUNT", ev, [("b1", None, 1)])
    check("PATTERN SEQ(A a, !C c, B b) WHERE c.x > a.x AGG COUNT", stream("a1 a2 c1 b1", a1={"x": 1}, a2={"x": 5},
                                                                          c1={"x": 3}), [("b1", None, 1)])


def test_equal_timestamps_follow_input_order():
    ev = stream("a1@1 b1@1 b2@1")
    check("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 1", ev, [("b1", None, 1), ("b2", None, 2)])


def test_strict_expiry_at_exactly_w():
    """A1/A4: a START at 0 with W = 3 no longer counts at 3, neither its old matches nor new ones."""
    check("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3", stream("a1@0 b1@1 b2@3"), [("b1", None, 1), ("b2", None, 0)])
    check("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3", stream("a1@0 b1@1 b2@2.5"), [("b1", None, 1), ("b2", None, 2)])


def test_count_window():
    ev = stream("a1 b1 x1 x2 b2")
    check("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3 events", ev, [("b1", None, 1), ("b2", None, 0)])


def test_group_by_multiple_attributes_is_a_list():
    ev = stream("a1 b1", a1={"u": 1, "v": "x"}, b1={"u": 1, "v": "x"})
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT GROUP BY u, v")
    for eng in ENGINES:
        assert [r.to_json() for r in rows_for(p, ev, eng)] == [{"ts": 1.0, "event": "b1", "group": [1, "x"],
                                                                "value": 1}]


# --------------------------------------------------------------------------- fallback and refusal

@pytest.mark.parametrize("text,why", [
    ("PATTERN SEQ(A a, B b, C c) WHERE c.x > b.x AGG COUNT", "events other than the START"),
    ("PATTERN SEQ(A a, B+ b[], C c) AGG COUNT", "Kleene"),
    ("PATTERN SEQ(A a, AND(B b, C c)) AGG COUNT", "flat SEQ"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match AGG COUNT", "skip_till_any_match"),
    ("PATTERN SEQ(A a, B b) AGG COUNT OUTPUT NON_OVERLAP", "NON_OVERLAP"),
])
def test_fallback_to_the_baseline_with_the_reason(text, why):
    p = parse(text)
    m = AseqMatcher(p)
    assert m.fallback and why in m.fallback and m.stats.extra["fallback"] == m.fallback
    assert isinstance(m.inner, (StackBaseline, MatchAggregator))


def test_fallback_values_equal_the_oracle():
    ev = stream("a1 b1 b2 c1 c2", b1={"x": 1}, b2={"x": 5}, c1={"x": 3}, c2={"x": 7})
    check("PATTERN SEQ(A a, B b, C c) WHERE c.x > b.x AGG COUNT", ev, [("c1", None, 1), ("c2", None, 3)])
    p = parse("PATTERN SEQ(A a, B+ b[], C c) AGG SUM(b.x)")
    assert same_rows(rows(p, ev), expected_rows(p, ev))
    assert isinstance(BaselineMatcher(p), MatchAggregator)
    assert isinstance(BaselineMatcher(parse("PATTERN SEQ(A a, B b) AGG COUNT")), StackBaseline)


def test_a_match_engine_aggregates_its_matches():
    ev = stream("a1 b1 a2 b2 b3")
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3")
    assert rows(p, ev, "nfab") == rows(p, ev, "oracle") == rows(p, ev, "aseq") == expected_rows(p, ev)


def test_refused_trailing_negation_and_no_agg():
    with pytest.raises(EngineUnsupported, match="trailing negation"):
        AseqMatcher(parse("PATTERN SEQ(A a, !B b) AGG COUNT WITHIN 5"))
    with pytest.raises(EngineUnsupported, match="trailing negation"):
        BaselineMatcher(parse("PATTERN SEQ(A a, !B b) AGG COUNT WITHIN 5"))
    with pytest.raises(EngineUnsupported, match="AGG"):
        AseqMatcher(parse("PATTERN SEQ(A a, B b)"))


# --------------------------------------------------------------------------- trace and guard

def test_trace_actions_and_counter_table():
    ev = stream("a1@1 b1@2 c1@3 a2@4 b2@5 d1@6 x@20")
    p = parse("PATTERN SEQ(A a, B b, !C c, D d) AGG COUNT WITHIN 10")
    steps = list(record(AseqMatcher(p, Recorder()), ev))
    kinds = [[a.kind for a in s.actions] for s in steps]
    assert kinds[0] == ["begin"] and "take" in kinds[1] and "discard" in kinds[2] and "match" in kinds[5]
    take = next(a for a in steps[4].actions if a.kind == "take")
    assert take.detail["changes"][0]["formula"] == "(A,B): 0 + (A) 1 = 1 (Lemma 1)"
    match = next(a for a in steps[5].actions if a.kind == "match")
    assert match.detail["value"] == 2 and "1 + 1" in match.detail["formula"]
    assert steps[5].matches == [{"ts": 6.0, "event": "d1", "group": None, "value": 2}]
    assert [a.kind for a in steps[6].actions].count("expire") == 2
    buf = steps[5].buffer
    assert buf["kind"] == "aseq" and buf["columns"] == ["(A)", "(A,B)", "(A,B,D)"]
    assert [r["counts"] for r in buf["rows"]] == [[1, 1, 1], [1, 1, 1]]
    assert [r.id for r in steps[5].runs] == ["sa1", "sa2"]


def test_baseline_trace_and_counters():
    ev = stream("a1 a2 b1 b2")
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT")
    m = StackBaseline(p, Recorder())
    steps = list(record(m, ev))
    search = next(a for a in steps[3].actions if a.kind == "search")
    assert search.detail["built"] == 2
    assert m.stats.extra["matches_built"] == 4 and m.stats.extra["live_objects_peak"] >= 4 + 2 + 4


def test_guard_on_live_prefix_counters():
    ev = stream(" ".join(f"a{i}" for i in range(20)) + " b1")
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 100")
    with pytest.raises(StateExplosion, match="prefix counters"):
        rows_for(p, ev, max_runs=5)
    assert rows(p, ev, max_runs=50)[-1][2] == 20
    with pytest.raises(StateExplosion):
        rows_for(p, ev, "aseq-baseline", max_runs=5)


def test_row_json_contract():
    r = AggRow(3.0, "c3", None, 1)
    assert r.to_json() == {"ts": 3.0, "event": "c3", "group": None, "value": 1}
    assert list(AggRow(3.0, "c3", "x", 2, query="q1").to_json()) == ["query", "ts", "event", "group", "value"]
    assert isinstance(make_aggregator(parse("PATTERN SEQ(A a) AGG COUNT")), AseqMatcher)
