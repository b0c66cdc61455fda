"""engine.engines.aseq.shared_starts and shared_feed: counters shared across STARTs give
exactly what one counter vector per START gives (rows, ``--emit changes``, totals, the
guard's counts), on random patterns, streams and workloads, across many flips, and when a
tracer or a view turns them back into per-START trees mid-stream."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from engine.dsl import parse
from engine.events import Event, make_stream
from engine.engines.aseq.engine import AseqMatcher, rows_for
from engine.engines.aseq.shared_starts import StartMark, StartPool, apply_ops
from engine.engines.aseq.workload import Query, WorkloadMatcher
from tests.engines.aseq.test_properties import SETTINGS, patterns, streams, workloads


def _rows(p, ev, **options):
    return [(r.ts, r.event, r.group, repr(r.value)) for r in rows_for(p, ev, "aseq", **options)]


@SETTINGS
@given(patterns(), streams(max_len=20), st.sampled_from(["trig", "changes"]))
def test_shared_starts_equal_one_vector_per_start(text, ev, emit):
    p = parse(text)
    assert _rows(p, ev, emit=emit) == _rows(p, ev, emit=emit, share_starts=False), text


@SETTINGS
@given(workloads(), streams(max_len=20), st.sampled_from(["trig", "changes"]))
def test_a_workload_with_shared_starts_equals_one_vector_per_start(wl, ev, emit):
    texts, _window = wl
    queries = [Query(f"q{k}", parse(t)) for k, t in enumerate(texts)]
    out = []
    for share_starts in (True, False):
        m = WorkloadMatcher(queries, emit=emit, share_starts=share_starts)
        rows = [r for e in ev for r in m.feed(e)] + m.close()
        out.append([(r.query, r.ts, r.event, r.group, repr(r.value)) for r in rows])
    assert out[0] == out[1], texts


def ticks(n: int, types: int, seed: int) -> list[Event]:
    r = random.Random(seed)
    return [Event(id=i, type=f"T{r.randrange(types)}", ts=float(i // 2), seq=i,
                  attrs={"price": r.randint(1, 9), "k": r.randrange(3), "g": r.randrange(2)}) for i in range(n)]


def test_long_streams_many_flips_partitions_groups_and_negation():
    """Thousands of STARTs leave, so the front and back are rebuilt many times; equal
    timestamps, partitions, GROUP BY, repeated types, ANY, a negation at the START and a
    local predicate on the START and on the negation."""
    ev = ticks(3000, 5, 7)
    texts = ["PATTERN SEQ(T0 a, T1 b, T2 c) AGG COUNT WITHIN 30",
             "PATTERN SEQ(T0 a, !T3 n, T1 b, T2 c) WHERE [k] AGG COUNT GROUP BY g WITHIN 25",
             "PATTERN SEQ(T0 a, T0 b, ANY c, T0 d) WHERE a.price > 3 AGG COUNT WITHIN 12 events",
             "PATTERN SEQ(T1 a, !T2 n, T1 b, !T4 m, T3 c) WHERE n.price < 5 AGG COUNT WITHIN 40",
             "PATTERN SEQ(T2 a) AGG COUNT WITHIN 7"]
    for text in texts:
        p = parse(text)
        for emit in ("trig", "changes"):
            shared = AseqMatcher(p, emit=emit)
            assert shared.counters.shared, text
            alone = AseqMatcher(p, emit=emit, share_starts=False)
            a = [r for e in ev for r in shared.feed(e)] + shared.close()
            b = [r for e in ev for r in alone.feed(e)] + alone.close()
            assert [(r.ts, r.event, r.group, r.value) for r in a] == [(r.ts, r.event, r.group, r.value) for r in b]
            assert any(r.value for r in a), text
            for key in ("prefix_counters_peak", "prefix_counters_live", "partitions", "rows"):
                assert shared.stats.extra[key] == alone.stats.extra[key], (text, key)
            assert shared.stats.runs_created == alone.stats.runs_created


def test_the_shared_path_is_taken_only_where_every_start_sees_the_same_map():
    def shared(text: str) -> bool:
        return AseqMatcher(parse(text)).counters.shared

    assert shared("PATTERN SEQ(A a, !C c, B b) WHERE [k] AGG COUNT GROUP BY g WITHIN 5")
    assert not shared("PATTERN SEQ(A a, B b) AGG COUNT")                       # no window: one global tree (DPC)
    assert not shared("PATTERN SEQ(A a, B b) AGG SUM(b.x) WITHIN 5")           # channels: per START
    assert not shared("PATTERN SEQ(A a, B b) AGG COUNT(b.x) WITHIN 5")
    assert not shared("PATTERN SEQ(A a, B b) WHERE b.x > a.x AGG COUNT WITHIN 5")  # START-anchored
    assert not shared("PATTERN SEQ(A a, !C c, B b) WHERE c.x > a.x AGG COUNT WITHIN 5")
    assert not AseqMatcher(parse("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 5"), tracer=_Tracer()).counters.shared


class _Tracer:
    def __init__(self) -> None:
        self.acts: list[str] = []

    def act(self, kind: str, **_: object) -> None:
        self.acts.append(kind)


@SETTINGS
@given(patterns(), streams(max_len=20), st.integers(0, 20), st.booleans())
def test_unsharing_mid_stream_gives_the_per_start_trees(text, ev, cut, by_tracer):
    """The views (rows) and a tracer attached mid-stream see per-START trees equal to those
    of the per-START path, and the rows after it are unchanged."""
    p = parse(text)
    shared = AseqMatcher(p)
    alone = AseqMatcher(p, share_starts=False)
    if shared.plan is None:
        return
    a = [r for e in ev[:cut] for r in shared.feed(e)]
    b = [r for e in ev[:cut] for r in alone.feed(e)]
    if by_tracer:
        shared.attach_tracer(_Tracer())
        alone.attach_tracer(_Tracer())
    assert shared.trace_state()[1]["rows"] == alone.trace_state()[1]["rows"]
    assert not shared.counters.shared
    a += [r for e in ev[cut:] for r in shared.feed(e)] + shared.close()
    b += [r for e in ev[cut:] for r in alone.feed(e)] + alone.close()
    assert [(r.ts, r.event, r.group, repr(r.value)) for r in a] == [(r.ts, r.event, r.group, repr(r.value))
                                                                      for r in b]


@SETTINGS
@given(st.integers(2, 5), st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.booleans(), st.booleans()),
                                   max_size=60), st.randoms(use_true_random=False), st.booleans())
def test_the_pool_keeps_every_starts_vector(n, steps, rnd, fold_often):
    """StartPool against one explicit vector per START on a chain of ``n`` nodes: random
    maps (adds, resets), STARTs and departures; the sums and each START's vector (also with
    the log folded into the front at almost every event)."""
    saved = StartPool.LOG_PER_START, StartPool.LOG_SLACK
    if fold_often:
        StartPool.LOG_PER_START, StartPool.LOG_SLACK = 0, 1
    try:
        _pool_against_vectors(n, steps, rnd)
    finally:
        StartPool.LOG_PER_START, StartPool.LOG_SLACK = saved


def _pool_against_vectors(n, steps, rnd):
    pool = StartPool(n)
    own: list[tuple[StartMark, list[int]]] = []
    for k, (node, add, reset, start) in enumerate(steps):
        ops = tuple(sorted({(j, j - 1, add and j > 0, reset) for j in (node % n, rnd.randrange(n))
                            if (add and j > 0) or reset}, key=lambda o: -o[0]))
        if ops and own:
            pool.update(ops)
        for _m, v in own:
            apply_ops(v, ops)
        if start:
            mark = StartMark(k, None, k, k, None, (0,))
            pool.add_start(mark, ops if own else ())
            own.append((mark, [1] + [0] * (n - 1)))
        if own and rnd.random() < 0.3:
            assert pool.pop_oldest() is own.pop(0)[0]
        assert len(pool) == len(own)
        for j in range(n):
            assert pool.value(j) == sum(v[j] for _m, v in own)
    assert [(m.id, v) for m, v in pool.vectors()] == [(m.id, v) for m, v in own]


def test_make_stream_rows_feed_the_shared_path():
    ev = make_stream([{"id": i, "type": t, "ts": i} for i, t in enumerate("AABCABBA")])
    p = parse("PATTERN SEQ(A a, !C c, B b) AGG COUNT WITHIN 3")
    assert [r[3] for r in _rows(p, ev)] == [r[3] for r in _rows(p, ev, share_starts=False)] == ["2", "1", "2"]


def test_the_log_stays_bounded_in_a_long_window_with_few_starts():
    """One START an hour in a window of a day, an update every second: the log is folded
    into the front, so the pool holds O(live STARTs · nodes) whatever the stream's length."""
    rows = [{"id": i, "type": "A" if i % 3600 == 0 else "B", "ts": i} for i in range(20_000)]
    ev = make_stream(rows)
    p = parse("PATTERN SEQ(A a, B b) AGG COUNT WITHIN 86400")
    m = AseqMatcher(p)
    longest = 0
    for e in ev:
        m.feed(e)
        pool = m.counters.parts[None].pool
        longest = max(longest, len(pool.log))
    assert m.counters.shared and longest <= StartPool.LOG_SLACK + StartPool.LOG_PER_START * 2 * 6 + 1
    assert _rows(p, ev) == _rows(p, ev, share_starts=False)
