"""Pattern -> React Flow canvas (nodes and edges as plain dicts).

The Design page draws a :class:`engine.model.Pattern` on a React Flow canvas
(streamlit-flow-component): every component is a node showing its DSL text (type,
quantifier, variable, negation), SEQ order is drawn as edges, and nested AND/OR/SEQ
groups are container nodes whose members are child nodes (React Flow ``parentId``).
The top-level group is the canvas itself. A component's node also lists its own predicates
(the WHERE conjuncts on that variable alone) and numbered references to the predicates it
shares with other components; :func:`pattern_header` and :func:`cross_predicates` give the
strategy / partition / window / output line and those shared predicates for the page to show
beside the canvas. A top-level SEQ of more than :data:`WRAP_AFTER` items wraps into rows of
:data:`ROW_ITEMS`, so that eight or more components stay readable at the zoom that fits.

Node ids name the model element, so that a canvas returned by the browser can be read
back (``app.edit.apply_canvas``): ``c:<var>`` for a component, ``g:<path>`` for a
group (``path`` = item indices from the root, e.g. ``g:0`` or ``g:1.2``). Nodes that
a person creates on the canvas get other ids and are read as new components.

The dicts have the shape of ``streamlit_flow.elements.StreamlitFlowNode.asdict()`` /
``StreamlitFlowEdge.asdict()``; this module does not import streamlit.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import re

from engine.dsl import item_text
from engine.expr import to_text as expr_text
from engine.expr import variables
from engine.model import Component, Group, Pattern
from visualizers import escape

NODE_W = 190
NODE_H = 58
GAP_X = 56
GAP_Y = 22
PAD = 18
HEADER = 34
PRED_LINE_H = 22      # height of one predicate line on a node (estimate for the layout)
WRAP_AFTER = 4        # a top-level SEQ longer than this wraps ...
ROW_ITEMS = 3         # ... into rows of this many items
ROW_GAP = 70          # vertical gap between wrapped rows
CANVAS_W = 620        # the canvas' width on the Design page (pixels, at a 1500-pixel window)
MIN_ZOOM = 0.6        # the canvas never zooms out further (13 px text stays >= 8 px)
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"

QUANT_WORDS = {
    "one": "one event",
    "plus": "one or more",
    "star": "zero or more",
    "opt": "optional",
}
GROUP_WORDS = {"SEQ": "in this order", "AND": "all, in any order", "OR": "one of"}

COLOURS = {
    "border": "#1f4e79",
    "kleene_bg": "#e3effa",
    "one_bg": "#ffffff",
    "neg_border": "#c0392b",
    "neg_bg": "#fdecea",
    "edge": "#1f4e79",
    "group_bg": {"SEQ": "rgba(31,78,121,0.05)", "AND": "rgba(46,139,87,0.07)", "OR": "rgba(211,84,0,0.07)"},
    "group_border": {"SEQ": "#1f4e79", "AND": "#2e8b57", "OR": "#d35400"},
}


def component_id(var: str) -> str:
    return f"c:{var}"


def group_id(path: tuple[int, ...]) -> str:
    return "g:" + ".".join(str(i) for i in path)


def item_id(item: Component | Group, path: tuple[int, ...]) -> str:
    return component_id(item.var) if isinstance(item, Component) else group_id(path)


def parse_group_id(node_id: str) -> tuple[int, ...] | None:
    if not node_id.startswith("g:"):
        return None
    try:
        return tuple(int(x) for x in node_id[2:].split("."))
    except ValueError:
        return None


def own_predicates(pattern: Pattern, var: str) -> list[str]:
    """The WHERE conjuncts that mention ``var`` and no other variable."""
    return [expr_text(e) for e in pattern.where if variables(e) == {var}]


def cross_predicates(pattern: Pattern) -> list[tuple[str, str, list[str]]]:
    """The conjuncts over two or more variables: ``(mark, text, variables)``, numbered ①, ②, …"""
    out = []
    for e in pattern.where:
        vs = variables(e)
        if len(vs) >= 2:
            k = len(out)
            mark = CIRCLED[k] if k < len(CIRCLED) else f"({k + 1})"
            order = [v for v in pattern.variables if v in vs]
            out.append((mark, expr_text(e), order))
    return out


def pattern_header(pattern: Pattern) -> str:
    """One markdown line for above the canvas: strategy, partition, window, output,
    aggregate, RETURN (every piece of pattern text escaped)."""
    from engine.dsl import to_text

    lines = to_text(pattern).splitlines()
    window = next((ln[len("WITHIN "):] for ln in lines if ln.startswith("WITHIN ")), None)
    parts = [f"**{pattern.strategy.value}**"]  # a name from the Strategy enum
    if pattern.equivalence:
        parts.append("partition " + escape.code("[" + ", ".join(pattern.equivalence) + "]"))
    parts.append(escape.code(f"WITHIN {window}") if window else "no window")
    parts.append(escape.code(f"OUTPUT {pattern.output}"))
    for key in ("AGG ", "GROUP BY ", "RETURN "):
        ln = next((x for x in lines if x.startswith(key)), None)
        if ln:
            parts.append(escape.code(ln))
    return " · ".join(parts)


# A component's DSL text as the grammar allows it: names of ASCII letters, digits and
# ``_``, a quantifier, ``[]`` and ``!``. Nothing in it is markup (a lone ``*``, ``[]`` with
# no link after it, ``!`` with no ``[``), so it is put on the node as it is and a person
# edits the same text on the canvas; anything else is escaped.
_PLAIN_COMPONENT = re.compile(r"!?[A-Za-z_][A-Za-z_0-9]*[+*?]?( [A-Za-z_][A-Za-z_0-9]*(\[\])?)?")


def node_first_line(text: str) -> str:
    """A node's first line (its component's DSL text) as canvas markdown."""
    return text if _PLAIN_COMPONENT.fullmatch(text) else escape.markdown(text)


def component_label(c: Component, own: list[str] | None = None, refs: list[str] | None = None) -> str:
    """Node content: the DSL text on the first line (what a person edits), then words, the
    component's own predicates and the marks of the predicates it shares with others.

    The canvas (streamlit-flow-component) renders node content as markdown with raw HTML
    allowed (react-markdown with rehype-raw, remark-gfm and remark-math), so any text from
    the pattern put here unescaped could inject HTML and script (a string literal holding a
    backtick would close a plain code span). Every piece therefore goes through
    ``visualizers.escape``: predicates as code spans whose fence no backtick in them can
    close, the first line checked against the component grammar (else escaped)."""
    words = "must not occur" if c.negated else QUANT_WORDS[c.quant]
    text = f"{node_first_line(item_text(c))}\n\n_{words}_"
    for p in own or []:
        text += "\n\n" + escape.code(p)
    if refs:
        text += "\n\n" + " ".join(escape.markdown(r) for r in refs)
    return text


def _node_h(extra_lines: int) -> float:
    return NODE_H + PRED_LINE_H * extra_lines


def group_label(g: Group) -> str:
    """A group node's content (canvas markdown, see :func:`component_label`)."""
    return f"**{escape.markdown(g.op)}** · {GROUP_WORDS[g.op]}"


