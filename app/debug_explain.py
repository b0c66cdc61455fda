"""The Debug page's explanations as linked trees: "why fired" and "why not" drawn as
event → move → predicates with their values (``engine.explain.tree``); a click on a
predicate, a move or an event focuses it, and the focus is drawn in the pattern text
(:func:`pattern_panel`), on the automaton and on the timeline (:func:`figure_focus`).

The focus lives in ``st.session_state["dbg_focus"]``: ``{"predicate": text}``,
``{"edge": {"state", "to", "edge"}, "predicates": [texts]}`` (a move and the conjuncts it
checked) or ``{"event": id}`` (absent: nothing focused).

How app/debug.py calls these (each replaces the ``st.code(text, ...)`` of an answer):

* in ``explanation(t, m, path)``, after ``_res, text = t.explained[key]``::

      debug_explain.why_fired(_res, text, t.seq_of, key=f"dbg_fired_{idx}")

* in ``why_not(t)``, after ``spec, res, text = got`` (e.g. in the right column, or instead
  of the "Full answer" expander's ``st.code``)::

      debug_explain.why_not(res, text, t.seq_of, key="dbg_whynot_tree")

* the pattern with the focus marked (next to either), and the figures' focus::

      debug_explain.pattern_panel(state.text())
      auto_focus, event_focus = debug_explain.figure_focus()
      TV.live_automaton_figure(t.graph, step, path, focus=auto_focus)
      TV.cursor_timeline_figure(t.steps, k, m, live_ids, focus_event=event_focus)

``t.seq_of`` (event id → its 0-based position in the stream) names each event as every view
does (``engine.trace.event_label``: ``event #812 (id 4711)``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import streamlit as st

from engine.explain.text import _num
from engine.explain.tree import Node, explanation_tree
from visualizers import escape
from visualizers.pattern_text import highlighted_html

FOCUS_KEY = "dbg_focus"
TREE_HEIGHT = 420          # px: the tree scrolls inside this
PATTERN_CSS = ("<style>pre.cep-pattern{white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;"
               "font-size:0.85rem;padding:0.6rem;border-radius:0.4rem;background:#f6f8fa;margin:0}"
               "pre.cep-pattern mark{background:#e8daef;color:inherit;outline:2px solid #8e44ad;"
               "border-radius:2px}</style>")


# --------------------------------------------------------------------------- what is drawn (no streamlit)

@dataclass
class Row:
    """One line of a drawn tree: its depth under its group, markdown text, and what a click
    on it focuses (``None``: not clickable)."""

    depth: int
    text: str
    focus: dict[str, Any] | None
    key: str
    failed: bool = False


def node_focus(node: Node) -> dict[str, Any] | None:
    """What clicking ``node`` focuses: a predicate its conjunct, a move its edge, an event its id."""
    if node.kind == "predicate" and node.conjunct:
        return {"predicate": node.conjunct}
    if node.kind == "edge" and node.state:
        out: dict[str, Any] = {"edge": {"state": node.state, "to": node.to, "edge": node.edge}}
        checked = [c.conjunct for c in node.children if c.kind == "predicate" and c.conjunct]
        if checked:  # the move's predicates, marked in the pattern text with it
            out["predicates"] = checked
        return out
    if node.kind == "event" and node.event is not None:
        return {"event": node.event}
    return None


def node_markdown(node: Node) -> str:
    """The node's text for markdown, escaped, in full (values never cut)."""
    if node.kind == "predicate":
        mark = ":green[✓]" if node.result else ":red[✗]"
        vals = ", ".join(f"{escape.markdown(k)} = {escape.markdown(_num(v))}" for k, v in node.values.items())
        tag = " *(equivalence)*" if node.equivalence else ""
        return f"{mark} {escape.code(node.conjunct)}{tag}" + (f" · {vals}" if vals else "")
    if node.kind == "edge":
        return f":material/arrow_right_alt: {escape.markdown(node.label)}"
    if node.kind == "event":
        return f"**{escape.markdown(node.label)}**"
    return escape.message(node.label)  # the engine's text: names in backticks shown as code


