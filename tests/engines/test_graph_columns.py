"""The shared drawing attribute helper (engine/engines/graph_columns.py): ``centre_columns``
centres every column (``order``) of states on the tallest one, ignoring reject states."""
from __future__ import annotations

import networkx as nx

from engine.engines.graph_columns import centre_columns


def graph(states: list[tuple[str, int, int, str]]) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for name, order, alternative, kind in states:
        g.add_node(name, order=order, alternative=alternative, kind=kind)
    return g


def rows(g: nx.MultiDiGraph) -> dict[str, int]:
    return {n: d["alternative"] for n, d in g.nodes(data=True)}


def test_columns_are_centred_on_the_tallest() -> None:
    g = graph([
        ("s", 0, 0, "initial"),
        ("a1", 1, 0, "state"), ("a2", 1, 1, "state"), ("a3", 1, 2, "state"), ("a4", 1, 3, "state"),
        ("b1", 2, 0, "state"), ("b2", 2, 1, "state"),
        ("F", 3, 0, "final"),
    ])
    centre_columns(g)
    # tallest = 4: a column of 1 moves down (4 - 1) // 2 = 1, a column of 2 moves (4 - 2) // 2 = 1
    assert rows(g) == {"s": 1, "a1": 0, "a2": 1, "a3": 2, "a4": 3, "b1": 1, "b2": 2, "F": 1}


def test_odd_difference_rounds_down() -> None:
    g = graph([("x", 0, 0, "state"), ("y1", 1, 0, "state"), ("y2", 1, 1, "state"), ("y3", 1, 2, "state"),
               ("z1", 2, 0, "state"), ("z2", 2, 1, "state")])
    centre_columns(g)
    assert rows(g) == {"x": 1, "y1": 0, "y2": 1, "y3": 2, "z1": 0, "z2": 1}  # (3 - 2) // 2 = 0


def test_reject_states_are_neither_counted_nor_moved() -> None:
    g = graph([("q", 0, 0, "initial"), ("p1", 1, 0, "state"), ("p2", 1, 1, "state"),
               ("R", 2, -1, "reject"), ("R2", 2, -1, "reject"), ("R3", 2, -1, "reject")])
    centre_columns(g)
    # the tallest column is p's (2), not the three rejects: q moves (2 - 1) // 2 = 0
    assert rows(g) == {"q": 0, "p1": 0, "p2": 1, "R": -1, "R2": -1, "R3": -1}


def test_orders_and_rows_given_as_text_are_read_as_numbers() -> None:
    g = graph([("a", "0", "0", "state"), ("b", "1", "0", "state"), ("c", "1", "1", "state")])  # type: ignore[list-item]
    centre_columns(g)
    assert rows(g) == {"a": 0, "b": 0, "c": 1}


def test_an_empty_graph_is_left_alone() -> None:
    g = nx.MultiDiGraph()
    centre_columns(g)
    assert g.number_of_nodes() == 0
