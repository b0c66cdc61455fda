"""Tests of visualizers/automaton/tables.py: the tables under the automaton figure.

- ``legend_rows``: each state kind once in order of first appearance (final and reject named), each
  (move, drawing kind) once with its line and colour, the engine's terms; on NFA^b and by hand;
- ``edge_table``: one row per edge, sorted by the state's row and column, then begin, take, ignore,
  proceed, negation;
- ``state_table``.
"""
from __future__ import annotations

import networkx as nx

from engine.dsl import parse
from visualizers.automaton import automaton_graph
from visualizers.automaton.tables import edge_table, legend_rows, state_table


def hand_graph() -> nx.MultiDiGraph:
    g = nx.MultiDiGraph(terms=[("θ", "a predicate")], states={"state": ("q", "waits")})
    g.add_node("b", kind="state", order=1, alternative=0, var="b", type="B")
    g.add_node("a", kind="initial", order=0, alternative=0, var="a", type="A")
    g.add_node("F", kind="final", order=2)
    g.add_node("x", order=1, alternative=1)  # no kind: a singleton
    g.add_edge("b", "F", key="k1", kind="proceed", move="epsilon", shown="ε", formula="true")
    g.add_edge("b", "b", key="take", kind="take", move="iterate", label="it", formula="f", formula_optimised="f*")
    g.add_edge("a", "b", key="begin", kind="begin", shown="begin a")
    g.add_edge("b", "b", key="ign", kind="ignore")
    g.add_edge("x", "F", key="odd")
    g.add_edge("a", "x", key="take2", kind="take", move="iterate")
    g.add_edge("x", "F", key="xb", kind="begin")
    return g


def test_legend_rows_by_hand() -> None:
    rows = legend_rows(hand_graph()).to_dict("records")
    # (iterate, take) of a -> x is listed once; an edge without a kind is drawn as a take, named by nothing
    assert [(r["drawn as"], r["kind"]) for r in rows] == [
        ("state q", "state"), ("state start", "initial"), ("state F (final)", "final"), ("state state", "singleton"),
        ("solid purple edge", "epsilon"), ("solid green edge", "iterate"), ("dashed grey edge", "ignore"),
        ("solid dark blue edge", "begin"), ("solid  edge", ""), ("term", "θ")]  # edges in the graph's order
    assert rows[0]["meaning"] == "waits"  # the engine's own meaning
    assert rows[4]["meaning"] == "ε: start this clause's chain"
    assert rows[8]["meaning"] == "" and rows[9]["meaning"] == "a predicate"


def test_edge_table_by_hand() -> None:
    df = edge_table(hand_graph())
    assert list(df.columns) == ["from", "to", "edge", "move", "shown", "θ (basic)", "θ* (optimised)"]
    assert df[["from", "to", "edge", "move", "shown"]].values.tolist() == [
        ["a", "b", "begin", "begin", "begin a"], ["a", "x", "take", "iterate", ""],
        ["b", "b", "take", "iterate", "it"], ["b", "b", "ignore", "ignore", ""], ["b", "F", "proceed", "epsilon", "ε"],
        ["x", "F", "begin", "begin", ""], ["x", "F", "odd", "odd", ""]]  # row 1 after row 0, whatever the edge
    assert df["θ* (optimised)"].tolist()[2] == "f*" and df["θ (basic)"].tolist()[4] == "true"
    assert df.index.tolist() == list(range(7))
    assert list(edge_table(nx.MultiDiGraph()).columns) == list(df.columns)


def test_state_table() -> None:
    df = state_table(hand_graph())
    assert df.to_dict("records")[0] == {"state": "b", "kind": "state", "variable": "b", "event type": "B",
                                        "alternative": 0}
    assert df["alternative"].tolist() == [0, 0, 0, 1]
    assert df["kind"].tolist()[3] is None


def test_nfab_tables() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, B+ b[], C c) WITHIN 5"), "nfab")
    legend = legend_rows(g)
    kinds = legend["kind"].tolist()
    assert kinds[:4] == ["singleton", "kleene_first", "kleene_rest", "final"]
    assert "begin" in kinds and "take" in kinds and "ignore" in kinds and "proceed" in kinds
    assert len(kinds) == len(set(kinds))
    edges = edge_table(g)
    assert len(edges) == g.number_of_edges()
    assert edges[["from", "edge"]].values.tolist()[0] == ["a", "begin"]
    assert set(state_table(g)["state"]) == set(g.nodes)


def test_eager_with_a_negation_lists_f_as_final() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, !N n, B b) WITHIN 5"), "eager")
    rows = legend_rows(g)
    assert "final" in rows["kind"].tolist()
    assert "singleton" not in rows["kind"].tolist()