def _failed(node: Node) -> bool:
    return any(n.kind == "predicate" and n.result is False for n in node.walk())


MAX_GROUPS = 60            # groups drawn: the first and last halves, the middle counted
ROWS_PER_GROUP = 40        # rows drawn in one group, the rest counted


def _skipped_only(node: Node) -> bool:
    """An event the run only skipped (each of its moves an ignore)."""
    return node.kind == "event" and bool(node.children) and all(
        c.kind == "edge" and c.edge == "ignore" for c in node.children)


def _rows_of(node: Node, key: str, depth: int, rows: list[Row]) -> None:
    rows.append(Row(depth, node_markdown(node), node_focus(node), f"{key}_{node.key}",
                    node.kind == "predicate" and node.result is False))
    for c in node.children:
        _rows_of(c, key, depth + 1, rows)


def tree_groups(root: Node, key: str) -> list[tuple[str, bool, list[Row]]]:
    """The tree as groups (one per child of the root; a run of events the run only skipped
    is one group): ``(title, open, rows)``. A group is open when it holds a failing
    predicate or it is the last event of the run. At most ``MAX_GROUPS`` groups and
    ``ROWS_PER_GROUP`` rows in each are drawn; what is left out is counted in a row (the
    text form below the tree has every line)."""
    runs: list[list[Node]] = []
    for child in root.children:
        if runs and _skipped_only(child) and all(_skipped_only(n) for n in runs[-1]):
            runs[-1].append(child)
        else:
            runs.append([child])
    last_event = max((i for i, r in enumerate(runs) if r[0].kind == "event"), default=-1)
    out: list[tuple[str, bool, list[Row]]] = []
    for i, nodes in enumerate(runs):
        rows: list[Row] = []
        for n in nodes:
            _rows_of(n, key, 0, rows)
        if len(rows) > ROWS_PER_GROUP:
            more = len(rows) - ROWS_PER_GROUP
            rows = rows[:ROWS_PER_GROUP] + [Row(0, f"… and {more:,} more line{'s' if more != 1 else ''} "
                                                   "(every one in the text form below)", None,
                                                f"{key}_{nodes[0].key}_more")]
        if len(nodes) == 1:
            title = nodes[0].label
        else:
            title = f"{nodes[0].label} … {nodes[-1].label}: {len(nodes):,} events skipped"
        out.append((title, any(_failed(n) for n in nodes) or i == last_event, rows))
    if len(out) > MAX_GROUPS:
        head, tail = out[:MAX_GROUPS // 2], out[-(MAX_GROUPS // 2):]
        more = len(out) - len(head) - len(tail)
        note = Row(0, f"… {more:,} more group{'s' if more != 1 else ''} of the explanation (every line is in "
                      "the text form below)", None, f"{key}_groups_more")
        out = head + [(note.text, False, [note])] + tail
    return out


def focused() -> dict[str, Any] | None:
    """The focus in session state (None: nothing focused)."""
    got = st.session_state.get(FOCUS_KEY)
    return got if isinstance(got, dict) and got else None


def figure_focus() -> tuple[dict[str, Any] | None, Any]:
    """``(focus for live_automaton_figure, event id for cursor_timeline_figure)`` from the
    session's focus."""
    f = focused()
    if f is None:
        return None, None
    if "event" in f:
        return None, f["event"]
    return f, None


def _set_focus(value: dict[str, Any] | None) -> None:
    if value is None or st.session_state.get(FOCUS_KEY) == value:
        st.session_state.pop(FOCUS_KEY, None)  # a second click on the focused node clears it
    else:
        st.session_state[FOCUS_KEY] = value


# --------------------------------------------------------------------------- drawing

def _rows(rows: list[Row]) -> None:
    now = focused()
    for r in rows:
        indent = "\u2003" * r.depth
        if r.focus is None:
            st.markdown(indent + r.text)
            continue
        c1, c2 = st.columns([14, 1], vertical_alignment="center", gap="small")
        c1.markdown(indent + r.text)
        on = now == r.focus
        c2.button("", key=r.key, icon=":material/my_location:", type="primary" if on else "tertiary",
                  on_click=_set_focus, args=(r.focus,),
                  help=("clear the highlight" if on else
                        {"predicate": "highlight in the pattern and on its automaton edges",
                         "edge": "highlight this move on the automaton",
                         "event": "highlight this event's lane on the timeline"}[next(iter(r.focus))]))


def _head_button(row: Row) -> None:
    on = focused() == row.focus
    what = next(iter(row.focus or {"": None}))
    label = {"event": "this event on the timeline", "edge": "this move on the automaton",
             "predicate": "this predicate"}.get(what, "this")
    st.button(("Clear the highlight of " if on else "Highlight ") + label, key=row.key,
              icon=":material/my_location:", type="primary" if on else "tertiary", on_click=_set_focus,
              args=(row.focus,))


def _tree(result: dict[str, Any], step_of: Mapping[Any, int] | None, key: str, height: int) -> None:
    root = explanation_tree(result, step_of)
    st.markdown(f"**{escape.markdown(root.label)}**")
    with st.container(height=height, border=True, key=f"{key}_box"):
        for n, (title, opened, rows) in enumerate(tree_groups(root, key)):
            head, body = rows[0], rows[1:]
            if not body:
                _rows([head])
                continue
            with st.expander(escape.message(title), expanded=opened, key=f"{key}_group_{n}"):
                if sum(1 for r in rows if r.depth == 0) > 1:  # a run of skipped events: each row as it is
                    _rows(rows)
                    continue
                if head.focus is not None:  # the title says what it is: only its highlight button here
                    _head_button(head)
                _rows([Row(r.depth - 1, r.text, r.focus, r.key, r.failed) for r in body])


def why_fired(result: dict[str, Any] | None, text: str, step_of: Mapping[Any, int] | None = None, *,
              key: str = "dbg_fired", height: int = TREE_HEIGHT) -> None:
    """Why a match fired (an :func:`engine.explain.explain_match` result) as a tree; ``text``
    (its text form, or why it could not be explained) is kept in a collapsed expander."""
    _answer(result, text, step_of, key, height, "--match")


def why_not(result: dict[str, Any] | None, text: str, step_of: Mapping[Any, int] | None = None, *,
            key: str = "dbg_whynot_tree", height: int = TREE_HEIGHT) -> None:
    """A why-not answer (an :func:`engine.explain.explain_why_not` result) as a tree: the
    furthest partial run, the reason as event → move → the failing predicate, the nearest
    match; ``text`` in a collapsed expander."""
    _answer(result, text, step_of, key, height, "--why-not")


def _answer(result: dict[str, Any] | None, text: str, step_of: Mapping[Any, int] | None, key: str, height: int,
            flag: str) -> None:
    if result is None:
        st.warning(escape.message(text), icon=":material/warning:")
        return
    _tree(result, step_of, key, height)
    with st.expander("As text (what the command line prints)", expanded=False, key=f"{key}_text"):
        st.code(text, language=None, wrap_lines=True)


def pattern_panel(pattern_text: str, key: str = "dbg_focus_pattern") -> None:
    """The pattern as written, the focused predicate marked; a button clears the focus."""
    f = focused() or {}
    pred = f.get("predicate")
    marked = ([pred] if pred else []) + [p for p in f.get("predicates", []) if isinstance(p, str)]
    st.html(PATTERN_CSS + highlighted_html(pattern_text, marked))
    if f:
        what = (escape.code(pred) if pred else
                f"event {escape.code(f['event'])}" if "event" in f else
                escape.code(f"{f['edge'].get('edge')} at {f['edge'].get('state')}"))
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.caption(f"Highlighted: {what}")
        c2.button("Clear", key=f"{key}_clear", on_click=_set_focus, args=(None,), type="tertiary")


__all__ = ["FOCUS_KEY", "Row", "figure_focus", "focused", "node_focus", "node_markdown", "pattern_panel",
           "tree_groups", "why_fired", "why_not"]
