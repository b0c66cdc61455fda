"""A-Seq's public entry points (engine/engines/aseq/engine.py: ``AseqMatcher``, ``make_aggregator``,
``rows_for``, ``EMIT_MODES``), which hold the prefix counters of engine/engines/aseq/core.py: every
row on small streams worked out by hand, and on seeded random streams against a brute force written
here (every combination of events in stream order, independent of the engines and the oracle).

Only the names engine.py exports are used, so the counters' module can be reorganised freely."""
from __future__ import annotations

import itertools
import random

import pytest

from engine.dsl import parse
from engine.engines.aseq.engine import EMIT_MODES, AseqMatcher, make_aggregator, rows_for
from engine.match import EngineUnsupported, MatcherBase
from tests.support import stream


def rows(text: str, events, engine: str = "aseq", **options) -> list[tuple]:
    """(ts, event, group, value) of every row ``rows_for`` gives."""
    return [(r.ts, r.event, r.group, r.value) for r in rows_for(parse(text), events, engine, **options)]


# --------------------------------------------------------------------------- hand-checked rows

def test_time_window_rows_at_each_trig_event_and_changes_when_a_start_leaves():
    """W = 3: b1 sees (a1, b1); a1 leaves at 0 + 3 (the value drops to 0); b2 sees (a2, b2) only;
    at the end a2 leaves at 2 + 3."""
    ev = stream("a1@0 b1@1 a2@2 b2@4")
    text = "PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3"
    assert rows(text, ev) == [(1.0, "b1", None, 1), (4.0, "b2", None, 1)]
    assert rows(text, ev, emit="changes") == [
        (1.0, "b1", None, 1), (3.0, None, None, 0), (4.0, "b2", None, 1), (5.0, None, None, 0)]


def test_without_a_window_every_earlier_match_counts():
    """(a1, b1); then (a1, b1), (a1, b2), (a2, b2)."""
    assert rows("PATTERN SEQ(A a, B b) AGG COUNT", stream("a1 b1 a2 b2")) == [
        (1.0, "b1", None, 1), (3.0, "b2", None, 3)]


def test_count_window_in_events():
    """WITHIN 2 events: b2 (position 4) is 2 positions after a2 and 4 after a1: no match is live."""
    assert rows("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 2 events", stream("a1 b1 a2 x1 b2")) == [
        (1.0, "b1", None, 1), (4.0, "b2", None, 0)]


@pytest.mark.parametrize("func,want", [
    ("COUNT", [1, 3]),
    ("SUM(a.x)", [1, 6]),  # 1; 1 + 1 + 4
    ("AVG(a.x)", [1, 2]),  # 1; (1 + 1 + 4) / 3
    ("MAX(a.x)", [1, 4]),
    ("MIN(a.x)", [1, 1]),
])
def test_every_function_over_the_matches_so_far(func, want):
    ev = stream("a1 b1 a2 b2", a1={"x": 1}, a2={"x": 4})
    got = rows(f"PATTERN SEQ(A a, B b) AGG {func}", ev)
    assert [r[1] for r in got] == ["b1", "b2"] and [r[3] for r in got] == want


def test_group_by_a_partition_attribute_keeps_one_value_per_group():
    """Group 1: (a1, b1) = 5, then (a1, b1) + (a1, b3) = 15; group 2: (a2, b2) = 7."""
    ev = stream("a1 a2 b1 b2 b3", a1={"k": 1}, a2={"k": 2}, b1={"k": 1, "x": 5}, b2={"k": 2, "x": 7},
                b3={"k": 1, "x": 10})
    assert rows("PATTERN SEQ(A a, B b) WHERE [k] AGG SUM(b.x) GROUP BY k", ev) == [
        (2.0, "b1", 1, 5), (3.0, "b2", 2, 7), (4.0, "b3", 1, 15)]


def test_negation_between_two_components_resets_the_prefix():
    """c1 between a1 and b1 rules out (a1, b1): only (a2, b1); then (a2, b2) and (a3, b2)."""
    assert rows("PATTERN SEQ(A a, !C c, B b) AGG COUNT", stream("a1 c1 a2 b1 a3 b2")) == [
        (3.0, "b1", None, 1), (5.0, "b2", None, 3)]


def test_rows_for_is_feed_then_close():
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3")
    ev = stream("a1@0 b1@1 a2@2 b2@4")
    m = AseqMatcher(p, emit="changes")
    fed = [r for e in ev for r in m.feed(e)]
    closed = m.close()
    assert [r.to_json() for r in fed + closed] == [r.to_json() for r in rows_for(p, ev, emit="changes")]
    assert [r.event for r in closed] == [None] and closed[0].ts == 5.0


