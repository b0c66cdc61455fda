"""The SES automaton drawing (engine/engines/ses/graph.py): states (i, S) and the moves of
``automaton_graph`` on worked patterns, and :class:`GraphUnavailable` naming why a pattern
is not an SES pattern."""
from __future__ import annotations

import networkx as nx
import pytest

from engine.dsl import parse
from engine.engines.ses.graph import automaton_graph
from engine.engines.spec import GraphUnavailable


def kinds(g: nx.MultiDiGraph) -> dict[str, str]:
    return {n: d["kind"] for n, d in g.nodes(data=True)}


def edges(g: nx.MultiDiGraph) -> set[tuple[str, str, str, str]]:
    return {(u, v, d["kind"], d["style"]) for u, v, d in g.edges(data=True)}


def test_sequence_of_single_events() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, B b, C c) WHERE a.x = b.x"))
    assert kinds(g) == {"(1,{})": "initial", "(1,{a})": "state", "(2,{b})": "state", "(3,{c})": "final"}
    assert edges(g) == {
        ("(1,{})", "(1,{a})", "begin", "begin"),
        ("(1,{a})", "(2,{b})", "next_set", "begin"),
        ("(2,{b})", "(3,{c})", "next_set", "begin"),
        ("(1,{a})", "(1,{a})", "skip", "ignore"),
        ("(2,{b})", "(2,{b})", "skip", "ignore"),
    }


def test_an_event_set_is_a_subset_lattice() -> None:
    g = automaton_graph(parse("PATTERN AND(A a, B b)"))
    states = set(kinds(g))
    assert {"(1,{})", "(1,{a})", "(1,{b})", "(1,{a,b})"} <= states
    assert kinds(g)["(1,{a,b})"] == "final"


@pytest.mark.parametrize("src, why", [
    ("PATTERN SEQ(A a, !B b, C c) WITHIN 3", "runs SES patterns only: a SEQ of event sets (a component or AND(...) "
                                            "of components), without negation, `?`, `*` or OR"),
    ("PATTERN SEQ(A a, OR(B b, C c))", "runs SES patterns only: a SEQ of event sets (a component or AND(...) "
                                      "of components), without negation, `?`, `*` or OR"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity", "selects among all matches (skip_till_any_match) only, "
                                                      "not strict_contiguity"),
    ("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP", "OUTPUT NON_OVERLAP is not implemented by the SES automaton"),
])
def test_unsupported_patterns_name_why(src: str, why: str) -> None:
    with pytest.raises(GraphUnavailable) as info:
        automaton_graph(parse(src))
    assert str(info.value) == f"the SES automaton cannot compile this pattern: {why}"
