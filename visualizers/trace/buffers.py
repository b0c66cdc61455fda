"""The engines' buffers after a step: NFA^b's shared versioned buffer (:func:`shared_buffer_figure`,
:func:`retrieval_path`) and the lazy engines' per-variable input buffers (:func:`lazy_buffer_figure`).
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

import networkx as nx
import plotly.graph_objects as go

from engine.trace import Step
from visualizers.escape import plotly as plotly_text
from visualizers.trace.plain_figure import ADDED, LIVE, PATH, REMOVED, _Fig, _sc


def buffer_view(steps: Sequence[Step], k: int) -> tuple[dict[str, dict[str, Any]], set[str], set[str], set[str]]:
    """The shared buffer after step ``k``: ``(entries, added, new_pointer_entries, removed)``;
    entries pruned on step ``k`` are kept (flagged ``removed``) so that they can be greyed."""
    entries: dict[str, dict[str, Any]] = {}
    removed_now: dict[str, dict[str, Any]] = {}
    added: set[str] = set()
    pointed: set[str] = set()
    for j, s in enumerate(steps[: k + 1]):
        b = s.buffer or {}
        if b.get("kind") not in (None, "shared"):
            continue
        last = j == k
        for ent in b.get("added", ()):
            entries[ent["id"]] = {"id": ent["id"], "state": ent["state"], "event": ent["event"],
                                  "preds": [dict(p) for p in ent["preds"]], "step": j}
            if last:
                added.add(ent["id"])
        for p in b.get("pointers", ()):
            if p["entry"] in entries:
                entries[p["entry"]]["preds"].append({"label": p["label"], "to": p["to"], "new": last})
                if last:
                    pointed.add(p["entry"])
        for rid in b.get("removed", ()):
            ent = entries.pop(rid, None)
            if last and ent is not None:
                removed_now[rid] = dict(ent, removed=True)
    entries.update(removed_now)
    return entries, added, pointed, set(removed_now)


def _compatible(label: str, version: str) -> bool:
    return version == label or version.startswith(label + ".")


def retrieval_path(entries: dict[str, dict[str, Any]], last_event: Any, version: str | None
                   ) -> list[tuple[str, str | None, str]]:
    """The match's entries from its last event back to its first, following at each entry
    the pointer whose version label is the longest prefix of the run's version (§4.9):
    ``[(entry, next entry or None, label)]``."""
    if version is None:
        return []
    start = None
    for eid, ent in entries.items():
        if ent["event"] == last_event and any(_compatible(p["label"], version) for p in ent["preds"]):
            if start is None or any(p["label"] == version for p in ent["preds"]):
                start = eid
    out: list[tuple[str, str | None, str]] = []
    cur = start
    seen: set[str] = set()
    while cur is not None and cur in entries and cur not in seen:
        seen.add(cur)
        preds = [p for p in entries[cur]["preds"] if _compatible(p["label"], version)]
        if not preds:
            out.append((cur, None, ""))
            break
        p = max(preds, key=lambda q: len(q["label"]))
        out.append((cur, p["to"], p["label"]))
        cur = p["to"]
    return out


def stack_order(g: nx.MultiDiGraph | None, entries: dict[str, dict[str, Any]]) -> list[str]:
    """Stacks (states) left to right: the automaton's order, then any others."""
    states = list(dict.fromkeys(e["state"] for e in entries.values()))
    if g is None:
        return states
    rank = {n: (d.get("alternative", 0), d.get("order", 99)) for n, d in g.nodes(data=True)}
    named = [n for n in sorted(rank, key=lambda n: rank[n]) if g.nodes[n].get("kind") not in ("final", "negation")]
    return named + [s for s in states if s not in named]


