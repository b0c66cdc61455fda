"""Where states and edge labels go: labels are placed on a pixel grid so that no two labels and
no label and state overlap (a label that cannot sit at its edge moves away, tied to it by a leader
line); :func:`layout` gives the state positions, ``_best_plan`` the first plan that fits.
"""
from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from visualizers.automaton.styles import DX, EDGE_STYLE, R, SCALE
from visualizers.escape import plotly as plotly_text


FONT = 11          # label font size (px)
CHAR_W = 6.4       # a generous average character width at FONT (px): boxes are never too small
BOLD_W = 7.0
LINE_H = 14.5
PAD = 4.0          # label box padding (px)
STATE_PX = 48      # state marker diameter (px)
LOOP_PX = 70       # from a state's centre to the far side of its self-loop (px)
STUB_PX = 12       # horizontal offset of a route to R from the state's centre (px)
HEADS = {"proceed": "ε proceed", "negation": "¬ check"}


def _wrap(txt: str, width: int) -> str:
    return "<br>".join(textwrap.wrap(txt, width=width, break_long_words=True)) or txt


def _short(txt: str, limit: int) -> str:
    return txt if len(txt) <= limit else txt[: limit - 1] + "…"


def _esc(txt: str) -> str:
    """Pattern text (formulas hold its string literals) as plotly text: see ``visualizers.escape``."""
    return plotly_text(txt)


def _bezier(p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float],
            n: int = 30) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for i in range(n + 1):
        t = i / n
        a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
        xs.append(a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0])
        ys.append(a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1])
    return xs, ys


def _loop_units(x: float, y: float, above: bool) -> tuple[list[float], list[float]]:
    """A self-loop in data units (y up): take above, ignore / store below."""
    s = 1 if above else -1
    return _bezier((x - R * 0.7, y + s * R * 0.7), (x - 1.0, y + s * 1.5), (x + 1.0, y + s * 1.5),
                   (x + R * 0.7, y + s * R * 0.7))


def _proceed_units(x0: float, y0: float, x1: float, y1: float) -> tuple[list[float], list[float]]:
    return _bezier((x0 + R * 0.8, y0 - R * 0.5), (x0 + DX * 0.35, y0 - 0.9), (x1 - DX * 0.35, y1 - 0.9),
                   (x1 - R * 0.8, y1 - R * 0.5))


@dataclass
class _Label:
    """One edge label in screen pixels (x right, y down)."""

    key: str
    lines: list[tuple[str, bool]]  # (text, bold)
    colour: str
    anchor: tuple[float, float]
    side: str  # above | below | right
    hover: str
    data: list[str]
    hover_at: tuple[float, float] | None = None
    box: tuple[float, float, float, float] | None = None
    anchors: list[tuple[float, float]] = field(default_factory=list)  # other places along the edge

    @property
    def w(self) -> float:
        return max((len(t) * (BOLD_W if b else CHAR_W) for t, b in self.lines), default=0) + 2 * PAD

    @property
    def h(self) -> float:
        return len(self.lines) * LINE_H + 2 * PAD

    def at(self, dx: float, dy: float, anchor: tuple[float, float] | None = None) -> tuple[float, float, float, float]:
        return self.corner(anchor or self.anchor, self.w, self.h, dx, dy)

    def corner(self, anchor: tuple[float, float], w: float, h: float, dx: float,
               dy: float) -> tuple[float, float, float, float]:
        """The box of a w × h label moved by (dx, dy) from its place beside ``anchor``."""
        ax, ay = anchor
        if self.side == "above":
            x0, y0 = ax - w / 2, ay - h - 2
        elif self.side == "below":
            x0, y0 = ax - w / 2, ay + 2
        else:
            x0, y0 = ax + 4, ay - h / 2
        return (x0 + dx, y0 + dy, x0 + dx + w, y0 + dy + h)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float], gap: float = 2.0) -> float:
    w = min(a[2], b[2]) + gap - max(a[0], b[0])
    h = min(a[3], b[3]) + gap - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _candidates(lab: _Label) -> list[tuple[tuple[float, float, float, float], tuple[float, float]]]:
    """The spots tried for a label, in order (box, anchor): at the edge, then staggered away
    from it (beside a vertical route: alternately up and down) and sideways."""
    step = 7.0
    direction = {"above": -1.0, "below": 1.0}.get(lab.side)
    shifts = [0.0, -0.35, 0.35, -0.7, 0.7, -1.05, 1.05]
    anchors = [lab.anchor] + list(lab.anchors)
    w, h = lab.w, lab.h
    out = []
    for k in range(0, 22):
        if direction is None:
            dy = (k + 1) // 2 * step * (1 if k % 2 else -1)
        else:
            dy = direction * k * step
        for anchor in (anchors if k < 4 else anchors[:1]):
            for sx in (shifts if k >= 1 else [0.0]):
                out.append((lab.corner(anchor, w, h, sx * w, dy), anchor))
    return out


