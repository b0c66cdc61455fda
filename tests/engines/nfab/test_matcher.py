"""NFA^b: differential tests against the oracle, and the SASE+ paper's worked examples
(papers/sase-nfab.md §5-§6)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sample_streams
from engine.engines.oracle import oracle
from engine.engines.nfab.compiler import compile_pattern, unsupported_reason
from engine.dsl import parse
from engine.events import make_stream
from engine.match import StateExplosion, run_all
from engine.engines.nfab.matcher import NfabMatcher
from engine.model import PatternError
from tests.support import sorted_ids

STOCK = sample_streams.events("stocks_sase")
Q3 = sample_streams.load("stocks_sase").presets["stock_trend"]


def ids(matches):
    """The (a ids, b ids) of every match, sorted."""
    return sorted_ids(matches, "a", "b")


def with_strategy(text: str, strategy: str) -> str:
    return text.replace("skip_till_next_match", strategy)


def run_counts(matcher, events):
    counts, out = [], []
    for e in events:
        out += matcher.feed(e)
        counts.append(matcher.alive)
    out += matcher.close()
    return out, counts


# --------------------------------------------------------------------------- the paper's examples

R1 = ((1, 2, 3, 4, 5), (6,))
R2 = ((3, 4), (6,))
R3 = ((1, 2, 3, 4, 5, 6, 7), (8,))


@pytest.mark.parametrize("merge", [False, True])
def test_q3_skip_till_next_gives_r1_r2_r3_with_paper_run_counts(merge):
    out, counts = run_counts(NfabMatcher(parse(Q3), merge=merge), STOCK)
    assert ids(out) == sorted([R1, R2, R3])
    assert [(m.ids("a"), m.ids("b")) for m in out][:2] in ([R1, R2], [R2, R1])  # both at e6, R3 at e8
    assert out[-1].end_seq == 7
    assert counts == [1, 1, 2, 2, 2, 2, 2, 2]


@pytest.mark.parametrize("strategy", ["partition_contiguity", "strict_contiguity"])
def test_q3_contiguity_gives_first_and_third(strategy):
    out = run_all(NfabMatcher(parse(with_strategy(Q3, strategy))), STOCK)
    assert ids(out) == sorted([R1, R3])


def test_q3_skip_till_any_68_matches_and_run_counts():
    p = parse(with_strategy(Q3, "skip_till_any_match"))
    out, counts = run_counts(NfabMatcher(p, merge=False), STOCK)
    assert len(out) == 68 and len({m.key for m in out}) == 68
    assert sum(1 for m in out if m.end_seq == 5) == 18
    assert counts == [1, 2, 5, 10, 18, 36, 68, 132]
    assert {m.key for m in out} == {m.key for m in oracle.run(p, STOCK)}


@pytest.mark.parametrize("op,expected", [(">", [((1, 2, 4), (6,)), ((3, 4), (6,))]),
                                         (">=", [((1, 2, 3, 4), (6,)), ((3, 4), (6,))])])
def test_merging_example_max_variant(op, expected):
    """§6.7: with max, the runs started by e1 and e3 agree after e4 and merge; one combined
    run yields a match per member at e6."""
    text = Q3.replace("a[i].price > avg(a[..i-1].price)", f"a[i].price {op} max(a[..i-1].price)")
    m = NfabMatcher(parse(text), merge=True)
    out = run_all(m, STOCK)
    assert ids(out) == sorted(expected)
    assert m.stats.extra["runs_merged"] >= 1
    assert ids(run_all(NfabMatcher(parse(text), merge=False), STOCK)) == sorted(expected)


@pytest.mark.parametrize("pred,expected", [
    ("true", [((1, 2, 3, 4, 5), (6,)), ((3, 4, 5), (6,)), ((1, 2, 3, 4, 5, 6, 7), (8,)), ((3, 4, 5, 6, 7), (8,))]),
    ("a[i].price > a[i-1].price", [((1, 2, 4), (6,)), ((3, 4), (6,))]),
    ("a[i].price > min(a[..i-1].price)", [R1, R2, R3]),
])
def test_aggregate_variants_under_next(pred, expected):
    """§6.3, aggregate variants under skip_till_next_match."""
    text = Q3.replace("a[i].price > avg(a[..i-1].price)", pred)
    assert ids(run_all(NfabMatcher(parse(text)), STOCK)) == sorted(expected)


def test_without_the_peek_skip_till_next_changes_meaning():
    """§6.4: with the unoptimised proceed (`true`), skip_till_next_match also yields
    a=(e1), b=e6 — the peek is semantics-defining, which is why it is on by default."""
    out = run_all(NfabMatcher(parse(Q3), peek=False), STOCK)
    got = ids(out)
    assert ((1,), (6,)) in got and set([R1, R2, R3]) <= set(got)
    assert len(got) == len(set(got))


@pytest.mark.parametrize("strategy", ["skip_till_next_match", "partition_contiguity", "skip_till_any_match"])
def test_pushing_the_window_changes_runs_not_matches(strategy):
    rows = [dict(type="Stock", symbol="G", price=100 + (i * 7) % 13, volume=1100 - (i * 37) % 500, ts=i)
            for i in range(40 if strategy != "skip_till_any_match" else 14)]
    text = with_strategy(Q3, strategy).replace("WITHIN 1 hour", "WITHIN 6")
    ev = make_stream(rows)
    on = NfabMatcher(parse(text), push_window=True, merge=False)
    off = NfabMatcher(parse(text), push_window=False, merge=False)
    assert ids(run_all(on, ev)) == ids(run_all(off, ev))
    assert off.stats.runs_peak >= on.stats.runs_peak


def test_non_overlap_reports_the_earliest_then_prunes_the_partition():
    text = Q3.replace("WITHIN 1 hour", "WITHIN 1 hour OUTPUT NON_OVERLAP")
    assert ids(run_all(NfabMatcher(parse(text)), STOCK)) == [R1]  # R2 overlaps R1; R3 starts at e1
    anyq = with_strategy(text, "skip_till_any_match")
    got = run_all(NfabMatcher(parse(anyq)), STOCK)
    assert {m.key for m in got} == {m.key for m in oracle.run(parse(anyq), STOCK)}
    # at e6 the earliest-starting, shortest match is reported; every other run of GOOG dies
    assert [(m.ids("a"), m.ids("b")) for m in got] == [((1,), (6,))]


def test_shared_buffer_versions_reconstruct_the_paper_labels():
    """§6.5: the shared buffer holds e4 once in a[i] with two pointers; retrieval by
    version reads back (e3, e4, e6) for R2 and not the blind-merge (e1 e2 e3 e4 e6)."""
    m = NfabMatcher(parse(Q3), merge=False)
    out = run_all(m, STOCK)
    assert R2 in ids(out)
    assert ((1, 2, 3, 4), (6,)) not in ids(out)


def test_shoplifting_negation():
    rows = [dict(type="Shelf", tag_id=7, ts=1, id="t1"), dict(type="Shelf", tag_id=8, ts=2, id="t2"),
            dict(type="Register", tag_id=7, ts=3, id="t3"), dict(type="Exit", tag_id=7, ts=4, id="t4"),
            dict(type="Exit", tag_id=8, ts=5, id="t5")]
    text = """PATTERN SEQ(Shelf a, !(Register b), Exit c)
              WHERE skip_till_next_match(a, b, c) { a.tag_id = b.tag_id and a.tag_id = c.tag_id }
              WITHIN 12 hours"""
    out = run_all(NfabMatcher(parse(text)), make_stream(rows))
    assert [m.as_dict() for m in out] == [{"a": ["t2"], "c": ["t5"]}]


def test_contamination_kleene_last_under_any():
    rows = [dict(type="Alert", kind="contaminated", site="X", ts=1, id="A1"),
            dict(type="Shipment", **{"from": "X", "to": "Y"}, ts=2, id="S1"),
            dict(type="Shipment", **{"from": "Y", "to": "Z"}, ts=3, id="S2"),
            dict(type="Shipment", **{"from": "X", "to": "W"}, ts=4, id="S3"),
            dict(type="Shipment", **{"from": "Z", "to": "V"}, ts=5, id="S4")]
    text = """PATTERN SEQ(Alert a, Shipment+ b[])
              WHERE skip_till_any_match AND a.kind = 'contaminated' AND b[1].from = a.site
                AND b[i].from = b[i-1].to
              WITHIN 3 hours"""
    out = run_all(NfabMatcher(parse(text)), make_stream(rows))
    assert sorted(m.ids("b") for m in out) == sorted([("S1",), ("S1", "S2"), ("S3",), ("S1", "S2", "S4")])
    nxt = run_all(NfabMatcher(parse(text.replace("skip_till_any_match", "skip_till_next_match"))), make_stream(rows))
    assert ("S3",) not in [m.ids("b") for m in nxt]


@pytest.mark.parametrize("merge", [False, True])
def test_state_guard_stops_exploding_pattern_quickly(merge):
    import time

    rows = [dict(type="A", x=1, ts=i) for i in range(60)]
    p = parse("PATTERN SEQ(A+ a[], A b) WHERE skip_till_any_match WITHIN 1000")
    t0 = time.perf_counter()
    with pytest.raises(StateExplosion, match="skip_till_any_match"):
        run_all(NfabMatcher(p, max_runs=20_000, merge=merge), make_stream(rows))
    assert time.perf_counter() - t0 < 30  # stopped by the guard, not by exhausting memory


def test_tracer_records_steps_and_changes_nothing():
    from engine.trace import Recorder, record

    m = NfabMatcher(parse(Q3), tracer=Recorder())
    steps = list(record(m, STOCK))
    traced = [mm for s in steps for mm in s.matches]
    assert sorted((tuple(x["match"]["a"]), tuple(x["match"]["b"])) for x in traced) == sorted([R1, R2, R3])
    assert [x["match"] for x in traced] == [mm.as_dict() for mm in run_all(NfabMatcher(parse(Q3)), STOCK)]
    assert len(steps) == 9 and steps[-1].step == "close"
    kinds = {a.kind for s in steps for a in s.actions}
    assert {"begin", "take", "ignore", "proceed", "match"} <= kinds
    # rho2 (version 2, started at e3) ignores e5 under skip_till_next_match because its take
    # formula is false there: a[3].price = 120 is not above avg(a[..2].price) = 120.5 (§6.2)
    ign = [a for a in steps[4].actions if a.kind == "ignore" and a.run == "2"]
    assert ign and ign[0].state == "a[i]"
    p = ign[0].predicates[0]
    assert p.text == "a[i].price > avg(a[..i-1].price)" and p.result is False
    assert p.values == {"a[3].price": 120, "avg(a[..2].price)": 120.5}
    # the live runs after e5 and the shared buffer grown by one entry
    assert {r.id: r.bindings for r in steps[4].runs} == {"1": {"a": [1, 2, 3, 4, 5]}, "2": {"a": [3, 4]}}
    assert [e["id"] for e in steps[4].buffer["added"]] == ["a[i]@5"]


def test_automaton_graph_carries_kinds_and_formulas():
    nfa = compile_pattern(parse(Q3))
    g = nfa.to_networkx()
    assert list(g.nodes) == ["a[1]", "a[i]", "b", "F"]
    kinds = sorted((u, v, d["kind"]) for u, v, d in g.edges(data=True))
    assert kinds == sorted([("a[1]", "a[i]", "begin"), ("a[i]", "a[i]", "take"), ("a[i]", "a[i]", "ignore"),
                            ("a[i]", "b", "proceed"), ("b", "F", "begin"), ("b", "b", "ignore")])
    ign = {(u, d["kind"]): d for u, v, d in g.edges(data=True)}
    assert ign[("a[i]", "ignore")]["formula"].startswith("¬(")
    for strat, word in [("skip_till_any_match", "true"), ("strict_contiguity", "false")]:
        g2 = compile_pattern(parse(with_strategy(Q3, strat))).to_networkx()
        e = {(u, d["kind"]): d for u, v, d in g2.edges(data=True)}
        assert e[("b", "ignore")]["formula"].split(" ∧ ")[0] == word
    assert "a[1].volume > 1000" in ign[("a[1]", "begin")]["formula"]
    assert "b.volume < 80% * a[a.len].volume" in ign[("b", "begin")]["formula"]


def test_refuses_and_with_kleene_clearly():
    p = parse(sample_streams.load("chemo").presets["chemo_cycle"])
    assert "interleave" in unsupported_reason(p)


# --------------------------------------------------------------------------- differential

ATTRS = ("x", "y")


@st.composite
def streams(draw, max_size=9):
    n = draw(st.integers(1, max_size))
    rows = []
    ts = 0
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 1, 2, 3]))
        rows.append(dict(type=draw(st.sampled_from("ABC")), ts=ts, id=i, x=draw(st.integers(0, 3)),
                         y=draw(st.integers(0, 3)), k=draw(st.sampled_from("pq"))))
    return make_stream(rows)


@st.composite
def nfab_patterns(draw):
    n = draw(st.integers(1, 3))
    comps, names = [], []
    for k in range(n):
        v = "abc"[k]
        t = draw(st.sampled_from("ABC"))
        q = draw(st.sampled_from(["", "", "+", "?", "*"]))
        comps.append((t, q, v))
        names.append(v)
    items = [f"{t}{q} {v}{'[]' if q in '+*' and q else ''}" for t, q, v in comps]
    kleene = [v for t, q, v in comps if q in ("+", "*")]
    neg = draw(st.sampled_from([None, "mid", "trail"])) if n >= 2 or True else None
    window = draw(st.sampled_from(["", "WITHIN 4", "WITHIN 6", "WITHIN 3 events"]))
    if neg == "mid" and n >= 2:
        pos = draw(st.integers(1, n - 1))
        items.insert(pos, f"!{draw(st.sampled_from('ABC'))} n")
    elif neg == "trail":
        window = window or "WITHIN 5"
        items.append(f"!{draw(st.sampled_from('ABC'))} n")
    preds = []
    pool = []
    for t, q, v in comps:
        if q in ("+", "*"):
            pool += [f"{v}[1].x", f"{v}[a.len].x".replace("a.len", f"{v}.len")]
        else:
            pool.append(f"{v}.x")
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["const", "cross", "iter", "agg", "neg", "len"]))
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "=", "!="]))
        if kind == "const":
            preds.append(f"{draw(st.sampled_from(pool))} {op} {draw(st.integers(0, 3))}")
        elif kind == "cross" and len(pool) > 1:
            a, b = draw(st.permutations(pool))[:2]
            preds.append(f"{a} {op} {b}")
        elif kind == "iter" and kleene:
            v = draw(st.sampled_from(kleene))
            preds.append(f"{v}[i].x {op} {v}[i-1].{draw(st.sampled_from(ATTRS))}")
        elif kind == "agg" and kleene:
            v = draw(st.sampled_from(kleene))
            f = draw(st.sampled_from(["avg", "sum", "min", "max", "count"]))
            preds.append(f"{v}[i].y {op} {f}({v}[..i-1].x)")
        elif kind == "len" and kleene:
            v = draw(st.sampled_from(kleene))
            preds.append(f"{v}.len {op} {draw(st.integers(1, 3))}")
        elif kind == "neg" and "!" in " ".join(items):
            preds.append(f"n.x {op} {draw(st.sampled_from(pool))}")
    if draw(st.booleans()):
        preds.insert(0, draw(st.sampled_from(["[k]", "[x]"])))
    where = " AND ".join(["skip_till_any_match"] + preds)
    shape = draw(st.sampled_from(["seq", "seq", "seq", "or", "and"]))
    body = f"SEQ({', '.join(items)})"
    if shape == "or" and "!" not in body:
        body = f"OR(SEQ({', '.join(items)}), {draw(st.sampled_from('ABC'))} z)"
    elif shape == "and" and "!" not in body and not kleene and len(items) >= 2:
        body = f"SEQ({items[0]}, AND({', '.join(items[1:])}))"
    output = " OUTPUT NON_OVERLAP" if draw(st.integers(0, 5)) == 0 else ""
    text = f"PATTERN {body} WHERE {where} {window}{output}"
    try:
        p = parse(text)
    except PatternError:
        assume(False)
    assume(unsupported_reason(p) is None)
    return p


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(p=nfab_patterns(), events=streams())
def test_nfab_equals_oracle_under_skip_till_any(p, events):
    expected = {m.key: m for m in oracle.run(p, events)}
    for share, merge in ((True, True), (True, False), (False, False)):
        got = run_all(NfabMatcher(p, share=share, merge=merge), events)
        keys = [m.key for m in got]
        assert len(keys) == len(set(keys)), f"duplicates (share={share}, merge={merge})"
        assert set(keys) == set(expected), f"share={share} merge={merge}\n{p}"
        for m in got:
            assert (m.start, m.end) == (expected[m.key].start, expected[m.key].end)
