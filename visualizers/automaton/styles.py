"""How an automaton drawing looks and what it says: edge styles and state fills, what each state kind
and move means (generic and per engine), the drawing scale and the state radius.
"""
from __future__ import annotations

from typing import Any

import networkx as nx


EDGE_STYLE: dict[str, dict[str, Any]] = {
    "begin": {"color": "#1f4e79", "dash": "solid", "width": 2.2},
    "take": {"color": "#2e8b57", "dash": "solid", "width": 2.2},
    "ignore": {"color": "#7f7f7f", "dash": "dash", "width": 1.8},
    "proceed": {"color": "#8e44ad", "dash": "solid", "width": 2.0},
    "negation": {"color": "#c0392b", "dash": "dot", "width": 2.6},
}
STATE_FILL = {"singleton": "#dbe9f6", "kleene_first": "#dbe9f6", "kleene_rest": "#e3f4e8",
              "final": "#fff3cd", "negation": "#fdecea", "initial": "#eef2f7", "state": "#dbe9f6",
              "negative": "#fdecea", "reject": "#e5e5e5", "signature": "#fde9d9"}

# What each state kind and each move means (the legend under the figure, the hover text).
STATE_MEANING: dict[str, tuple[str, str]] = {
    "singleton": ("state", "waits for the event of a one-event component"),
    "kleene_first": ("a[1]", "first event of a Kleene + component"),
    "kleene_rest": ("a[i]", "further events of a Kleene component (take loop), then proceed"),
    "final": ("F", "accepting: a match is reported"),
    "negation": ("!x", "negation check: a qualifying event of this type kills the run"),
    "initial": ("start", "nothing bound yet; the first variable's events start partial matches"),
    "state": ("q", "some variables bound; waits for the next variable (from the stream or its buffer)"),
    "negative": ("¬x", "post-processing negation: looks for a qualifying negated event"),
    "reject": ("R", "reject: the partial match is dropped (its window closed, or a negated event was found)"),
    "signature": ("α", "a signature emitted as (signature, range, confidence)"),
}
MOVE_MEANING: dict[str, str] = {
    "begin": "consume the event and move to the next state",
    "take": "consume the event (Kleene: stay and extend the list; lazy: bind the next variable)",
    "iterate": "extend a Kleene list with one more event",
    "ignore": "skip the event (the strategy decides which may be skipped; eager: the instance stays as it was "
              "while a clone takes the event)",
    "store": "keep the event in a buffer for a later state (lazy evaluation)",
    "proceed": "ε: move on without consuming an event",
    "negation": "a qualifying negated event: the run dies (NFA^b) or goes to R (lazy)",
    "timeout": "the window closed: to R (or, after a trailing negation, to F)",
    "search_failed": "no qualifying negated event was found: on to the next state",
    "epsilon": "ε: start this clause's chain",
    "next_set": "the current event set is complete: the event starts the next set",
    "skip": "the instance ignores the event and stays (a take clones it: skip_till_any_match)",
    "expire": "the window has passed: the run is dropped",
    "stay": "the run stays for later events (a take clones it)",
    "prune": "pruned against the frontier F': TTL (its window closes before F') or gap (an earlier component "
             "can no longer be filled)",
    "emit": "skip_till_any_match: the signature is emitted at once with its exact confidence and range",
    "wait": "skip_till_next_match: held until F > its last event's upper bound (every spoiler seen), then NELT "
            "and the confidence",
    "collapse": "the point matches of one signature, once all are seen, become one (signature, range, confidence)",
    "drop": "the signature has confidence 0 and is not emitted",
}

SCALE = 57.0  # pixels per data unit: the figure is drawn at its own size, so labels never scale
DX = 4.0      # nominal distance between states (data units)
ROW = 3.2     # nominal distance between alternatives (data units)
R = 0.42      # state radius in data units (for arrow ends and loops)


def _legend_name(kind: str, moves: set[str]) -> str:
    if kind == "proceed":
        names = sorted(moves - {"proceed"}) + (["proceed (ε)"] if "proceed" in moves else [])
        return " / ".join(names) or "proceed (ε)"
    if kind == "negation":
        return "negation check" if moves <= {"negation"} else " / ".join(sorted(moves))
    return " / ".join(sorted(moves)) or kind


def state_meaning(g: nx.MultiDiGraph, kind: str) -> tuple[str, str]:
    """(symbol, meaning) of a state kind in this engine's drawing (its spec's ``drawing.states``,
    which ``automaton_graph`` puts in ``graph["states"]``, over the generic meanings)."""
    own = g.graph.get("states") or {}
    return own.get(kind) or STATE_MEANING.get(kind, (kind, ""))


def _colour_name(kind: str | None) -> str:
    return {"begin": "dark blue", "take": "green", "ignore": "grey", "proceed": "purple",
            "negation": "red"}.get(kind or "", "")
