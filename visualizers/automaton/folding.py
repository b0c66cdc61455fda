"""Folding a big automaton: :func:`fold_states` draws the lazy tree's states that bind the same
variables as one (:func:`foldable` says how many states that saves).
"""
from __future__ import annotations

from typing import Any

import networkx as nx

from engine.engines.graph_columns import centre_columns


def foldable(g: nx.MultiDiGraph) -> int:
    """How many states :func:`fold_states` would save (0: nothing to fold)."""
    keys = {_fold_key(n, d) for n, d in g.nodes(data=True)}
    return g.number_of_nodes() - len(keys)


def _fold_key(n: str, d: dict[str, Any]) -> tuple[Any, ...]:
    path = d.get("path")
    if d.get("kind") == "state" and isinstance(path, tuple) and path:
        return ("set", d.get("clause"), frozenset(path))
    return ("node", n)


def fold_states(g: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """The lazy tree with the states that bound the same variables (in another order) drawn
    as one: their outgoing edges depend on the set bound, not on its order (``tree.py``
    builds each edge from the bound mask), so the folded graph has the same moves. A folded
    state ``q{b,c}`` stands for ``folded`` tree states; ``graph["folded"]`` is (before, after)."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for n, d in g.nodes(data=True):
        groups.setdefault(_fold_key(n, d), []).append(n)
    if all(len(ns) == 1 for ns in groups.values()):
        return g
    order = list(g.nodes["root"].get("reads") or []) if "root" in g else []  # pattern order
    rep: dict[str, str] = {}
    out = nx.MultiDiGraph(**g.graph)
    rows: dict[Any, int] = {}
    for key, ns in groups.items():
        d0 = dict(g.nodes[ns[0]])
        if key[0] == "set":
            path = d0["path"]
            pre = ns[0].split(":")[0] + ":" if ":" in ns[0] else ""
            bound = sorted(path, key=lambda v: (order.index(v) if v in order else len(order), v))
            name = f"{pre}q{{{','.join(bound)}}}"
            d0.update(label=name.split(":")[-1], folded=len(ns), orders=[g.nodes[n]["path"] for n in ns])
            if len(ns) > 1:
                d0["formula"] = f"{len(ns)} tree states (every order of {{{', '.join(bound)}}}) folded into one"
        else:
            name = ns[0]
        for n in ns:
            rep[n] = name
        out.add_node(name, **d0)
    for n, d in out.nodes(data=True):  # rows again: one per state in its column, centred
        if d.get("kind") != "reject" and isinstance(d.get("order"), int):
            d["alternative"] = rows.get(d["order"], 0)
            rows[d["order"]] = d["alternative"] + 1
    centre_columns(out)
    seen: set[tuple[str, str, Any]] = set()
    for u, v, k, d in g.edges(keys=True, data=True):
        ru, rv = rep[u], rep[v]
        if (ru, rv, k) in seen:
            continue
        seen.add((ru, rv, k))
        out.add_edge(ru, rv, key=k, **d)
    out.graph["folded"] = (g.number_of_nodes(), out.number_of_nodes())
    return out
