"""The eager NFA baseline (papers/lazy-chain-nfa.md §2.1): instance counts of the SEQ
chain, the AND subset lattice and Kleene take self-loops, and agreement with NFA^b under
skip_till_any_match on the SASE+ stock example."""
from __future__ import annotations

import sample_streams
from engine.engines.oracle import oracle
from engine.dsl import parse
from engine.events import make_stream
from engine.match import run_all
from engine.engines.lazy.eager_matcher import EagerMatcher
from engine.engines.nfab.matcher import NfabMatcher

STOCK = sample_streams.events("stocks_sase")
Q3_ANY = sample_streams.load("stocks_sase").presets["stock_trend_any"]


def test_sase_stock_example_same_runs_as_nfab_without_merging():
    """SASE+ Q3 under skip_till_any_match: 68 matches; the live instances grow as the
    unmerged NFA^b's runs (1, 2, 5, 10, 18, 36, 68, 132)."""
    p = parse(Q3_ANY)
    e = EagerMatcher(p)
    counts, out = [], []
    for x in STOCK:
        out += e.feed(x)
        counts.append(e.stats.runs_alive)
    out += e.close()
    assert len(out) == 68 and {m.key for m in out} == {m.key for m in oracle.run(p, STOCK)}
    assert counts == [1, 2, 5, 10, 18, 36, 68, 132]
    assert {m.key for m in out} == {m.key for m in run_all(NfabMatcher(p), STOCK)}


def test_and_lattice_instances():
    """AND of 3 over one event of each type: the 2^3 - 2 proper non-empty subsets are the
    instances (the full set is F)."""
    p = parse("PATTERN AND(A a, B b, C c)")
    ev = make_stream([dict(type=t, ts=i, id=i) for i, t in enumerate("CAB")])
    e = EagerMatcher(p)
    assert len(run_all(e, ev)) == 1
    assert e.stats.runs_created == 6


def test_kleene_take_self_loop_clones_every_subset():
    p = parse("PATTERN SEQ(A a, B+ b[], C c)")
    ev = make_stream([dict(type=t, ts=i, id=f"{t}{i}") for i, t in enumerate("ABBBC")])
    e = EagerMatcher(p)
    assert len(run_all(e, ev)) == 7
    assert e.stats.runs_created == 1 + 7  # {a}, then one instance per non-empty subset of b's


def test_window_timeout_drops_instances():
    p = parse("PATTERN SEQ(A a, B b) WITHIN 5")
    ev = make_stream([dict(type="A", ts=0, id=1), dict(type="A", ts=3, id=2), dict(type="C", ts=7, id=3)])
    e = EagerMatcher(p)
    run_all(e, ev)
    assert e.stats.runs_peak == 2 and e.stats.runs_alive == 1  # a@0 timed out at ts 7
