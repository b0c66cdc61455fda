"""Figures built fast: the views' colours, a figure written as plain plotly JSON and wrapped without
re-validation (``_Fig``, ``_sc``), and the Automaton page's drawing of a graph, cached (:func:`automaton_base`).
"""
from __future__ import annotations

from typing import Any

import networkx as nx
import plotly.graph_objects as go

from visualizers.automaton import automaton_figure


LIVE = "#e67e22"       # live states and this step's edges
PATH = "#f1c40f"       # the chosen match's path
ADDED = "#abebc6"      # buffer entries written on this step
REMOVED = "#d5d8dc"    # buffer entries pruned on this step


class _Fig:
    """A figure built as plain plotly JSON and wrapped without re-validation.

    Building ``go.Figure`` / ``go.Scatter`` objects validates every property, which costs
    more than everything else a step draws (tens of ms per figure); the Debug page draws
    three figures per step while playing. These figures are checked against plotly's
    schema in the tests instead (``go.Figure(fig.to_dict())``)."""

    def __init__(self, base: dict[str, Any] | None = None) -> None:
        base = base or {}
        self.data: list[dict[str, Any]] = list(base.get("data", []))
        self.layout: dict[str, Any] = dict(base.get("layout", {}))

    def add_trace(self, trace: dict[str, Any]) -> None:
        self.data.append(trace)

    def update_layout(self, **kw: Any) -> None:
        for k, v in kw.items():
            if isinstance(v, dict) and isinstance(self.layout.get(k), dict):
                self.layout[k] = {**self.layout[k], **v}
            else:
                self.layout[k] = v

    def figure(self) -> go.Figure:
        # no plotly template: Streamlit themes the chart, and plotly's default template is
        # ~7 KB of JSON sent with every step
        d = {"data": self.data, "layout": {**self.layout, "template": {"layout": {}}}}
        try:
            return go.Figure(d, _validate=False)
        except TypeError:  # pragma: no cover - a plotly without the switch
            return go.Figure(d)


def _sc(**kw: Any) -> dict[str, Any]:
    """A scatter trace as JSON."""
    return {"type": "scatter", **kw}


_BASES: dict[tuple[int, str, int | None], dict[str, Any]] = {}


def automaton_base(g: nx.MultiDiGraph, labels: str = "short", height: int | None = None) -> dict[str, Any]:
    """``automaton_figure(g)`` as JSON, computed once per graph (the step overlays go on a copy)."""
    key = (id(g), labels, height)
    got = _BASES.get(key)
    if got is None or got.get("_graph") is not g:
        got = automaton_figure(g, labels=labels, height=height).to_dict()
        got["_graph"] = g
        if len(_BASES) > 16:
            _BASES.clear()
        _BASES[key] = got
    return got