def _labels_text(labels: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(labels[:limit])
    return f"[{shown}{', +' + str(len(labels) - limit) if len(labels) > limit else ''}]"


# --------------------------------------------------------------------------- label placement
# Text is placed in pixels, from the figure's own layout: its height, margins and axis ranges,
# and the narrowest width it is drawn at (``LABEL_MIN_WIDTH``; a wider figure spreads the same
# boxes further apart, since a label's box starts at its anchor and only shrinks in data
# units). A label goes to the first place along its arrow where its box meets no other text,
# entry or label; else its short form; else it is left to the arrow's hover text.

LABEL_MIN_WIDTH = 300     # px: the narrowest the Debug page draws the buffer (half its width, a 1100 px window)
LABEL_FONT = 12
CHAR_WIDTH = 0.62         # of the font size: a generous average advance for digits, dots, brackets
LINE_HEIGHT = 1.3         # of the font size
ENTRY_SIZE = 34           # px: the entry squares
LEGEND_SPACE = 40         # px the horizontal legend below may take from the plot area
BELOW_DX, BELOW_DY = ENTRY_SIZE / 2 + 9, 8  # px: the "points to an older entry not drawn" mark, left of its entry


def text_box(x_px: float, y_px: float, text: str, size: float, position: str = "middle right"
             ) -> tuple[float, float, float, float]:
    """The box ``(left, bottom, right, top)`` in pixels (y up) of plotly text anchored at a point."""
    w = len(text) * size * CHAR_WIDTH + 4
    h = size * LINE_HEIGHT
    vertical, _, horizontal = position.partition(" ")
    left = {"left": x_px - w, "center": x_px - w / 2}.get(horizontal, x_px)
    bottom = {"top": y_px, "bottom": y_px - h}.get(vertical, y_px - h / 2)
    return left, bottom, left + w, bottom + h


def _meets(a: tuple[float, float, float, float], b: tuple[float, float, float, float], pad: float = 1.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


class _Scale:
    """Data units to pixels for a figure drawn ``width`` × ``height`` with the given margins."""

    def __init__(self, xr: Sequence[float], yr: Sequence[float], width: float, height: float,
                 margin: dict[str, float], legend: float = LEGEND_SPACE):
        self.x0, self.y0 = xr[0], yr[0]
        self.kx = (width - margin.get("l", 0) - margin.get("r", 0)) / max(xr[1] - xr[0], 1e-9)
        self.ky = (height - margin.get("t", 0) - margin.get("b", 0) - legend) / max(yr[1] - yr[0], 1e-9)
        self.width, self.height = (xr[1] - xr[0]) * self.kx, (yr[1] - yr[0]) * self.ky

    def inside(self, box: tuple[float, float, float, float]) -> bool:
        """Whether a box lies in the plot area (text outside it is clipped)."""
        return box[0] >= 0 and box[1] >= 0 and box[2] <= self.width and box[3] <= self.height

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.x0) * self.kx, (y - self.y0) * self.ky


def _place_labels(arrows: list[tuple[list[float], list[float], str, str]], obstacles: list[tuple],
                  scale: _Scale) -> list[tuple[float, float, str] | None]:
    """For each arrow ``(xs, ys, label, short label)``: where its label goes and which text
    (``None``: no room); a label that does not fit in full is
    shortened to its count of versions, then to ``[…]`` (its versions are in the hover text)."""
    taken = list(obstacles)
    out: list[tuple[float, float, str] | None] = []
    for xs, ys, label, short in arrows:
        n = len(xs)
        spots = sorted(range(1, max(n - 1, 2)), key=lambda j: (abs(j - n // 2), j))  # the middle first, then outwards
        placed = None
        for text in dict.fromkeys([label, short, "[…]"]):
            for i in dict.fromkeys(min(max(j, 0), n - 1) for j in spots):
                box = text_box(*scale.px(xs[i], ys[i]), text, LABEL_FONT)
                if scale.inside(box) and not any(_meets(box, o) for o in taken):
                    placed = (xs[i], ys[i], text)
                    taken.append(box)
                    break
            if placed:
                break
        out.append(placed)
    return out


# --------------------------------------------------------------------------- partitions

def event_partitions(pattern: Any, events: Iterable[Any]) -> dict[Any, str]:
    """Each event's partition as NFA^b keys it (``symbol=GOOG``); ``{}`` when the pattern is
    not partitioned. For :func:`shared_buffer_figure`'s ``partition_of``."""
    from engine.explain.common import part_text, partitioner

    part = partitioner(pattern)
    if part is None:
        return {}
    return {e.id: part_text(part, e) for e in events}


def _focus_partition(entries: dict[str, dict[str, Any]], keys: dict[str, Any], seq_of: dict[Any, int],
                     path: Sequence[tuple], added: set[str]) -> Any:
    for p in path:
        if p[0] in keys:
            return keys[p[0]]
    for eid in added:
        if eid in keys:
            return keys[eid]
    if not keys:
        return None
    latest = max(keys, key=lambda eid: seq_of.get(entries[eid]["event"], 0))
    return keys[latest]


def shared_buffer_figure(entries: dict[str, dict[str, Any]], stacks: Sequence[str], seq_of: dict[Any, int],
                         added: Iterable[str] = (), pointed: Iterable[str] = (), path: Sequence[tuple] = (),
                         max_events: int = 25, height: int | None = None, *,
                         partition_of: Mapping[Any, Any] | None = None, partition: Any = None,
                         min_width: int = LABEL_MIN_WIDTH) -> go.Figure:
    """The SASE+ buffer figure: a column per stack, entries bottom (old) to top (new) by
    event, an arrow from each entry to each predecessor labelled with its version(s)
    (several runs sharing one pointer target are one arrow listing their labels). Entries
    written on this step are orange, pruned ones grey, a match's retrieval path gold. Only
    the latest ``max_events`` events are drawn (the title says so).

    With ``partition_of`` (event id → partition key, :func:`event_partitions`) only one
    partition is drawn: ``partition``, else the chosen match's, else the one this step wrote
    to, else the latest; the title counts the entries of the others. Version labels never
    overprint each other, an entry or a header: each is placed along its arrow where it
    fits at ``min_width`` px and wider, shortened, or left to the arrow's hover text (which
    always lists every version)."""
    from visualizers.automaton import _bezier

    added, pointed = set(added), set(pointed)
    others: list[str] = []
    if partition_of:
        keys = {eid: partition_of.get(e["event"]) for eid, e in entries.items()}
        keys = {eid: k for eid, k in keys.items() if k is not None}
        focus = partition if partition is not None else _focus_partition(entries, keys, seq_of, path, added)
        if focus is not None:
            rest = {eid for eid, k in keys.items() if k != focus}
            n_parts = len({keys[eid] for eid in rest})
            if rest:
                live_rest = [eid for eid in rest if not entries[eid].get("removed")]
                others = [f"partition {focus}", f"+ {len(live_rest):,} entr{'y' if len(live_rest) == 1 else 'ies'} "
                          f"in {n_parts} other partition{'s' if n_parts != 1 else ''}"]
            entries = {eid: e for eid, e in entries.items() if eid not in rest}
    path_entries = {p[0] for p in path}
    path_ptrs = {(p[0], p[1]) for p in path if p[1] is not None}
    evs = sorted({e["event"] for e in entries.values()}, key=lambda i: seq_of.get(i, 0))
    cut = len(evs) - max_events if len(evs) > max_events else 0
    row = {ev: r for r, ev in enumerate(evs[cut:])}
    col = {s: c for c, s in enumerate(stacks)}
    for e in entries.values():
        col.setdefault(e["state"], len(col))
    X = 3.0
    pos = {eid: (col[e["state"]] * X, float(row[e["event"]])) for eid, e in entries.items() if e["event"] in row}
    # one arrow per (entry, predecessor), its labels joined; grouped by style into few traces
    arrows: dict[tuple[str, str], dict[str, Any]] = {}
    below: list[tuple[float, float]] = []
    for eid, e in entries.items():
        if eid not in pos:
            continue
        for p in e["preds"]:
            to = p.get("to")
            if to is None:
                continue
            if to not in pos:
                if pos[eid] not in below:
                    below.append(pos[eid])
                continue
            a = arrows.setdefault((eid, to), {"labels": [], "new": False})
            a["labels"].append(str(p["label"]))
            a["new"] = a["new"] or bool(p.get("new")) or eid in added
    n_rows = max(len(row), 1)
    heads = [*others, *([f"the latest {max_events} events drawn; {cut} older not drawn"] if cut else [])]
    title = "<br>".join(plotly_text(t) for t in heads)
    margin = dict(l=10, r=10, t=10 + 20 * len(heads), b=10)
    fig_height = height or min(max(280, 44 * n_rows + 110), 1400)
    xr = [-1.2, max(len(col) - 1, 0) * X + 3.0]  # room right of the last stack for its arrows' labels
    yr = [-0.8, n_rows + 0.7]
    scale = _Scale(xr, yr, min_width, fig_height, margin)
    # what labels must not cover: the entries, the column headers, the arrows' "more below" marks
    obstacles = []
    for x, y in pos.values():
        cx, cy = scale.px(x, y)
        obstacles.append((cx - ENTRY_SIZE / 2, cy - ENTRY_SIZE / 2, cx + ENTRY_SIZE / 2, cy + ENTRY_SIZE / 2))
    for s, c in col.items():
        obstacles.append(text_box(*scale.px(c * X, n_rows - 0.25), s, 14, "top center"))
    below = [(bx - BELOW_DX / scale.kx, by - BELOW_DY / scale.ky) for bx, by in below]
    for bx, by in below:
        obstacles.append(text_box(*scale.px(bx, by), "↓", 12, "middle center"))
    styles = {"path": (PATH, 4.5), "new": (LIVE, 2.6), "old": ("#5d6d7e", 1.4)}
    lines: dict[str, tuple[list[Any], list[Any], list[Any]]] = {k: ([], [], []) for k in styles}
    drawn: list[tuple[list[float], list[float], str, str]] = []
    kinds: list[str] = []
    hover_x, hover_y, hover_t = [], [], []
    order = sorted(arrows.items(), key=lambda kv: (kv[0] not in path_ptrs, not kv[1]["new"]))  # the path labelled first
    for (eid, to), a in order:
        (x0, y0), (x1, y1) = pos[eid], pos[to]
        if abs(x0 - x1) < 1e-9:  # same stack: bend right, more for longer jumps
            bend = 0.35 + 0.22 * min(abs(y0 - y1), 6)
            xs, ys = _bezier((x0 + 0.3, y0), (x0 + 0.3 + bend, y0 - 0.15), (x1 + 0.3 + bend, y1 + 0.15),
                             (x1 + 0.3, y1), n=10)
        else:
            xs, ys = _bezier((x0 - 0.3, y0), (x0 - 1.2, y0), (x1 + 1.2, y1), (x1 + 0.3, y1), n=10)
        xs, ys = [round(v, 3) for v in xs], [round(v, 3) for v in ys]
        kind = "path" if (eid, to) in path_ptrs else ("new" if a["new"] else "old")
        lx, ly, ls = lines[kind]
        lx += xs + [None]
        ly += ys + [None]
        ls += [0] * (len(xs) - 1) + [11 if kind != "old" else 8, 0]
        n = len(a["labels"])
        drawn.append((xs, ys, _labels_text(a["labels"]), f"[{n} versions]" if n > 1 else _labels_text(a["labels"])))
        kinds.append(kind)
        mid = len(xs) // 2
        hover_x.append(xs[mid])
        hover_y.append(ys[mid])
        hover_t.append(plotly_text(f"{eid} → {to}: ") + "<br>".join(
            plotly_text(", ".join(a["labels"][i:i + 8])) for i in range(0, len(a["labels"]), 8)))
    placed = _place_labels(drawn, obstacles, scale)
    tx, ty, tt, tc = [], [], [], []
    for spot, kind in zip(placed, kinds):
        if spot is None:
            continue
        tx.append(spot[0])
        ty.append(spot[1])
        tt.append(plotly_text(spot[2]))
        tc.append({"path": "#9a7d0a", "new": "#ba4a00"}.get(kind, "#34495e"))
    fig = _Fig()
    for kind in ("old", "new", "path"):
        lx, ly, ls = lines[kind]
        if not lx:
            continue
        colour, width = styles[kind]
        fig.add_trace(_sc(x=lx, y=ly, mode="lines+markers", hoverinfo="skip", showlegend=False,
                          line=dict(color=colour, width=width),
                          marker=dict(symbol="arrow", size=ls, color=colour, angleref="previous")))
    if hover_x:  # every arrow's versions, in full, on hover
        fig.add_trace(_sc(x=hover_x, y=hover_y, mode="markers", hovertext=hover_t, hoverinfo="text",
                          showlegend=False, name="versions", marker=dict(size=10, color="rgba(0,0,0,0)")))
    if tx:
        fig.add_trace(_sc(x=tx, y=ty, mode="text", text=tt, hoverinfo="skip", showlegend=False,
                          textposition="middle right", textfont=dict(size=LABEL_FONT, color=tc)))
    if below:
        fig.add_trace(_sc(x=[round(b[0], 3) for b in below], y=[round(b[1], 3) for b in below], mode="text",
                          text=["↓"] * len(below), hoverinfo="skip", showlegend=False, name="older",
                          textposition="middle center", textfont=dict(size=12, color="#888")))
    xs, ys, texts, fills, lcol, hovers = [], [], [], [], [], []
    for eid, e in entries.items():
        if eid not in pos:
            continue
        x, y = pos[eid]
        xs.append(x)
        ys.append(y)
        texts.append(plotly_text(f"e{e['event']}"))  # event ids come from the data
        removed = e.get("removed")
        fills.append(REMOVED if removed else (PATH if eid in path_entries else (ADDED if eid in added else "#eaf2f8")))
        lcol.append("#999" if removed else ("#b9770e" if eid in path_entries else "#1f4e79"))
        ptrs = [plotly_text(f"[{p['label']}] → {p['to'] or '∅'}") for p in e["preds"]]
        hovers.append(f"<b>{plotly_text(eid)}</b><br>stack {plotly_text(e['state'])} · event "
                      f"{plotly_text(e['event'])}<br>pointers: "
                      + ", ".join(ptrs[:8]) + (f" … (+{len(ptrs) - 8})" if len(ptrs) > 8 else "")
                      + ("<br><i>pruned on this step</i>" if removed else "")
                      + ("<br><i>written on this step</i>" if eid in added else ""))
    fig.add_trace(_sc(x=xs, y=ys, mode="markers+text", text=texts, hovertext=hovers, hoverinfo="text",
                      textfont=dict(size=12, color="#111"), showlegend=False, name="entries",
                      marker=dict(symbol="square", size=ENTRY_SIZE, color=fills, line=dict(color=lcol, width=2))))
    fig.add_trace(_sc(x=[c * X for c in col.values()], y=[n_rows - 0.25] * len(col), mode="text",
                      text=[f"<b>{plotly_text(s)}</b>" for s in col], textposition="top center", hoverinfo="skip",
                      showlegend=False, textfont=dict(size=14, color="#1f2d3d")))
    for kind, colour in (("written on this step", ADDED), ("match retrieval path", PATH), ("pruned", REMOVED)):
        fig.add_trace(_sc(x=[None], y=[None], mode="markers", name=kind,
                          marker=dict(symbol="square", size=12, color=colour)))
    fig.update_layout(
        title=dict(text=title, font=dict(size=13)),
        xaxis=dict(visible=False, range=xr, fixedrange=True),
        yaxis=dict(visible=False, range=yr, fixedrange=True),
        height=fig_height, plot_bgcolor="white", margin=margin,
        meta={"label_min_width": min_width, "label_font": LABEL_FONT, "legend_space": LEGEND_SPACE},
        legend=dict(orientation="h", yanchor="top", y=-0.01, x=0))
    return fig.figure()


def lazy_buffer_figure(step: Step, pattern_order: Sequence[str], types: dict[str, str] | None = None,
                       max_events: int = 30, height: int | None = None, *,
                       min_width: int = LABEL_MIN_WIDTH) -> go.Figure:
    """The lazy engines' per-variable input buffers after a step (Kolchinsky & Schuster §3):
    one column per variable, in the evaluation order when the engine has one (the chain:
    ascending frequency), the buffered event ids stacked oldest at the bottom; events stored
    on this step green, events a partial match took from a buffer on this step gold. A
    variable with no buffer is read from the stream only (the chain's first). Column
    headers that would overprint each other at ``min_width`` px are staggered (and
    shortened, their type on hover: :func:`_lazy_heads`)."""
    b = step.buffer or {}
    bufs: dict[str, list[Any]] = dict(b.get("buffers") or {})
    order = (b.get("order") or [[]])[0] or []
    cols = list(dict.fromkeys([*order, *pattern_order, *bufs]))
    stored = {a.event for a in step.actions if a.kind == "store"}
    taken = {a.event for a in step.actions if a.kind == "take" and (a.detail or {}).get("source") == "buffer"}
    fig = _Fig()
    xs, ys, texts, fills, hovers = [], [], [], [], []
    annotations = []
    tallest = max([min(len(bufs.get(v, [])), max_events) for v in cols] + [1])
    heads = _lazy_heads(cols, order, bufs, types, min_width)
    lift = HEAD_LIFT * max([h[2] for h in heads] + [0])
    for c, v in enumerate(cols):
        ids = list(bufs.get(v, []))
        more = len(ids) - max_events
        shown = ids[-max_events:]
        for r, i in enumerate(shown):
            xs.append(c)
            ys.append(r)
            texts.append(plotly_text(i))  # event ids come from the data
            fills.append(PATH if i in taken else (ADDED if i in stored else "#eaf2f8"))
            hovers.append(f"event {plotly_text(i)} in the buffer of {plotly_text(v)}")
        text, hover, level = heads[c]
        annotations.append(dict(x=c, y=tallest - 0.3, text=text, showarrow=False, yanchor="bottom",
                                font=dict(size=13), yshift=HEAD_LIFT * level, hovertext=hover))
        if more > 0:
            older = f"+{more} older"
            fits = len(older) * 11 * CHAR_WIDTH + 6 <= (min_width - 20) / (max(len(cols), 1) + 0.4)
            annotations.append(dict(x=c, y=-0.6, text=older if fits else f"+{more}", showarrow=False, yanchor="top",
                                    font=dict(size=11, color="#888"), hovertext=f"{more} older events not drawn"))
    if xs:
        fig.add_trace(_sc(x=xs, y=ys, mode="markers+text", text=texts, hovertext=hovers, hoverinfo="text",
                          showlegend=False, textfont=dict(size=11),
                          marker=dict(symbol="square", size=30, color=fills, line=dict(color="#1f4e79", width=1.5))))
    for kind, colour in (("stored on this step", ADDED), ("taken from the buffer on this step", PATH)):
        fig.add_trace(_sc(x=[None], y=[None], mode="markers", name=kind,
                          marker=dict(symbol="square", size=12, color=colour)))
    title = f"{b.get('partial', 0)} partial match(es)"
    if order:
        title += plotly_text(f" · evaluation order {' → '.join(order)} (pattern order {' → '.join(pattern_order)})")
    fig.update_layout(annotations=annotations, title=dict(text=title, font=dict(size=13)),
                      xaxis=dict(visible=False, range=[-0.7, max(len(cols), 1) - 0.3]),
                      yaxis=dict(visible=False, range=[-1.3, tallest + 1.2]),
                      height=(height or min(max(260, 34 * tallest + 170), 1200)) + lift,
                      plot_bgcolor="white", margin=dict(l=10, r=10, t=40 + lift, b=10),
                      meta={"label_min_width": min_width},
                      legend=dict(orientation="h", yanchor="top", y=-0.01, x=0))
    return fig.figure()


HEAD_LIFT = 36   # px: a staggered column header sits this much higher than the one below it
HEAD_LEVELS = 4  # staggered headers: at most this many heights


def _lazy_heads(cols: Sequence[str], order: Sequence[str], bufs: dict[str, list[Any]],
                types: dict[str, str] | None, min_width: int) -> list[tuple[str, str, int]]:
    """Each column's header ``(text, hover text, level)``: the variable (its rank in the
    evaluation order, its type) over its count. When the headers are wider than two columns
    at ``min_width`` px the type moves to the hover text and "from the stream" becomes
    "stream"; when wider than one, neighbours are staggered over up to ``HEAD_LEVELS``
    heights (``level`` × ``HEAD_LIFT`` px up)."""
    pitch = (min_width - 20) / (max(len(cols), 1) + 0.4)  # px per column (x range: n columns + 0.4)
    full, short = [], []
    for v in cols:
        rank = f"{order.index(v) + 1}. " if v in order else ""
        typ = f" ({types[v]})" if types and v in types else ""
        count = bufs.get(v)
        sub = f"{len(count)} buffered" if count is not None else "from the stream"
        full.append((rank + v + typ, sub))
        short.append((rank + v, f"{len(count)} buffered" if count is not None else "stream"))

    def width(lines: tuple[str, str]) -> float:
        return max(len(t) for t in lines) * 13 * CHAR_WIDTH + 6

    widest = max([width(h) for h in full] + [0])
    chosen = full if widest <= 2 * pitch else short
    levels = min(max(math.ceil(max([width(h) for h in chosen] + [0]) / pitch), 1), HEAD_LEVELS)
    out = []
    for c, (v, (top, sub)) in enumerate(zip(cols, chosen)):
        name = plotly_text(v)
        rank = f"{order.index(v) + 1}. " if v in order else ""
        typ = f" ({plotly_text(types[v])})" if types and v in types and chosen is full else ""
        hover = plotly_text(f"{v}: {types[v]}" if types and v in types else v) + "<br>" + plotly_text(full[c][1])
        out.append((f"{rank}<b>{name}</b>{typ}<br>{plotly_text(sub)}", hover, c % levels))
    return out