def test_stats_count_events_rows_and_prefix_counters():
    """Without a window one counter vector (DPC); with one, a counter per START (SEM): two START
    events make two, a1's is gone by b2 (peak 2, live 1)."""
    ev = stream("a1@0 b1@1 a2@2 b2@4")
    for text, mode, created, peak in [("PATTERN SEQ(A a, B b) AGG COUNT", "DPC", 1, 1),
                                      ("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3", "SEM", 2, 2)]:
        m = AseqMatcher(parse(text))
        n_rows = sum(len(m.feed(e)) for e in ev) + len(m.close())
        st = m.stats
        assert (st.events, st.extra["rows"], n_rows) == (4, 2, 2)
        assert st.extra["mode"] == mode and st.runs_created == created and st.extra["prefix_counters_peak"] == peak
        assert st.runs_alive == st.extra["prefix_counters_live"] == 1


# --------------------------------------------------------------------------- entry points

def test_make_aggregator_picks_aseq_the_baseline_or_another_engines_matches():
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3")
    ev = stream("a1@0 b1@1 a2@2 b2@4")
    assert type(make_aggregator(p)) is AseqMatcher and type(make_aggregator(p, "aseq")) is AseqMatcher
    for engine in ("aseq-baseline", "nfab", "oracle"):
        m = make_aggregator(p, engine)
        assert not isinstance(m, AseqMatcher) and isinstance(m, MatcherBase)
        assert rows("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 3", ev, engine) == [
            (1.0, "b1", None, 1), (4.0, "b2", None, 1)], engine


def test_emit_modes_and_a_wrong_one_refused():
    assert EMIT_MODES == ("trig", "changes")
    with pytest.raises(ValueError, match="trig, changes"):
        AseqMatcher(parse("PATTERN SEQ(A a, B b) AGG COUNT"), emit="every")


def test_a_pattern_without_agg_is_refused():
    with pytest.raises(EngineUnsupported, match="AGG"):
        AseqMatcher(parse("PATTERN SEQ(A a, B b)"))


def test_kleene_runs_on_the_baseline_with_its_reason_and_the_right_count():
    """B+ over b1 b2 (any subsequence): {b1}, {b2}, {b1, b2}: 3 matches at c1."""
    m = AseqMatcher(parse("PATTERN SEQ(A a, B+ b[], C c) AGG COUNT"))
    assert "Kleene" in m.fallback and m.stats.extra["fallback"] == m.fallback
    assert rows("PATTERN SEQ(A a, B+ b[], C c) AGG COUNT", stream("a1 b1 b2 c1")) == [(3.0, "c1", None, 3)]


# --------------------------------------------------------------------------- against a brute force

def brute_force(events, types: list[str], negated: dict[int, str], window: float | None,
                attr: tuple[int, str] | None) -> list[tuple]:
    """(event id, value) at every event of the last type: COUNT (``attr`` None) or SUM of
    ``attr`` = (position, attribute) over every match (one event per type, in stream order, no
    event of ``negated[j]`` between positions j - 1 and j) whose events are at or before it and
    whose first event is less than ``window`` before it."""
    out = []
    for i, now in enumerate(events):
        if now.type != types[-1]:
            continue
        total = 0
        candidates = [[k for k in range(i + 1) if events[k].type == t] for t in types]
        for combo in itertools.product(*candidates):
            if any(a >= b for a, b in zip(combo, combo[1:])):
                continue
            if window is not None and not now.ts - events[combo[0]].ts < window:
                continue
            if any(any(events[k].type == kind for k in range(combo[j - 1] + 1, combo[j]))
                   for j, kind in negated.items()):
                continue
            total += 1 if attr is None else events[combo[attr[0]]].get(attr[1])
        out.append((now.id, total))
    return out


def random_stream(seed: int, n: int = 24):
    rng = random.Random(seed)
    tokens, attrs = [], {}
    ts = 0
    for i in range(n):
        ts += rng.choice([1, 1, 2, 3])
        name = f"{rng.choice('aabbcn')}{i}"
        tokens.append(f"{name}@{ts}")
        attrs[name] = {"x": rng.randint(-5, 9)}
    return stream(" ".join(tokens), **attrs)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("text,types,negated,window,attr", [
    ("PATTERN SEQ(A a, B b, C c) AGG COUNT", ["A", "B", "C"], {}, None, None),
    ("PATTERN SEQ(A a, B b, C c) AGG COUNT WITHIN 9", ["A", "B", "C"], {}, 9, None),
    ("PATTERN SEQ(A a, B b, C c) AGG SUM(b.x) WITHIN 12", ["A", "B", "C"], {}, 12, (1, "x")),
    ("PATTERN SEQ(A a, !N n, B b, C c) AGG COUNT WITHIN 10", ["A", "B", "C"], {1: "N"}, 10, None),
    ("PATTERN SEQ(A a, C c) AGG SUM(a.x)", ["A", "C"], {}, None, (0, "x")),
])
def test_rows_equal_the_brute_force(seed, text, types, negated, window, attr):
    ev = random_stream(seed)
    want = brute_force(ev, types, negated, window, attr)
    got = [(r.event, r.value) for r in rows_for(parse(text), ev)]
    assert got == want
