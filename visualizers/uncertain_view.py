"""Pictures and tables for the Uncertain time page (imprecise-timestamps notes §7).

Pure functions from events, trace steps (``engine.trace.Step`` of the uncertain engines)
and explanations (``engine.engines.uncertain.explain``) to plotly figures and pandas frames; no
streamlit here.

* :func:`interval_timeline_figure`: one lane per event, its interval as a bar of instants
  shaded by the pmf, events still to come faded, the frontier ``F`` and ``now.lower``, and a
  window bracket of width W (§7 item 1).
* :func:`range_bars_figure`: every signature's range as a bar, labelled with its confidence.
* :func:`confidence_heatmap`: probability of the point matches over ``(t_1, t_last)`` (item 9).
* :func:`nelt_figure`: a member event, the next component's candidates and NELT, with the
  region after NELT greyed ("can never be next", item 5).
* :func:`runs_frame`: the live runs after a step with their valid intervals, and the runs
  this step pruned, with the reason (item 7); :func:`style_pruned` strikes those through.
* :func:`results_frame`: the signatures emitted up to a step.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import pandas as pd
import plotly.graph_objects as go

from engine.events.numbers import short_fraction
from engine.trace import Step
from visualizers.escape import plotly as plotly_text

__all__ = ["interval_timeline_figure", "range_bars_figure", "confidence_heatmap", "nelt_figure",
           "runs_frame", "style_pruned", "results_frame", "results_upto", "TYPE_COLORS", "signature_text"]

TYPE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
FRONTIER = "#c0392b"
NOW = "#7f8c8d"
WINDOW = "rgba(243, 156, 18, 0.18)"


def _color(types: list[str], t: str) -> str:
    return TYPE_COLORS[types.index(t) % len(TYPE_COLORS)] if t in types else "#555"


def signature_text(m: dict[str, Any]) -> str:
    """``a=1 b=2 c=4`` from a result's ``match``."""
    return " ".join(f"{v}={','.join(map(str, ids))}" for v, ids in m["match"].items())