def _place(labels: list[_Label], obstacles: list[tuple[float, float, float, float]]) -> int:
    """Put every label at the first free spot near its anchor (:func:`_candidates`); returns
    how many could only be placed overlapping (at the spot that overlaps least). Only the
    boxes already placed near the label's candidate spots are compared (the others cannot
    touch any of them)."""
    placed = list(obstacles)
    bad = 0
    for lab in labels:
        first = lab.at(0.0, 0.0)
        if not any(_overlap(first, o) for o in placed):  # most labels fit where they belong
            lab.box = first
            placed.append(first)
            continue
        spots = _candidates(lab)
        gx0 = min(b[0] for b, _a in spots) - 2
        gy0 = min(b[1] for b, _a in spots) - 2
        gx1 = max(b[2] for b, _a in spots) + 2
        gy1 = max(b[3] for b, _a in spots) + 2
        near = [o for o in placed if o[0] < gx1 and o[2] > gx0 and o[1] < gy1 and o[3] > gy0]
        best, best_cost = None, None
        found = None
        for box, anchor in spots:
            cost = sum(_overlap(box, o) for o in near) if near else 0.0
            if cost == 0:
                found = box
                lab.anchor = anchor
                break
            if best_cost is None or cost < best_cost:
                best, best_cost = box, cost
        if found is None:
            found = best
            bad += 1
        lab.box = found
        placed.append(found)  # type: ignore[arg-type]
    return bad


def _display(d: dict[str, Any], n: str) -> str:
    """The name drawn in a state: the tree's Kleene tail ``iterate p`` as ``p[i]`` (NFA^b's name)."""
    label = str(d.get("label", n))
    if label.startswith("iterate "):
        return f"{label[8:]}[i]"
    return label


def _state_px(label: str) -> float:
    return max(STATE_PX, len(label) * 7.6 + 16)


def _move_name(head: str) -> str:
    """``take c:TaskFinish`` -> ``take c``, ``take a if rarest`` -> ``take a``, ``next set: take b:B``
    -> ``next set: b``; a head without a variable stays as it is (``skip``, ``timeout``)."""
    m = re.search(r"\b(begin|take|iterate|store|ignore)\s+(¬?[\w^]+(?:,[\w^]+)*)", head)
    if m is None:
        return head
    name = f"{m.group(1)} {m.group(2)}"
    return f"next set: {m.group(2)}" if head.startswith("next set") else name


def _label_lines(head: str, body: str, mode: str, width: int) -> list[tuple[str, bool]]:
    """The bold name (``take b:CPU · prec={a}`` on two lines), then the formula by ``mode``."""
    if mode == "names":  # the move and its variable only: `take c`, `begin a^t`, `next set: b`
        first = head.split(" · ")[0]
        return [(_short(_move_name(first), width), True)] if first else []
    lines: list[tuple[str, bool]] = [(_short(part, width), True) for part in head.split(" · ") if part]
    if mode == "none" or not body:
        return lines
    if mode == "short":
        wrapped = textwrap.wrap(_short(body, 2 * width), width=width, break_long_words=True)
    else:
        wrapped = textwrap.wrap(body, width=width + 8, break_long_words=True)
    return lines + [(t, False) for t in wrapped]


