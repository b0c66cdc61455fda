"""MATCH_RECOGNIZE row pattern -> React Flow canvas (nodes and edges as plain dicts).

The Design page draws the PATTERN of a SQL query on the same canvas component as the studio's
own patterns (streamlit-flow-component, see :mod:`visualizers.canvas`):

* a **term** node for each variable occurrence (its label is the variable with its quantifier as
  written in SQL, e.g. ``B+?``; below it the quantifier in words and the variable's DEFINE), for
  each anchor (``^`` partition start, ``$`` partition end) and for the empty pattern ``()``;
* a **box** (a container node, React Flow ``parentId``) for every other part: a parenthesised
  sequence, an alternation ``|`` (its options top to bottom, the preferred one first), a
  ``PERMUTE`` (its items top to bottom), an exclusion ``{- -}`` and a quantified group
  ``( ... )+``; a quantified alternation or PERMUTE is one box whose header names both;
* concatenation as edges between neighbours, left to right (a long top-level sequence wraps).

A node's ``data`` holds ``term`` (the label as SQL), ``var``, ``define`` and ``path`` besides its
``content`` (not ``label``: streamlit-flow moves a ``label`` into ``content``).

Node ids name the place in the pattern tree, so that a canvas returned by the browser reads back
(``app.sql_edit.apply_canvas``): ``t:r.0.2`` for the term at path ``(0, 2)`` and ``g:r.1`` for the
box at ``(1,)``, where a path holds child indices from the root (the body of a quantifier or an
exclusion is child 0). Nodes a person creates get other ids and are read as new terms.

The component renders node content as markdown with raw HTML, so every string from the query
(variable names, quoted ones included, and DEFINE text) goes through :mod:`visualizers.escape`.
This module does not import streamlit.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Node, Permute, Quantified, Var, render
from visualizers import escape
from visualizers.canvas import (COLOURS, GAP_X, GAP_Y, MIN_ZOOM, PAD, canvas_height,
                                flow_edge, flow_node, place_items)

__all__ = ["query_to_canvas", "pattern_to_canvas", "term_id", "box_id", "parse_id", "is_term", "members", "box_symbol",
           "node_at", "quantifier_words", "term_content", "NO_DEFINE", "MIN_ZOOM", "canvas_height"]

NODE_W = 170
NODE_H = 74            # the label and the words as the component renders them (a DEFINE adds lines)
LINE_H = 26           # one line of DEFINE text on a node (layout estimate)
CHARS_PER_LINE = 24   # characters of DEFINE text per line at the node's width (estimate)
MAX_DEFINE_LINES = 4
HEADER = 50            # a box's header: its symbol and words, on up to two lines
NO_DEFINE = "_no DEFINE (any row)_"

BOX_COLOURS = {
    "sequence": ("#1f4e79", "rgba(31,78,121,0.05)"),
    "alternation": ("#d35400", "rgba(211,84,0,0.07)"),
    "permute": ("#2e8b57", "rgba(46,139,87,0.07)"),
    "exclusion": ("#7f8c8d", "rgba(127,140,141,0.10)"),
}
ANCHOR_WORDS = {"^": "partition start", "$": "partition end"}

Path = tuple[int, ...]


# --------------------------------------------------------------------------- ids and tree walking

def _path_text(path: Path) -> str:
    return ".".join(["r", *(str(k) for k in path)])


def term_id(path: Path) -> str:
    return "t:" + _path_text(path)


def box_id(path: Path) -> str:
    return "g:" + _path_text(path)


def parse_id(node_id: str) -> tuple[str, Path] | None:
    """``("t" | "g", path)`` for an id this module made, else None."""
    kind, _, rest = str(node_id).partition(":")
    parts = rest.split(".")
    if kind not in ("t", "g") or not parts or parts[0] != "r":
        return None
    if not all(p.isdigit() for p in parts[1:]):
        return None
    return kind, tuple(int(p) for p in parts[1:])


def is_term(node: Node) -> bool:
    """Drawn as one node (not a box): a variable, quantified or not, an anchor, the empty pattern."""
    return isinstance(node, (Var, Anchor, Empty)) or (isinstance(node, Quantified) and isinstance(node.body, Var))


def children(node: Node) -> tuple[Node, ...]:
    """The node's children in path order (a quantifier's or an exclusion's body is child 0)."""
    if isinstance(node, Concat):
        return node.parts
    if isinstance(node, Alt):
        return node.options
    if isinstance(node, Permute):
        return node.items
    if isinstance(node, (Quantified, Exclusion)):
        return (node.body,)
    return ()


