"""The lazy chain's fast paths (for throughput) against its general ones.

Without a tracer the chain dispatches a waiting list whose instances all wait in one
single-event step with the stream take inlined (``_dispatch_single``), skips buffer searches
that cannot find anything and keeps no buffer for a variable no state can find anything in.
With a tracer every take goes through ``_take_stream``/``_enter``. Both must give the same
matches in the same order and the same instance and predicate counts; the matches must be
the oracle's."""
from __future__ import annotations

import random

import pytest

from engine.engines.oracle import oracle
from engine.dsl import parse
from engine.events import make_stream
from engine.engines.lazy.chain_matcher import LazyChainMatcher
from engine.trace import Recorder, record

PATTERNS = {
    "ascending": "PATTERN SEQ(A a, A b, A c) WHERE a.p < b.p AND b.p < c.p WITHIN 6",
    "momentum": "PATTERN SEQ(A a, B b, C c) WHERE a.p < b.p AND b.p < c.p AND a.q < b.q AND b.q < c.q WITHIN 8",
    "partition": "PATTERN SEQ(A a, B b, C c) WHERE [k] AND a.p < c.p WITHIN 8",
    "negation": "PATTERN SEQ(A a, !(D d), B b, C c) WHERE a.p < b.p AND d.p > a.p WITHIN 8",
    "trailing negation": "PATTERN SEQ(A a, B b, !(D d)) WHERE a.p < b.p WITHIN 5",
    "count window": "PATTERN SEQ(A a, B b, C c) WHERE a.p <= c.p WITHIN 7 events",
    "filter and constant": "PATTERN SEQ(A a, B b, C c) WHERE a.p > 2 AND b.p < 8 AND a.p < c.p AND c.q != 3 WITHIN 8",
    "or": "PATTERN SEQ(A a, OR(B b, C c), A d) WHERE a.p < d.p WITHIN 6",
}


def stream(seed: int, n: int = 120) -> list:
    rng = random.Random(seed)
    rows = []
    t = 0.0
    for i in range(n):
        t += rng.choice([0.25, 0.5, 1.0])
        row = {"type": rng.choice("AABBCCDE"), "ts": t, "id": i, "p": rng.randint(0, 9), "k": rng.randint(0, 1)}
        if rng.random() < 0.9:  # sometimes missing: the generic comparison's None
            row["q"] = rng.randint(0, 9)
        rows.append(row)
    return make_stream(rows)


def orders(p):
    pos = [c.var for c in p.positive]
    return [pos, list(reversed(pos))]


def stats(m):
    """Counts both paths must share. Not ``runs_alive`` at the end: without a tracer an event
    no variable can take does not time instances out (the next relevant one does), with a
    tracer it does, so the last events may leave different live counts (by design, see
    ``LazyChainMatcher._pass_by``)."""
    s = m.stats
    return (s.matches, s.runs_created, s.runs_peak, s.predicate_evals, s.buffer_entries)


@pytest.mark.parametrize("name", list(PATTERNS))
def test_fast_and_traced_chains_agree_and_match_the_oracle(name):
    p = parse(PATTERNS[name])
    total = 0
    for seed in range(4):
        ev = stream(seed)
        want = sorted(m.key for m in oracle.run(p, ev))
        for order in orders(p):
            fast = LazyChainMatcher(p, order=order)
            got = [m for e in ev for m in fast.feed(e)] + list(fast.close())
            traced = LazyChainMatcher(p, order=order, tracer=Recorder())
            steps = list(record(traced, ev, limit=None))
            assert [m.to_json() for m in got] == [m for s in steps for m in s.matches], (name, seed, order)
            assert sorted(m.key for m in got) == want, (name, seed, order)
            assert stats(fast) == stats(traced), (name, seed, order)
            total += len(got)
    assert total > 0, "the streams should complete some matches"


def test_chain_in_pattern_order_keeps_no_buffers():
    """Each state of SEQ(A, B, C) in pattern order is entered right after a take of the
    newest event by the variable before it: no buffered event could follow, so nothing is
    buffered. In the reverse order B and A are searched in buffers."""
    p = parse(PATTERNS["momentum"])
    ev = stream(1, 300)
    fwd = LazyChainMatcher(p, order=["a", "b", "c"])
    rev = LazyChainMatcher(p, order=["c", "b", "a"])
    out_f = [m.key for e in ev for m in fwd.feed(e)]
    out_r = [m.key for e in ev for m in rev.feed(e)]
    assert sorted(out_f) == sorted(out_r) == sorted(m.key for m in oracle.run(p, ev))
    assert out_f, "the stream should complete some matches"
    assert fwd.stats.buffer_entries == 0 and fwd.stats.buffer_peak == 0
    assert all(v.buf is None for v in fwd.vrts.values())
    assert rev.stats.buffer_entries > 0
    assert rev.vrts["a"].buf is not None and rev.vrts["b"].buf is not None
