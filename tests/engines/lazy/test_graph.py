"""The lazy chain, lazy tree and eager NFA drawings (engine/engines/lazy/graph.py): the states
and edge kinds of each graph on worked patterns, the chain in a given evaluation order, and
:class:`GraphUnavailable` naming why (strategy, OUTPUT NON_OVERLAP, a tree too big to draw)."""
from __future__ import annotations

from typing import Any, Callable

import networkx as nx
import pytest

from engine.dsl import parse
from engine.engines.lazy.graph import chain_graph, chain_graph_in_order, eager_graph, tree_graph
from engine.engines.spec import GraphUnavailable
from engine.model import Pattern

ABC = parse("PATTERN SEQ(A a, B b, C c) WHERE a.x = b.x")


def kinds(g: nx.MultiDiGraph) -> dict[str, str]:
    return {n: d["kind"] for n, d in g.nodes(data=True)}


def edges(g: nx.MultiDiGraph) -> set[tuple[str, str, str, str]]:
    return {(u, v, d["kind"], d["style"]) for u, v, d in g.edges(data=True)}


def labels(g: nx.MultiDiGraph, kind: str) -> list[str]:
    return [d["label"] for *_, d in g.edges(data=True) if d["kind"] == kind]


def test_chain_in_pattern_order() -> None:
    g = chain_graph(ABC)
    assert kinds(g) == {"q1": "initial", "q2": "state", "q3": "state", "F": "final", "R": "reject"}
    assert edges(g) == {
        ("q1", "q2", "take", "take"), ("q2", "q3", "take", "take"), ("q3", "F", "take", "take"),
        ("q2", "q2", "store", "ignore"), ("q2", "q2", "ignore", "ignore"), ("q3", "q3", "ignore", "ignore"),
        ("q2", "R", "timeout", "proceed"), ("q3", "R", "timeout", "proceed"),
    }
    assert labels(g, "take") == ["take a:A", "take b:B · prec={a}", "take c:C · prec={b}"]
    assert labels(g, "store") == ["store c"]  # c is later in the pattern but not yet evaluated


def test_chain_in_a_given_order() -> None:
    g = chain_graph_in_order(ABC, ["c", "a", "b"])
    assert labels(g, "take") == ["take c:C", "take a:A · succ={c}", "take b:B · prec={a} · succ={c}"]
    assert labels(g, "store") == ["store b"]
    assert labels(chain_graph_in_order(ABC, ["a", "b", "c"]), "take") == labels(chain_graph(ABC), "take")


def test_tree_has_a_state_per_ordered_prefix() -> None:
    g = tree_graph(ABC)
    states = {n for n, k in kinds(g).items() if k == "state"}
    assert states == {"q[a]", "q[b]", "q[c]", "q[a,b]", "q[a,c]", "q[b,a]", "q[b,c]", "q[c,a]", "q[c,b]"}
    assert kinds(g)["root"] == "initial" and kinds(g)["F"] == "final" and kinds(g)["R"] == "reject"
    # 3 takes from the root, 2 from each single, 1 from each pair into F; a timeout from each state
    takes = [(u, v) for u, v, k, _ in edges(g) if k == "take"]
    assert len(takes) == 3 + 3 * 2 + 6 and all(v == "F" for u, v in takes if u.count(",") == 1)
    assert {u for u, v, k, _ in edges(g) if k == "timeout"} == states


def test_tree_too_big_to_draw_names_why() -> None:
    p = parse("PATTERN SEQ(" + ", ".join(f"A a{i}" for i in range(7)) + ")")
    with pytest.raises(GraphUnavailable) as info:
        tree_graph(p)
    assert str(info.value) == ("the lazy tree is not drawn: the tree of clause 0 has 7 variables; drawing is "
                               "limited to 6 (the runtime instantiates states lazily)")
    assert tree_graph(parse("PATTERN SEQ(" + ", ".join(f"A a{i}" for i in range(6)) + ")")).number_of_nodes() > 6


def test_eager_graph_is_a_lattice_of_bound_sets() -> None:
    g = eager_graph(ABC)
    assert kinds(g) == {"q{}": "initial", "q{a}": "state", "q{a,b}": "state", "F": "final"}
    assert edges(g) == {
        ("q{}", "q{a}", "take", "take"), ("q{a}", "q{a,b}", "take", "take"), ("q{a,b}", "F", "take", "take"),
        ("q{a}", "q{a}", "ignore", "ignore"), ("q{a,b}", "q{a,b}", "ignore", "ignore"),
    }


@pytest.mark.parametrize("draw, what", [(chain_graph, "the lazy chain"), (tree_graph, "the lazy tree"),
                                        (eager_graph, "the eager NFA")])
def test_other_strategies_are_refused(draw: Callable[[Pattern], Any], what: str) -> None:
    with pytest.raises(GraphUnavailable) as info:
        draw(parse("PATTERN SEQ(A a, B b) WHERE strict_contiguity"))
    assert str(info.value) == (f"{what} cannot compile this pattern: implements skip_till_any_match only "
                               "(Kolchinsky & Schuster), not strict_contiguity; use nfab for the other strategies")


@pytest.mark.parametrize("draw, what", [(chain_graph, "the lazy chain"), (tree_graph, "the lazy tree"),
                                        (eager_graph, "the eager NFA")])
def test_non_overlap_is_refused(draw: Callable[[Pattern], Any], what: str) -> None:
    with pytest.raises(GraphUnavailable, match=f"^{what} cannot compile this pattern: OUTPUT NON_OVERLAP"):
        draw(parse("PATTERN SEQ(A a, B b) OUTPUT NON_OVERLAP"))


def test_chain_in_order_refuses_too() -> None:
    with pytest.raises(GraphUnavailable, match="^the lazy chain cannot compile"):
        chain_graph_in_order(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match"), ["b", "a"])
