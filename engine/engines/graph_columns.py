"""Drawing attributes the automata exports share (``visualizers/automaton.py`` conventions:
``order`` is a state's column, ``alternative`` its row)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["centre_columns"]


def centre_columns(g: "nx.MultiDiGraph") -> None:
    """Rows (``alternative``) so that every column of states is centred on the tallest one."""
    cols: dict[int, list[dict[str, object]]] = {}
    for _n, d in g.nodes(data=True):
        if d.get("kind") != "reject":
            cols.setdefault(int(d["order"]), []).append(d)  # type: ignore[call-overload]
    tallest = max((len(ds) for ds in cols.values()), default=1)
    for ds in cols.values():
        for d in ds:
            d["alternative"] = int(d["alternative"]) + (tallest - len(ds)) // 2  # type: ignore[call-overload]
