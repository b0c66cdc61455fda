"""Tests of visualizers/trace/buffers.py: the engines' buffers after a step.

- ``buffer_view`` on a recorded NFA^b trace (entries, their pointers, what this step wrote) and on
  hand-built steps (entries pruned on the step kept and flagged, gone the step after; lazy buffers and
  pointers to unknown entries ignored);
- ``retrieval_path``: from the match's last event back, following the longest version prefix;
- ``stack_order``: the automaton's order, then the other states;
- ``shared_buffer_figure`` / ``lazy_buffer_figure``: the drawn entries (position, text, colour), the
  pointer labels, the cut to the latest events, the evaluation order, valid plotly.
"""
from __future__ import annotations

from typing import Any

import networkx as nx
import plotly.graph_objects as go
import pytest

from engine.dsl import parse
from engine.run_choice import trace
from engine.trace import Action, Step
from tests.support import stream
from visualizers.trace.buffers import buffer_view, lazy_buffer_figure, retrieval_path, shared_buffer_figure, stack_order
from visualizers.trace.plain_figure import ADDED, PATH, REMOVED


@pytest.fixture(scope="module")
def any_match() -> list[Step]:
    """SEQ(A a, B b) skip-till-any-match on a1 a2 b3 b4 (NFA^b): b3 and b4 point to both a's."""
    return trace(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 10"), stream("a1 a2 b3 b4"),
                 engine="nfab")


def entry_trace(fig: go.Figure) -> dict[str, Any]:
    (t,) = [t for t in fig.to_dict()["data"] if t.get("name") == "entries"]
    return t


def test_buffer_view_of_a_recorded_trace(any_match: list[Step]) -> None:
    entries, added, pointed, removed = buffer_view(any_match, 2)
    assert list(entries) == ["a@a1", "a@a2", "b@b3"]
    assert entries["b@b3"] == {"id": "b@b3", "state": "b", "event": "b3", "step": 2,
                               "preds": [{"label": "1", "to": "a@a1"}, {"label": "2", "to": "a@a2", "new": True}]}
    assert (added, pointed, removed) == ({"b@b3"}, {"b@b3"}, set())
    entries, added, pointed, _ = buffer_view(any_match, 3)
    assert entries["b@b3"]["preds"][1]["new"] is False  # written on an earlier step
    assert (added, pointed) == ({"b@b4"}, {"b@b4"})
    assert any_match[2].buffer["added"][0]["preds"] == [{"label": "1", "to": "a@a1"}]  # the trace is left alone


def hand_steps() -> list[Step]:
    def entry(eid: str, state: str, event: int, *preds: tuple[str, str | None]) -> dict[str, Any]:
        return {"id": eid, "state": state, "event": event, "preds": [{"label": lab, "to": to} for lab, to in preds]}
    return [
        Step(step=0, event={}, buffer={"kind": "shared", "added": [entry("x", "a", 1, ("1", None))]}),
        Step(step=1, event={}, buffer={"kind": "lazy", "added": [entry("lazy", "a", 9, ("1", None))]}),
        Step(step=2, event={}, buffer={"kind": "shared", "added": [entry("y", "b", 2, ("1", "x"))],
                                       "pointers": [{"entry": "ghost", "label": "2", "to": "x"}]}),
        Step(step=3, event={}, buffer={"kind": "shared", "removed": ["x", "nothing"]}),
        Step(step=4, event={}, buffer={}),
    ]


def test_pruned_entries_are_kept_on_their_step_only() -> None:
    steps = hand_steps()
    entries, added, pointed, removed = buffer_view(steps, 2)
    assert list(entries) == ["x", "y"] and added == {"y"} and pointed == set()
    entries, added, _, removed = buffer_view(steps, 3)
    assert removed == {"x"} and entries["x"]["removed"] is True and added == set()
    assert "removed" not in entries["y"]
    entries, _, _, removed = buffer_view(steps, 4)
    assert list(entries) == ["y"] and removed == set()


def test_retrieval_path(any_match: list[Step]) -> None:
    entries = buffer_view(any_match, 3)[0]
    assert retrieval_path(entries, "b4", "2.1") == [("b@b4", "a@a2", "2.1"), ("a@a2", None, "2")]
    assert retrieval_path(entries, "b4", "1.1") == [("b@b4", "a@a1", "1.1"), ("a@a1", None, "1")]
    assert retrieval_path(entries, "b3", "1") == [("b@b3", "a@a1", "1"), ("a@a1", None, "1")]
    assert retrieval_path(entries, "b4", None) == []
    assert retrieval_path(entries, "b9", "1") == []
    # "1" is a prefix of "1.1", not of "11"
    assert retrieval_path(entries, "b4", "11") == []


def test_retrieval_path_takes_the_longest_label_and_stops_at_a_loop() -> None:
    entries = {"c": {"event": 3, "preds": [{"label": "1", "to": "a"}, {"label": "1.2", "to": "b"}]},
               "b": {"event": 2, "preds": [{"label": "1.2", "to": "c"}]},
               "a": {"event": 1, "preds": [{"label": "1", "to": None}]}}
    assert retrieval_path(entries, 3, "1.2.5") == [("c", "b", "1.2"), ("b", "c", "1.2")]
    assert retrieval_path(entries, 3, "1.3") == [("c", "a", "1"), ("a", None, "1")]


