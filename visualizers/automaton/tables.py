"""The tables under the figure: the legend (:func:`legend_rows`), the edges and the states.
"""
from __future__ import annotations

import networkx as nx
import pandas as pd

from visualizers.automaton.styles import EDGE_STYLE, MOVE_MEANING, _colour_name, state_meaning


def legend_rows(g: nx.MultiDiGraph) -> pd.DataFrame:
    """Every state kind and every move the drawing shows, with what it means."""
    rows = []
    kinds = []
    for _n, d in g.nodes(data=True):
        k = d.get("kind", "singleton")
        if k not in kinds:
            kinds.append(k)
    for k in kinds:
        sym, meaning = state_meaning(g, k)
        rows.append({"drawn as": f"state {sym}" if k not in ("final", "reject") else f"state {sym} ({k})",
                     "kind": k, "meaning": meaning})
    moves = []
    for _u, _v, d in g.edges(data=True):
        m = d.get("move", d.get("kind", ""))
        if (m, d.get("kind")) not in moves:
            moves.append((m, d.get("kind")))
    for m, style in moves:
        st = EDGE_STYLE.get(style or "take", EDGE_STYLE["take"])
        line = {"solid": "solid", "dash": "dashed", "dot": "dotted"}[st["dash"]]
        rows.append({"drawn as": f"{line} {_colour_name(style)} edge", "kind": m, "meaning": MOVE_MEANING.get(m, m)})
    for term, meaning in g.graph.get("terms", []):
        rows.append({"drawn as": "term", "kind": term, "meaning": meaning})
    return pd.DataFrame(rows, columns=["drawn as", "kind", "meaning"])


def edge_table(g: nx.MultiDiGraph) -> pd.DataFrame:
    """One row per edge: from, to, its drawing kind (edge), the engine's move, the shown
    formula, basic θ and optimised θ*."""
    rows = []
    for u, v, k, d in g.edges(keys=True, data=True):
        rows.append({"from": u, "to": v, "edge": d.get("kind", k), "move": d.get("move", d.get("kind", k)),
                     "shown": d.get("shown", d.get("label", "")), "θ (basic)": d.get("formula", ""),
                     "θ* (optimised)": d.get("formula_optimised", "")})
    order = {"begin": 0, "take": 1, "ignore": 2, "proceed": 3, "negation": 4}
    df = pd.DataFrame(rows, columns=["from", "to", "edge", "move", "shown", "θ (basic)", "θ* (optimised)"])
    if len(df):
        state_order = {n: (d.get("alternative", 0), d.get("order", 99)) for n, d in g.nodes(data=True)}
        df["_s"] = df["from"].map(lambda n: state_order.get(n, (0, 99)))
        df["_k"] = df["edge"].map(lambda k: order.get(k, 9))
        df = df.sort_values(["_s", "_k"]).drop(columns=["_s", "_k"]).reset_index(drop=True)
    return df


def state_table(g: nx.MultiDiGraph) -> pd.DataFrame:
    rows = [{"state": n, "kind": d.get("kind"), "variable": d.get("var"), "event type": d.get("type"),
             "alternative": d.get("alternative", 0)} for n, d in g.nodes(data=True)]
    return pd.DataFrame(rows)