def interval_timeline_figure(events: Sequence[dict[str, Any]], arrived: int, frontier: float | None = None,
                             now: float | None = None, window: tuple[float, float] | None = None,
                             highlight: Sequence[Any] = (), height: int | None = None,
                             title: str = "") -> go.Figure:
    """``events``: ``{"id", "type", "lower", "upper", "weights"?}`` in arrival order; the first
    ``arrived`` have arrived. Each instant is a square whose opacity is its pmf weight."""
    types: list[str] = []
    for e in events:
        if e["type"] not in types:
            types.append(e["type"])
    hl = {str(i) for i in highlight}
    fig = go.Figure()
    n = len(events)
    for t in types:
        xs, ys, ops, texts = [], [], [], []
        for k, e in enumerate(events):
            if e["type"] != t:
                continue
            lo, hi = int(e["lower"]), int(e["upper"])
            ws = e.get("weights") or [1] * (hi - lo + 1)
            top = max(ws) or 1
            fade = 1.0 if k < arrived else 0.18
            for i, x in enumerate(range(lo, hi + 1)):
                xs.append(x)
                ys.append(k)
                ops.append(max(0.08, ws[i] / top) * fade)
                texts.append(plotly_text(f"{e['id']} ({t}) at {x}: p = {short_fraction(Fraction(ws[i], sum(ws)))}"))
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", name=plotly_text(t), text=texts, hoverinfo="text",
                                 marker={"symbol": "square", "size": 11, "color": _color(types, t),
                                         "opacity": ops, "line": {"width": 0}}))
    # outlines of highlighted events (the chosen signature)
    for k, e in enumerate(events):
        if str(e["id"]) in hl:
            fig.add_shape(type="rect", x0=e["lower"] - 0.5, x1=e["upper"] + 0.5, y0=k - 0.42, y1=k + 0.42,
                          line={"color": "black", "width": 2})
    if window is not None:
        fig.add_vrect(x0=window[0] - 0.5, x1=window[1] + 0.5, fillcolor=WINDOW, line_width=0,
                      annotation_text=f"window {window[0]:g}..{window[1]:g}", annotation_position="top left")
    if frontier is not None:
        fig.add_vline(x=frontier - 0.5, line={"color": FRONTIER, "width": 2, "dash": "dash"},
                      annotation_text=f"frontier = {frontier:g}", annotation_position="bottom right")
    if now is not None:
        fig.add_vline(x=now, line={"color": NOW, "width": 1, "dash": "dot"},
                      annotation_text=f"now.lower = {now:g}", annotation_position="top right")
    fig.update_yaxes(tickvals=list(range(n)), ticktext=[plotly_text(f"{e['id']} · {e['type']}") for e in events],
                     autorange="reversed", title=None)
    fig.update_xaxes(title="instant", zeroline=False)
    fig.update_layout(height=height or min(120 + 22 * n, 900), margin={"l": 10, "r": 10, "t": 40, "b": 10},
                      title=title or None, legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right"})
    return fig


def results_upto(steps: Sequence[Step], k: int) -> list[tuple[int, dict[str, Any]]]:
    """(step, result) for every signature emitted up to step ``k`` (the close step included
    when ``k`` is the last)."""
    return [(j, m) for j, s in enumerate(steps[: k + 1]) for m in s.matches]


def results_frame(results: Sequence[tuple[int, dict[str, Any]]], step_label: Any = None) -> pd.DataFrame:
    rows = []
    for j, m in results:
        lo, hi = m["range"]
        rows.append({"signature": signature_text(m), "range": f"[{lo}, {hi}]", "from": lo, "to": hi,
                     "confidence": float(m["confidence"]), "exact": m["confidence_exact"],
                     "emitted at": step_label(j) if step_label else j})
    return pd.DataFrame(rows, columns=["signature", "range", "from", "to", "confidence", "exact", "emitted at"])


def range_bars_figure(results: Sequence[dict[str, Any]], selected: str | None = None,
                      height: int | None = None) -> go.Figure:
    """Every signature's range ``[lo, hi]`` as a horizontal bar; the label is its confidence."""
    fig = go.Figure()
    names = [signature_text(m) for m in results]
    for m, name in zip(results, names):
        lo, hi = m["range"]
        c = float(m["confidence"])
        fig.add_trace(go.Bar(x=[hi - lo + 1], base=[lo - 0.5], y=[plotly_text(name)], orientation="h",
                             marker={"color": f"rgba(31, 119, 180, {0.25 + 0.75 * c:.3f})",
                                     "line": {"color": "black" if name == selected else "rgba(0,0,0,0)",
                                              "width": 2}},
                             text=[f"{c:.3f} ({m['confidence_exact']})"], textposition="inside",
                             hovertext=[plotly_text(f"{name}: range [{lo}, {hi}], confidence {m['confidence_exact']}")],
                             hoverinfo="text", showlegend=False))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title="instant")
    fig.update_layout(height=height or min(80 + 32 * max(len(results), 1), 600), barmode="overlay",
                      margin={"l": 10, "r": 10, "t": 10, "b": 10})
    return fig


def confidence_heatmap(cells: dict[tuple[int, int], Fraction], title: str = "") -> go.Figure:
    """P of the point matches by ``(t_1, t_last)``: the cells sum to the confidence."""
    if not cells:
        return go.Figure().update_layout(title="no point match", height=200)
    f_vals = sorted({f for f, _ in cells})
    l_vals = sorted({last for _, last in cells})
    z = [[float(cells.get((f, last), 0)) or None for f in f_vals] for last in l_vals]
    text = [[short_fraction(cells[(f, last)]) if (f, last) in cells and cells[(f, last)] else "" for f in f_vals]
            for last in l_vals]
    fig = go.Figure(go.Heatmap(x=f_vals, y=l_vals, z=z, text=text, texttemplate="%{text}", colorscale="Blues",
                               hovertemplate="t_1 = %{x}, t_last = %{y}: %{text}<extra></extra>",
                               colorbar={"title": "P"}))
    fig.update_xaxes(title="t_1 (first event's instant)", dtick=1)
    fig.update_yaxes(title="t_last", dtick=1)
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10}, title=title or None)
    return fig