def generic_moves(g: nx.MultiDiGraph) -> bool:
    """True when the edges' kinds are the drawing's generic moves (NFA^b's begin / take / ignore
    / proceed, or a graph of no named engine), False when they are an engine's own moves drawn
    through their style (its spec's ``drawing.own_moves``)."""
    from engine.engines.planner import ENGINES

    spec = ENGINES.get(g.graph.get("engine", ""))
    return spec is None or spec.drawing is None or not spec.drawing.own_moves


def _edge_head_body(g: nx.MultiDiGraph, d: dict[str, Any]) -> tuple[str, str]:
    kind = d.get("kind", "take")
    shown = d.get("shown", d.get("label", "")) or ""
    if generic_moves(g) or "move" not in d:
        return HEADS.get(kind, kind), shown
    parts = [p.strip() for p in shown.split(" | ")]
    return parts[0] or d.get("move", kind), " · ".join(parts[1:])


@dataclass
class _Plan:
    pos: dict[str, tuple[float, float]]       # px, screen coordinates
    labels: list[_Label]
    paths: list[tuple[str, list[float], list[float], tuple[float, float], tuple[float, float]]]  # kind, xs, ys (px)
    overlaps: int
    extra: list[tuple[float, float, float, float]] = field(default_factory=list)  # other drawn boxes


