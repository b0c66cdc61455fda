"""The fast paths of Algorithm 1 equal its reference forms (engine/engines/windows/beta.py):

- the compiled β_e (``WindowPlan.beta``) equals ``WindowPlan.bits`` and the definition
  (θ^p_v of each variable, ``VarSpec.fits``) on every event, with hashed equality
  properties, built-in attributes, missing and unhashable values and ``ANY`` variables;
- the step without a trace (the compiled gate) gives the same matches in the same order
  and the same statistics as the traced step (the method ``feed``);
- ``feed_many`` (the batch prefilter) equals ``feed`` event by event, in any chunking;
- the matcher still pickles (Spark streaming keeps it between micro-batches).
"""
from __future__ import annotations

import itertools

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pyspark import cloudpickle  # what engine/spark/streaming.py pickles the matcher with

from engine.dsl import parse
from engine.events import make_stream
from engine.match import StateExplosion
from engine.model import PatternError
from engine.trace import Recorder
from engine.engines.windows.matcher import MatchWindowMatcher
from engine.engines.windows.algorithm import Techniques
from engine.engines.windows.analysis import analyse

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=120)
# every combination, and f+p+c (the fast gate and prefilter run with filtering on) more often
ALL_TECHNIQUES = [Techniques(f, p, c) for f, p, c in itertools.product((False, True), repeat=3)] + [Techniques()] * 4
SELECTIONS = ["", "earliest", "maximal", "earliest_maximal"]


@st.composite
def fast_patterns(draw):
    """SES-like patterns whose variables often share a hashed equality property (``v.k =
    'p'``, ``v.x = 2``, ``v.id = 3``), sometimes with a second property, an ``ANY``
    variable, a relationship or a partition."""
    n = draw(st.integers(1, 4))
    names = "abcd"[:n]
    one_type = draw(st.booleans())  # the benchmark's shape: one event type, a hashed attribute
    types = ["A"] * n if one_type else [draw(st.sampled_from(["A", "A", "B", "ANY"])) for _ in names]
    kleene = [draw(st.integers(0, 3)) == 0 for _ in names]
    comps = [f"{t}{'+' if kl else ''} {v}{'[]' if kl else ''}" for t, v, kl in zip(types, names, kleene)]
    shape = draw(st.sampled_from(["SEQ", "AND", "MIX"]))
    if n == 1:
        body = f"SEQ({comps[0]})"
    elif shape == "MIX":
        cut = draw(st.integers(1, n - 1))
        left = comps[:cut] if cut > 1 else comps[:1]
        right = comps[cut:]
        lt = f"AND({', '.join(left)})" if len(left) > 1 else left[0]
        rt = f"AND({', '.join(right)})" if len(right) > 1 else right[0]
        body = f"SEQ({lt}, {rt})"
    else:
        body = f"{shape}({', '.join(comps)})"
    attr = draw(st.sampled_from(["k", "x", "k", "x", "id"]))
    conj = []
    sel = draw(st.sampled_from(SELECTIONS))
    if sel:
        conj.append(sel)
    if draw(st.booleans()):
        conj.append("[k]")
    for v in names:
        if draw(st.integers(0, 4)):
            val = draw(st.sampled_from(["'p'", "'q'"])) if attr == "k" else str(draw(st.integers(0, 3)))
            conj.append(f"{v}.{attr} = {val}")
        if draw(st.integers(0, 3)) == 0:
            conj.append(f"{v}.y > {draw(st.integers(0, 2))}")
    if n > 1 and draw(st.integers(0, 3)) == 0:
        conj.append(f"{names[0]}.y <= {names[1]}.y")
    where = f" WHERE {' AND '.join(conj)}" if conj else ""
    text = f"PATTERN {body}{where} WITHIN {draw(st.integers(1, 6))}"
    try:
        return parse(text)
    except PatternError:
        assume(False)