def test_stack_order() -> None:
    entries = {"1": {"state": "c"}, "2": {"state": "a"}, "3": {"state": "c"}, "4": {"state": "z"}}
    assert stack_order(None, entries) == ["c", "a", "z"]
    g = nx.MultiDiGraph()
    g.add_node("c", order=2)
    g.add_node("a", order=0)
    g.add_node("b", order=1, alternative=0)
    g.add_node("d", order=0, alternative=1)
    g.add_node("F", kind="final", order=9)
    g.add_node("n", kind="negation", order=1)
    assert stack_order(g, entries) == ["a", "b", "c", "d", "z"]


def test_shared_buffer_figure(any_match: list[Step]) -> None:
    entries, added, pointed, _ = buffer_view(any_match, 3)
    stacks = ["a", "b"]
    seq_of = {"a1": 0, "a2": 1, "b3": 2, "b4": 3}
    path = retrieval_path(entries, "b4", "2.1")
    fig = shared_buffer_figure(entries, stacks, seq_of, added, pointed, path)
    go.Figure(fig.to_dict())  # valid plotly
    t = entry_trace(fig)
    assert t["text"] == ["ea1", "ea2", "eb3", "eb4"]
    assert (t["x"], t["y"]) == ([0.0, 0.0, 3.0, 3.0], [0.0, 1.0, 2.0, 3.0])
    assert t["marker"]["color"] == ["#eaf2f8", PATH, "#eaf2f8", PATH]  # the path wins over "written on this step"
    labels = [t for t in fig.to_dict()["data"] if t.get("mode") == "text" and t.get("textposition") == "middle right"]
    assert sorted(labels[0]["text"]) == ["[1.1]", "[1]", "[2.1]", "[2]"]
    assert fig.layout.title.text == ""


def test_shared_buffer_figure_draws_the_latest_events_only() -> None:
    steps = hand_steps()
    entries, added, pointed, removed = buffer_view(steps, 3)
    fig = shared_buffer_figure(entries, ["a"], {1: 0, 2: 1}, added, pointed, max_events=1)
    t = entry_trace(fig)
    assert t["text"] == ["e2"] and t["x"] == [3.0]  # stack b comes after the given ones
    assert fig.layout.title.text == "the latest 1 events drawn; 1 older not drawn"
    full = entry_trace(shared_buffer_figure(entries, ["a", "b"], {1: 0, 2: 1}, {"y"}))
    assert full["marker"]["color"] == [ADDED, REMOVED] and full["text"] == ["e2", "e1"]


def test_lazy_buffer_figure() -> None:
    step = Step(step=5, event={}, actions=[Action(kind="store", event=7),
                                           Action(kind="take", run="1", event=6, detail={"source": "buffer"}),
                                           Action(kind="take", run="1", event=5, detail={"source": "stream"})],
                buffer={"kind": "lazy", "buffers": {"b": [4, 5, 6, 7]}, "order": [["b", "a"]], "partial": 2})
    fig = lazy_buffer_figure(step, ["a", "b", "c"], types={"a": "A", "b": "B"}, max_events=3)
    go.Figure(fig.to_dict())
    (t,) = [t for t in fig.to_dict()["data"] if t.get("mode") == "markers+text"]
    assert t["text"] == ["5", "6", "7"] and t["x"] == [0, 0, 0] and t["y"] == [0, 1, 2]
    assert t["marker"]["color"] == ["#eaf2f8", PATH, ADDED]
    notes = [a["text"] for a in fig.to_dict()["layout"]["annotations"]]
    assert notes == ["1. <b>b</b> (B)<br>4 buffered", "+1 older", "2. <b>a</b> (A)<br>from the stream",
                     "<b>c</b><br>from the stream"]
    assert fig.layout.title.text == "2 partial match(es) · evaluation order b → a (pattern order a → b → c)"


def test_lazy_buffer_figure_without_buffers() -> None:
    fig = lazy_buffer_figure(Step(step=0, event={}), ["a"])
    assert [t for t in fig.to_dict()["data"] if t.get("mode") == "markers+text"] == []
    assert fig.layout.title.text == "0 partial match(es)"


def test_retrieval_path_starts_at_the_entry_of_the_exact_version() -> None:
    # the last event sits in two stacks (a Kleene event as b[1] and b[i]): the entry whose pointer
    # carries the run's own version is where the match ends
    entries = {"p": {"event": 5, "preds": [{"label": "1", "to": None}]},
               "q": {"event": 5, "preds": [{"label": "1.2", "to": None}]}}
    assert retrieval_path(entries, 5, "1.2") == [("q", None, "1.2")]
    assert retrieval_path(entries, 5, "1.3") == [("p", None, "1")]
    assert retrieval_path(entries, 5, "11") == []  # "1" is a version prefix of "1.x" only
