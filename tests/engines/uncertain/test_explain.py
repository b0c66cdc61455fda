"""Tests of engine/engines/uncertain/explain.py: what the Uncertain time page shows for a signature.

- ``explain_signature``: the tight bounds, the probability of the point matches per ``(t_1, t_last)``
  cell (summing to the confidence the possible-worlds oracle gives, with and without spoilers), the
  probability that each spoiler candidate falls between its components (worked by hand), a
  signature that cannot be ordered, and the cut at ``MAX_POINT_MATCHES``;
- ``nelt_history``: NELT after each arrival on the notes' NELT example, None before the prefix arrived;
- ``world_view``: one world's order, probability and point matches.
"""
from __future__ import annotations

import math
from fractions import Fraction

import pytest

from engine.dsl import parse
from engine.engines.uncertain import explain as explain_module
from engine.engines.uncertain.examples import EXAMPLES, interval_events
from engine.engines.uncertain.explain import explain_signature, nelt_history, world_view
from engine.engines.uncertain.oracle import run_uncertain
from engine.engines.uncertain.result import as_table

ANY, NEXT = "skip_till_any_match", "skip_till_next_match"


def t1(strategy: str = ANY):
    ex = EXAMPLES["T1"]
    return parse(ex.with_strategy(strategy)), ex.events()


def test_t1_signature_cells_by_hand() -> None:
    # a1 [1,5], b3 [3,5], c2 [3,5], WITHIN 4 (t_c - t_a <= 3): the point matches with their probability
    # 1/(5*3*3) each: (1,3,4) (2,3,4) (2,3,5) (2,4,5) (3,4,5) -> cells (1,4): 1, (2,4): 1, (2,5): 2, (3,5): 1
    p, ev = t1()
    ex = explain_signature(p, ev, ["a1", "b3", "c2"])
    assert ex.vars == ["a", "b", "c"] and ex.intervals == [(1, 5), (3, 5), (3, 5)]
    assert ex.bounds == ([1, 3, 4], [3, 4, 5])
    one = Fraction(1, 45)
    assert ex.cells_any == {(1, 4): one, (2, 4): one, (2, 5): 2 * one, (3, 5): one}
    assert ex.cells == ex.cells_any and ex.spoilers == [] and not ex.next
    assert ex.point_matches == 5 and ex.confidence == ex.confidence_any == Fraction(1, 9)
    assert ex.three_pass[-1] == {"pass": 3, "j": 0, "what": "vub", "value": 3, "ok": True}


@pytest.mark.parametrize("strategy", [ANY, NEXT])
def test_every_t1_signature_agrees_with_the_oracle(strategy: str) -> None:
    p, ev = t1(strategy)
    table = as_table(run_uncertain(p, ev))
    assert table
    for ids, (rng, conf) in table.items():
        ex = explain_signature(p, ev, list(ids))
        assert ex.confidence == conf
        assert sum(ex.cells.values()) == conf
        positive = [k for k, v in ex.cells.items() if v]
        assert (min(a for a, _ in positive), max(b for _, b in positive)) == rng
        assert ex.next == (strategy == NEXT)


def test_spoiler_between_its_components_by_hand() -> None:
    # a [1,2], x (a B) [1,3], b [3,3]: (a=1, b=3) is spoiled when x = 2 (1/3); (a=2, b=3) never
    p = parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 10")
    ev = interval_events([("a", "A", 1, 2), ("x", "B", 1, 3), ("b", "B", 3, 3)])
    ex = explain_signature(p, ev, ["a", "b"])
    assert ex.cells_any == {(1, 3): Fraction(1, 2), (2, 3): Fraction(1, 2)}
    assert ex.cells == {(1, 3): Fraction(1, 3), (2, 3): Fraction(1, 2)}
    assert ex.confidence == Fraction(5, 6) and ex.confidence_any == 1
    # P(x strictly between a and b) over the point matches: 1/2 * 1/3 + 1/2 * 0
    assert ex.spoilers == [{"id": "x", "type": "B", "interval": [1, 3], "between": "a and b", "component": "b",
                            "p_between": Fraction(1, 6)}]
    assert as_table(run_uncertain(p, ev))[("a", "b")][1] == Fraction(5, 6)


def test_a_signature_that_cannot_be_ordered() -> None:
    p = parse("PATTERN SEQ(A a, B b) WITHIN 10")
    ev = interval_events([("a", "A", 5, 6), ("b", "B", 1, 5)])
    ex = explain_signature(p, ev, ["a", "b"])
    assert ex.bounds is None and ex.cells == {} and ex.confidence == 0 and ex.point_matches == 0
    assert ex.three_pass[-1]["ok"] is False


def test_point_matches_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explain_module, "MAX_POINT_MATCHES", 3)
    p, ev = t1()
    ex = explain_signature(p, ev, ["a1", "b3", "c2"])
    assert ex.truncated and ex.point_matches == 4  # the fourth passed the limit


def test_nelt_history_on_the_notes_example() -> None:
    ex = EXAMPLES["T5"]
    p = parse(ex.with_strategy(NEXT))
    # a1 [1,4]; B events b2 [2,3] b3 [3,4] b4 [5,7] b5 [6,6] b6 [8,9] arrive in turn
    assert nelt_history(p, ex.events(), ["a1", "b2"], 0) == [math.inf, math.inf, math.inf, 7, 6, 6]


def test_nelt_history_waits_for_the_prefix() -> None:
    p, ev = t1(NEXT)  # arrival: a1, c2, b3, c4; b3 [3,5] for c: c4 [4,8] starts before 5
    assert nelt_history(p, ev, ["a1", "b3", "c2"], 1) == [None, None, math.inf, math.inf]


def test_world_view() -> None:
    p, ev = t1()
    w = world_view(p, ev, {"a1": 1, "c2": 4, "b3": 3, "c4": 4})
    assert w["order"] == [("a1", "A", 1), ("b3", "B", 3), ("c2", "C", 4), ("c4", "C", 4)]  # ties: arrival order
    assert w["probability"] == Fraction(1, 225) and w["worlds"] == 225
    assert sorted(w["matches"]) == [["a1", "b3", "c2"], ["a1", "b3", "c4"]]
    far = world_view(p, ev, {"a1": 1, "c2": 3, "b3": 4, "c4": 8})
    assert far["matches"] == []  # c2 before b3, and c4 outside the window
