"""Tests of visualizers/trace/tables.py: a step's tables, on recorded traces of tiny streams and on
hand-built steps.

- ``run_moves``: run -> ``take e4`` ... in order, the lazy chain's child run after a take;
- ``runs_frame``: one row per live run with its bindings and what it did; the version column only when
  a version differs from the run id, the members column only when a run merges several;
- ``predicate_text`` and ``actions_frame``: ✓/✗, operand values, the detail keys and a match's text;
- ``events_table``: the traced events (the close step left out), attributes as columns.
"""
from __future__ import annotations

import pytest

from engine.dsl import parse
from engine.run_choice import trace
from engine.trace import Action, PredicateCheck, RunView, Step
from tests.support import stream
from visualizers.trace.tables import actions_frame, events_table, predicate_text, run_moves, runs_frame


@pytest.fixture(scope="module")
def any_match() -> list[Step]:
    """SEQ(A a, B b) skip-till-any-match on a1 a2 b3 b4 (NFA^b)."""
    return trace(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 10"),
                 stream("a1 a2 b3 b4", a2={"price": 5}), engine="nfab")


def test_run_moves_and_runs_frame(any_match: list[Step]) -> None:
    step = any_match[2]  # b3: each run's clone ignores it, the run begins b -> F and matches
    assert run_moves(step) == {"1.1": ["ignore eb3"], "1": ["begin eb3", "match eb3"],
                               "2.1": ["ignore eb3"], "2": ["begin eb3", "match eb3"]}
    df = runs_frame(step)
    assert list(df.columns) == ["run", "state", "this step", "bindings", "start"]  # NFA^b: id = version
    assert df.to_dict("records") == [
        {"run": "1.1", "state": "b", "this step": "ignore eb3", "bindings": "a=[a1]", "start": 0.0},
        {"run": "2.1", "state": "b", "this step": "ignore eb3", "bindings": "a=[a2]", "start": 1.0}]


def test_runs_frame_keeps_versions_and_members_when_they_say_something() -> None:
    step = Step(step=0, event={}, runs=[RunView("p1", "q2", {"a": [1, 2], "b": [3]}, start=0.5, version="1.2",
                                                members=3),
                                        RunView("p2", "q1", {}, start=None)])
    df = runs_frame(step, touched={"p2": ["take e9", "wait"]})
    assert list(df.columns) == ["run", "state", "this step", "bindings", "start", "version", "members"]
    rows = df.to_dict("records")
    assert rows[0] == {"run": "p1", "state": "q2", "this step": "", "bindings": "a=[1, 2] b=[3]", "start": 0.5,
                       "version": "1.2", "members": 3}
    assert (rows[1]["this step"], rows[1]["bindings"], rows[1]["version"], rows[1]["members"]) == (
        "take e9, wait", "", "", 1)
    assert list(runs_frame(Step(step=0, event={})).columns) == ["run", "state", "this step", "bindings", "start"]


def test_run_moves_of_the_lazy_chain() -> None:
    steps = trace(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 10"), stream("a1 b2"),
                  engine="lazy-chain")
    assert run_moves(steps[-1]) == {"root": ["take ea1 → 1"], "1": ["wait", "take eb2 → 2"], "2": ["match eb2"]}


def test_predicate_text() -> None:
    assert predicate_text(PredicateCheck("a.x < b.x", {"a.x": 1 / 3, "b.x": 2}, True)) == \
        "✓ a.x < b.x  [a.x=0.333333, b.x=2]"
    assert predicate_text(PredicateCheck("a.len > 1", {}, False)) == "✗ a.len > 1"