# --------------------------------------------------------------------------- layout

@dataclass
class Box:
    w: float
    h: float


def _size(item: Component | Group, extra: dict[str, int] | None = None) -> Box:
    """The box of an item; ``extra`` gives each component's number of predicate lines."""
    extra = extra or {}
    if isinstance(item, Component):
        return Box(NODE_W, _node_h(extra.get(item.var, 0)))
    sizes = [_size(i, extra) for i in item.items]
    if item.op == "SEQ":
        w = 2 * PAD + sum(s.w for s in sizes) + GAP_X * (len(sizes) - 1)
        h = HEADER + max(s.h for s in sizes) + PAD
    else:
        w = 2 * PAD + max(s.w for s in sizes)
        h = HEADER + sum(s.h for s in sizes) + GAP_Y * (len(sizes) - 1) + PAD
    return Box(w, h)


def _positions(group: Group, origin: tuple[float, float], extra: dict[str, int] | None = None,
               wrap: bool = False) -> list[tuple[float, float]]:
    """Positions of a group's items relative to ``origin`` (horizontal for SEQ,
    vertical for AND/OR), centred on the cross axis; ``wrap``: a long SEQ in rows."""
    sizes = [_size(i, extra) for i in group.items]
    return place_items("row" if group.op == "SEQ" else "column", sizes, origin, wrap)


