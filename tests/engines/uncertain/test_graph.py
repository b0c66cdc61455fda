"""The interval engines' drawings (engine/engines/uncertain/graph.py): the event-based and
point-based graphs on a worked pattern (states and edge kinds), and :class:`GraphUnavailable`
naming why a pattern cannot run over interval data."""
from __future__ import annotations

from typing import Any, Callable

import networkx as nx
import pytest

from engine.dsl import parse
from engine.engines.spec import GraphUnavailable
from engine.engines.uncertain.graph import event_based_graph, point_based_graph
from engine.model import Pattern

ABC = parse("PATTERN SEQ(A a, B b, C c) WHERE a.x = b.x WITHIN 10")


def kinds(g: nx.MultiDiGraph) -> dict[str, str]:
    return {n: d["kind"] for n, d in g.nodes(data=True)}


def edges(g: nx.MultiDiGraph) -> set[tuple[str, str, str]]:
    return {(u, v, d["kind"]) for u, v, d in g.edges(data=True)}


def test_event_based_graph() -> None:
    g = event_based_graph(ABC)
    assert kinds(g) == {"q{}": "initial", "q{a}": "state", "q{a,b}": "state", "q{a,b,c}": "final",
                        "R": "reject", "α": "signature"}
    assert edges(g) == {
        ("q{}", "q{a}", "begin"), ("q{a}", "q{a,b}", "take"), ("q{a,b}", "q{a,b,c}", "take"),
        ("q{a}", "q{a}", "stay"), ("q{a,b}", "q{a,b}", "stay"),
        ("q{a,b,c}", "α", "emit"), ("α", "R", "drop"),
        ("q{a}", "R", "prune"), ("q{a,b}", "R", "prune"),  # the window prunes partial runs
    }


def test_point_based_graph() -> None:
    g = point_based_graph(ABC)
    assert kinds(g) == {"a": "initial", "b": "state", "c": "state", "F": "final", "R": "reject", "α": "signature"}
    assert edges(g) == {
        ("a", "b", "begin"), ("b", "c", "take"), ("c", "F", "take"), ("b", "b", "stay"), ("c", "c", "stay"),
        ("F", "α", "collapse"), ("α", "R", "drop"),
        ("b", "R", "expire"), ("c", "R", "expire"),  # the window expires partial runs
    }


SCOPE = ("the imprecise-timestamps model (VLDB 2010; docs/semantics.md, 'Imprecise timestamps') covers SEQ of "
         "single events with predicates, [attr], skip_till_any_match / skip_till_next_match and WITHIN")


def test_without_a_window_nothing_is_pruned() -> None:
    p = parse("PATTERN SEQ(A a, B b)")
    assert not {k for *_, k in edges(event_based_graph(p))} & {"prune", "expire"}
    assert not {k for *_, k in edges(point_based_graph(p))} & {"prune", "expire"}


@pytest.mark.parametrize("draw", [event_based_graph, point_based_graph])
@pytest.mark.parametrize("src, why", [
    ("PATTERN SEQ(A a, !B b, C c) WITHIN 3",
     f"negation `!B b` over interval data is not supported: the paper leaves it as future work; {SCOPE}"),
    ("PATTERN SEQ(A a, B+ b[], C c)",
     f"Kleene closure `B+ b[]` over interval data is not supported: the paper leaves it as future work; {SCOPE}"),
    ("PATTERN SEQ(A a, OR(B b, C c))", f"OR(...) over interval data is not supported; {SCOPE}"),
    ("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP", f"OUTPUT NON_OVERLAP over interval data is not supported; {SCOPE}"),
])
def test_unsupported_patterns_name_why(draw: Callable[[Pattern], Any], src: str, why: str) -> None:
    with pytest.raises(GraphUnavailable) as info:
        draw(parse(src))
    assert str(info.value) == f"the uncertain engines cannot run this pattern: {why}"