def _plan(g: nx.MultiDiGraph, labels: str, label_width: int, gap_min: float, row_pad: float) -> _Plan:
    nodes = dict(g.nodes(data=True))
    is_nfab = generic_moves(g)

    def col_of(n: str) -> Any:
        o = nodes[n].get("order", 0)
        return o if isinstance(o, (int, float)) else 0

    main = [n for n in nodes if nodes[n].get("kind") != "negation"]
    cols = sorted({col_of(n) for n in main})
    ci = {c: i for i, c in enumerate(cols)}
    rows = sorted({int(nodes[n].get("alternative", 0) or 0) for n in main})

    # ---- edges, grouped by how they are drawn
    loops: dict[tuple[str, bool], list[tuple[str, str, str, dict[str, Any]]]] = {}
    others: list[tuple[str, str, str, dict[str, Any], str]] = []
    for u, v, k, d in g.edges(keys=True, data=True):
        kind = d.get("kind", k)
        if u == v:
            loops.setdefault((u, kind == "take"), []).append((u, v, k, d))
            continue
        vk = nodes[v].get("kind")
        if vk == "reject":
            how = "bus"
        elif vk == "negation":
            how = "neg"
        elif kind == "proceed" and is_nfab:
            how = "curve"
        else:
            how = "straight"
        others.append((u, v, k, d, how))

    def make(u: str, v: str, dd: list[dict[str, Any]], key: str, terse: bool = False) -> _Label:
        lines: list[tuple[str, bool]] = []
        hover, data = [], []
        for d in dd:
            head, body = _edge_head_body(g, d)
            lines += _label_lines(head, body, "none" if terse and labels != "full" else labels, label_width)
            hover.append(f"<b>{_esc(HEADS.get(d.get('kind', ''), d.get('move', d.get('kind', ''))))}</b> "
                         f"{_esc(u)} → {_esc(v)}<br>shown: {_wrap(_esc(d.get('shown', '')), 70)}"
                         f"<br>θ: {_wrap(_esc(d.get('formula', '')), 70)}"
                         f"<br>θ*: {_wrap(_esc(d.get('formula_optimised', '')), 70)}")
            data = [d.get("kind", ""), u, v, d.get("shown", ""), d.get("formula", ""), d.get("formula_optimised", "")]
        colour = EDGE_STYLE.get(dd[0].get("kind", "take"), EDGE_STYLE["take"])["color"]
        return _Label(key, lines, colour, (0.0, 0.0), "above", "<br>".join(hover), data)

    loop_labels = {key: make(key[0], key[0], [x[3] for x in items], f"loop:{key[0]}:{key[1]}")
                   for key, items in loops.items()}
    edge_labels = [(u, v, d, how, make(u, v, [d], f"edge:{u}->{v}:{k}", terse=how == "bus"))
                   for u, v, k, d, how in others]

    # ---- column gaps from what sits between two columns
    gaps = [gap_min] * max(len(cols) - 1, 0)
    for u, v, d, how, lab in edge_labels:
        if how in ("straight", "curve"):
            a, b = ci.get(col_of(u)), ci.get(col_of(v))
            if a is not None and b is not None and b == a + 1:
                gaps[a] = max(gaps[a], lab.w + 2 * STATE_PX / 2 + 20)
        if how == "neg":
            a = ci.get(col_of(u))
            if a is not None and a < len(gaps):
                gaps[a] = max(gaps[a], lab.w + 30)
    for (n1, above1), l1 in loop_labels.items():
        for (n2, above2), l2 in loop_labels.items():
            if above1 != above2 or n1 == n2:
                continue
            a, b = ci.get(col_of(n1)), ci.get(col_of(n2))
            if a is not None and b == a + 1 and nodes[n1].get("alternative", 0) == nodes[n2].get("alternative", 0):
                gaps[a] = max(gaps[a], l1.w / 2 + l2.w / 2 + 16)
    xs_col = [0.0]
    for gp in gaps:
        xs_col.append(xs_col[-1] + gp)

    # ---- row bands
    above = {r: 34.0 for r in rows}
    below = {r: 34.0 for r in rows}
    for (n, up), lab in loop_labels.items():
        r = int(nodes[n].get("alternative", 0) or 0)
        if up:
            above[r] = max(above[r], LOOP_PX + lab.h + 6)
        else:
            below[r] = max(below[r], LOOP_PX + lab.h + 6)
    for u, v, d, how, lab in edge_labels:
        r = int(nodes[u].get("alternative", 0) or 0)
        if r not in above:
            continue
        if how == "straight":
            above[r] = max(above[r], lab.h + 16)
        elif how == "curve":
            below[r] = max(below[r], 50 + lab.h + 6)
        elif how == "neg":
            below[r] = max(below[r], 1.6 * SCALE + STATE_PX / 2 + lab.h + 10)
    ys_row: dict[int, float] = {}
    y = 0.0
    first = True
    for r in rows:
        if r < 0:
            continue
        y = (y + above[r]) if first else (y + row_pad + above[r])
        ys_row[r] = y
        y += below[r]
        first = False
    bus_rows = [r for r in rows if r < 0]
    if bus_rows:
        top = min((ys_row[r] - above[r] for r in ys_row), default=0.0)
        bus_labels = [lab for u, v, d, how, lab in edge_labels if how == "bus"]
        need = max((lab.h for lab in bus_labels), default=20.0) + 40
        for r in bus_rows:
            ys_row[r] = top - need - STATE_PX / 2

    # ---- positions
    pos: dict[str, tuple[float, float]] = {}
    for n in main:
        pos[n] = (xs_col[ci[col_of(n)]], ys_row.get(int(nodes[n].get("alternative", 0) or 0), 0.0))
    for n, d in nodes.items():
        if d.get("kind") == "negation":
            src = next((u for u, _v in g.in_edges(n)), None)
            x, yy = pos.get(src, (0.0, 0.0)) if src is not None else (0.0, 0.0)
            a = ci.get(col_of(src)) if src is not None else None
            gp = gaps[a] if a is not None and a < len(gaps) else gap_min
            pos[n] = (x + gp / 2, yy + 1.6 * SCALE)

    def radius(n: str) -> float:
        return _state_px(_display(nodes[n], n)) / 2

    # ---- geometry and label anchors
    paths: list[tuple[str, list[float], list[float], tuple[float, float], tuple[float, float]]] = []
    labs: list[_Label] = []
    u2p = (lambda xs, ys: ([x * SCALE for x in xs], [-y * SCALE for y in ys]))
    stubs: dict[str, int] = {}
    order_of = {"straight": 0, "curve": 1, "neg": 3, "bus": 4}
    for u, v, d, how, lab in sorted(edge_labels, key=lambda t: order_of[t[3]]):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        kind = d.get("kind", "take")
        if how == "curve":
            xs, ys = u2p(*_proceed_units(x0 / SCALE, -y0 / SCALE, x1 / SCALE, -y1 / SCALE))
            lab.anchor, lab.side = ((x0 + x1) / 2, max(ys) + 2), "below"
        elif how == "bus":
            k = stubs.get(u, 0)
            stubs[u] = k + 1
            sx = x0 + STUB_PX + 10 * k
            r0 = radius(u)
            # states above in the way (same column, another row): go up beside them
            block = [radius(n2) for n2, (bx, by) in pos.items()
                     if n2 not in (u, v) and y1 < by < y0 and abs(bx - sx) < radius(n2) + 6]
            if (u, True) in loop_labels:  # a take loop above the state: go up beside it
                block.append(32.0)
            if block:
                sx = x0 + max(block) + 12 + 10 * k
                ang = math.radians(-35)
                jx, jy = x0 + r0 * math.cos(ang), y0 + r0 * math.sin(ang)
                start = [(jx, jy), (sx, jy - (sx - jx) * 0.4)]
            else:
                start = [(sx, y0 - math.sqrt(max(r0 * r0 - (sx - x0) ** 2, 0.0)))]
            if abs(sx - x1) < 1:
                pts = start + [(sx, y1 + radius(v))]
            else:
                end_x = x1 - radius(v) if x1 > sx else x1 + radius(v)
                pts = start + [(sx, y1), (end_x, y1)]
            xs, ys = [p_[0] for p_ in pts], [p_[1] for p_ in pts]
            start_y = start[-1][1]
            lab.anchor, lab.side = (sx, (start_y + y1) / 2), "right"
        elif how == "neg":
            ang = math.atan2(y1 - y0, x1 - x0)
            xs = [x0 + radius(u) * math.cos(ang), x1 - radius(v) * math.cos(ang)]
            ys = [y0 + radius(u) * math.sin(ang), y1 - radius(v) * math.sin(ang)]
            lab.anchor, lab.side = (x1, y1 + radius(v) + 2), "below"
        else:
            ang = math.atan2(y1 - y0, x1 - x0)
            xs = [x0 + radius(u) * math.cos(ang), x1 - radius(v) * math.cos(ang)]
            ys = [y0 + radius(u) * math.sin(ang), y1 - radius(v) * math.sin(ang)]
            mx, my = (xs[0] + xs[1]) / 2, (ys[0] + ys[1]) / 2
            lab.anchor, lab.side = (mx, my - 3), "above"
            lab.anchors = [(xs[0] + t * (xs[1] - xs[0]), ys[0] + t * (ys[1] - ys[0]) - 3) for t in (0.35, 0.65, 0.25, 0.75)]
        lab.hover_at = ((xs[0] + xs[-1]) / 2, (ys[0] + ys[-1]) / 2) if how != "curve" else (
            (x0 + x1) / 2, max(ys) - 4)
        paths.append((kind, xs, ys, (xs[-2], ys[-2]), (xs[-1], ys[-1])))
        labs.append(lab)
    for (n, up), lab in loop_labels.items():
        x, yy = pos[n]
        for _u, _v, _k, d in loops[(n, up)]:
            xs, ys = u2p(*_loop_units(x / SCALE, -yy / SCALE, up))
            paths.append((d.get("kind", "take"), xs, ys, (xs[-4], ys[-4]), (xs[-1], ys[-1])))
        lab.anchor = (x, yy - LOOP_PX if up else yy + LOOP_PX)
        lab.side = "above" if up else "below"
        lab.hover_at = (x, yy - LOOP_PX + 6 if up else yy + LOOP_PX - 6)
        labs.append(lab)
    # forward labels first, then loops, ε curves, negation and reject routes
    prio = {"above": 0, "below": 1, "right": 2}
    labs.sort(key=lambda lb: (0 if lb.key.startswith("edge") and lb.side == "above" else
                              1 if lb.key.startswith("loop") else 2 + prio[lb.side]))
    obstacles = []
    for n, (x, yy) in pos.items():
        r = radius(n) + (6 if nodes[n].get("kind") == "final" else 0)
        obstacles.append((x - r, yy - r, x + r, yy + r))
        if nodes[n].get("start"):
            obstacles.append((x - 1.35 * SCALE - 44, yy - 9, x - 1.35 * SCALE, yy + 9))  # "start"
            if g.graph.get("alternatives", 1) > 1:
                obstacles.append((x - 1.35 * SCALE - 96, yy - 0.45 * SCALE - 9, x - 1.35 * SCALE, yy - 0.45 * SCALE + 9))
    shown = [lb for lb in labs if lb.lines]
    bad = _place(shown, obstacles)
    return _Plan(pos, labs, paths, bad, obstacles)


