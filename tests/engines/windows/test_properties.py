"""Differential properties of match windows (match-windows paper §4): with match
windows on (every combination of filtering, partitioning and the necessary conditions, and
the SES automaton or an all-matches engine as A) the result equals the result with match
windows off and equals the oracle, for every selection (all, earliest, maximal,
earliest_maximal); the fast selection equals the oracle's definition; the fixed counters
never reject a window that holds a match starting at its first event."""
from __future__ import annotations

import itertools

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.engines.oracle import oracle
from engine.match import StateExplosion, run_all
from engine.engines.ses.matcher import SesMatcher
from engine.model import PatternError, Selection
from engine.engines.oracle.oracle import OracleTooLarge
from engine.engines.windows.matcher import MatchWindowMatcher
from engine.engines.windows.algorithm import Techniques
from engine.engines.windows.analysis import analyse
from engine.engines.windows.algorithm import MatchWindows
from engine.engines.ses.selection import select_matches
from tests.strategies import small_patterns, small_streams

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), max_examples=50)
ALL_TECHNIQUES = [Techniques(f, p, c) for f, p, c in itertools.product((False, True), repeat=3)]


def _keys(ms):
    return sorted(m.key for m in ms)


def _with_selection(p, sel):
    q = p.model_copy(update={"selection": sel})
    try:
        q.check()
    except PatternError:
        assume(False)
    return q


def _oracle(p, events):
    try:
        return oracle.run(p, events)
    except OracleTooLarge:
        assume(False)


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, optional=False, negation=False), events=small_streams(max_size=8),
       sel=st.sampled_from(list(Selection)), tech=st.sampled_from(ALL_TECHNIQUES))
def test_windows_with_ses_equal_off_and_oracle_for_every_selection(p, events, sel, tech):
    assume(p.window is not None)
    p = _with_selection(p, sel)
    assume(_ses_ok(p))
    want = _keys(_oracle(p, events))
    off = _keys(run_all(SesMatcher(p), events))
    on = _keys(run_all(MatchWindowMatcher(p, inner="ses", techniques=tech), events))
    assert off == want
    assert on == want


def _ses_ok(p):
    from engine.engines.ses.compiler import unsupported_reason

    return unsupported_reason(p) is None


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3), events=small_streams(max_size=8),
       tech=st.sampled_from(ALL_TECHNIQUES), inner=st.sampled_from(["lazy-tree", "oracle", "eager"]))
def test_windows_around_all_match_engines_equal_the_oracle(p, events, tech, inner):
    """Negation, `?`, `*`, OR, count windows: A is an all-matches engine fed each window."""
    assume(p.window is not None)
    want = _keys(_oracle(p, events))
    try:
        got = run_all(MatchWindowMatcher(p, inner=inner, techniques=tech), events)
    except StateExplosion:
        assume(False)
    assert _keys(got) == want


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, optional=False, negation=False), events=small_streams(max_size=8),
       sel=st.sampled_from([Selection.EARLIEST, Selection.MAXIMAL, Selection.EARLIEST_MAXIMAL]))
def test_windows_with_an_all_matches_engine_select_like_the_oracle(p, events, sel):
    assume(p.window is not None)
    p = _with_selection(p, sel)
    want = _keys(_oracle(p, events))
    assert _keys(run_all(MatchWindowMatcher(p, inner="lazy-tree"), events)) == want


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3, optional=False, negation=False), events=small_streams(max_size=8),
       sel=st.sampled_from([Selection.EARLIEST, Selection.MAXIMAL, Selection.EARLIEST_MAXIMAL]))
def test_fast_selection_equals_the_oracles_definition(p, events, sel):
    p = _with_selection(p, sel)
    every = _oracle(p.model_copy(update={"selection": Selection.ALL}), events)
    kleene = frozenset(c.var for c in p.positive if c.kleene)
    fast = select_matches(sel, every, kleene, {e.id: e.seq for e in events})
    assert _keys(fast) == _keys(oracle.select(p, every, events))


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=3), events=small_streams(max_size=8))
def test_nmc_passes_every_window_that_holds_a_match_from_its_first_event(p, events):
    """Thm 2 + Thm 3 with the counted-mask fix: no false negatives, window by window."""
    assume(p.window is not None)
    every = _oracle(p, events)
    starts = {m.start_seq for m in every}
    for partition in (False, True):
        plan = analyse(p)
        passed: list[int] = []

        def on_window(kw, verdict, found):
            assert verdict is not None
            if verdict.passed:
                passed.append(kw.events[0].seq)

        algo = MatchWindows(plan, lambda w, b: [], Techniques(True, partition, True), on_window=on_window)
        for e in events:
            algo.feed(e)
        algo.close()
        assert starts <= set(passed), (partition, passed, starts)


@settings(**SETTINGS)
@given(p=small_patterns(max_positive=4, optional=False, negation=False, with_predicates=False),
       events=small_streams(max_size=9), sel=st.sampled_from([Selection.EARLIEST, Selection.MAXIMAL,
                                                              Selection.EARLIEST_MAXIMAL]))
def test_ses_pruning_of_skip_branches_keeps_every_selected_match(p, events, sel):
    """Without relationships every variable is free, so the SES automaton drops skip branches
    (§3.5): eager and windowed runs still equal the oracle."""
    p = _with_selection(p, sel)
    assume(_ses_ok(p))
    want = _keys(_oracle(p, events))
    assert _keys(run_all(SesMatcher(p), events)) == want
    if p.window is not None:
        assert _keys(run_all(MatchWindowMatcher(p, inner="ses"), events)) == want
