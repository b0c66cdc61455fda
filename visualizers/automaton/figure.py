"""The plotly figure of an automaton (:func:`automaton_figure`), its compact form that leaves out
the moves many states share (:func:`common_moves`), and its label boxes (:func:`label_boxes`).
"""
from __future__ import annotations

import math
from typing import Any

import networkx as nx
import plotly.graph_objects as go

from visualizers.automaton.catalogue import ANY, COMPILERS, UNCERTAIN
from visualizers.automaton.placement import FONT, _best_plan, _display, _esc, _extent, _state_px, _wrap
from visualizers.automaton.styles import EDGE_STYLE, SCALE, STATE_FILL, _legend_name, state_meaning


def label_boxes(fig: go.Figure) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The edge labels of a figure from :func:`automaton_figure` as pixel boxes (x0, y0, x1,
    y1; y down), as the figure estimates them (tests; the browser test measures the SVG)."""
    out = []
    for a in fig.layout.annotations:
        if a.name and a.name.startswith(("edge:", "loop:")):
            bx = (a.x - fig.layout.xaxis.range[0]) * SCALE
            by = (fig.layout.yaxis.range[1] - a.y) * SCALE
            w, h = a.width, a.height
            out.append((a.name, (bx - w / 2, by - h / 2, bx + w / 2, by + h / 2)))
    return out


COMPACT_EDGES = 30  # the Automaton page draws a graph with more edges compact (see common_moves)


def common_moves(g: nx.MultiDiGraph, least: int = 4) -> dict[str, int]:
    """Moves that are not takes, from a state to itself or to R, that ``least`` or more states
    have (skip / stay / ignore loops, timeout / expire / prune to R): move -> how many states."""
    count: dict[str, set[str]] = {}
    for u, v, d in g.edges(data=True):
        if d.get("kind") in ("ignore", "proceed") and (u == v or g.nodes[v].get("kind") == "reject"):
            count.setdefault(d.get("move", d.get("kind", "")), set()).add(u)
    return {m: len(us) for m, us in count.items() if len(us) >= least}


def _without(g: nx.MultiDiGraph, moves: dict[str, int]) -> nx.MultiDiGraph:
    h = g.copy()
    drop = [(u, v, k) for u, v, k, d in h.edges(keys=True, data=True)
            if d.get("move", d.get("kind")) in moves and d.get("kind") in ("ignore", "proceed")
            and (u == v or h.nodes[v].get("kind") == "reject")]
    h.remove_edges_from(drop)
    for n, d in list(h.nodes(data=True)):
        if d.get("kind") == "reject" and h.degree(n) == 0:
            h.remove_node(n)
    return h


def automaton_figure(g: nx.MultiDiGraph, labels: str = "short", label_width: int = 26,
                     height: int | None = None, compact: bool = False) -> go.Figure:
    """Plotly figure of an automaton graph from :func:`automaton_graph`, drawn at its own
    pixel size (show it with ``width="content"``).

    ``labels``: ``short`` (wrapped, two lines of formula), ``full`` or ``none`` (the edge's
    name only); the hover text always has the full formulas (basic θ and optimised θ*).
    ``height``: a minimum height in pixels. ``compact`` (the Automaton page's default for more
    than :data:`COMPACT_EDGES` edges): the moves that many states share (:func:`common_moves`)
    are not drawn; ``g.graph["omitted"]`` names them (the legend and the edge table keep them)."""
    omitted = common_moves(g) if compact else {}
    g.graph["omitted"] = omitted
    drawn = _without(g, omitted) if omitted else g
    fig = _figure(drawn, labels, label_width, height)
    for k in ("positions", "label_overlaps", "labels_drawn"):
        if k in drawn.graph:
            g.graph[k] = drawn.graph[k]
    return fig


def _figure(g: nx.MultiDiGraph, labels: str, label_width: int, height: int | None) -> go.Figure:
    plan = _best_plan(g, labels, label_width)
    nodes = dict(g.nodes(data=True))
    fig = go.Figure()
    annotations: list[dict[str, Any]] = []

    def U(x: float, y: float) -> tuple[float, float]:
        return x / SCALE, -y / SCALE

    # edges, one trace per drawing kind
    by_kind: dict[str, tuple[list[Any], list[Any]]] = {}
    for kind, xs, ys, (ax0, ay0), (ax1, ay1) in plan.paths:
        tx, ty = by_kind.setdefault(kind, ([], []))
        for x, y in zip(xs, ys):
            ux, uy = U(x, y)
            tx.append(ux)
            ty.append(uy)
        tx.append(None)
        ty.append(None)
        st = EDGE_STYLE.get(kind, EDGE_STYLE["take"])
        (bx0, by0), (bx1, by1) = U(ax0, ay0), U(ax1, ay1)
        annotations.append(dict(x=bx1, y=by1, ax=bx0, ay=by0, xref="x", yref="y", axref="x", ayref="y",
                                showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=st["width"],
                                arrowcolor=st["color"], text=""))
    for kind, (tx, ty) in by_kind.items():
        st = EDGE_STYLE.get(kind, EDGE_STYLE["take"])
        fig.add_trace(go.Scatter(x=tx, y=ty, mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=st["color"], dash=st["dash"], width=st["width"])))

    # labels (with white backgrounds) and leader lines for the ones that had to move
    hover_x, hover_y, hover_text, hover_data = [], [], [], []
    lead_x: list[Any] = []
    lead_y: list[Any] = []
    for lab in plan.labels:
        if lab.hover_at is not None:
            hx, hy = U(*lab.hover_at)
            hover_x.append(hx)
            hover_y.append(hy)
            hover_text.append(lab.hover)
            hover_data.append(lab.data)
        if lab.box is None:
            continue
        x0, y0, x1, y1 = lab.box
        cx, cy = U((x0 + x1) / 2, (y0 + y1) / 2)
        text = "<br>".join(f"<b>{_esc(t)}</b>" if b else _esc(t) for t, b in lab.lines)
        annotations.append(dict(x=cx, y=cy, xref="x", yref="y", text=text, showarrow=False, name=lab.key,
                                font=dict(size=FONT, color=lab.colour), align="left" if lab.side == "right" else "center",
                                bgcolor="rgba(255,255,255,0.9)", borderpad=0, width=x1 - x0, height=y1 - y0,
                                xanchor="center", yanchor="middle", valign="middle"))
        ax, ay = lab.anchor
        nx_ = min(max(ax, x0), x1)
        ny_ = min(max(ay, y0), y1)
        if math.hypot(nx_ - ax, ny_ - ay) > 12:
            for x, y in ((ax, ay), (nx_, ny_)):
                ux, uy = U(x, y)
                lead_x.append(ux)
                lead_y.append(uy)
            lead_x.append(None)
            lead_y.append(None)
    if lead_x:
        fig.add_trace(go.Scatter(x=lead_x, y=lead_y, mode="lines", hoverinfo="skip", showlegend=False,
                                 name="label leaders", line=dict(color="#999", dash="dot", width=1)))

    # start arrows
    for n, d in nodes.items():
        if d.get("start"):
            x, y = U(*plan.pos[n])
            r = _state_px(_display(d, n)) / 2 / SCALE
            fig.add_trace(go.Scatter(x=[x - 1.3, x - r], y=[y, y], mode="lines", hoverinfo="skip", showlegend=False,
                                     line=dict(color=EDGE_STYLE["begin"]["color"], width=2.2)))
            annotations.append(dict(x=x - r, y=y, ax=x - 1.3, ay=y, xref="x", yref="y", axref="x", ayref="y",
                                    showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=2.2,
                                    arrowcolor=EDGE_STYLE["begin"]["color"], text=""))
            annotations.append(dict(x=x - 1.35, y=y, text="start", showarrow=False, xanchor="right",
                                    font=dict(size=12, color="#555")))
            if g.graph.get("alternatives", 1) > 1:
                annotations.append(dict(x=x - 1.35, y=y + 0.45, text=f"alternative {d.get('alternative', 0) + 1}",
                                        showarrow=False, xanchor="right", font=dict(size=11, color="#888")))

    # states
    xs, ys, texts, hovers, fills, lines, custom, sizes = [], [], [], [], [], [], [], []
    for n, d in nodes.items():
        x, y = U(*plan.pos[n])
        kind = d.get("kind", "singleton")
        xs.append(x)
        ys.append(y)
        label = _display(d, n)
        texts.append(_esc(label))
        sizes.append(_state_px(label))
        info = f"<b>state {_esc(label)}</b><br>kind: {kind} — {_esc(state_meaning(g, kind)[1])}"
        if d.get("type"):
            info += f"<br>event type: {_esc(str(d.get('type')))}"
        if d.get("var"):
            info += f"<br>variable: {_esc(str(d.get('var')))}"
        if d.get("formula"):
            info += f"<br>check: {_wrap(_esc(d.get('formula')), 70)}"
        hovers.append(info)
        fills.append(STATE_FILL.get(kind, "#eeeeee"))
        lines.append("#c0392b" if kind in ("negation", "negative") else "#1f2d3d")
        custom.append(["state", n, "", d.get("formula", "") or "", "", ""])
    finals = [(*U(*plan.pos[n]), _state_px(_display(d, n)) + 12) for n, d in nodes.items() if d.get("kind") == "final"]
    if finals:  # the outer ring of F's double circle
        fig.add_trace(go.Scatter(x=[p[0] for p in finals], y=[p[1] for p in finals], mode="markers",
                                 hoverinfo="skip", showlegend=False, name="final ring",
                                 marker=dict(size=[p[2] for p in finals], color="rgba(0,0,0,0)",
                                             line=dict(color="#1f2d3d", width=2))))
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=texts, textposition="middle center",
                             hovertext=hovers, hoverinfo="text", customdata=custom, showlegend=False,
                             name="states", textfont=dict(size=12, color="#111"),
                             marker=dict(size=sizes, color=fills, line=dict(color=lines, width=2))))
    fig.add_trace(go.Scatter(x=hover_x, y=hover_y, mode="markers", hovertext=hover_text, hoverinfo="text",
                             customdata=hover_data, showlegend=False, name="edges",
                             marker=dict(size=22, color="rgba(0,0,0,0)")))

    # legend: every edge kind and every state kind drawn
    legend_names: list[str] = []
    moves: dict[str, set[str]] = {}
    for _u, _v, d in g.edges(data=True):
        moves.setdefault(d.get("kind", "take"), set()).add(d.get("move", d.get("kind", "take")))
    for kind, st in EDGE_STYLE.items():
        if kind in moves:
            name = _legend_name(kind, moves[kind])
            legend_names.append(name)
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                     line=dict(color=st["color"], dash=st["dash"], width=st["width"])))
    seen_kinds: list[str] = []
    for _n, d in nodes.items():
        k = d.get("kind", "singleton")
        if k not in seen_kinds:
            seen_kinds.append(k)
    for k in seen_kinds:
        sym = state_meaning(g, k)[0]
        name = f"{sym}: {k.replace('_', ' ')}" if sym not in (k,) else k
        legend_names.append(name)
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(size=12, color=STATE_FILL.get(k, "#eee"),
                                             line=dict(color="#c0392b" if k in ("negation", "negative") else "#1f2d3d",
                                                       width=1.5))))

    # extent: every state, label, loop and the start text, in pixels
    x0, y0, x1, y1 = _extent(plan)
    plot_w = x1 - x0
    legend_w = sum(len(n) * 6.6 + 48 for n in legend_names)
    legend_rows_n = max(1, math.ceil(legend_w / max(plot_w - 20, 280)) + 1)
    top, bottom = 40, 14 + 22 * legend_rows_n
    plot_h = y1 - y0
    if height and plot_h + top + bottom < height:
        extra = (height - top - bottom - plot_h) / 2
        y0 -= extra
        y1 += extra
        plot_h = y1 - y0
    title = g.graph.get("title") or COMPILERS.get(g.graph.get("engine") or next(iter(COMPILERS)), ("", None))[0]
    parts = [f"strategy: {g.graph.get('strategy', '') or ANY}"]
    if g.graph.get("partition"):
        parts.append(f"partition: [{', '.join(g.graph.get('partition') or [])}]")
    if g.graph.get("interval"):
        parts.append("interval data" + ("" if g.graph.get("engine") in UNCERTAIN else ": point automaton"))
    if g.graph.get("mode"):
        parts.append(f"mode: {g.graph['mode']}")
    fig.update_layout(
        annotations=annotations,
        xaxis=dict(visible=False, range=[x0 / SCALE, x1 / SCALE], fixedrange=True),
        yaxis=dict(visible=False, range=[-y1 / SCALE, -y0 / SCALE], fixedrange=True),
        width=int(plot_w + 20), height=int(plot_h + top + bottom), autosize=False,
        margin=dict(l=10, r=10, t=top, b=bottom, autoexpand=False),  # 1 unit = SCALE pixels, always
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="top", y=-4 / max(plot_h, 1), xanchor="left", x=0,
                    font=dict(size=11), itemwidth=30),
        hoverlabel=dict(align="left"),
        title=dict(text=(f"{title} · " if title else "") + " · ".join(parts), font=dict(size=13), x=0.01,
                   xanchor="left", y=1 - 8 / (plot_h + top + bottom), yanchor="top"),
    )
    g.graph["positions"] = {n: U(*p) for n, p in plan.pos.items()}
    g.graph["label_overlaps"] = plan.overlaps
    return fig
