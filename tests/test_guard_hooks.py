"""The run guard reaches inside long steps (engine.memory.guarding / current_guard): a guard
whose cancel event is set stops each engine from inside the step that does the work (an
SES transition, a selection, the A-Seq baseline's search, an interval engine's point or
confidence loop, an oracle's enumeration), not only between events. Also the state guard
of SES counts the matches it holds for its selection, and the point-based interval engine
the point matches waiting to be collapsed."""
from __future__ import annotations

import threading

import pytest

from engine.dsl import parse
from engine.events import Event
from engine.match import StateExplosion
from engine.memory import NO_GUARD, Cancelled, MemoryGuard, current_guard, guarding


def _events(types: str) -> list[Event]:
    return [Event(type=t, ts=float(i), id=i, seq=i, attrs={"x": i % 5}) for i, t in enumerate(types)]


def _cancelled_guard() -> MemoryGuard:
    cancel = threading.Event()
    cancel.set()
    return MemoryGuard(None, every=1, cancel=cancel)


def test_current_guard_is_per_block_and_reset():
    g = MemoryGuard(None)
    assert current_guard() is NO_GUARD
    with guarding(g) as active:
        assert active is g and current_guard() is g
        with guarding(None):
            assert current_guard() is NO_GUARD
        assert current_guard() is g
    assert current_guard() is NO_GUARD
    NO_GUARD.tick()
    NO_GUARD.check()  # never stops


def test_current_guard_is_per_thread():
    seen = []
    with guarding(MemoryGuard(None)):
        t = threading.Thread(target=lambda: seen.append(current_guard()))
        t.start()
        t.join()
    assert seen == [NO_GUARD]


def test_ses_step_ticks_the_guard_inside_one_event():
    from engine.engines.ses.matcher import SesMatcher

    m = SesMatcher(parse("PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal"))
    evs = _events("ABABABAB")
    for e in evs[:-1]:
        m.feed(e)
    with guarding(_cancelled_guard()), pytest.raises(Cancelled):
        m.feed(evs[-1])  # the transitions of this one event tick the guard


def test_selection_ticks_the_guard():
    from engine.match import Match
    from engine.model import Selection
    from engine.engines.ses.selection import select_group

    group = [Match(bindings=(("a", (0, k)),), start=0.0, end=float(k), start_seq=0, end_seq=k) for k in (1, 2)]
    seq = {0: 0, 1: 1, 2: 2}
    calls = []
    kept = select_group(Selection.EARLIEST, group, frozenset({"a"}), seq, tick=lambda: calls.append(1))
    assert len(calls) >= len(group) and kept == group  # equal first positions: both earliest


def test_ses_state_guard_counts_matches_held_for_the_selection():
    from engine.engines.ses.matcher import SesMatcher

    m = SesMatcher(parse("PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal"), max_runs=400)
    with pytest.raises(StateExplosion, match="matches held for the earliest_maximal selection"):
        for e in _events("ABC" * 200):
            m.feed(e)


def test_aseq_baseline_search_ticks_the_guard():
    from engine.engines.aseq.baseline import StackBaseline

    m = StackBaseline(parse("PATTERN SEQ(A a, B b, C c) AGG COUNT"))
    evs = _events("AAAABBBBC")
    for e in evs[:-1]:
        m.feed(e)
    with guarding(_cancelled_guard()), pytest.raises(Cancelled):
        m.feed(evs[-1])


def _interval_events(n: int, width: int) -> list[Event]:
    return [Event(type="AB"[i % 2], ts=float(i), id=i, seq=i, lower=i, upper=i + width, attrs={})
            for i in range(n)]


@pytest.mark.parametrize("engine", ["uncertain-point", "uncertain-event"])
def test_interval_engines_tick_the_guard(engine):
    from engine.engines.planner import make_matcher

    m = make_matcher(parse("PATTERN SEQ(A a, B b) WITHIN 50"), engine, interval=True, u_max=20)
    with guarding(_cancelled_guard()), pytest.raises(Cancelled):
        for e in _interval_events(40, 20):
            m.feed(e)
        m.close()


