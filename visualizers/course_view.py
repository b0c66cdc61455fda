"""The course's figure: a lesson's small stream drawn as a timeline (events by type over time),
the events a learner picked ringed, and, once revealed, one row per match joining its events.

Pure builders (no Streamlit): :func:`stream_figure` and :func:`match_rows` (the matches of a
run as ``{variable: [event ids]}``). Every type name, id and value comes from a lesson file or an
upload and goes through ``visualizers.escape.plotly``.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import plotly.graph_objects as go

from visualizers import escape

__all__ = ["stream_figure", "match_rows", "event_label", "MAX_MATCH_ROWS", "PICKED_COLOUR", "MATCH_COLOUR"]

MAX_MATCH_ROWS = 24        # matches drawn as rows at most (the rest are counted in the title)
PICKED_COLOUR = "#d35400"
MATCH_COLOUR = "#1e8449"
PALETTE = ["#2e86c1", "#8e44ad", "#16a085", "#c0392b", "#7f8c8d", "#b7950b", "#2c3e50", "#e67e22"]


def _time(e: Any) -> float:
    """The point an event is drawn at: its timestamp, or its interval's lower end."""
    ts = getattr(e, "ts", None)
    return ts if ts is not None else getattr(e, "lower", 0)


def event_label(e: Any) -> str:
    """A short plain label: ``3 · Buy at 5`` (escape it before it reaches markdown or a chart)."""
    return f"{e.id} · {e.type} at {_time(e)}"


def match_rows(matches: Sequence[Any]) -> list[dict[str, list[Any]]]:
    """The matches of a run (engine matches with ``bindings``, or ``{var: ids}`` dicts) as dicts."""
    out: list[dict[str, list[Any]]] = []
    for m in matches:
        if isinstance(m, dict):
            out.append({str(k): list(v) for k, v in m.items()})
        else:
            out.append({str(v): list(ids) for v, ids in m.bindings})
    return out


def _hover(e: Any) -> str:
    attrs = ", ".join(f"{k}={v}" for k, v in list(e.attrs.items())[:6])
    span = f"{e.lower}..{e.upper}" if getattr(e, "ts", None) is None and getattr(e, "lower", None) is not None \
        else f"{_time(e)}"
    return escape.plotly(f"event {e.id}: {e.type} at {span}" + (f" ({attrs})" if attrs else ""))


def stream_figure(events: Sequence[Any], picked: Collection[Any] = (), matches: Sequence[dict[str, list[Any]]] = (),
                  height: int | None = None) -> go.Figure:
    """Events as markers by type (rows) over time, each labelled with its id; ``picked`` event
    ids ringed (the learner's guess); ``matches`` (revealed) as one row each below the types,
    their events joined by a line and labelled with their variable. Each event marker carries its
    id in ``customdata`` so a chart selection names the events."""
    fig = go.Figure()
    types: list[str] = []
    for e in events:
        if e.type not in types:
            types.append(e.type)
    picked_ids = {str(i) for i in picked}
    for k, t in enumerate(types):
        evs = [e for e in events if e.type == t]
        fig.add_trace(go.Scatter(
            x=[_time(e) for e in evs], y=[escape.plotly(t)] * len(evs), mode="markers+text",
            text=[escape.plotly(e.id) for e in evs], textposition="top center",
            customdata=[str(e.id) for e in evs], hovertext=[_hover(e) for e in evs], hoverinfo="text",
            marker={"size": 16, "color": PALETTE[k % len(PALETTE)],
                    "line": {"width": [4 if str(e.id) in picked_ids else 0 for e in evs], "color": PICKED_COLOUR}},
            name=escape.plotly(t)))
        lower = [e for e in evs if getattr(e, "ts", None) is None and getattr(e, "lower", None) is not None]
        for e in lower:  # an imprecise timestamp: its interval as a bar
            fig.add_shape(type="line", x0=e.lower, x1=e.upper, y0=escape.plotly(t), y1=escape.plotly(t),
                          line={"color": PALETTE[k % len(PALETTE)], "width": 6}, opacity=0.35)
    by_id = {str(e.id): e for e in events}
    shown = list(matches)[:MAX_MATCH_ROWS]
    rows: list[str] = []
    for n, m in enumerate(shown, 1):
        row = f"match {n}"
        rows.append(row)
        xs, labels, hovers = [], [], []
        for var, ids in m.items():
            for i in ids:
                e = by_id.get(str(i))
                if e is None:
                    continue
                xs.append(_time(e))
                labels.append(escape.plotly(f"{var}={i}"))
                hovers.append(_hover(e))
        order = sorted(range(len(xs)), key=lambda j: xs[j])
        fig.add_trace(go.Scatter(
            x=[xs[j] for j in order], y=[row] * len(xs), mode="lines+markers+text",
            text=[labels[j] for j in order], textposition="bottom center", hovertext=[hovers[j] for j in order],
            hoverinfo="text", marker={"size": 11, "color": MATCH_COLOUR, "symbol": "diamond"},
            line={"color": MATCH_COLOUR, "width": 2}, showlegend=False, name=row))
    title = "The stream"
    if matches:
        title = f"The stream and its {len(matches)} match{'es' if len(matches) != 1 else ''}"
        if len(matches) > len(shown):
            title += f" (the first {len(shown)} drawn)"
    categories = [escape.plotly(t) for t in types] + rows
    fig.update_layout(
        title={"text": title, "font": {"size": 14}}, height=height or 140 + 42 * len(categories),
        margin={"l": 10, "r": 10, "t": 48, "b": 30}, showlegend=False,
        plot_bgcolor="white",
        yaxis={"categoryorder": "array", "categoryarray": list(reversed(categories)), "gridcolor": "#eee",
               "range": [-0.6, len(categories) - 0.25]},  # room for the ids above the top row
        xaxis={"title": "time", "gridcolor": "#eee", "zeroline": False})
    return fig
