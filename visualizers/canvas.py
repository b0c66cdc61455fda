"""Pattern -> React Flow canvas (nodes and edges as plain dicts).

The Design page draws a :class:`engine.model.Pattern` on a React Flow canvas
(streamlit-flow-component): every component is a node showing its DSL text (type,
quantifier, variable, negation), SEQ order is drawn as edges, and nested AND/OR/SEQ
groups are container nodes whose members are child nodes (React Flow ``parentId``).
The top-level group is the canvas itself.

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

from engine.dsl import item_text
from engine.model import Component, Group, Pattern

NODE_W = 160
NODE_H = 58
GAP_X = 60
GAP_Y = 22
PAD = 18
HEADER = 34

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


def component_label(c: Component) -> str:
    """Node content: the DSL text on the first line (what a person edits), then words."""
    words = "must not occur" if c.negated else QUANT_WORDS[c.quant]
    return f"{item_text(c)}\n\n_{words}_"


def group_label(g: Group) -> str:
    return f"**{g.op}** · {GROUP_WORDS[g.op]}"


# --------------------------------------------------------------------------- layout

@dataclass
class Box:
    w: float
    h: float


def _size(item: Component | Group) -> Box:
    if isinstance(item, Component):
        return Box(NODE_W, NODE_H)
    sizes = [_size(i) for i in item.items]
    if item.op == "SEQ":
        w = 2 * PAD + sum(s.w for s in sizes) + GAP_X * (len(sizes) - 1)
        h = HEADER + max(s.h for s in sizes) + PAD
    else:
        w = 2 * PAD + max(s.w for s in sizes)
        h = HEADER + sum(s.h for s in sizes) + GAP_Y * (len(sizes) - 1) + PAD
    return Box(w, h)


def _positions(group: Group, origin: tuple[float, float]) -> list[tuple[float, float]]:
    """Positions of a group's items relative to ``origin`` (horizontal for SEQ,
    vertical for AND/OR), centred on the cross axis."""
    sizes = [_size(i) for i in group.items]
    out: list[tuple[float, float]] = []
    x0, y0 = origin
    if group.op == "SEQ":
        hmax = max(s.h for s in sizes)
        x = x0
        for s in sizes:
            out.append((x, y0 + (hmax - s.h) / 2))
            x += s.w + GAP_X
    else:
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


def _node(node_id: str, pos: tuple[float, float], content: str, style: dict[str, Any],
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


def _edge(src: str, dst: str) -> dict[str, Any]:
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
        "deletable": True,
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

    def place(group: Group, path: tuple[int, ...], parent: str | None, origin: tuple[float, float],
              depth: int) -> None:
        ids: list[str] = []
        for k, (item, pos) in enumerate(zip(group.items, _positions(group, origin))):
            p = path + (k,)
            nid = item_id(item, p)
            ids.append(nid)
            if isinstance(item, Component):
                nodes.append(_node(nid, pos, component_label(item), _component_style(item), parent,
                                   {"var": item.var, "text": item_text(item)}, z=depth * 10 + 5))
            else:
                box = _size(item)
                nodes.append(_node(nid, pos, group_label(item), _group_style(item, box), parent,
                                   {"group": item.op, "text": item_text(item)}, z=depth * 10,
                                   deletable=False))
                place(item, p, nid, (PAD, HEADER), depth + 1)
        if group.op == "SEQ":
            for a, b in zip(ids, ids[1:]):
                edges.append(_edge(a, b))

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


def canvas_summary(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    """What the canvas shows, for tests and captions: node texts and edge pairs."""
    return {
        "nodes": [n.get("data", {}).get("text") or n.get("data", {}).get("content", "") for n in nodes],
        "edges": [(e["source"], e["target"]) for e in edges],
    }
