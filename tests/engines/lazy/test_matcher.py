"""Lazy chain / tree NFA and the eager baseline: the worked examples of
papers/lazy-chain-nfa.md §6 (T1-T13), the compiled automata and their graphs, the planner
entries, refusals, the state guard and the tracer. Differential (hypothesis) tests are in
``tests/engines/lazy/test_properties.py``."""
from __future__ import annotations

import pytest

from engine.engines import planner
from engine.engines.oracle import oracle
from engine.engines.lazy.chain_compiler import analyse, compile_chain, estimate_rates, unsupported_reason
from engine.engines.lazy.tree_compiler import compile_tree
from engine.dsl import parse
from engine.events import make_stream
from engine.match import EngineUnsupported, StateExplosion, run_all
from engine.engines.lazy.eager_matcher import EagerMatcher
from engine.engines.lazy.chain_matcher import LazyChainMatcher
from engine.engines.lazy.tree_matcher import LazyTreeMatcher
from tests.support import feed_log, stream
from tests.support import sorted_ids as ids


def keys(ms):
    return sorted(tuple((v, ids) for v, ids in m.bindings) for m in ms)


SEQ3 = parse("PATTERN SEQ(A a, B b, C c) WHERE a.price > 0 AND b.price > 0 AND c.price > 0 WITHIN 60")


# --------------------------------------------------------------------------- T1-T5: sequences

def test_t1_example1_eager_four_matches_six_instances():
    ev = stream("a1@1 a2@2 b1@3 b2@4 c1@5", a1={"price": 5}, a2={"price": 5}, b1={"price": 5}, b2={"price": 5},
                c1={"price": 5})
    m = EagerMatcher(SEQ3)
    log = feed_log(m, ev)
    assert ids([x for _, x in log], "a", "b", "c") == sorted([(("a1",), ("b1",), ("c1",)), (("a1",), ("b2",), ("c1",)),
                                                             (("a2",), ("b1",), ("c1",)), (("a2",), ("b2",), ("c1",))])
    assert {i for i, _ in log} == {4}  # all four at t=5
    assert m.stats.runs_created == 6


def test_t2_lazy_chain_cba_same_matches_three_instances():
    ev = stream("a1@1 a2@2 b1@3 b2@4 c1@5", **{k: {"price": 5} for k in ("a1", "a2", "b1", "b2", "c1")})
    m = LazyChainMatcher(SEQ3, order=["c", "b", "a"])
    alive = []
    log = []
    for i, e in enumerate(ev):
        log += [(i, x) for x in m.feed(e)]
        alive.append(m.stats.runs_alive)
    assert alive == [0, 0, 0, 0, 0]  # a1..b2 only stored; c1's instances are born and gone during c1
    assert m.stats.buffer_peak == 4
    assert len(log) == 4 and {i for i, _ in log} == {4}
    assert keys(x for _, x in log) == keys(oracle.run(SEQ3, ev))
    assert m.stats.runs_created == 3  # the paper: 6 partial matches eager vs 3 lazy


def test_t3_order_sensitivity():
    ev = stream("a1@1 b1@2 a2@3 b2@4 c1@5", **{k: {"price": 1} for k in ("a1", "a2", "b1", "b2", "c1")})
    expected = sorted([(("a1",), ("b1",), ("c1",)), (("a1",), ("b2",), ("c1",)), (("a2",), ("b2",), ("c1",))])
    e = EagerMatcher(SEQ3)
    assert ids(run_all(e, ev), "a", "b", "c") == expected
    assert e.stats.runs_created == 5
    lz = LazyChainMatcher(SEQ3, order=["c", "b", "a"])
    assert ids(run_all(lz, ev), "a", "b", "c") == expected
    assert lz.stats.runs_created == 3


def test_t4_no_rare_event_eager_10100_instances_lazy_none():
    rows = [dict(type="A", ts=t, id=f"a{t}") for t in range(100)] + \
           [dict(type="B", ts=100 + t, id=f"b{t}") for t in range(100)]
    ev = make_stream(rows)
    p = parse("PATTERN SEQ(A a, B b, C c) WITHIN 1000")
    e = EagerMatcher(p)
    assert run_all(e, ev) == []
    assert e.stats.runs_created == 10_100
    lz = LazyChainMatcher(p, order=["c", "b", "a"])
    assert run_all(lz, ev) == []
    assert lz.stats.runs_created == 0 and lz.stats.buffer_peak == 200
    tree = LazyTreeMatcher(p)
    assert run_all(tree, ev) == [] and tree.stats.runs_created == 0