def place_items(direction: str, sizes: list[Any], origin: tuple[float, float],
                wrap: bool = False) -> list[tuple[float, float]]:
    """Positions of boxes (``.w``, ``.h``) from ``origin``: side by side (``row``; with ``wrap``,
    more than WRAP_AFTER of them in rows of ROW_ITEMS) or stacked (``column``), each centred on
    the cross axis. Both canvases (studio patterns, SQL row patterns) place their boxes with it."""
    out: list[tuple[float, float]] = []
    x0, y0 = origin
    if direction == "row":
        rows = [sizes[k:k + ROW_ITEMS] for k in range(0, len(sizes), ROW_ITEMS)] if (
            wrap and len(sizes) > WRAP_AFTER) else [sizes]
        y = y0
        for row in rows:
            hmax = max(s.h for s in row)
            x = x0
            for s in row:
                out.append((x, y + (hmax - s.h) / 2))
                x += s.w + GAP_X
            y += hmax + ROW_GAP
        return out
    wmax = max(s.w for s in sizes)
    y = y0
    for s in sizes:
        out.append((x0 + (wmax - s.w) / 2, y))
        y += s.h + GAP_Y
    return out


def _component_style(c: Component) -> dict[str, Any]:
    border = COLOURS["neg_border"] if c.negated else COLOURS["border"]
    bg = COLOURS["neg_bg"] if c.negated else (COLOURS["kleene_bg"] if c.kleene else COLOURS["one_bg"])
    line = "dashed" if (c.negated or c.optional) else "solid"
    return {"width": f"{NODE_W}px", "height": "auto", "minHeight": f"{NODE_H}px",
            "border": f"2px {line} {border}", "borderRadius": "10px", "background": bg,
            "fontSize": "13px", "padding": "4px 6px", "color": "#111"}


def _group_style(g: Group, box: Box) -> dict[str, Any]:
    return {"width": f"{box.w}px", "height": f"{box.h}px",
            "border": f"2px dashed {COLOURS['group_border'][g.op]}", "borderRadius": "14px",
            "background": COLOURS["group_bg"][g.op], "fontSize": "13px", "padding": "4px",
            "textAlign": "left", "color": COLOURS["group_border"][g.op]}


def flow_node(node_id: str, pos: tuple[float, float], content: str, style: dict[str, Any],
          parent: str | None, data: dict[str, Any], z: int = 0, deletable: bool = True) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": node_id,
        "position": {"x": float(pos[0]), "y": float(pos[1])},
        "data": {"content": content, **data},
        "type": "default",
        "sourcePosition": "right",
        "targetPosition": "left",
        "hidden": False,
        "selected": False,
        "dragging": False,
        "draggable": True,
        "selectable": True,
        "connectable": True,
        "resizing": False,
        "deletable": deletable,
        "zIndex": z,
        "focusable": True,
        "style": style,
    }
    if parent is not None:
        d["parentId"] = parent
        d["extent"] = "parent"
    return d