def test_point_engine_counts_point_matches_waiting_in_the_state_guard():
    from engine.engines.planner import make_matcher

    m = make_matcher(parse("PATTERN SEQ(A a, B b) WITHIN 500"), "uncertain-point", interval=True, u_max=200,
                     max_runs=5_000)
    with pytest.raises(StateExplosion, match="point matches waiting to be collapsed"):
        for e in _interval_events(200, 200):
            m.feed(e)
        m.close()


def test_point_oracle_stops_on_its_own_time_limit(monkeypatch):
    from engine.engines.oracle import oracle

    monkeypatch.setattr(oracle, "MAX_SECONDS", 0.3)
    monkeypatch.setattr(oracle, "MAX_STEPS", 10**12)
    p = parse("PATTERN SEQ(A+ a[], B b, C c)")
    import time

    t0 = time.monotonic()
    with pytest.raises(oracle.OracleTooLarge, match="took longer than its limit of 0.3 s"):
        oracle.run(p, _events("AB" * 30 + "C" * 5))
    assert time.monotonic() - t0 < 5


def test_oracle_default_limits_are_under_ten_seconds_and_one_gigabyte():
    from engine.engines.oracle import oracle

    assert oracle.MAX_SECONDS < 10 and oracle.MAX_GROWTH <= 1 << 30


def test_uncertain_oracle_ticks_the_run_guard():
    from engine.engines.uncertain.oracle import UncertainOracleMatcher

    m = UncertainOracleMatcher(parse("PATTERN SEQ(A a, B b)"))
    for e in _interval_events(6, 3):
        m.feed(e)
    with guarding(_cancelled_guard()), pytest.raises(Cancelled):
        m.close()


@pytest.mark.parametrize("inner", ["ses", "nfab"])
def test_match_windows_drain_at_close_ticks_the_guard(inner):
    """close() drains every open window (calls of A): the guard is ticked there too."""
    from engine.engines.windows.matcher import MatchWindowMatcher

    p = parse("PATTERN SEQ(A+ a[], B b) WITHIN 100")
    m = MatchWindowMatcher(p, inner=inner)
    for e in _events("AAAAB"):
        m.feed(e)
    with guarding(_cancelled_guard()), pytest.raises(Cancelled):
        m.close()


def test_ses_work_budget_covers_a_whole_match_window():
    """In window mode the transition budget is for the whole call of A (a window of many
    events each under the per-event budget still stops)."""
    from engine.engines.ses.matcher import SesMatcher

    p = parse("PATTERN SEQ(A+ a[], B b) WHERE maximal AND a[i].x >= a[i-1].x - 10 WITHIN 1000")
    window = _events("A" * 12 + "B")  # every subset of the A's: 2^k transitions on the k-th event
    with pytest.raises(StateExplosion, match="transitions in one match window"):
        SesMatcher(p, max_work=200).match_window(window)  # no single event passes 200 before the sum does
    assert len(SesMatcher(p, max_work=10**6).match_window(window)) == 1


def test_run_choice_build_with_a_guard_runs_the_engine_under_it():
    """A caller that passes its guard to ``RunChoice.build`` (the app's runner) gets a
    matcher whose inner loops tick that guard: a window's drain in close() is stopped."""
    from engine.memory import GuardedMatcher
    from engine.run_choice import choose_run

    p = parse("PATTERN SEQ(AND(A+ a[], B+ b[]), C c) WHERE earliest_maximal WITHIN 1000")
    evs = _events("ABC" * 20)
    plain = choose_run(p).build(p)
    m = choose_run(p).build(p, guard=_cancelled_guard())
    assert isinstance(m, GuardedMatcher) and m.stats is not None and m.pattern is p
    for e in evs:  # the windows stay open: nothing is called yet
        assert list(m.feed(e)) == list(plain.feed(e))
    with pytest.raises(Cancelled):
        m.close()
    assert current_guard() is NO_GUARD  # nothing left behind in the caller's thread