def node_at(root: Node, path: Path) -> Node:
    cur = root
    for k in path:
        cur = children(cur)[k]
    return cur


def members(node: Node, path: Path) -> tuple[str, list[tuple[Node, Path]]]:
    """A box's direction (``row`` for a sequence, ``column`` for options) and its members with
    their paths. A quantifier or exclusion around a sequence, an alternation or a PERMUTE shows
    that body's members in the same box."""
    if isinstance(node, (Quantified, Exclusion)):
        body = node.body
        if isinstance(body, (Concat, Alt, Permute)):
            return members(body, path + (0,))
        return "row", [(body, path + (0,))]
    direction = "row" if isinstance(node, Concat) else "column"
    return direction, [(child, path + (k,)) for k, child in enumerate(children(node))]


def container_of(node: Node, path: Path) -> Path:
    """The path of the node whose children a box shows (the box's own path, or its body's)."""
    if isinstance(node, (Quantified, Exclusion)) and isinstance(node.body, (Concat, Alt, Permute)):
        return container_of(node.body, path + (0,))
    return path


# --------------------------------------------------------------------------- words and content

def quantifier_words(q: Quantified) -> str:
    """``one or more``, ``2 to 3, fewest first`` ..."""
    lo, hi = q.min, q.max
    if (lo, hi) == (0, None):
        words = "zero or more"
    elif (lo, hi) == (1, None):
        words = "one or more"
    elif (lo, hi) == (0, 1):
        words = "optional"
    elif hi is None:
        words = f"{lo} or more"
    elif lo == hi:
        words = f"exactly {lo}"
    elif lo == 0:
        words = f"up to {hi}"
    else:
        words = f"{lo} to {hi}"
    if not q.greedy:
        words += ", fewest first (reluctant)"
    return words


def _term_words(node: Node) -> str:
    if isinstance(node, Anchor):
        return ANCHOR_WORDS[node.kind]
    if isinstance(node, Empty):
        return "the empty pattern"
    if isinstance(node, Quantified):
        return quantifier_words(node)
    return "one row"


# a label as the row-pattern grammar writes a plain variable with its quantifier: nothing in it is
# markdown (a trailing * or + with no partner, braces, digits), so it is shown as it is and a person
# edits the same text; anything else (a quoted name, an anchor) is escaped
_PLAIN_LABEL = re.compile(r"[A-Z_][A-Z_0-9]*(?:[*+?]|\{[0-9]*(?:,[0-9]*)?\})?\??")


def label_markdown(label: str) -> str:
    return label if _PLAIN_LABEL.fullmatch(label) else escape.markdown(label)


def term_content(label: str, words: str, define: str | None, is_variable: bool = True) -> str:
    """A term node's markdown: the label (what a person edits), the words, the DEFINE as code."""
    text = f"{label_markdown(label)}\n\n_{escape.markdown(words)}_"
    if is_variable:
        text += "\n\n" + (escape.code(define) if define is not None else NO_DEFINE)
    return text


def _box_title(node: Node) -> tuple[str, str, str]:
    """(kind for the colours, header symbol, words) of a box."""
    if isinstance(node, Quantified):
        kind, symbol, words = _box_title(node.body) if isinstance(node.body, (Alt, Permute, Exclusion)) else (
            "sequence", "( … )", "in order")
        if isinstance(node.body, (Var, Empty, Quantified, Anchor)):
            words = "group"
        return kind, symbol + render(Quantified(Empty(), node.min, node.max, node.greedy))[2:], \
            f"{words}, {quantifier_words(node)}"
    if isinstance(node, Alt):
        return "alternation", "( | )", "one of, left first"
    if isinstance(node, Permute):
        return "permute", "PERMUTE", "any order"
    if isinstance(node, Exclusion):
        return "exclusion", "{- … -}", "not in ALL ROWS output"
    return "sequence", "( … )", "in order"


def box_symbol(node: Node) -> str:
    """A box's header symbol: ``( | )+?``, ``PERMUTE``, ``{- … -}``, ``( … ){2}`` ..."""
    return _box_title(node)[1]


def box_content(node: Node) -> str:
    _kind, symbol, words = _box_title(node)
    return f"**{escape.markdown(symbol)}** · {escape.markdown(words)}"


# --------------------------------------------------------------------------- layout

@dataclass
class Size:
    w: float
    h: float


def _define_lines(define: str | None) -> int:
    if define is None:
        return 1
    return min(MAX_DEFINE_LINES, max(1, math.ceil(len(define.strip()) / CHARS_PER_LINE)))