def test_t5_window_prunes_the_buffer():
    p = parse("PATTERN SEQ(A a, B b, C c) WITHIN 10")
    ev = stream("a1@0 b1@5 c1@12")
    lz = LazyChainMatcher(p, order=["c", "b", "a"])
    assert run_all(lz, ev) == []
    assert lz.stats.runs_created == 2  # {c1}, {c1,b1}; a1 is outside c1's window
    assert lz.stats.extra["buffer_removals"] >= 1
    e = EagerMatcher(p)
    assert run_all(e, ev) == [] and e.stats.runs_alive == 0


# --------------------------------------------------------------------------- T6-T7: AND, partial order

def test_t6_conjunction_linear_chain():
    p = parse("PATTERN AND(A a, B b, C c) WITHIN 10")
    ev = stream("b1@1 c1@2 a1@3 b2@4")
    lz = LazyChainMatcher(p, order=["c", "b", "a"])
    log = feed_log(lz, ev)
    assert [(i, x.ids("a"), x.ids("b"), x.ids("c")) for i, x in log] == [
        (2, ("a1",), ("b1",), ("c1",)), (3, ("a1",), ("b2",), ("c1",))]
    assert lz.stats.runs_created == 3
    e = EagerMatcher(p)
    assert keys(run_all(e, ev)) == keys(x for _, x in log)
    assert e.stats.runs_created == 9  # the subset lattice
    g = lz.nfa.to_networkx()
    assert sorted(n for n, d in g.nodes(data=True) if d["kind"] == "state") == ["q2", "q3"]
    assert len(g.nodes) == 3 + 2  # n + 2 states (q1..q3, F, R), not 2^n


def test_t7_partial_sequence_filters_and_dynamic_check():
    p = parse("PATTERN AND(SEQ(A a, B b), SEQ(C c, D d), E e) WITHIN 100")
    nfa = compile_chain(p, order=["e", "d", "b", "c", "a"])
    got = [(s.var, sorted(s.prec), sorted(s.succ), s.stream_ok) for s in nfa.plans[0].steps]
    assert got == [("e", [], [], True), ("d", [], [], True), ("b", [], [], True), ("c", [], ["d"], False),
                   ("a", [], ["b"], False)]
    ok = stream("a1@1 c1@2 b1@3 e1@4 d1@5")
    bad = stream("a1@1 d1@2 b1@3 e1@4 c1@5")  # d before c
    for M, kw in ((LazyChainMatcher, {"order": ["e", "d", "b", "c", "a"]}), (LazyTreeMatcher, {}), (EagerMatcher, {})):
        assert len(run_all(M(p, **kw), ok)) == 1
        assert run_all(M(p, **kw), bad) == []


# --------------------------------------------------------------------------- T8-T9: negation

NEG4 = parse("PATTERN SEQ(A a, !(B b), C c, D d) WHERE b.x = c.x WITHIN 60")


@pytest.mark.parametrize("bx,bts,expected", [(5, 2, 0), (7, 2, 1), (5, 0.5, 1)])
def test_t8_negation_pp_and_fc(bx, bts, expected):
    ev = make_stream([dict(type="A", id="a1", ts=1), dict(type="B", id="b1", ts=bts, x=bx),
                      dict(type="C", id="c1", ts=3, x=5), dict(type="D", id="d1", ts=4)])
    for neg in ("pp", "fc"):
        m = LazyChainMatcher(NEG4, order=["c", "a", "d"], negation=neg)
        out = run_all(m, ev)
        assert len(out) == expected, neg
        if expected:
            assert out[0].as_dict() == {"a": ["a1"], "c": ["c1"], "d": ["d1"]}
    assert len(run_all(EagerMatcher(NEG4), ev)) == expected
    assert len(run_all(LazyTreeMatcher(NEG4), ev)) == expected


