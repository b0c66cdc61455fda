"""Parity of the lazy engines' emission fast path (``LazyBase._emit_vals`` with
``emission.match_binder``: one event per variable in fixed slots, first/last from the span
slots) with the general loop it inlines: the same matches, with the same start, end and
positions, in the same order, on random small patterns without Kleene or optional variables."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from engine.engines.lazy.chain_matcher import LazyChainMatcher
from engine.engines.lazy.eager_matcher import EagerMatcher
from engine.engines.lazy.tree_matcher import LazyTreeMatcher
from engine.engines.planner import reasons
from tests.strategies import small_patterns, small_streams

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))


def _run(matcher, events, general: bool) -> list[tuple]:
    if general:
        matcher._bind = None  # the general loop of _emit_vals
    out = [m for e in events for m in matcher.feed(e)] + list(matcher.close())
    return [(m.key, m.start, m.end, m.start_seq, m.end_seq) for m in out]


@SETTINGS
@given(small_patterns(kleene=False, optional=False, max_positive=4), small_streams(max_size=8))
def test_the_emission_fast_path_equals_the_general_loop(p, events):
    if reasons(p).get("lazy-chain") is not None:
        return
    for make in (LazyChainMatcher, LazyTreeMatcher, EagerMatcher):
        fast = make(p)
        if getattr(fast, "_bind", None) is None:
            continue  # the pattern takes the general loop anyway
        assert _run(fast, events, False) == _run(make(p), events, True), (make.__name__, p)


def test_the_fast_path_is_taken_for_a_plain_sequence():
    from engine.dsl import parse

    for make in (LazyChainMatcher, LazyTreeMatcher, EagerMatcher):
        assert make(parse("PATTERN SEQ(A a, B b, C c) WITHIN 5"))._bind is not None, make.__name__