def test_actions_frame(any_match: list[Step]) -> None:
    df = actions_frame(any_match[2])
    assert list(df.columns) == ["action", "run", "state", "to", "event", "predicates", "why / detail"]
    rows = df.to_dict("records")
    assert [r["action"] for r in rows] == ["ignore", "begin", "match", "ignore", "begin", "match"]
    assert rows[0] == {"action": "ignore", "run": "1.1", "state": "b", "to": "b", "event": "b3",
                       "predicates": "✓ e.ts - first.ts < 10  [e.ts=2, first.ts=0, W=10]",
                       "why / detail": "clone_of=1 formula=true"}
    assert rows[2]["why / detail"] == "a=a1 b=b3" and rows[2]["predicates"] == "" and rows[2]["to"] == ""


def test_actions_frame_by_hand() -> None:
    step = Step(step=0, event={}, actions=[
        Action(kind="discard", run=None, reason="window passed", detail={"into": "3", "blocker": "n1", "other": 1}),
        Action(kind="take", run="2", event=0, predicates=[PredicateCheck("p", {}, True), PredicateCheck("q", {}, False)],
               detail={"source": "buffer", "var": "b", "candidates": 4})])
    rows = actions_frame(step).to_dict("records")
    assert rows[0] == {"action": "discard", "run": "", "state": "", "to": "", "event": "", "predicates": "",
                       "why / detail": "window passed; into=3 blocker=n1"}
    assert rows[1]["event"] == "0" and rows[1]["predicates"] == "✓ p\n✗ q"
    assert rows[1]["why / detail"] == "source=buffer candidates=4 var=b"
    assert actions_frame(Step(step=0, event={})).empty
    assert run_moves(step) == {"2": ["take e0"]}  # an action of no run is in no run's moves


def test_events_table(any_match: list[Step]) -> None:
    df = events_table(any_match)
    assert list(df.columns) == ["step", "id", "type", "ts", "price"]
    assert df[["step", "id", "type", "ts"]].values.tolist() == [[0, "a1", "A", 0.0], [1, "a2", "A", 1.0],
                                                                [2, "b3", "B", 2.0], [3, "b4", "B", 3.0]]
    assert df["price"].tolist()[1] == 5
    assert any_match[1].event == {"id": "a2", "type": "A", "ts": 1.0, "price": 5}  # the step is left alone


def test_an_event_label_names_the_events_of_moves_and_actions(any_match: list[Step]) -> None:
    """With ``label`` the tables name an event as the page does (``#3 (id b3)``), whole."""
    position = {"a1": 1, "a2": 2, "b3": 3, "b4": 4}

    def label(i: object) -> str:
        return f"#{position[str(i)]} (id {i})"

    step = any_match[2]
    assert run_moves(step, label) == {"1.1": ["ignore #3 (id b3)"], "1": ["begin #3 (id b3)", "match #3 (id b3)"],
                                      "2.1": ["ignore #3 (id b3)"], "2": ["begin #3 (id b3)", "match #3 (id b3)"]}
    acts = actions_frame(step, label)
    assert set(acts["event"]) == {"#3 (id b3)"}
    assert runs_frame(step, label=label).loc[0, "this step"] in ("ignore #3 (id b3)",
                                                                "begin #3 (id b3), match #3 (id b3)")


def test_long_values_are_never_cut() -> None:
    """Predicates, bindings and details come whole (the page shows them in wide columns and
    in full under the table)."""
    ids = list(range(1, 60))
    long_text = " AND ".join(f"a.x{i} > {i}" for i in range(30))
    step = Step(step=0, event={"id": 1, "type": "A", "ts": 0},
                actions=[Action("proceed", run="1", state="a", to="b", event=1,
                                predicates=[PredicateCheck(long_text, {"a.x0": 7}, True)],
                                detail={"formula": long_text})],
                runs=[RunView(id="1", state="a", bindings={"a": ids})], runs_total=1)
    row = actions_frame(step).to_dict("records")[0]
    assert row["predicates"] == f"✓ {long_text}  [a.x0=7]" and row["action"] == "proceed"
    assert long_text in row["why / detail"]
    assert runs_frame(step).loc[0, "bindings"] == f"a=[{', '.join(str(i) for i in ids)}]"