def test_t8_plans_and_first_chance_saves_instances():
    pp = compile_chain(NEG4, order=["c", "a", "d"], negation="pp").plans[0]
    assert [(s.var, sorted(s.prec), sorted(s.succ)) for s in pp.steps] == [("c", [], []), ("a", [], ["c"]),
                                                                           ("d", ["c"], [])]
    assert [(n.var, sorted(n.lo_vars), sorted(n.hi_vars)) for n in pp.pp] == [("b", ["a"], ["c"])]
    fc = compile_chain(NEG4, order=["c", "a", "d"], negation="fc").plans[0]
    assert fc.pp == [] and [n.var for n in fc.steps[1].fc] == ["b"]  # checked on entry to q3 (takes d)
    g = compile_chain(NEG4, order=["c", "a", "d"], negation="pp").to_networkx()
    assert ("¬b", "F", "search_failed") in [(u, v, d["kind"]) for u, v, d in g.edges(data=True)]
    g = compile_chain(NEG4, order=["c", "a", "d"], negation="fc").to_networkx()
    assert [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == "negation"] == [("q3", "R")]
    # many forbidden B's: FC rejects {c, a} before it waits for d's; PP keeps it
    rows = [dict(type="A", id=f"a{i}", ts=i) for i in range(5)]
    rows += [dict(type="B", id=f"b{i}", ts=5 + i, x=5) for i in range(5)]
    rows += [dict(type="C", id="c1", ts=11, x=5)] + [dict(type="D", id=f"d{i}", ts=12 + i) for i in range(5)]
    ev = make_stream(rows)
    m_pp = LazyChainMatcher(NEG4, order=["c", "a", "d"], negation="pp")
    m_fc = LazyChainMatcher(NEG4, order=["c", "a", "d"], negation="fc")
    assert run_all(m_pp, ev) == run_all(m_fc, ev) == []
    assert m_fc.stats.runs_created < m_pp.stats.runs_created


def test_t9_trailing_negation_waits_for_the_window():
    p = parse("PATTERN SEQ(A a, B b, !(C c)) WITHIN 10")
    plan = compile_chain(p, negation="fc").plans[0]
    assert [n.var for n in plan.pp] == ["c"]  # FC falls back to PP
    ev = stream("a1@0 b1@2 z1@9 z2@10 z3@11")
    for M in (LazyChainMatcher, LazyTreeMatcher, EagerMatcher):
        log = feed_log(M(p, order=["b", "a"]) if M is LazyChainMatcher else M(p), ev)
        assert [(i, x.as_dict()) for i, x in log] == [(3, {"a": ["a1"], "b": ["b1"]})]  # at ts 10 = 0 + W
        short = feed_log(M(p), ev[:3])
        assert [(i, x.as_dict()) for i, x in short] == [(3, {"a": ["a1"], "b": ["b1"]})]  # at close
        assert run_all(M(p), stream("a1@0 b1@2 c1@7 z1@20")) == []


# --------------------------------------------------------------------------- T10: iteration

def test_t10_iteration_subsets_and_kleene_last():
    ev = stream("a1@1 b1@2 b2@3 b3@4 c1@5")
    p = parse("PATTERN SEQ(A a, B+ b[], C c) WITHIN 60")
    nfa = compile_chain(p, rates={"A": 1, "B": 0.001, "C": 5})
    assert nfa.plans[0].order == ["a", "c", "b"] and nfa.plans[0].steps[-1].kind == "iterate"
    for M in (LazyChainMatcher, LazyTreeMatcher, EagerMatcher):
        out = run_all(M(p, rates={"A": 1, "B": 0.001, "C": 5}) if M is LazyChainMatcher else M(p), ev)
        assert len(out) == 7 and len({m.key for m in out}) == 7
    rep = parse("PATTERN SEQ(A a, B+ b[], C c) WHERE b.len = 2 WITHIN 60")
    assert len(run_all(LazyChainMatcher(rep, order=["c", "a", "b"]), ev)) == 3
    grp_ev = stream("a1@1 b1@2 b2@3 b3@4 c1@5", b1={"x": 1}, b2={"x": 1}, b3={"x": 2})
    grp = parse("PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x = b[1].x WITHIN 60")
    got = sorted(m.ids("b") for m in run_all(LazyChainMatcher(grp, order=["c", "a", "b"]), grp_ev))
    assert got == sorted([("b1",), ("b2",), ("b1", "b2"), ("b3",)])


def test_t10_stream_fed_iterate_only_new_subsets():
    p = parse("PATTERN SEQ(A a, B+ b[]) WITHIN 60")
    m = LazyChainMatcher(p, order=["a", "b"])
    ev = stream("a1@1 b1@2 b2@3")
    per_event = [sorted(x.ids("b") for x in m.feed(e)) for e in ev]
    assert per_event == [[], [("b1",)], [("b1", "b2"), ("b2",)]]


# --------------------------------------------------------------------------- T11: DNF duplicates

