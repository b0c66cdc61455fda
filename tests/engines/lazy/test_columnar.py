"""The lazy chain's columnar path (engine/engines/lazy/columnar.py) against the chain fed one
event at a time and against the oracle: the same matches in the same order, for every chunking,
on random fixed-length SEQ patterns and streams with numbers, big integers, strings and missing
values; which patterns it takes; counting; the state guard."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dsl import parse
from engine.engines.lazy.chain_matcher import LazyChainMatcher
from engine.engines.lazy.columnar import columnar_plan
from engine.engines.lazy.chain_compiler import analyse
from engine.engines.oracle import oracle
from engine.events import make_stream
from engine.match import StateExplosion, sort_matches

TYPES = ["A", "B", "C"]
OPS = ["<", "<=", ">", ">=", "=", "!="]
VALUES = st.one_of(st.integers(0, 4), st.sampled_from([0.5, 2.0, 2 ** 60 + 1, 2 ** 60, "p", "q", None, True]))


@st.composite
def seq_patterns(draw: st.DrawFn) -> str:
    n = draw(st.integers(2, 4))
    names = ["a", "b", "c", "d"][:n]
    comps = ", ".join(f"{draw(st.sampled_from(TYPES + ['ANY']))} {v}" for v in names)
    conds = ["skip_till_any_match"]
    for _ in range(draw(st.integers(0, 3))):
        u, w = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        conds.append(f"{u}.{draw(st.sampled_from(['x', 'y']))} {draw(st.sampled_from(OPS))} "
                     f"{w}.{draw(st.sampled_from(['x', 'y', 'ts']))}")
    if draw(st.booleans()):
        conds.append(f"{draw(st.sampled_from(names))}.x {draw(st.sampled_from(OPS))} {draw(st.integers(0, 4))}")
    if draw(st.booleans()):
        conds.append("[k]")
    unit = draw(st.sampled_from(["", " events"]))
    window = draw(st.integers(1, 8))
    return f"PATTERN SEQ({comps}) WHERE {' AND '.join(conds)} WITHIN {window}{unit}"


@st.composite
def streams(draw: st.DrawFn) -> list:
    n = draw(st.integers(0, 40))
    rows, ts = [], 1.0
    for i in range(n):
        ts += draw(st.sampled_from([0, 0.5, 1, 1, 2, 3]))
        row = {"id": f"e{i}", "type": draw(st.sampled_from(TYPES)), "ts": ts, "k": draw(st.sampled_from(["p", "q"]))}
        for a in ("x", "y"):
            v = draw(VALUES)
            if v is not None or draw(st.booleans()):
                row[a] = v
        rows.append(row)
    return make_stream(rows)


def one_by_one(pattern, events, **kw) -> list:
    m = LazyChainMatcher(pattern, rates={"A": 1, "B": 2, "C": 3}, **kw)
    return [x for e in events for x in m.feed(e)] + list(m.close())


def chunked(pattern, events, size: int, **kw) -> tuple[list, LazyChainMatcher]:
    m = LazyChainMatcher(pattern, rates={"A": 1, "B": 2, "C": 3}, **kw)
    out: list = []
    for i in range(0, len(events), size):
        m.feed_many(events[i:i + size], out)
    out.extend(m.close())
    return out, m


@settings(max_examples=100, deadline=None)
@given(seq_patterns(), streams(), st.integers(1, 12))
def test_columnar_equals_the_chain_one_event_at_a_time_and_the_oracle(text, events, size):
    pattern = parse(text)
    info = analyse(pattern)
    assert columnar_plan(info, {}) is not None, text
    want = one_by_one(pattern, events)
    got, m = chunked(pattern, events, size)
    assert (m._columnar is not None) == bool(events)
    assert got == want, text
    assert sorted(x.key for x in got) == sorted(x.key for x in oracle.run(pattern, events))
    counted, mc = chunked(pattern, events, size, count_only=True)
    assert counted == [] and mc.counted == len(want)


def test_order_is_by_the_completing_event_then_the_variables_in_pattern_order():
    rows = [{"id": i, "type": t, "ts": float(i), "x": x} for i, (t, x) in
            enumerate([("A", 1), ("A", 2), ("B", 3), ("B", 4), ("C", 5)])]
    events = make_stream(rows)
    pattern = parse("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match AND a.x < c.x WITHIN 10")
    got, _ = chunked(pattern, events, 100)
    assert [(x.ids("a")[0], x.ids("b")[0]) for x in got] == [(0, 2), (0, 3), (1, 2), (1, 3)]
    assert got == one_by_one(pattern, events) == sort_matches(got)


@pytest.mark.parametrize("text", [
    "PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_any_match WITHIN 5",
    "PATTERN SEQ(A a, !(B b), C c) WHERE skip_till_any_match WITHIN 5",
    "PATTERN SEQ(A a, B? b, C c) WHERE skip_till_any_match WITHIN 5",
    "PATTERN AND(A a, B b) WHERE skip_till_any_match WITHIN 5",
    "PATTERN SEQ(A a, C c) WHERE skip_till_any_match AND a.x + 1 < c.x WITHIN 5",
    "PATTERN SEQ(A a, C c) WHERE skip_till_any_match AND (a.x < c.x OR a.y < c.y) WITHIN 5",
    "PATTERN SEQ(A a, C c) WHERE skip_till_any_match",
])
def test_other_patterns_stay_on_the_event_at_a_time_chain(text):
    pattern = parse(text)
    assert columnar_plan(analyse(pattern), {}) is None
    rng = random.Random(3)
    events = make_stream([{"id": i, "type": rng.choice(TYPES), "ts": float(i), "x": rng.randint(0, 3),
                           "y": rng.randint(0, 3)} for i in range(60)])
    got, m = chunked(pattern, events, 7)
    assert m._columnar is None and got == one_by_one(pattern, events)


def test_a_matcher_fed_one_event_first_stays_on_the_chain():
    pattern = parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 5")
    events = make_stream([{"id": i, "type": "AB"[i % 2], "ts": float(i)} for i in range(20)])
    m = LazyChainMatcher(pattern, rates={"A": 1, "B": 1})
    out = list(m.feed(events[0]))
    m.feed_many(events[1:], out)
    assert m._columnar is None and out + list(m.close()) == one_by_one(pattern, events)


def test_chunked_then_one_event_goes_on_the_columnar_way_and_refuses_a_tracer():
    pattern = parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 5")
    events = make_stream([{"id": i, "type": "AB"[i % 2], "ts": float(i)} for i in range(20)])
    m = LazyChainMatcher(pattern, rates={"A": 1, "B": 1})
    out: list = []
    m.feed_many(events[:10], out)
    for e in events[10:]:
        out.extend(m.feed(e))
    assert out + list(m.close()) == one_by_one(pattern, events)
    with pytest.raises(RuntimeError, match="columnar"):
        m.attach_tracer(object())


def test_runaway_output_is_stopped_with_the_guard_message():
    pattern = parse("PATTERN SEQ(A a, A b, A c) WHERE skip_till_any_match WITHIN 1000")
    events = make_stream([{"id": i, "type": "A", "ts": float(i)} for i in range(400)])
    m = LazyChainMatcher(pattern, rates={"A": 1}, max_work=30_000, max_instances=50_000)
    with pytest.raises(StateExplosion, match="state explosion in `lazy-chain`"):
        m.feed_many(events, [])


def test_the_window_holds_exactly_what_the_chain_holds_in_floats():
    # coordinates where last - W rounds: 0.1 + 0.2 style sums
    ts = [0.1, 0.2, 0.30000000000000004, 0.3, 0.4, 0.7, 1.0000000000000002]
    events = make_stream([{"id": i, "type": "AB"[i % 2], "ts": t} for i, t in enumerate(sorted(ts))])
    for w in ("0.3", "0.6", "0.9", "0.2"):
        pattern = parse(f"PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN {w}")
        got, _ = chunked(pattern, events, 2)
        assert got == one_by_one(pattern, events), w


def test_events_loaded_as_columns_are_matched_without_building_them(tmp_path):
    from engine.events import load_events
    from engine.events.event_columns import EventColumns

    rng = random.Random(7)
    lines = ["id,type,ts,x,y"] + [f"{i},{rng.choice(TYPES)},{i // 2},{rng.randint(0, 5)},"
                                  f"{rng.choice(['', '1', '2.5', 'z'])}" for i in range(3000)]
    path = tmp_path / "s.csv"
    path.write_text("\n".join(lines) + "\n")
    pattern = parse("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match AND a.x < b.x AND b.y != c.x "
                    "AND a.x > 0 WITHIN 6")
    loaded = load_events(path, lazy=True)
    assert isinstance(loaded.events, EventColumns) and not loaded.events.built
    m = LazyChainMatcher(pattern, rates={"A": 1, "B": 2, "C": 3})
    got: list = []
    for lo in range(0, len(loaded.events), 500):
        m.feed_columns(loaded.events, lo, min(len(loaded.events), lo + 500), got)
    assert not loaded.events.built
    assert got and got == one_by_one(pattern, load_events(path).events)