def flow_edge(src: str, dst: str, deletable: bool = True) -> dict[str, Any]:
    """A React Flow edge in the canvas's style (the SQL canvas draws undeletable ones)."""
    return {
        "id": f"e:{src}->{dst}",
        "source": src,
        "target": dst,
        "type": "smoothstep",
        "markerStart": {},
        "markerEnd": {"type": "arrowclosed", "color": COLOURS["edge"]},
        "hidden": False,
        "animated": False,
        "selected": False,
        "deletable": deletable,
        "focusable": True,
        "zIndex": 1,
        "label": "",
        "labelStyle": {},
        "labelShowBg": False,
        "labelBgStyle": {},
        "style": {"stroke": COLOURS["edge"], "strokeWidth": 2},
    }


def pattern_to_canvas(pattern: Pattern) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Nodes (parents before children, as React Flow requires) and SEQ-order edges."""
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    own = {v: own_predicates(pattern, v) for v in pattern.variables}
    refs: dict[str, list[str]] = {}
    for mark, _text, vs in cross_predicates(pattern):
        for v in vs:
            refs.setdefault(v, []).append(mark)
    extra = {v: len(own[v]) + (1 if refs.get(v) else 0) for v in pattern.variables}

    def place(group: Group, path: tuple[int, ...], parent: str | None, origin: tuple[float, float],
              depth: int) -> None:
        ids: list[str] = []
        for k, (item, pos) in enumerate(zip(group.items, _positions(group, origin, extra, wrap=not path))):
            p = path + (k,)
            nid = item_id(item, p)
            ids.append(nid)
            if isinstance(item, Component):
                nodes.append(flow_node(nid, pos, component_label(item, own.get(item.var), refs.get(item.var)),
                                   _component_style(item), parent,
                                   {"var": item.var, "text": item_text(item), "h": _node_h(extra.get(item.var, 0))},
                                   z=depth * 10 + 5))
            else:
                box = _size(item, extra)
                nodes.append(flow_node(nid, pos, group_label(item), _group_style(item, box), parent,
                                   {"group": item.op, "text": item_text(item)}, z=depth * 10,
                                   deletable=False))
                place(item, p, nid, (PAD, HEADER), depth + 1)
        if group.op == "SEQ":
            for a, b in zip(ids, ids[1:]):
                edges.append(flow_edge(a, b))

    place(pattern.root, (), None, (0.0, 0.0), 0)
    return nodes, edges


def iter_items(group: Group, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Component | Group]]:
    """Every item under ``group`` with its path, pre-order."""
    for k, item in enumerate(group.items):
        p = path + (k,)
        yield p, item
        if isinstance(item, Group):
            yield from iter_items(item, p)


def item_at(root: Group, path: tuple[int, ...]) -> Component | Group:
    cur: Component | Group = root
    for k in path:
        assert isinstance(cur, Group)
        cur = cur.items[k]
    return cur


def canvas_extent(nodes: list[dict[str, Any]]) -> tuple[float, float]:
    """Width and height of the drawn pattern (top-level nodes; pixels at zoom 1)."""
    top = [n for n in nodes if "parentId" not in n]
    if not top:
        return 0.0, 0.0
    w = max(n["position"]["x"] + _px_size(n, "width", NODE_W) for n in top) - min(n["position"]["x"] for n in top)
    h = max(n["position"]["y"] + _px_size(n, "height", NODE_H, n.get("data", {}).get("h"))
            for n in top) - min(n["position"]["y"] for n in top)
    return w, h


def _px_size(n: dict[str, Any], key: str, default: float, hint: Any = None) -> float:
    v = (n.get("style") or {}).get(key)
    try:
        return float(str(v).replace("px", ""))
    except (TypeError, ValueError):
        return float(hint) if hint is not None else default


def canvas_height(nodes: list[dict[str, Any]], width: float = CANVAS_W, lo: int = 360, hi: int = 820) -> int:
    """A canvas height (pixels) at which the pattern fits at a readable zoom."""
    w, h = canvas_extent(nodes)
    zoom = min(1.0, max(MIN_ZOOM, (width - 40) / max(w, 1.0)))
    return int(min(hi, max(lo, h * zoom + 90)))


def canvas_summary(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    """What the canvas shows, for tests and captions: node texts and edge pairs."""
    return {
        "nodes": [n.get("data", {}).get("text") or n.get("data", {}).get("content", "") for n in nodes],
        "edges": [(e["source"], e["target"]) for e in edges],
    }


# --------------------------------------------------------------------------- frame (zoom and controls)

FRAME_ID = "frame"
CONTROLS_BAND = 90    # room on the frame's left for the canvas's zoom controls (flow pixels)
FRAME_MARGIN = 16     # room around the pattern on the other sides
FIT_PADDING = 1.1     # React Flow's fitView padding (0.1)
MAX_ZOOM = 0.9        # a small pattern is not blown up


def frame_zoom(nodes: list[dict[str, Any]], width: float = CANVAS_W) -> float:
    """The zoom at which the framed pattern fits ``width`` pixels (within MIN_ZOOM .. MAX_ZOOM)."""
    w, _h = canvas_extent(nodes)
    return min(MAX_ZOOM, max(MIN_ZOOM, width / (FIT_PADDING * (w + CONTROLS_BAND + FRAME_MARGIN))))


def framed_height(nodes: list[dict[str, Any]], width: float = CANVAS_W, lo: int = 300, hi: int = 820) -> int:
    """The canvas height (pixels) for the framed pattern at :func:`frame_zoom`."""
    _w, h = canvas_extent(nodes)
    return int(min(hi, max(lo, FIT_PADDING * (h + 2 * FRAME_MARGIN) * frame_zoom(nodes, width))))


def frame_node(nodes: list[dict[str, Any]], width: float = CANVAS_W, height: float | None = None) -> dict[str, Any]:
    """An invisible node around the pattern that the canvas fits on every redraw, so that

    * the zoom depends on the pattern only (the frame is sized for :func:`frame_zoom` at a
      ``width`` x ``height`` canvas): the same pattern is always shown at the same zoom;
    * a band on its left, under the canvas's zoom controls (bottom left), holds no node.

    It takes no clicks (``pointerEvents: none``) and is drawn first, behind everything; values
    coming back from the browser carry it and the page drops it before reading them."""
    top = [n for n in nodes if "parentId" not in n]
    w, h = canvas_extent(nodes)
    x0 = min((n["position"]["x"] for n in top), default=0.0)
    y0 = min((n["position"]["y"] for n in top), default=0.0)
    zoom = frame_zoom(nodes, width)
    height = float(height if height is not None else framed_height(nodes, width))
    fw = max(w + CONTROLS_BAND + FRAME_MARGIN, width / (FIT_PADDING * zoom))
    fh = max(h + 2 * FRAME_MARGIN, height / (FIT_PADDING * zoom))
    extra = fw - (w + CONTROLS_BAND + FRAME_MARGIN)
    left = x0 - CONTROLS_BAND - extra / 2
    top_y = y0 - (fh - h) / 2
    style = {"width": f"{fw:.1f}px", "height": f"{fh:.1f}px", "opacity": 0, "pointerEvents": "none",
             "padding": 0, "border": "none", "background": "transparent", "boxShadow": "none"}
    # its id names its size: a new size is a new node, which the canvas measures before it fits the
    # view (a node keeping its id keeps its old measured size until the browser measures it again)
    d = flow_node(f"{FRAME_ID}:{fw:.0f}x{fh:.0f}", (round(left, 1), round(top_y, 1)), "", style, None,
                  {"frame": True}, z=-1, deletable=False)
    d.update({"draggable": False, "selectable": False, "connectable": False, "focusable": False})
    return d


def without_frame(nodes: list[Any]) -> list[Any]:
    """Nodes as the browser sent them, without the frame (dicts or objects with ``id``)."""
    return [n for n in nodes if not is_frame(n.get("id") if isinstance(n, dict) else getattr(n, "id", None))]


def is_frame(node_id: Any) -> bool:
    return str(node_id).partition(":")[0] == FRAME_ID
