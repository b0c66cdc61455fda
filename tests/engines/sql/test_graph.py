"""The MATCH_RECOGNIZE program as an automaton (engine/engines/sql/graph.py): states per labelling
place, take edges with their DEFINE, numbered in preference order."""
from __future__ import annotations

import pytest

from engine.engines.spec import GraphUnavailable
from engine.engines.sql.graph import automaton_graph
from engine.engines.sql.parser import parse_query


def edges(sql: str) -> list[tuple[str, str, str]]:
    g = automaton_graph(parse_query(f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {sql})"))
    return sorted((u, v, d["label"]) for u, v, d in g.edges(data=True))


def test_greedy_prefers_one_more_row_reluctant_prefers_to_stop() -> None:
    assert edges("PATTERN (A B+ C) DEFINE B AS x > 1") == [
        ("A", "B", "1. B"), ("B", "B#2", "1. B"), ("B", "C", "2. C"), ("B#2", "B#2", "1. B"), ("B#2", "C", "2. C"),
        ("C", "F", "1. end"), ("q0", "A", "1. A")]
    assert ("B", "C", "1. C") in edges("PATTERN (A B+? C)") and ("B", "B#2", "2. B") in edges("PATTERN (A B+? C)")


def test_alternation_left_first_and_the_define_on_the_edge() -> None:
    g = automaton_graph(parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (X | Y) "
                                    "DEFINE Y AS price < PREV(price))"))
    by_var = {d["var"]: d for _u, _v, d in g.edges(data=True) if d["kind"] == "take"}
    assert by_var["X"]["rank"] == 1 and by_var["Y"]["rank"] == 2
    assert "price < PREV(price)" in by_var["Y"]["formula"] and "no DEFINE" in by_var["X"]["formula"]
    assert g.nodes["q0"]["kind"] == "initial" and g.nodes["F"]["kind"] == "final"


def test_anchors_and_exclusions_are_written_on_the_edges() -> None:
    g = automaton_graph(parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (^A {- B -} $))"))
    formulas = " | ".join(d["formula"] for _u, _v, d in g.edges(data=True))
    assert "(^)" in formulas and "($)" in formulas and "excluded from ALL ROWS" in formulas


def test_only_queries_are_drawn() -> None:
    with pytest.raises(GraphUnavailable):
        automaton_graph("PATTERN SEQ(A a)")