def nelt_figure(member: dict[str, Any], candidates: Sequence[dict[str, Any]], nelt: float | None,
                lo: int, hi: int) -> go.Figure:
    """The member event (lane 0) and the next component's candidates; NELT as a line, the
    instants after it greyed: no point there can be next to the member in any world."""
    fig = go.Figure()
    lanes = [member, *candidates]
    for k, e in enumerate(lanes):
        fig.add_trace(go.Scatter(x=[e["lower"] - 0.4, e["upper"] + 0.4], y=[k, k], mode="lines",
                                 line={"width": 12, "color": "#34495e" if k == 0 else "#2980b9"},
                                 name=plotly_text(e["id"]), showlegend=False,
                                 hovertext=plotly_text(f"{e['id']} [{e['lower']}, {e['upper']}]"), hoverinfo="text"))
    if nelt is not None and math.isfinite(nelt):
        fig.add_vrect(x0=nelt + 0.5, x1=hi + 1, fillcolor="rgba(127,127,127,0.35)", line_width=0,
                      annotation_text="can never be next", annotation_position="top right")
        fig.add_vline(x=nelt + 0.5, line={"color": FRONTIER, "width": 2},
                      annotation_text=f"latest next = {nelt:g}", annotation_position="bottom left")
    fig.update_yaxes(tickvals=list(range(len(lanes))),
                     ticktext=[plotly_text(f"{e['id']} · {e['type']}") for e in lanes],
                     autorange="reversed")
    fig.update_xaxes(range=[lo - 1, hi + 1.5], title="instant")
    fig.update_layout(height=120 + 26 * len(lanes), margin={"l": 10, "r": 10, "t": 10, "b": 10})
    return fig


def runs_frame(step: Step) -> pd.DataFrame:
    """Live runs after ``step`` with their valid intervals (event-based: per component; point
    based: the points), then the runs this step pruned (``pruned`` True) with the reason."""
    buf = step.buffer or {}
    intervals = buf.get("intervals", {})
    points = buf.get("run_points", {})
    rows = []
    for r in step.runs:
        iv = intervals.get(r.id)
        shown = (" ".join(f"{v}[{a},{b}]" for v, (a, b) in iv.items()) if iv else
                 " ".join(f"{v}^{t}" for v, t in zip(r.bindings, points.get(r.id, []))))
        rows.append({"run": r.id, "state": r.state,
                     "events": " ".join(f"{v}={','.join(map(str, ids))}" for v, ids in r.bindings.items()),
                     "valid intervals": shown, "pruned": False, "reason": ""})
    for a in step.actions:
        if a.kind in ("expire", "discard") and a.run:
            iv = (a.detail or {}).get("intervals") or {}
            evs = (a.detail or {}).get("events") or {}
            rows.append({"run": a.run, "state": a.state or "",
                         "events": " ".join(f"{v}={i}" for v, i in evs.items()),
                         "valid intervals": " ".join(f"{v}[{x},{y}]" for v, (x, y) in iv.items()),
                         "pruned": True, "reason": a.reason or a.kind})
    return pd.DataFrame(rows, columns=["run", "state", "events", "valid intervals", "pruned", "reason"])


def style_pruned(df: pd.DataFrame) -> Any:
    """Pruned runs struck through (a pandas Styler for ``st.dataframe``)."""
    def row_style(r: pd.Series) -> list[str]:
        css = "text-decoration: line-through; color: #a94442" if r.get("pruned") else ""
        return [css if c != "reason" else ("color: #a94442" if r.get("pruned") else "") for c in r.index]

    return df.style.apply(row_style, axis=1)
