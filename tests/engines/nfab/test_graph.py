"""NFA^b's automaton drawing (engine/engines/nfab/graph.py): the states and edge kinds of
``automaton_graph`` on worked patterns, windows written with plural units, and the
:class:`GraphUnavailable` refusal naming why NFA^b cannot compile a pattern."""
from __future__ import annotations

import networkx as nx
import pytest

from engine.dsl import parse
from engine.engines.nfab.graph import automaton_graph
from engine.engines.spec import GraphUnavailable


def edges(g: nx.MultiDiGraph) -> set[tuple[str, str, str]]:
    return {(u, v, d["kind"]) for u, v, d in g.edges(data=True)}


def test_kleene_pattern_states_and_edges() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, B+ b[]) WHERE b[i].x > a.x"))
    assert isinstance(g, nx.MultiDiGraph)
    assert {n: d["kind"] for n, d in g.nodes(data=True)} == {
        "a": "singleton", "b[1]": "kleene_first", "b[i]": "kleene_rest", "F": "final"}
    assert [g.nodes[n]["order"] for n in ("a", "b[1]", "b[i]", "F")] == [0, 1, 2, 3]
    assert edges(g) == {
        ("a", "b[1]", "begin"), ("b[1]", "b[i]", "begin"), ("b[1]", "b[1]", "ignore"),
        ("b[i]", "b[i]", "take"), ("b[i]", "b[i]", "ignore"), ("b[i]", "F", "proceed"),
    }
    take = next(d for u, v, d in g.edges(data=True) if d["kind"] == "take")
    assert take["formula"] == "B: b[i].x > a.x"


def test_single_events_have_no_kleene_states() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, B b, C c) WHERE strict_contiguity"))
    assert {n: d["kind"] for n, d in g.nodes(data=True)} == {
        "a": "singleton", "b": "singleton", "c": "singleton", "F": "final"}
    assert edges(g) == {("a", "b", "begin"), ("b", "c", "begin"), ("c", "F", "begin"),
                        ("b", "b", "ignore"), ("c", "c", "ignore")}
    # strict contiguity: an event may never be ignored
    assert {d["formula"] for *_, d in g.edges(data=True) if d["kind"] == "ignore"} == {"false"}


def test_the_optimised_formulas_are_shown() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, B b) WITHIN 5"))
    first = next(d for u, v, d in g.edges(data=True) if u == "a")
    assert first["formula"] == "A: true"
    assert first["label"] == first["formula_optimised"] == "A: true ∧ e.ts - a.ts < 5"
    ignore = next(d for u, v, d in g.edges(data=True) if d["kind"] == "ignore")
    assert (ignore["formula"], ignore["label"]) == ("true", "e.ts - a.ts < 5")


@pytest.mark.parametrize("within, written", [("12 hours", "12 hours"), ("1 hour", "1 hour"),
                                             ("2 days", "2 days"), ("1 day", "1 day"), ("30 min", "30 min")])
def test_windows_are_written_as_in_the_pattern(within: str, written: str) -> None:
    g = automaton_graph(parse(f"PATTERN SEQ(A a, B b) WITHIN {within}"))
    labels = [d["label"] for *_, d in g.edges(data=True)]
    assert labels and all(label.endswith(f"e.ts - a.ts < {written}") for label in labels), labels
    assert not any("ss" in label.split("<")[-1] for label in labels)


def test_unsupported_pattern_names_why() -> None:
    with pytest.raises(GraphUnavailable) as info:
        automaton_graph(parse("PATTERN SEQ(A a, B+ b[]) WHERE b[i].x > b.y"))
    assert str(info.value) == ("NFA^b cannot compile this pattern: `b.x` (every element) mixed with indexed "
                               "`b[...]` in one predicate; split the predicate")
