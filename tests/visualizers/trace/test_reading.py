"""Tests of visualizers/trace/reading.py: reading a recorded trace.

Traces of tiny streams recorded by the engines (NFA^b under skip-till-any-match and
skip-till-next-match, the lazy chain), plus hand-built steps for the edge cases:

- ``event_steps``, ``step_label`` (numbers, floats, the close step);
- ``is_match`` / ``step_matches`` / ``step_rows`` (aggregate rows apart), ``match_key``, ``match_text``,
  ``match_ids``, ``matches_so_far``, ``match_numbers`` (the emission order, a repeated match once);
- ``state_counts``, ``step_edges`` (counts per move, ``ignore`` without a target, non-moves left out),
  ``live_event_ids``;
- ``match_action`` and ``match_path``: the moves that built a match, through NFA^b clones, the lazy
  chain's child runs, and NFA^b's peek (a proceed followed by the next state's begin);
- ``steps_to_json``: one JSON line per step, ``Step.from_json`` reads it back.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

from engine.dsl import parse
from engine.run_choice import trace
from engine.trace import Action, RunView, Step
from tests.support import stream
from visualizers.trace.reading import (event_steps, is_match, live_event_ids, match_action, match_ids, match_key,
                                       match_numbers, match_path, match_text, matches_so_far, state_counts,
                                       step_edges, step_label, step_matches, step_rows, steps_to_json)


@pytest.fixture(scope="module")
def any_match() -> list[Step]:
    """SEQ(A a, B b) skip-till-any-match on a1 a2 b3 b4 (NFA^b): four matches, two per B."""
    return trace(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 10"), stream("a1 a2 b3 b4"),
                 engine="nfab")


@pytest.fixture(scope="module")
def kleene() -> list[Step]:
    """SEQ(A a, B+ b[], C c) skip-till-next-match on a1 x2 b3 b4 c5 (NFA^b): one match."""
    return trace(parse("PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match WITHIN 10"),
                 stream("a1 x2 b3 b4 c5"), engine="nfab")


def moves(path: list[Action]) -> list[tuple[str, str | None, str | None, Any]]:
    return [(a.kind, a.state, a.to, a.event) for a in path]


def test_event_steps_and_labels(any_match: list[Step]) -> None:
    assert [s.step for s in event_steps(any_match)] == [0, 1, 2, 3]
    assert step_label(any_match, 0) == "event #1 (id a1) · A at ts 0"
    assert step_label(any_match, 3) == "event #4 (id b4) · B at ts 3"
    assert step_label(any_match, 4) == "end of stream"
    # a window of a trace names its steps by their position in the stream, not in the window
    assert step_label(any_match[2:], 1) == "event #4 (id b4) · B at ts 3"


def test_label_of_a_long_float_and_an_int() -> None:
    steps = [Step(step=0, event={"id": 7, "type": "T", "ts": 1 / 3}), Step(step=1, event={"id": 8, "type": "T", "ts": 5}),
             Step(step="close", event=None)]
    assert step_label(steps, 0) == "event #1 (id 7) · T at ts 0.333333"
    assert step_label(steps, 1) == "event #2 (id 8) · T at ts 5"
    far = [Step(step=81_199, event={"id": 4711, "type": "T", "ts": 2})]
    assert step_label(far, 0) == "event #81,200 (id 4711) · T at ts 2"


def test_matches_in_emission_order(any_match: list[Step]) -> None:
    assert [match_text(m) for m in step_matches(any_match[2])] == ["a=a1 b=b3", "a=a2 b=b3"]
    so_far = matches_so_far(any_match, 2)
    assert [(j, match_text(m)) for j, m in so_far] == [(2, "a=a1 b=b3"), (2, "a=a2 b=b3")]
    assert matches_so_far(any_match, 1) == []
    nums = match_numbers(any_match)
    assert nums == {(("a", ("a1",)), ("b", ("b3",))): 1, (("a", ("a2",)), ("b", ("b3",))): 2,
                    (("a", ("a1",)), ("b", ("b4",))): 3, (("a", ("a2",)), ("b", ("b4",))): 4}


def test_match_numbers_count_a_repeated_match_once() -> None:
    m1, m2 = {"match": {"a": [1]}}, {"match": {"a": [2]}}
    steps = [Step(step=0, event={}, matches=[m1]), Step(step=1, event={}, matches=[m2, dict(m1)]),
             Step(step="close", event=None, matches=[m2])]
    assert match_numbers(steps) == {(("a", (1,)),): 1, (("a", (2,)),): 2}


def test_matches_and_aggregate_rows_apart() -> None:
    row = {"ts": 3, "event": "e3", "group": None, "value": 2}
    m = {"match": {"a": ["e1"], "b": []}, "start": 0}
    step = Step(step=0, event={}, matches=[row, m])
    assert step_matches(step) == [m] and step_rows(step) == [row]
    assert is_match(m) and not is_match(row) and not is_match({"match": [1]}) and not is_match("x")
    assert match_text(m) == "a=e1"  # a variable that bound nothing is left out
    assert match_key(m) == (("a", ("e1",)), ("b", ()))
    assert match_ids({"match": {"a": [1, 2], "b": [3]}}) == [1, 2, 3]


def test_state_counts_edges_and_live_events(any_match: list[Step]) -> None:
    assert state_counts(any_match[1]) == {"b": 2}
    assert live_event_ids(any_match[1]) == {"a1", "a2"}
    # on b3 each run's clone ignores it and the run begins b -> F
    assert step_edges(any_match[2]) == [("b", "b", "ignore", 2), ("b", "F", "begin", 2)]
    assert step_edges(any_match[4]) == [] and state_counts(any_match[4]) == {}


def test_step_edges_by_hand() -> None:
    step = Step(step=0, event={}, actions=[
        Action(kind="take", run="1", state="s", to="s"), Action(kind="ignore", run="1", state="s"),
        Action(kind="take", run="2", state="s", to="s"), Action(kind="discard", run="3", state="s", to="x"),
        Action(kind="proceed", run="4", state=None, to="t"), Action(kind="begin", run="5", state="s", to=None),
        Action(kind="match", run="1", state="F")])
    assert step_edges(step) == [("s", "s", "take", 2), ("s", "s", "ignore", 1)]
    runs = Step(step=0, event={}, runs=[RunView("1", "s", {"a": [1, 2]}), RunView("2", "s", {"a": [2], "b": [3]}),
                                        RunView("3", "t", {})])
    assert state_counts(runs) == {"s": 2, "t": 1} and live_event_ids(runs) == {1, 2, 3}


def test_match_path_through_clones(any_match: list[Step]) -> None:
    m = step_matches(any_match[3])[0]  # a1 b4: run 1.1, a clone of run 1 made on b3
    assert match_text(m) == "a=a1 b=b4"
    j, i, act = match_action(any_match, m)  # type: ignore[misc]
    assert (j, i, act.kind, act.run) == (3, 2, "match", "1.1")
    assert moves(match_path(any_match, m)) == [("begin", "a", "b", "a1"), ("begin", "b", "F", "b4")]
    assert moves(match_path(any_match, step_matches(any_match[2])[1])) == [
        ("begin", "a", "b", "a2"), ("begin", "b", "F", "b3")]


def test_match_path_adds_the_begin_of_the_peek(kleene: list[Step]) -> None:
    (m,) = step_matches(kleene[4])
    assert match_text(m) == "a=a1 b=b3,b4 c=c5"
    assert moves(match_path(kleene, m)) == [
        ("begin", "a", "b[1]", "a1"), ("begin", "b[1]", "b[i]", "b3"), ("take", "b[i]", "b[i]", "b4"),
        ("proceed", "b[i]", "c", "c5"), ("begin", "c", "F", "c5")]


def test_match_path_through_the_lazy_chain_children() -> None:
    steps = trace(parse("PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 10"), stream("a1 c2 b3 c4"),
                  engine="lazy-chain")
    (j, m), = matches_so_far(steps, len(steps) - 1)
    assert match_text(m) == "a=a1 b=b3 c=c4"
    assert moves(match_path(steps, m)) == [("take", "q1", "q2", "a1"), ("take", "q2", "q3", "b3"),
                                           ("take", "q3", "q4", "c4")]


def test_match_path_of_an_unknown_match_is_empty(any_match: list[Step]) -> None:
    ghost = {"match": {"a": ["a9"], "b": ["b4"]}}
    assert match_action(any_match, ghost) is None
    assert match_path(any_match, ghost) == []


def test_match_path_keeps_only_the_matchs_own_events() -> None:
    # run 1 took e1 and e2, but the match binds e1 and e3 (another branch): e2's take is not on the path
    steps = [Step(step=0, event={}, actions=[Action(kind="begin", run="1", state="a", to="b", event="e1")]),
             Step(step=1, event={}, actions=[Action(kind="take", run="1", state="b", to="b", event="e2")]),
             Step(step=2, event={}, actions=[
                 Action(kind="take", run="1", state="b", to="F", event="e3"),
                 Action(kind="match", run="1", state="F", event="e3",
                        detail={"match": {"match": {"a": ["e1"], "b": ["e3"]}}}),
                 Action(kind="take", run="1", state="b", to="b", event="e3")])]  # after the match: not on its path
    m = {"match": {"a": ["e1"], "b": ["e3"]}}
    assert moves(match_path(steps, m)) == [("begin", "a", "b", "e1"), ("take", "b", "F", "e3")]


def test_steps_to_json_round_trip(kleene: list[Step]) -> None:
    text = steps_to_json(kleene)
    lines = text.splitlines()
    assert len(lines) == len(kleene) and text.endswith("\n")
    assert [json.loads(x) for x in lines] == [s.to_json() for s in kleene]
    back = [Step.from_json(json.loads(x)) for x in lines]
    assert [s.to_json() for s in back] == [s.to_json() for s in kleene]