def _size(node: Node, defines: dict[str, str]) -> Size:
    if is_term(node):
        var = _variable(node)
        extra = _define_lines(defines.get(var)) if var is not None else 0
        return Size(NODE_W, NODE_H + LINE_H * extra)
    direction, items = members(node, ())
    sizes = [_size(child, defines) for child, _ in items]
    if direction == "row":
        return Size(2 * PAD + sum(s.w for s in sizes) + GAP_X * (len(sizes) - 1),
                    HEADER + max(s.h for s in sizes) + PAD)
    return Size(2 * PAD + max(s.w for s in sizes), HEADER + sum(s.h for s in sizes) + GAP_Y * (len(sizes) - 1) + PAD)


def _variable(node: Node) -> str | None:
    if isinstance(node, Var):
        return node.name
    if isinstance(node, Quantified) and isinstance(node.body, Var):
        return node.body.name
    return None


# --------------------------------------------------------------------------- nodes and edges

def _term_style(node: Node) -> dict[str, Any]:
    anchor = isinstance(node, (Anchor, Empty))
    kleene = isinstance(node, Quantified) and (node.max is None or node.max > 1)
    optional = isinstance(node, Quantified) and node.min == 0
    background = "#f4f4f4" if anchor else (COLOURS["kleene_bg"] if kleene else COLOURS["one_bg"])
    return {"width": f"{NODE_W}px", "height": "auto", "minHeight": f"{NODE_H}px",
            "border": f"2px {'dashed' if optional or anchor else 'solid'} {COLOURS['border']}",
            "borderRadius": "10px", "background": background, "fontSize": "13px", "padding": "4px 6px",
            "color": "#111"}


def _box_style(node: Node, size: Size) -> dict[str, Any]:
    kind = _box_title(node)[0]
    border, background = BOX_COLOURS[kind]
    return {"width": f"{size.w}px", "height": f"{size.h}px", "border": f"2px dashed {border}",
            "borderRadius": "14px", "background": background, "fontSize": "13px", "padding": "4px",
            "textAlign": "left", "color": border}


def pattern_to_canvas(pattern: Node, defines: dict[str, str] | None = None
                      ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Nodes (parents before children, as React Flow requires) and the concatenation edges.
    ``defines`` maps a variable to its DEFINE text (a variable without one qualifies on every row)."""
    defines = defines or {}
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []

    def term(node: Node, path: Path, pos: tuple[float, float], parent: str | None, depth: int) -> str:
        nid = term_id(path)
        var = _variable(node)
        label = render(node)
        define = defines.get(var) if var is not None else None
        content = term_content(label, _term_words(node), define, var is not None)
        nodes.append(flow_node(nid, pos, content, _term_style(node), parent,
                           {"term": label, "var": var, "define": define, "path": _path_text(path),
                            "h": _size(node, defines).h}, z=depth * 10 + 5, deletable=True))
        return nid

    def place(items: list[tuple[Node, Path]], direction: str, origin: tuple[float, float], parent: str | None,
              depth: int, wrap: bool) -> None:
        sizes = [_size(child, defines) for child, _ in items]
        ids = []
        for (child, path), pos in zip(items, place_items(direction, sizes, origin, wrap)):
            if is_term(child):
                ids.append(term(child, path, pos, parent, depth))
            else:
                ids.append(box(child, path, pos, parent, depth))
        if direction == "row":
            edges.extend(flow_edge(a, b, deletable=False) for a, b in zip(ids, ids[1:]))

    def box(node: Node, path: Path, pos: tuple[float, float], parent: str | None, depth: int) -> str:
        nid = box_id(path)
        size = _size(node, defines)
        nodes.append(flow_node(nid, pos, box_content(node), _box_style(node, size), parent,
                           {"term": render(node), "box": _box_title(node)[0], "path": _path_text(path)},
                           z=depth * 10, deletable=False))
        direction, items = members(node, path)
        place(items, direction, (PAD, HEADER), nid, depth + 1, wrap=False)
        return nid

    if isinstance(pattern, Concat) and pattern.parts:
        place([(p, (k,)) for k, p in enumerate(pattern.parts)], "row", (0.0, 0.0), None, 0, wrap=True)
    elif isinstance(pattern, Concat):
        term(Empty(), (), (0.0, 0.0), None, 0)
    elif is_term(pattern):
        term(pattern, (), (0.0, 0.0), None, 0)
    else:
        box(pattern, (), (0.0, 0.0), None, 0)
    return nodes, edges


def query_to_canvas(query: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A parsed query's row pattern, each variable with its DEFINE text."""
    defines = {name: expression.text.strip() for name, expression in query.defines.items()}
    return pattern_to_canvas(query.pattern, defines)