def layout(g: nx.MultiDiGraph, labels: str | None = None) -> dict[str, tuple[float, float]]:
    """State positions in data units (y up) as :func:`automaton_figure` draws them (the
    positions of its last drawing of ``g``; otherwise those of a drawing with short labels)."""
    if labels is None and "positions" in g.graph:
        return dict(g.graph["positions"])
    plan = _best_plan(g, labels or "short", 26)
    return {n: (x / SCALE, -y / SCALE) for n, (x, y) in plan.pos.items()}


MAX_WIDTH = 1000  # pixels: wider drawings get shorter labels (Streamlit would shrink them)
MANY_STATES = 20  # a drawing with more states shows the edges' names only (formulas on hover)


def _extent(plan: _Plan) -> tuple[float, float, float, float]:
    boxes = list(plan.extra) + [lab.box for lab in plan.labels if lab.box is not None]
    for _kind, pxs, pys, _a, _b in plan.paths:
        boxes.append((min(pxs), min(pys), max(pxs), max(pys)))
    return (min(b[0] for b in boxes) - 14, min(b[1] for b in boxes) - 10,
            max(b[2] for b in boxes) + 14, max(b[3] for b in boxes) + 10)


def _best_plan(g: nx.MultiDiGraph, labels: str, label_width: int) -> _Plan:
    """The first of: the labels asked for, narrower labels, the edges' names only, that fits
    in :data:`MAX_WIDTH` pixels with no label overlapping another label or a state (gaps and
    rows widen until every label has a free spot)."""
    tries = [(labels, label_width)]
    if labels == "short":
        tries = ([("none", label_width)] if g.number_of_nodes() > MANY_STATES else
                 [("short", label_width), ("short", max(14, label_width - 8)), ("none", label_width)])
    if labels != "full":
        tries.append(("names", label_width))  # the last resort: `take c` without the type
    plan: _Plan | None = None
    for mode, width in tries:
        terse = mode in ("none", "names")
        gap, pad = 130.0 if terse else 170.0, 16.0 if terse else 40.0
        plan = _plan(g, mode, width, gap, pad)
        for _ in range(4):
            if plan.overlaps == 0:
                break
            gap, pad = gap * 1.35, pad + 40
            plan = _plan(g, mode, width, gap, pad)
        x0, _y0, x1, _y1 = _extent(plan)
        g.graph["labels_drawn"] = mode if (mode, width) == tries[0] or terse else f"{mode} (narrower)"
        if plan.overlaps == 0 and x1 - x0 <= MAX_WIDTH:
            break
    assert plan is not None
    return plan