def test_t11_dnf_duplicates_and_dedupe():
    p = parse("PATTERN SEQ(A a, OR(B? b, C? c), D d) WITHIN 60")
    assert len(analyse(p).clauses) == 4  # two of them are SEQ(a, d)
    ev = stream("a1@1 d1@2")
    for M in (LazyChainMatcher, LazyTreeMatcher, EagerMatcher):
        kw = {"order": ["d", "a", "b", "c"]} if M is LazyChainMatcher else {}
        assert [m.as_dict() for m in run_all(M(p, dedupe=False, **kw), ev)] == [{"a": ["a1"], "b": [], "c": [],
                                                                               "d": ["d1"]}] * 2
        assert len(run_all(M(p, **kw), ev)) == 1
    g = compile_chain(p).to_networkx()
    assert g.graph["clauses"] == 4 and {"q1", "F", "R"} <= set(g.nodes)
    assert any(n.startswith("c3:") for n in g.nodes)


# --------------------------------------------------------------------------- T12: tree NFA

def test_t12_tree_follows_the_rarest_variable():
    p = parse("""PATTERN SEQ(E a, E b, E c)
                 WHERE a.ticker = 'MSFT' AND b.ticker = 'GOOG' AND c.ticker = 'AAPL' WITHIN 60""")
    tick = {"a": "MSFT", "b": "GOOG", "c": "AAPL"}
    spec = "a1@1 a2@2 b1@3 a3@4 b2@5 a4@6 c1@7"
    rows = [dict(type="E", id=t.split("@")[0], ts=float(t.split("@")[1]), ticker=tick[t[0]]) for t in spec.split()]
    ev = make_stream(rows)
    from engine.trace import Recorder, record

    m = LazyTreeMatcher(p, tracer=Recorder())
    steps = list(record(m, ev))
    log = [(s.step if s.step != "close" else len(ev), mm) for s in steps for mm in s.matches]
    assert {i for i, _ in log} == {6} and len(log) == 5
    assert sorted((tuple(x["match"]["a"]), tuple(x["match"]["b"]), tuple(x["match"]["c"])) for _, x in log) == sorted(
        [(("a1",), ("b1",), ("c1",)), (("a2",), ("b1",), ("c1",)), (("a1",), ("b2",), ("c1",)),
         (("a2",), ("b2",), ("c1",)), (("a3",), ("b2",), ("c1",))])
    assert m.stats.runs_created == 3
    searches = [(s.step, a) for s in steps for a in s.actions if a.kind == "search"]
    rarest = [a.detail["rarest"] for _, a in searches]
    assert rarest[0] == "c" and rarest[1] == "b" and set(rarest[2:]) == {"a"}  # the bold path c, b, a
    assert all(k == 6 for k, _ in searches)  # nothing is searched before c1 arrives
    takes = [a for s in steps for a in s.actions if a.kind == "take"]
    assert [a.to for a in takes][:2] == ["q[c]", "q[c,b]"]
    log = feed_log(LazyTreeMatcher(p), ev)
    # the same matches as the chain (C,B,A) and eager
    assert keys(x for _, x in log) == keys(run_all(LazyChainMatcher(p, order=["c", "b", "a"]), ev)) \
        == keys(run_all(EagerMatcher(p), ev)) == keys(oracle.run(p, ev))


def test_tree_graph_is_the_permutation_tree():
    g = compile_tree(SEQ3).to_networkx()
    internal = [n for n, d in g.nodes(data=True) if d["kind"] in ("initial", "state")]
    assert len(internal) == 10 and {"F", "R"} <= set(g.nodes)  # Fig. 9: 1 + 3 + 6 states
    takes = [(u, v, d) for u, v, d in g.edges(data=True) if d["kind"] == "take"]
    assert sum(1 for u, _, _ in takes if u == "root") == 3
    assert sum(1 for u, _, _ in takes if u == "q[c]") == 2
    into_f = [d for u, v, d in takes if v == "F"]
    assert len(into_f) == 6
    cb = next(d for u, v, d in takes if u == "q[c,b]")
    assert cb["var"] == "a" and cb["succ"] == ["b"] and cb["source"] == "buffer"


# --------------------------------------------------------------------------- T13: skewed stream

def skewed_rows(n, seed=7):
    import random
    r = random.Random(seed)
    rows = []
    for i in range(n):
        u = r.random()
        t = "C" if u < 0.005 else ("A" if u < 0.5025 else "B")
        rows.append(dict(type=t, id=i, ts=i, price=r.randint(1, 100)))
    return make_stream(rows)


