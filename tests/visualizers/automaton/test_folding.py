"""Tests of visualizers/automaton/folding.py: the lazy tree's states that bind the same variables drawn
as one.

- ``foldable`` counts the states folding saves (0 for a chain); ``fold_states`` returns a graph with
  nothing to fold as it is;
- on the lazy tree of AND(A a, B b, C c): one state per set of bound variables, named in pattern order,
  with how many tree states it stands for and their orders; every edge of the tree is an edge of the
  folded graph (same moves), once; rows renumbered per column and centred; ``graph["folded"]``;
- on a hand-built graph: a clause prefix kept in the name, the pattern order from the root's reads.
"""
from __future__ import annotations

import networkx as nx

from engine.dsl import parse
from visualizers.automaton import automaton_graph
from visualizers.automaton.folding import fold_states, foldable


def test_nothing_to_fold() -> None:
    g = automaton_graph(parse("PATTERN SEQ(A a, B b, C c) WITHIN 5"), "lazy-chain")
    assert foldable(g) == 0
    assert fold_states(g) is g
    assert "folded" not in g.graph


def test_the_tree_of_an_and_group() -> None:
    g = automaton_graph(parse("PATTERN AND(A a, B b, C c) WITHIN 5"), "lazy-tree")
    assert g.number_of_nodes() == 12 and foldable(g) == 3
    f = fold_states(g)
    assert f.graph["folded"] == (12, 9) and f.number_of_nodes() == 9
    assert sorted(f.nodes) == sorted(["root", "F", "R", "q{a}", "q{b}", "q{c}", "q{a,b}", "q{a,c}", "q{b,c}"])
    ab = f.nodes["q{a,b}"]
    assert (ab["label"], ab["folded"], sorted(ab["orders"])) == ("q{a,b}", 2, [("a", "b"), ("b", "a")])
    assert ab["formula"] == "2 tree states (every order of {a, b}) folded into one"
    assert f.nodes["q{a}"]["folded"] == 1 and "formula" not in f.nodes["q{a}"]
    # the same moves, each once
    rep = {n: ("q{" + ",".join(sorted(d["path"])) + "}" if d.get("kind") == "state" else n)
           for n, d in g.nodes(data=True)}
    assert set(f.edges(keys=True)) == {(rep[u], rep[v], k) for u, v, k in g.edges(keys=True)}
    assert f.number_of_edges() == len({(rep[u], rep[v], k) for u, v, k in g.edges(keys=True)}) == 18
    assert g.number_of_nodes() == 12  # the tree is left alone
    # rows: the states of each column on distinct rows, centred on the tallest column (three states)
    cols: dict[int, list[int]] = {}
    for _n, d in f.nodes(data=True):
        if d["kind"] != "reject":
            cols.setdefault(d["order"], []).append(d["alternative"])
    assert {c: sorted(rows) for c, rows in cols.items()} == {0: [1], 1: [0, 1, 2], 2: [0, 1, 2], 3: [1]}
    assert f.nodes["R"]["alternative"] == -1


def hand_graph() -> nx.MultiDiGraph:
    g = nx.MultiDiGraph(name="hand")
    g.add_node("root", kind="initial", order=0, alternative=0, reads=["c", "b", "a"], path=())
    for alt, path in enumerate([("b", "c"), ("c", "b"), ("a",)]):
        g.add_node(f"k1:q[{','.join(path)}]", kind="state", order=len(path), alternative=alt, clause=1, path=path)
    g.add_node("R", kind="reject", order=3, alternative=-1)
    g.add_edge("root", "k1:q[a]", key="take:a")
    g.add_edge("k1:q[b,c]", "R", key="timeout", kind="take", shown="first")
    g.add_edge("k1:q[c,b]", "R", key="timeout", kind="take", shown="second")
    return g


def test_clause_prefix_and_pattern_order() -> None:
    g = hand_graph()
    assert foldable(g) == 1
    f = fold_states(g)
    assert sorted(f.nodes) == ["R", "k1:q{a}", "k1:q{c,b}", "root"]  # c before b: the root reads c first
    assert f.nodes["k1:q{c,b}"]["label"] == "q{c,b}"
    assert sorted(f.edges(keys=True)) == [("k1:q{c,b}", "R", "timeout"), ("root", "k1:q{a}", "take:a")]
    assert f.edges["k1:q{c,b}", "R", "timeout"]["shown"] == "first"  # the first of the folded edges
    assert f.graph["name"] == "hand" and f.graph["folded"] == (5, 4)


def test_same_set_in_another_clause_is_another_state() -> None:
    g = hand_graph()
    g.add_node("k2:q[b,c]", kind="state", order=2, alternative=3, clause=2, path=("b", "c"))
    assert foldable(g) == 1
    assert "k2:q{c,b}" in fold_states(g)