@st.composite
def fast_streams(draw, max_size=12):
    """Events of types A/B/C with x, y, k; an attribute may be missing or unhashable."""
    n = draw(st.integers(1, max_size))
    rows = []
    ts = 1
    for i in range(n):
        ts += draw(st.sampled_from([0, 1, 1, 2]))
        row = {"id": i + 1, "type": draw(st.sampled_from(["A", "A", "B", "C"])), "ts": ts,
               "y": draw(st.integers(0, 3))}
        x = draw(st.sampled_from(["int", "int", "missing", "list"]))
        if x == "int":
            row["x"] = draw(st.integers(0, 3))
        elif x == "list":
            row["x"] = [draw(st.integers(0, 3))]
        if draw(st.integers(0, 4)):
            row["k"] = draw(st.sampled_from(["p", "q", "r"]))
        rows.append(row)
    return make_stream(rows)


def _run(p, events, tech, *, traced=False, chunks=None):
    m = MatchWindowMatcher(p, techniques=tech, tracer=Recorder() if traced else None)
    out = []
    if chunks is None:
        for e in events:
            out.extend(m.feed(e))
    else:
        i = 0
        for size in chunks:
            out.extend(m.feed_many(events[i:i + size]))
            i += size
        out.extend(m.feed_many(events[i:]))
    out.extend(m.close())
    return [x.key for x in out], m.algo.stats.as_dict()


@settings(**SETTINGS)
@given(p=fast_patterns(), events=fast_streams())
def test_compiled_beta_equals_the_reference_and_the_definition(p, events):
    plan = analyse(p)
    for e in events:
        want = 0
        for v in plan.vars:
            if v.fits(e):
                want |= 1 << v.bit
        assert plan.bits(e) == want
        assert plan.beta(e) == want


@settings(**SETTINGS)
@given(p=fast_patterns(), events=fast_streams(), tech=st.sampled_from(ALL_TECHNIQUES))
def test_step_without_trace_equals_the_traced_step(p, events, tech):
    try:
        plain = _run(p, events, tech)
        traced = _run(p, events, tech, traced=True)
    except StateExplosion:
        assume(False)
    assert plain == traced


@settings(**SETTINGS)
@given(p=fast_patterns(), events=fast_streams(max_size=16), tech=st.sampled_from(ALL_TECHNIQUES),
       chunks=st.lists(st.integers(0, 6), max_size=4))
def test_feed_many_equals_feed_event_by_event(p, events, tech, chunks):
    try:
        one = _run(p, events, tech)
        many = _run(p, events, tech, chunks=chunks)
    except StateExplosion:
        assume(False)
    assert one == many


def test_prefilter_keeps_every_event_that_fits_on_a_trade_stream():
    """The hashed shape of the benchmark (one type, ``ticker`` hashed): the batch keeps
    exactly the events of the pattern's tickers, and the matcher pickles mid-stream."""
    rows = [{"id": i, "type": "Trade", "ts": i, "ticker": t, "price": float(i)}
            for i, t in enumerate(["A", "B", "C", "A", "D", "B", "A", "C"] * 3)]
    events = make_stream(rows)
    p = parse("PATTERN AND(Trade a, Trade b) WHERE earliest_maximal AND a.ticker = 'A' AND b.ticker = 'B' WITHIN 4")
    plan = analyse(p)
    pre = plan.prefilter()
    assert pre is not None
    assert [e.id for e in pre(events)] == [e.id for e in events if e.attrs["ticker"] in ("A", "B")]
    m = MatchWindowMatcher(p)
    first = m.feed_many(events[:10])
    m2 = cloudpickle.loads(cloudpickle.dumps(m))
    rest = m2.feed_many(events[10:]) + m2.close()
    ref = MatchWindowMatcher(p, tracer=Recorder())
    want = [x for e in events for x in ref.feed(e)] + ref.close()
    assert [x.key for x in first + rest] == [x.key for x in want] and want
    assert m2.algo.stats.as_dict() == ref.algo.stats.as_dict()
