"""Views of an A-Seq run for the Aggregate page (docs/papers.md, "A-Seq"): pure
functions from engine objects and trace steps (engine/trace.py) to plotly figures, HTML and
frames.

- :func:`categories`: each event's role: START / UPD / TRIG / NEG / ignored (§3.1, §3.3);
- :func:`timeline_figure`: the stream with the sliding window bracket ``(now - W, now]``,
  events coloured by role, STARTs that left the window faded;
- :func:`counter_table_html`: the prefix-counter table after a step (rows: live START
  counters; columns: prefixes), each changed cell with its formula (Lemma 1), reset cells
  red (the Recounting Rule), new rows green, expired rows struck out (SEM, Lemma 3), and a
  footer Σ = the current value;
- :func:`agreement`: A-Seq's rows against the baseline's at a step;
- :func:`group_chart`, :func:`pretree_figure`: the value per group over time; a workload's
  prefix tree (PreTree, §4.1) with the queries at their TRIG nodes.
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd
import plotly.graph_objects as go

from engine.bindings import conjunct
from engine.events import Event
from engine.expr import variables
from engine.model import Component, Pattern, conjuncts_of
from engine.trace import Step
from visualizers import escape

__all__ = ["CATEGORY_COLOURS", "categories", "timeline_figure", "counter_table_html", "agreement", "group_chart",
           "pretree_figure", "rows_frame", "window_bounds"]

CATEGORY_COLOURS = {"START": "#2e7d32", "UPD": "#1565c0", "TRIG": "#ef6c00", "NEG": "#c62828",
                    "ignored": "#b0bec5"}
ORDER = ["TRIG", "START", "UPD", "NEG", "ignored"]


def _fits(c: Component, e: Event, local: dict[str, list[Any]]) -> bool:
    return c.matches_type(e.type) and all(cj.holds({c.var: [e]}) for cj in local[c.var])


def categories(patterns: Sequence[Pattern], events: Sequence[Event]) -> list[list[str]]:
    """Every role each event plays for any of the patterns, most important first: TRIG (fits
    the last positive component, by its own predicates), START (the first), UPD (another),
    NEG (a negated component), or ``ignored``."""
    specs = []
    for p in patterns:
        comps = p.components()
        local = {c.var: [conjunct(x, set()) for w in p.where for x in conjuncts_of(w) if variables(x) == {c.var}]
                 for c in comps}
        pos = [c for c in comps if not c.negated]
        specs.append((pos, [c for c in comps if c.negated], local))
    out = []
    for e in events:
        roles: set[str] = set()
        for pos, negs, local in specs:
            for i, c in enumerate(pos):
                if _fits(c, e, local):
                    roles.add("TRIG" if i == len(pos) - 1 else ("START" if i == 0 else "UPD"))
                    if i == 0:
                        roles.add("START")
            if any(_fits(c, e, local) for c in negs):
                roles.add("NEG")
        out.append([r for r in ORDER if r in roles] or ["ignored"])
    return out


def window_bounds(events: Sequence[Event], k: int, window: float | None, count: bool) -> tuple[float, float] | None:
    """The window ``(now - W, now]`` after event ``k`` on the ts axis (count windows: from
    the event W - 1 positions back)."""
    if window is None or not events:
        return None
    now = events[k]
    if count:
        first = max(0, k - int(window) + 1)
        return (events[first].ts, now.ts)
    return (now.ts - window, now.ts)


def timeline_figure(events: Sequence[Event], cats: list[list[str]], k: int, window: float | None,
                    count: bool = False, max_events: int = 400) -> go.Figure:
    """The stream around step ``k``: one lane per event type, markers coloured by role, the
    window bracket shaded, the current event ringed, STARTs that left the window faded."""
    lo = max(0, k - max_events // 2)
    shown = list(range(lo, min(len(events), lo + max_events)))
    lanes = list(dict.fromkeys(escape.plotly(e.type) for e in events))
    fig = go.Figure()
    wb = window_bounds(events, k, window, count) if 0 <= k < len(events) else None
    now_ts = events[k].ts if 0 <= k < len(events) else None
    for role in ORDER:
        idx = [i for i in shown if cats[i][0] == role]
        if not idx:
            continue
        op = []
        for i in idx:
            e = events[i]
            gone = wb is not None and role in ("START", "UPD", "TRIG", "NEG") and (
                (e.ts <= wb[0] and not count) or (count and e.seq < k - int(window or 0) + 1))
            op.append(0.25 if (gone or i > k) else 1.0)
        fig.add_trace(go.Scatter(
            # ids and types are data: escaped, as plotly reads tags in labels and hover text
            x=[events[i].ts for i in idx], y=[escape.plotly(events[i].type) for i in idx], mode="markers+text",
            text=[escape.plotly(events[i].id) for i in idx], textposition="top center", name=role,
            marker=dict(size=13, color=CATEGORY_COLOURS[role], opacity=op, line=dict(width=0)),
            hovertext=[escape.plotly(f"{events[i].id} ({events[i].type} @ {events[i].ts:g}): {', '.join(cats[i])}")
                       for i in idx],
            hoverinfo="text"))
    if now_ts is not None:
        e = events[k]
        fig.add_trace(go.Scatter(x=[e.ts], y=[escape.plotly(e.type)], mode="markers", name="this event",
                                 showlegend=True,
                                 marker=dict(size=24, color="rgba(0,0,0,0)", line=dict(width=3, color="#212121"))))
    if wb is not None:
        fig.add_vrect(x0=wb[0], x1=wb[1], fillcolor="#fff59d", opacity=0.35, line_width=0, layer="below",
                      annotation_text=f"window ({wb[0]:g}, {wb[1]:g}]" if not count else "window",
                      annotation_position="top left")
    xs = [events[i].ts for i in shown]
    fig.update_layout(height=120 + 45 * len(lanes), margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      yaxis=dict(categoryorder="array", categoryarray=list(reversed(lanes)), title=None),
                      xaxis=dict(title="ts", range=[min(xs) - 1, max(xs) + 1] if xs else None, gridcolor="#eee"),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    return fig


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def counter_table_html(step: Step, func: str = "COUNT", value: Any = None, max_rows: int = 60,
                       query: str | None = None) -> str:
    """The prefix-counter table after ``step`` (see the module docstring) as HTML, every value
    escaped (``visualizers.escape.html``: it is put into markdown with ``unsafe_allow_html``)."""
    buf = step.buffer or {}
    if buf.get("kind") == "aseq-workload":
        g = (buf.get("groups") or [{}])[0]
        cols, rows = g.get("columns", []), g.get("rows", [])
    else:
        cols, rows = buf.get("columns", []), buf.get("rows", [])
    changed: dict[tuple[str, str], str] = {}
    resets: dict[tuple[str, str], str] = {}
    begun: set[str] = set()
    expired: list[tuple[str, list[Any]]] = []
    for a in step.actions:
        d = a.detail or {}
        if a.kind == "take":
            for c in d.get("changes", []):
                changed[(a.run, c["counter"])] = c["formula"]
        elif a.kind == "discard" and d.get("rule") == "RR":
            resets[(a.run, d["counter"])] = a.reason or "reset"
        elif a.kind == "begin":
            begun.add(a.run or "")
        elif a.kind == "expire":
            expired.append((a.run or "", d.get("counts", [])))
    keyed = any(r.get("partition") is not None for r in rows)
    head = ["START", "ts", "exp"] + (["partition"] if keyed else []) + [escape.html(c) for c in cols]
    out = ['<table class="aseq-counters" style="border-collapse:collapse;font-size:0.9em">',
           "<tr>" + "".join(f'<th style="border-bottom:2px solid #999;padding:3px 8px;text-align:left">{h}</th>'
                            for h in head) + "</tr>"]
    cell = 'style="padding:3px 8px;border-bottom:1px solid #eee;{}"'
    for rid, counts in expired:
        tds = [f'<td {cell.format("")}><s>{escape.html(rid[1:] if rid.startswith("s") else rid)}</s> expired</td>',
               f'<td {cell.format("")}></td>', f'<td {cell.format("")}></td>'] + (
            [f'<td {cell.format("")}></td>'] if keyed else [])
        tds += [f'<td {cell.format("color:#999")}><s>{escape.html(_fmt(v))}</s></td>' for v in counts]
        out.append('<tr class="expired" style="background:#f5f5f5;color:#999">' + "".join(tds) + "</tr>")
    total = 0
    for r in rows[:max_rows]:
        rid = str(r["id"])
        style_row = "background:#e8f5e9" if rid in begun else ""
        tds = [f'<td {cell.format("")}><b>{escape.html(str(r["start"] if r["start"] is not None else rid))}</b></td>',
               f'<td {cell.format("")}>{escape.html(_fmt(r.get("ts")))}</td>', f'<td {cell.format("")}>{escape.html(_fmt(r.get("exp")))}</td>']
        if keyed:
            tds.append(f'<td {cell.format("")}>{escape.html(_fmt(r.get("partition")))}</td>')
        for j, v in enumerate(r["counts"]):
            lab = cols[j] if j < len(cols) else str(j)
            key = (rid, lab)
            if key in resets and key not in changed:
                tds.append(f'<td {cell.format("background:#ffcdd2")} title="{escape.html(resets[key])}">'
                           f'<b>{escape.html(_fmt(v))}</b><br><small>reset (RR)</small></td>')
            elif key in changed:
                f = changed[key]
                tint = "#ffcdd2" if key in resets else "#fff59d"
                tds.append(f'<td {cell.format("background:" + tint)} title="{escape.html(f)}"><b>{escape.html(_fmt(v))}</b>'
                           f'<br><small>{escape.html(f.split(": ", 1)[-1])}</small></td>')
            else:
                tds.append(f'<td {cell.format("")}>{escape.html(_fmt(v))}</td>')
        if r["counts"]:
            total += r["counts"][-1] if isinstance(r["counts"][-1], int) else 0
        out.append(f'<tr style="{style_row}">' + "".join(tds) + "</tr>")
    if len(rows) > max_rows:
        out.append(f'<tr><td colspan="{len(head)}"><i>… {len(rows) - max_rows} more live counters</i></td></tr>')
    label = f"Σ {escape.html(cols[-1]) if cols else ''}" + (f" ({escape.html(query)})" if query else "")
    shown = value if value is not None else total
    out.append(f'<tr style="border-top:2px solid #999"><td colspan="{len(head) - 1}" style="padding:3px 8px">'
               f"<b>{label} over live counters = {escape.html(func)}</b></td>"
               f'<td style="padding:3px 8px"><b class="aseq-sum">{escape.html(_fmt(shown))}</b></td></tr>')
    out.append("</table>")
    return "".join(out)


def agreement(aseq_rows: list[dict[str, Any]], base_rows: list[dict[str, Any]]) -> bool:
    """Do A-Seq's rows of a step equal the baseline's (floats up to rounding)?"""
    if len(aseq_rows) != len(base_rows):
        return False
    for a, b in zip(aseq_rows, base_rows):
        if (a.get("event"), a.get("group"), a.get("query")) != (b.get("event"), b.get("group"), b.get("query")):
            return False
        x, y = a.get("value"), b.get("value")
        if (x is None) != (y is None):
            return False
        if x is not None and abs(x - y) > 1e-9 * max(1.0, abs(x), abs(y)):
            return False
    return True


def rows_frame(steps: Sequence[Step], k: int) -> pd.DataFrame:
    """Every aggregate row emitted up to step ``k``, with its step."""
    recs = []
    for j, s in enumerate(steps[: k + 1]):
        for r in s.matches:
            recs.append({"step": j, **r})
    return pd.DataFrame(recs)


def group_chart(frame: pd.DataFrame, func: str = "COUNT") -> go.Figure:
    """The value per group (and query) over time, one line each."""
    fig = go.Figure()
    if len(frame):
        keys = ["query"] if "query" in frame else []
        frame = frame.assign(_g=frame["group"].map(lambda g: "all" if g is None else str(g)))
        for name, sub in frame.groupby(keys + ["_g"], sort=False):
            label = " · ".join(str(x) for x in (name if isinstance(name, tuple) else (name,)))
            fig.add_trace(go.Scatter(x=sub["ts"], y=sub["value"], mode="lines+markers", name=label,
                                     line=dict(shape="hv")))
    fig.update_layout(height=260, margin=dict(l=10, r=10, t=30, b=10), plot_bgcolor="white",
                      yaxis=dict(title=func, gridcolor="#eee"), xaxis=dict(title="ts", gridcolor="#eee"),
                      title=dict(text="value per group", font=dict(size=13)))
    return fig


def pretree_figure(tree: dict[str, Any], active: set[str] | None = None) -> go.Figure:
    """A sharing group's PreTree: nodes left to right by depth, each labelled with its
    prefix and the queries that use it; Chop-Connect pieces start at their own roots."""
    nodes = tree["nodes"]
    by_id = {n["id"]: n for n in nodes}
    depth: dict[int, int] = {}
    for n in nodes:
        d, p = 0, n["parent"]
        while p >= 0:
            d, p = d + 1, by_id[p]["parent"]
        depth[n["id"]] = d
    order: list[int] = []

    def visit(i: int) -> None:
        order.append(i)
        for c in nodes:
            if c["parent"] == i:
                visit(c["id"])

    for n in nodes:
        if n["parent"] < 0:
            visit(n["id"])
    y = {i: -k for k, i in enumerate(order)}
    terms: dict[int, list[str]] = {}
    for q in tree.get("queries", []):
        last = q["pieces"][-1][-1]
        terms.setdefault(last, []).append(q["name"])
    fig = go.Figure()
    for n in nodes:
        if n["parent"] >= 0:
            fig.add_trace(go.Scatter(x=[depth[n["parent"]], depth[n["id"]]], y=[y[n["parent"]], y[n["id"]]],
                                     mode="lines", line=dict(color="#90a4ae"), hoverinfo="skip", showlegend=False))
    xs = [depth[i] for i in order]
    ys = [y[i] for i in order]
    labels = []
    for i in order:
        n = by_id[i]
        t = n["type"] + (f" ⟂!{','.join(n['resets'])}" if n.get("resets") else "")
        if i in terms:
            t += "  ⇒ " + ", ".join(terms[i])
        labels.append(escape.plotly(t))
    colours = ["#ef6c00" if i in terms else "#1565c0" for i in order]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=labels, textposition="middle right",
                             marker=dict(size=16, color=colours), showlegend=False,
                             hovertext=[escape.plotly(f"{by_id[i]['label']}: used by {', '.join(by_id[i]['users'])}")
                                        for i in order],
                             hoverinfo="text"))
    fig.update_layout(height=80 + 34 * len(order), margin=dict(l=10, r=10, t=10, b=10), plot_bgcolor="white",
                      xaxis=dict(visible=False, range=[-0.5, max(xs + [0]) + 2.5]), yaxis=dict(visible=False))
    return fig
