"""The events over time with a cursor at the current event (:func:`cursor_timeline_figure`).
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import plotly.graph_objects as go

from engine.trace import Step
from visualizers.escape import plotly as plotly_text
from visualizers.timeline import PALETTE
from visualizers.trace.plain_figure import LIVE, PATH, _Fig, _sc

FOCUS = "#8e44ad"  # the focused event (the explanation's, as the automaton's focused edges)
from visualizers.trace.reading import _num, event_steps


def cursor_timeline_figure(steps: Sequence[Step], k: int, match: dict[str, Any] | None = None,
                           live_ids: Iterable[Any] = (), height: int = 300, max_events: int = 3000,
                           marked: Any = None, marked_label: str | None = None, cursor: bool = True,
                           match_label: str = "chosen match", focus_event: Any = None) -> go.Figure:
    """Events by type over time; the events up to step ``k`` in colour, the rest faded; a
    cursor at step ``k``'s event; events bound by live runs ringed orange; the chosen
    match's events gold, joined in order, labelled with their variable. ``focus_event``
    (an event id) shades that event's lane and rings it in purple."""
    evs = [s.event for s in event_steps(steps)][:max_events]
    # types, ids and values come from the data: escaped wherever plotly shows them (it reads
    # tags such as <a href> in category labels, legend names and hover text)
    types = sorted({plotly_text(e["type"]) for e in evs})
    colour = {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(types)}
    live = set(live_ids)
    fig = _Fig()
    cur = steps[k].event if 0 <= k < len(steps) and steps[k].step != "close" else None
    kk = k if cur is not None else len(evs) - 1
    for t in types:
        past = [(i, e) for i, e in enumerate(evs) if plotly_text(e["type"]) == t and i <= kk]
        fut = [(i, e) for i, e in enumerate(evs) if plotly_text(e["type"]) == t and i > kk]
        for grp, faded in ((past, False), (fut, True)):
            if not grp:
                continue
            fig.add_trace(_sc(
                x=[e["ts"] for _i, e in grp], y=[t] * len(grp), mode="markers", name=t, legendgroup=t,
                showlegend=not faded, opacity=0.25 if faded else 1.0, customdata=[e["id"] for _i, e in grp],
                marker=dict(size=[12 if e["id"] in live else 9 for _i, e in grp], color=colour[t],
                            line=dict(width=[2.5 if e["id"] in live else 0 for _i, e in grp], color=LIVE)),
                hovertext=[f"step {i} · id {plotly_text(e['id'])}<br>{t} at {_num(e['ts'])}<br>"
                           + plotly_text(", ".join(f"{a}={_num(b)}" for a, b in list(e.items())[3:9]))
                           for i, e in grp],
                hoverinfo="text"))
    if match is not None:
        by_id = {e["id"]: e for e in evs}
        pts = []
        for v, ids in match["match"].items():
            for n, i in enumerate(ids, 1):
                e = by_id.get(i)
                if e is not None:
                    pts.append((e["ts"], plotly_text(e["type"]), plotly_text(f"{v}[{n}]" if len(ids) > 1 else v)))
        pts.sort(key=lambda p: p[0])
        fig.add_trace(_sc(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines+markers+text",
                                 name=match_label, text=[p[2] for p in pts], textposition="top center",
                                 textfont=dict(size=11, color="#9a7d0a"), hoverinfo="skip",
                                 line=dict(color=PATH, width=3),
                                 marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(color="#d4ac0d", width=3))))
    if marked is not None:
        e = next((x for x in evs if x["id"] == marked), None)
        if e is not None:
            fig.add_trace(_sc(x=[e["ts"]], y=[plotly_text(e["type"])], mode="markers+text",
                              name=plotly_text(marked_label or "reason"),
                              text=[plotly_text(f"e{marked}: {marked_label}" if marked_label else f"e{marked}")],
                              textposition="bottom center", textfont=dict(color="#c0392b", size=12),
                              hoverinfo="skip", marker=dict(size=18, symbol="x-thin-open", color="#c0392b",
                                                           line=dict(width=3, color="#c0392b"))))
    shapes: list[dict[str, Any]] = []
    if focus_event is not None:
        e = next((x for x in evs if x["id"] == focus_event), None)
        if e is None:
            e = next((x for x in evs if str(x["id"]) == str(focus_event)), None)
        if e is not None:
            lane = types.index(plotly_text(e["type"]))
            shapes.append(dict(type="rect", xref="paper", x0=0, x1=1, yref="y", y0=lane - 0.4, y1=lane + 0.4,
                               fillcolor="rgba(142,68,173,0.10)", line=dict(width=0), layer="below",
                               name="focus lane"))
            fig.add_trace(_sc(x=[e["ts"]], y=[plotly_text(e["type"])], mode="markers+text", name="focus",
                              text=[plotly_text(f"e{e['id']}")], textposition="top center",
                              textfont=dict(color=FOCUS, size=12), customdata=[e["id"]], hoverinfo="skip",
                              marker=dict(size=24, symbol="circle-open", color=FOCUS, line=dict(width=3, color=FOCUS))))
    if cur is not None and cursor:
        shapes.append(dict(type="line", x0=cur["ts"], x1=cur["ts"], xref="x", yref="paper", y0=0, y1=1,
                           line=dict(color=LIVE, width=2, dash="dot")))
        fig.add_trace(_sc(x=[cur["ts"]], y=[plotly_text(cur["type"])], mode="markers", name="this event",
                                 hoverinfo="skip", marker=dict(size=20, symbol="circle-open", color=LIVE,
                                                               line=dict(width=3, color=LIVE))))
    if shapes:
        fig.update_layout(shapes=shapes)
    fig.update_layout(yaxis=dict(type="category", categoryorder="array", categoryarray=types,
                                 title=dict(text="event type")),
                      xaxis=dict(title=dict(text="ts"), showgrid=True, gridcolor="#eee"),
                      height=max(height, 90 + 40 * len(types)), margin=dict(l=10, r=10, t=30, b=10),
                      plot_bgcolor="white", legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0))
    return fig.figure()
