"""Algorithm 1's batch step for one window of an event set (``engine/engines/windows/batch.py``)
equals feeding event by event and the oracle.

Event-set patterns (``AND`` of 1-4 variables, one event type or several, hashed and other
properties, relationships, every selection, time and count windows) on random streams with ties,
float times whose differences round, and missing or unhashable values, fed in random chunks:
the batch step must apply, and give the same matches in the same order, the same statistics
(windows completed, each condition's failures, passes, calls, peak buffered), the same window
left behind (events, coordinates, bits, counters, candidates, β_s, marks) and, for the
selected matches, the oracle's. The guard's limit inside a batch, decreasing coordinates and a
trace leave the batch to the per-event step.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.dsl import parse
from engine.engines.oracle import oracle
from engine.engines.oracle.oracle import OracleTooLarge
from engine.engines.windows.algorithm import Techniques
from engine.engines.windows.batch import _completions, batch_applies, only_attribute
from engine.events.event_columns import EventColumns
from engine.engines.windows.matcher import MatchWindowMatcher
from engine.events import make_stream
from engine.match import StateExplosion
from engine.model import PatternError

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=150)
SELECTIONS = ["", "earliest", "maximal", "earliest_maximal"]


@st.composite
def set_patterns(draw: st.DrawFn, one_attribute: bool = False) -> object:
    n = draw(st.integers(1, 4))
    names = "abcd"[:n]
    one_type = draw(st.booleans())
    types = ["A"] * n if one_type else [draw(st.sampled_from(["A", "B"])) for _ in names]
    kleene = [draw(st.integers(0, 3)) == 0 for _ in names]
    comps = [f"{t}{'+' if kl else ''} {v}{'[]' if kl else ''}" for t, v, kl in zip(types, names, kleene)]
    body = f"AND({', '.join(comps)})" if n > 1 else f"SEQ({comps[0]})"
    conj = []
    sel = draw(st.sampled_from(SELECTIONS))
    if sel:
        conj.append(sel)
    for v in names:
        if draw(st.integers(0, 4)):
            conj.append(f"{v}.k = {draw(st.sampled_from(['p', 'q']))!r}")
        if draw(st.integers(0, 3)) == 0 and not one_attribute:
            conj.append(f"{v}.y > {draw(st.integers(0, 2))}")
        elif draw(st.integers(0, 3)) == 0:
            conj.append(f"{v}.k != 'r'")
    if n > 1 and draw(st.integers(0, 3)) == 0:
        conj.append(f"{names[0]}.y <= {names[1]}.y")
    where = f" WHERE {' AND '.join(conj)}" if conj else ""
    window = draw(st.sampled_from(["1", "2", "3", "0.3", "0.7", "3 events", "5 events"]))
    try:
        return parse(f"PATTERN {body}{where} WITHIN {window}")
    except PatternError:
        assume(False)


@st.composite
def streams(draw: st.DrawFn, max_size: int = 24) -> list:
    n = draw(st.integers(1, max_size))
    rows = []
    ts = draw(st.sampled_from([0.0, 1.0, 0.1]))
    for i in range(n):
        ts += draw(st.sampled_from([0, 0.1, 0.2, 0.3, 1, 1]))  # float steps: differences that round
        row = {"id": i + 1, "type": draw(st.sampled_from(["A", "A", "B", "C"])), "ts": ts,
               "y": draw(st.integers(0, 3))}
        k = draw(st.sampled_from(["p", "q", "r", "missing", "list"]))
        if k == "list":
            row["k"] = ["p"]
        elif k != "missing":
            row["k"] = k
        rows.append(row)
    return make_stream(rows)


def _window_state(m: MatchWindowMatcher) -> list:
    out = []
    for key, kw in m.algo.windows.items():
        st_ = kw.one
        out.append((key, [e.id for e in kw.events], list(kw.coords), list(kw.bits), list(kw.marks),
                    list(st_.cnt), list(st_.cand), list(st_.epoch), st_.beta_s))
    return out


def _run(p, events, chunks=None, tech=Techniques()):
    m = MatchWindowMatcher(p, techniques=tech)
    out = []
    states = []
    if chunks is None:
        for e in events:
            out.extend(m.feed(e))
    else:
        i = 0
        for size in chunks:
            m.feed_many(events[i:i + size], out)
            i += size
            states.append(_window_state(m))
        m.feed_many(events[i:], out)
    states.append(_window_state(m))
    stats = m.algo.stats.as_dict()
    left = _window_state(m)
    out.extend(m.close())
    return [x.key for x in out], stats, m.algo.stats.as_dict(), left, m


@settings(**SETTINGS)
@given(p=set_patterns(), events=streams(), chunks=st.lists(st.integers(0, 9), max_size=4))
def test_batch_step_equals_feeding_event_by_event_and_the_oracle(p, events, chunks):
    assert batch_applies(MatchWindowMatcher(p).algo)
    try:
        one = _run(p, events)
        many = _run(p, events, chunks)
    except StateExplosion:
        assume(False)
    assert one[:4] == many[:4]  # matches in order, statistics before and after the drain, window left
    try:
        want = oracle.run(p, events)
    except OracleTooLarge:
        return
    assert sorted(one[0]) == sorted(m.key for m in want)


@settings(**SETTINGS)
@given(p=set_patterns(), events=streams(max_size=30), cut=st.integers(0, 30))
def test_every_window_state_between_batches_is_the_per_event_one(p, events, cut):
    """The window after a first batch, then the rest fed event by event: as if all went one by one."""
    try:
        one = _run(p, events)
        m = MatchWindowMatcher(p)
        out = m.feed_many(events[:cut])
        for e in events[cut:]:
            out.extend(m.feed(e))
        stats = m.algo.stats.as_dict()
        out.extend(m.close())
    except StateExplosion:
        assume(False)
    assert [x.key for x in out] == one[0] and stats == one[1]


@pytest.mark.parametrize("size,held,coords", [
    (0.3, 0, [0.1, 0.2, 0.30000000000000004, 0.4, 0.5]),
    (0.3, 2, [0.0, 0.1, 0.3, 0.3, 0.3, 0.6]),
    (1.0, 1, [0.0, 0.0, 0.0, 1.0, 1.0]),
    (2.0, 0, [5.0]),
    (0.7, 3, [0.1, 0.2, 0.8, 0.8000000000000002, 0.9, 1.5]),
    (0.7, 0, [0.3, 0.9999999999999999, 1.0]),  # 0.9999999999999999 - 0.3 >= 0.7 although it is < 0.3 + 0.7
])
def test_completions_are_the_per_event_test(size, held, coords):
    """The first later arrival (not before ``held``) at which ``now - first >= size``, by the
    same float subtraction the per-event step does."""
    import numpy as np

    ends = _completions(np.array(coords), size, held).tolist()
    for i, end in enumerate(ends):
        want = next((a for a in range(max(i + 1, held), len(coords)) if coords[a] - coords[i] >= size), len(coords))
        assert end == want


def test_the_batch_applies_only_to_one_window_of_an_event_set():
    def applies(text, **kw):
        return batch_applies(MatchWindowMatcher(parse(text), **kw).algo)

    assert applies("PATTERN AND(A a, B b) WHERE a.k = 'p' WITHIN 3")
    assert applies("PATTERN AND(A a, A b) WHERE earliest_maximal AND a.k = 'p' AND b.k = 'q' WITHIN 3 events")
    assert not applies("PATTERN SEQ(A a, B b) WITHIN 3")  # b has a predecessor: its counter can be reset
    assert not applies("PATTERN AND(A a, B b) WHERE [k] WITHIN 3")  # a window per key
    assert not applies("PATTERN AND(A a, B b) WITHIN 3", nmc=False)
    assert not applies("PATTERN AND(A a, B b) WITHIN 3", filter=False)
    assert not applies("PATTERN AND(A a, B b) WITHIN 3", literal=True)


def test_the_guard_inside_a_batch_fires_at_the_same_event():
    p = parse("PATTERN AND(A a, B b) WHERE a.k = 'p' AND b.k = 'q' WITHIN 100")
    events = make_stream([{"id": i, "type": "A" if i % 2 else "B", "ts": float(i), "k": "p" if i % 2 else "q"}
                          for i in range(40)])
    got = []
    for feed_many in (False, True):
        m = MatchWindowMatcher(p, max_runs=10)
        with pytest.raises(StateExplosion) as err:
            if feed_many:
                m.feed_many(events)
            else:
                for e in events:
                    m.feed(e)
        got.append((str(err.value), m.algo.stats.as_dict()))
    assert got[0] == got[1]


def test_decreasing_times_go_event_by_event():
    p = parse("PATTERN AND(A a, B b) WITHIN 2")
    from engine.events import Event

    events = [Event(id=i, type=t, ts=ts, seq=i) for i, (t, ts) in enumerate([("A", 3.0), ("B", 1.0), ("A", 5.0),
                                                                                ("B", 5.5), ("A", 9.0)])]
    one = MatchWindowMatcher(p)
    a = [x.key for e in events for x in one.feed(e)] + [x.key for x in one.close()]
    many = MatchWindowMatcher(p)
    b = [x.key for x in many.feed_many(events)] + [x.key for x in many.close()]
    assert a == b and one.algo.stats.as_dict() == many.algo.stats.as_dict()


def _columns(events) -> EventColumns:
    names = sorted({k for e in events for k in e.attrs})
    return EventColumns([e.id for e in events], [e.type for e in events], [e.ts for e in events],
                        [e.seq for e in events], names, [[e.attrs.get(n) for e in events] for n in names])


def _attrs(e):
    return {k: (type(v).__name__, repr(v)) for k, v in e.attrs.items()}


@settings(**SETTINGS)
@given(p=set_patterns(one_attribute=True), events=streams(max_size=30), size=st.integers(1, 12))
def test_columns_build_only_what_a_reads_and_match_as_events(p, events, size):
    """``feed_columns`` over an ``EventColumns`` (as ``cep run`` feeds it): the matches (with
    their events' values), statistics and window of feeding every event, and the columns are not
    built as a whole."""
    m = MatchWindowMatcher(p)
    reads = only_attribute(m.algo)
    assert reads in ("k", None)
    columns = _columns(events)
    try:
        one = _run(p, events)
        out = []
        for lo in range(0, len(events), size):
            m.feed_columns(columns, lo, min(len(events), lo + size), out)
        stats = m.algo.stats.as_dict()
        left = _window_state(m)
        held = [e for kw in m.algo.windows.values() for e in kw.events]
        out.extend(m.close())
    except StateExplosion:
        assume(False)
    assert [x.key for x in out] == one[0] and stats == one[1] and left == one[3]
    assert columns.built is (reads is None)  # (None: the chunks' events are built and fed)
    by_id = {e.id: e for e in events}
    for e in held:  # the events built for the window: as the loader builds them
        assert (e.type, e.ts, e.seq, _attrs(e)) == (by_id[e.id].type, by_id[e.id].ts, by_id[e.id].seq,
                                                    _attrs(by_id[e.id]))


def test_only_attribute_is_the_one_attribute_every_property_reads():
    def attribute(text):
        return only_attribute(MatchWindowMatcher(parse(text)).algo)

    assert attribute("PATTERN AND(A a, B b) WHERE a.k = 'p' AND b.k != 'q' WITHIN 3") == "k"
    assert attribute("PATTERN AND(A a, B b) WHERE a.k = 'p' AND b.y > 1 WITHIN 3") is None
    assert attribute("PATTERN AND(A a, B b) WITHIN 3") is None
    assert attribute("PATTERN AND(A a, ANY b) WHERE a.k = 'p' AND b.k = 'p' WITHIN 3") is None
    assert attribute("PATTERN AND(A a, B b) WHERE a.id = 3 WITHIN 3") is None