def test_t13_skewed_stream_lazy_creates_far_fewer_instances():
    p = parse("PATTERN SEQ(A a, B b, C c) WITHIN 60")
    ev = skewed_rows(3000)
    expected = keys(oracle.run(p, ev[:600]))
    e = EagerMatcher(p)
    eager_out = run_all(e, ev)
    cba = LazyChainMatcher(p, order=["c", "b", "a"])
    alive = []
    out = []
    for x in ev:
        out += cba.feed(x)
        alive.append(cba.stats.runs_alive)
    out += cba.close()
    assert keys(out) == keys(eager_out) and len(out) > 1000
    assert keys(run_all(LazyChainMatcher(p, order=["c", "b", "a"]), ev[:600])) == expected
    assert max(alive) == 0  # no instance alive between events
    assert cba.stats.runs_created * 20 < e.stats.runs_created
    bac = LazyChainMatcher(p, order=["b", "a", "c"])
    assert keys(run_all(bac, ev)) == keys(out)
    assert bac.stats.runs_created > e.stats.runs_created / 3  # a bad order is about as bad as eager
    tree = LazyTreeMatcher(p)
    assert keys(run_all(tree, ev)) == keys(out)
    assert tree.stats.runs_created * 10 < e.stats.runs_created


def test_chain_in_sequence_order_reproduces_eager_instance_counts():
    """Lemma 1 base case: freq = sequence order gives the eager automaton."""
    p = parse("PATTERN SEQ(A a, B b, C c) WHERE a.price < c.price WITHIN 60")
    ev = skewed_rows(800)
    e = EagerMatcher(p)
    c = LazyChainMatcher(p, order=["a", "b", "c"])
    assert keys(run_all(e, ev)) == keys(run_all(c, ev))
    assert c.stats.runs_created == e.stats.runs_created


# --------------------------------------------------------------------------- frequencies and order

def test_rates_estimated_from_a_prefix_and_warmup():
    p = parse("PATTERN SEQ(A a, B b, C c) WHERE b.price > 50 WITHIN 30")
    ev = skewed_rows(1500)
    r = estimate_rates(p, ev[:500])
    assert r["c"] < r["b"] < r["a"]  # b's filter halves B
    m = LazyChainMatcher(p, sample=ev[:500])
    assert m.nfa.plans[0].order == ["c", "b", "a"]
    warm = LazyChainMatcher(p, warmup=200)
    log = feed_log(warm, ev)
    assert warm.nfa.plans[0].order == ["c", "b", "a"]
    assert keys(x for _, x in log) == keys(run_all(EagerMatcher(p), ev))
    for i, x in log:  # never later than the window of the match's first event
        assert i >= x.end_seq
        assert ev[i - 1].ts - x.start < 30 if i > x.end_seq else True


def test_order_validation_and_kleene_forced_last():
    p = parse("PATTERN SEQ(A+ a[], B b, C c) WITHIN 10")
    assert compile_chain(p, order=["a", "b", "c"]).plans[0].order == ["b", "c", "a"]
    with pytest.raises(ValueError, match="unknown"):
        compile_chain(p, order=["zz"])


# --------------------------------------------------------------------------- graphs

def test_chain_graph_states_in_evaluation_order_with_filters():
    g = compile_chain(SEQ3, order=["c", "b", "a"]).to_networkx()
    states = sorted(((d["order"], n, d["var"]) for n, d in g.nodes(data=True) if d["kind"] == "state"))
    assert states == [(1, "q2", "b"), (2, "q3", "a")]
    assert g.nodes["q2"]["reads"] == ["b"] and g.nodes["q3"]["reads"] == ["a"]
    assert set(g.nodes["q1"]["stores"]) == {"a", "b"}
    take = {(u, v): d for u, v, d in g.edges(data=True) if d["kind"] == "take"}
    assert take[("q1", "q2")]["var"] == "c" and take[("q1", "q2")]["source"] == "stream+buffer"
    assert take[("q2", "q3")]["succ"] == ["c"] and take[("q2", "q3")]["source"] == "buffer"
    assert take[("q3", "F")]["succ"] == ["b"] and "b.price > 0" not in take[("q3", "F")]["cond"]
    assert take[("q3", "F")]["filter"] == "a.price > 0" and take[("q3", "F")]["cond"] == "true"
    assert "span < 60" in take[("q2", "q3")]["range"]
    kinds = {d["kind"] for _, _, d in g.edges(data=True)}
    assert {"take", "store", "ignore", "timeout"} <= kinds
    assert g.graph["orders"] == [["c", "b", "a"]]


