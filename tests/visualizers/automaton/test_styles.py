"""Tests of visualizers/automaton/styles.py: how an automaton drawing looks and what it says.

- every drawing kind, state kind and move the drawn engines produce (on a few patterns) has a style,
  a fill and a meaning;
- ``state_meaning``: the engine's own meanings (``graph["states"]``) over the generic ones, the kind
  itself for an unknown kind;
- ``_legend_name`` and ``_colour_name``.
"""
from __future__ import annotations

import networkx as nx
import pytest

from engine.dsl import parse
from visualizers.automaton import automaton_graph
from visualizers.automaton.catalogue import COMPILERS, UNCERTAIN
from visualizers.automaton.styles import (EDGE_STYLE, MOVE_MEANING, STATE_FILL, STATE_MEANING, _colour_name,
                                          _legend_name, state_meaning)

PATTERNS = ["PATTERN SEQ(A a, B+ b[], C c) WITHIN 5", "PATTERN SEQ(A a, !N n, B b) WITHIN 5",
            "PATTERN SEQ(AND(A a, B b), C c) WITHIN 5", "PATTERN SEQ(A a, B b) WHERE skip_till_next_match WITHIN 5"]


def graphs() -> list[tuple[str, str, nx.MultiDiGraph]]:
    out = []
    for engine in COMPILERS:
        for text in PATTERNS:
            try:
                out.append((engine, text, automaton_graph(parse(text), engine, interval=engine in UNCERTAIN)))
            except Exception:  # an engine that cannot draw the pattern (the page says why)
                continue
    return out


def test_every_drawn_engine_is_covered() -> None:
    drawn = graphs()
    assert {e for e, _, _ in drawn} == set(COMPILERS)
    for engine, text, g in drawn:
        own = g.graph.get("states") or {}
        for n, d in g.nodes(data=True):
            kind = d.get("kind")
            if kind is None:  # the eager graph's F with a negation (see test_tables.py)
                continue
            assert kind in STATE_FILL, (engine, text, n, kind)
            assert kind in STATE_MEANING or kind in own, (engine, text, n, kind)
        for u, v, d in g.edges(data=True):
            assert d["kind"] in EDGE_STYLE or d["kind"] in MOVE_MEANING, (engine, text, u, v, d["kind"])
            assert d.get("move", d["kind"]) in MOVE_MEANING, (engine, text, u, v, d.get("move"))


def test_styles_are_complete() -> None:
    assert set(EDGE_STYLE) == {"begin", "take", "ignore", "proceed", "negation"}
    assert all(set(s) == {"color", "dash", "width"} and s["dash"] in ("solid", "dash", "dot") for s in EDGE_STYLE.values())
    assert set(STATE_MEANING) <= set(STATE_FILL)
    assert all(c.startswith("#") and len(c) == 7 for c in STATE_FILL.values())


def test_state_meaning() -> None:
    g = nx.MultiDiGraph(states={"state": ("S", "an own meaning")})
    assert state_meaning(g, "state") == ("S", "an own meaning")
    assert state_meaning(g, "final") == ("F", "accepting: a match is reported")
    assert state_meaning(g, "mystery") == ("mystery", "")
    assert state_meaning(nx.MultiDiGraph(), "state") == STATE_MEANING["state"]
    assert state_meaning(nx.MultiDiGraph(states=None), "reject")[0] == "R"


@pytest.mark.parametrize("kind, moves, name", [
    ("proceed", {"proceed"}, "proceed (ε)"),
    ("proceed", {"proceed", "timeout", "epsilon"}, "epsilon / timeout / proceed (ε)"),
    ("proceed", set(), "proceed (ε)"),
    ("negation", {"negation"}, "negation check"),
    ("negation", set(), "negation check"),
    ("negation", {"negation", "kill"}, "kill / negation"),
    ("take", {"take", "iterate"}, "iterate / take"),
    ("take", set(), "take"),
])
def test_legend_name(kind: str, moves: set[str], name: str) -> None:
    assert _legend_name(kind, moves) == name


def test_colour_name() -> None:
    assert [_colour_name(k) for k in ("begin", "take", "ignore", "proceed", "negation", None, "other")] == [
        "dark blue", "green", "grey", "purple", "red", "", ""]