def test_matchers_expose_their_automaton():
    assert LazyChainMatcher(SEQ3, order=["b", "a", "c"]).nfa.to_networkx().graph["engine"] == "lazy-chain"
    assert LazyTreeMatcher(SEQ3).nfa.to_networkx().graph["engine"] == "lazy-tree"


# --------------------------------------------------------------------------- support, planner, guard, tracer

@pytest.mark.parametrize("text,fragment", [
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match", "skip_till_any_match only"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity", "skip_till_any_match only"),
    ("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP", "NON_OVERLAP"),
])
def test_refusals_are_clear(text, fragment):
    p = parse(text)
    assert fragment in unsupported_reason(p)
    for M in (LazyChainMatcher, LazyTreeMatcher, EagerMatcher):
        with pytest.raises(EngineUnsupported, match=fragment):
            M(p)
    for name in ("lazy-chain", "lazy-tree", "eager"):
        with pytest.raises(EngineUnsupported, match=fragment):
            planner.choose(p, name)


def test_planner_registers_engines_and_prefers_lazy_when_rates_are_known():
    assert {"lazy-chain", "lazy-tree", "eager"} <= set(planner.engine_names())
    prefs = {n: i.preference for n, i in planner.ENGINES.items()}
    assert prefs["nfab"] < prefs["lazy-tree"] < prefs["lazy-chain"] < prefs["eager"] < prefs["oracle"]
    p = parse("PATTERN SEQ(A a, B b, C c) WITHIN 10")
    assert planner.choose(p).name == "nfab"
    assert planner.choose(p, rates={"A": 100, "B": 100, "C": 1}).name == "lazy-chain"
    # with rates known the chain is preferred without Kleene, skewed or not
    assert planner.choose(p, rates={"A": 1, "B": 1.5, "C": 1}).name == "lazy-chain"
    assert planner.choose(parse("PATTERN SEQ(A+ a[], B b) WITHIN 10"), rates={"A": 1, "B": 1}).name == "nfab"
    m = planner.make_matcher(p, rates={"A": 100, "B": 50, "C": 1})
    assert isinstance(m, LazyChainMatcher) and m.nfa.plans[0].order == ["c", "b", "a"]
    assert isinstance(planner.make_matcher(p, "eager", max_runs=10), EagerMatcher)
    chemo = parse("PATTERN SEQ(AND(C c, P+ p[]), B b) WHERE [PID] WITHIN 16 days")
    assert planner.choose(chemo).name == "lazy-tree"  # nfab refuses AND with Kleene


def test_state_guard_names_the_cause():
    rows = [dict(type="A", ts=i, id=i) for i in range(40)] + [dict(type="B", ts=40, id=40)]
    p = parse("PATTERN SEQ(A+ a[], B b) WITHIN 1000")
    with pytest.raises(StateExplosion, match="Kleene `a\\[\\]`"):
        run_all(LazyChainMatcher(p, order=["b", "a"], max_subsets=10_000), make_stream(rows))
    with pytest.raises(StateExplosion, match="Kleene"):
        run_all(EagerMatcher(p, max_runs=5_000), make_stream(rows))
    q = parse("PATTERN AND(A a, B b) WITHIN 1000")
    with pytest.raises(StateExplosion, match="partial matches"):
        run_all(LazyChainMatcher(q, order=["a", "b"], max_instances=20), make_stream(rows))


def test_tracer_receives_one_step_per_event():
    from engine.trace import Recorder, record

    ev = stream("a1@1 a2@2 b1@3 b2@4 c1@5")
    for M, kw in ((LazyChainMatcher, {"order": ["c", "b", "a"]}), (LazyTreeMatcher, {}), (EagerMatcher, {})):
        plain = run_all(M(parse("PATTERN SEQ(A a, B b, C c) WITHIN 60"), **kw), ev)
        steps = list(record(M(parse("PATTERN SEQ(A a, B b, C c) WITHIN 60"), tracer=Recorder(), **kw), ev))
        assert len(steps) == 6
        kinds = {a.kind for s in steps for a in s.actions}
        assert {"take", "match"} <= kinds
        assert sum(1 for s in steps for a in s.actions if a.kind == "match") == len(plain) == 4
        assert [m["match"] for s in steps for m in s.matches] == [m.as_dict() for m in plain]
