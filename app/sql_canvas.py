"""The SQL row pattern on the Design page's React Flow canvas, kept in sync with the query text.

Text -> canvas: the canvas is drawn again (a new build, a newer timestamp) whenever the query text
differs from the text it was drawn from. Terms are added, edited (label, DEFINE) and deleted in the
page's dialog (app/sql_canvas_dialog.py; a click on a term opens it); the library's own node menus
are off. Canvas -> text: a value coming back from the browser (a node moved, a click on a term) is
read with :func:`app.sql_edit.apply_canvas` in the component's
``on_change`` callback, before the page's widgets exist, so that the new query text can be put in
the editor's own state (set after the editor is drawn, the browser would keep showing the old
text and send it back). As on the studio pattern's canvas (app/canvas.py), only values with a new
timestamp are read (the component returns its last value on every rerun), and a value drawn from
another text than the editor's (its nodes carry the build they came from) is not applied: the
editor's text is drawn instead. Below the canvas, two small forms add a term after another one and
set a DEFINE."""
from __future__ import annotations

import time
from typing import Any

import streamlit as st
from streamlit_flow.layouts import ManualLayout
from streamlit_flow.state import StreamlitFlowState

from app.canvas import _edge, _node
from app.sql_edit import EditError, add_term, apply_canvas, occurrences, set_define
from visualizers import escape
from visualizers.canvas import frame_node, framed_height, without_frame
from visualizers.sql_canvas import MIN_ZOOM, query_to_canvas

KEY = "sql_flow_canvas"
KEEP_BUILDS = 8
WIDTH = 860  # the canvas' width under the editor and the structure (pixels, at a 1500-pixel window)
EDITOR_PREFIX = "sql_editor_"  # the query editor's widget keys (app/sql_views.py)


def flow_state(query: Any, text: str) -> StreamlitFlowState:
    """The state handed to the component, rebuilt when the query text changed."""
    ss = st.session_state
    fs = ss.get("sql_flow")
    if fs is None or ss.get("sql_flow_text") != text:
        nodes, edges = query_to_canvas(query)
        build = int(ss.get("sql_flow_build") or 0) + 1
        ss["sql_flow_build"] = build
        for n in nodes:
            n["data"]["build"] = build
        ts = max(int(time.time() * 1000), int(ss.get("sql_flow_seen") or 0) + 1)
        fs = StreamlitFlowState([_node(n) for n in nodes], [_edge(e) for e in edges], timestamp=ts)
        ss["sql_flow"] = fs
        ss["sql_flow_text"] = text
        drawn = {b: t for b, t in (ss.get("sql_flow_drawn") or {}).items() if b > build - KEEP_BUILDS}
        drawn[build] = text
        ss["sql_flow_drawn"] = drawn
    return fs


def set_text(new_text: str, notes: list[str], in_callback: bool = True) -> None:
    """Make ``new_text`` the query and show it in the editor. In a callback (before the page's
    widgets exist) the editor's own value is set, so the browser shows the new text; otherwise
    the editor's value is dropped and the page must rerun."""
    ss = st.session_state
    ss["sql_text"] = new_text
    current = f"{EDITOR_PREFIX}{ss.get('sql_preset')}"
    for key in [k for k in ss if str(k).startswith(EDITOR_PREFIX)]:
        if in_callback and key == current:
            ss[key] = new_text
        else:
            del ss[key]  # an editor not on the page starts again from sql_text
    ss["sql_canvas_notes"] = (new_text, notes)
    ss.pop("sql_canvas_error", None)


def _fail(err: EditError) -> None:
    ss = st.session_state
    ss["sql_canvas_error"] = (ss.get("sql_text"), err.message, err.detail)
    ss["sql_flow_text"] = None  # draw the query as it is again


def current_text() -> str:
    """The query as the editor holds it now (in a callback, a change typed with the same click
    is already there), else ``sql_text``."""
    ss = st.session_state
    editor = f"{EDITOR_PREFIX}{ss.get('sql_preset')}"
    return str(ss[editor] if editor in ss else ss.get("sql_text") or "")


def receive(value: Any, in_callback: bool = True) -> bool:
    """Apply a value the component sent (``{"nodes", "edges", "timestamp", ...}``); True when it
    was new (not seen before)."""
    ss = st.session_state
    if not isinstance(value, dict) or value.get("timestamp") == ss.get("sql_flow_seen"):
        return False
    ss["sql_flow_seen"] = value.get("timestamp")
    chosen = str(value.get("selectedId") or "")
    if chosen.startswith("t:"):  # a click on a term: it is chosen, and its dialog opens
        ss["sql_selected"] = chosen
        ss["sql_open_dialog"] = chosen
    elif chosen.startswith("g:"):  # a click on a box: the dialog of its quantifier
        ss["sql_open_dialog"] = chosen
    text = current_text()
    nodes = without_frame([n for n in value.get("nodes") or [] if isinstance(n, dict)])
    edges = [e for e in value.get("edges") or [] if isinstance(e, dict)]
    drawn = dict(ss.get("sql_flow_drawn") or {})
    builds = {(n.get("data") or {}).get("build") for n in nodes if "build" in (n.get("data") or {})}
    if any(drawn.get(b) != text for b in builds):
        ss["sql_flow_text"] = None  # drawn from another text than the editor's: draw that one again
        return True
    try:
        res = apply_canvas(text, nodes, edges)
    except EditError as err:
        _fail(err)
        return True
    if res.changed:
        set_text(res.text, res.notes, in_callback)
    elif _differs(nodes, ss.get("sql_flow")):
        ss["sql_flow_text"] = None  # a change that changes nothing (a box deleted, B{1,} for B+): draw the query
    return True


def _differs(nodes: list[dict[str, Any]], drawn: Any) -> bool:
    """The browser's nodes are not the ones drawn (other ids or other content)."""
    if drawn is None:
        return False
    mine = {n.id: n.data.get("content") for n in drawn.nodes}
    theirs = {str(n.get("id")): (n.get("data") or {}).get("content") for n in without_frame(nodes)}
    return mine != theirs


def _on_canvas_change() -> None:
    receive(st.session_state.get(KEY))


def section(query: Any) -> None:
    """The canvas, what the last canvas edit did, and the forms beside it."""
    from app import sql_canvas_dialog

    st.markdown("##### Pattern canvas")
    st.caption("Add a term with the button above the canvas. Click a term to change its variable, how many rows "
               "it takes or its DEFINE, or to delete it; click a group's box to change how often it repeats.")
    sql_canvas_dialog.buttons()
    render(query)
    ss = st.session_state
    opened = ss.pop("sql_open_dialog", None)
    if opened and ss.get("sql_flow_text") == ss.get("sql_text"):  # not when the canvas is being drawn again
        from visualizers.sql_canvas import parse_id

        parsed = parse_id(opened)
        if parsed is not None:
            sql_canvas_dialog.open_dialog(parsed[1], parsed[0])
    error = ss.get("sql_canvas_error")
    if error and error[0] == ss.get("sql_text"):  # until the text changes
        st.error(escape.message(error[1]), icon=":material/error:")
        if error[2]:
            st.code(error[2], language=None)
    shown_for, notes = ss.get("sql_canvas_notes") or (None, [])
    for note in notes if shown_for == ss.get("sql_text") else []:
        st.info(escape.message(note), icon=":material/edit:")
    forms()


def render(query: Any) -> None:
    """The component, with :func:`_on_canvas_change` reading what it sends before the next run."""
    from streamlit_flow import _st_flow_func  # the component itself: streamlit_flow() takes no on_change

    ss = st.session_state
    text = str(ss.get("sql_text") or "")
    fs = flow_state(query, text)
    drawn = [n.asdict() for n in fs.nodes]
    height = framed_height(drawn, width=WIDTH, lo=260, hi=700)
    # an invisible frame fitted on every redraw (a steady zoom, room for the controls); the library's
    # own node and pane menus stay off: terms are added and edited in app/sql_canvas_dialog.py
    frame = frame_node(drawn, width=WIDTH, height=height)
    value = _st_flow_func(nodes=[frame, *drawn], edges=[e.asdict() for e in fs.edges],
                          height=height, showControls=True, fitView=True, showMiniMap=False, style={},
                          animateNewEdges=False, allowNewEdges=False, layoutOptions=ManualLayout().__to_dict__(),
                          getNodeOnClick=True, getEdgeOnClick=False, panOnDrag=True, allowZoom=True,
                          minZoom=MIN_ZOOM, enableNodeMenu=False, enablePaneMenu=False, enableEdgeMenu=False,
                          hideWatermark=True, key=KEY, timestamp=fs.timestamp, component="streamlit_flow",
                          on_change=_on_canvas_change)
    if receive(value, in_callback=False):  # a value the callback did not see (none in a browser)
        st.rerun()


def forms() -> None:
    """Add a term after another one; set a variable's DEFINE (applied in the buttons' callbacks)."""
    ss = st.session_state
    text = str(ss.get("sql_text") or "")
    try:
        places = occurrences(text)
    except EditError:
        return
    with st.expander("Add a term or set a DEFINE", expanded=False):
        with st.form("sql_canvas_add", border=False):
            st.text_input("New term (a variable with its quantifier)", placeholder="FLAT*", key="sql_add_label")
            st.selectbox("After", [None, *range(len(places))], key="sql_add_after",
                         format_func=lambda k: "the end of the pattern" if k is None
                         else f"{places[k][1]} (term {k + 1})")
            st.text_input("Its DEFINE (optional)", placeholder="price = PREV(price)", key="sql_add_define")
            st.form_submit_button("Add the term", on_click=_add, args=(text, [p for p, _ in places]))
        names = sorted({v for _path, lab in places for v in _names(lab)})
        if names:
            with st.form("sql_canvas_define", border=False):
                st.selectbox("Variable", names, key="sql_define_var")
                st.text_input("DEFINE condition", key="sql_define_text", placeholder="price > PREV(price)")
                st.form_submit_button("Set the DEFINE", on_click=_define, args=(text,))


def _names(label: str) -> list[str]:
    from app.sql_edit import parse_label
    from engine.engines.sql.row_pattern import variables

    try:
        return variables(parse_label(label))
    except EditError:
        return []


def _add(text: str, paths: list[tuple[int, ...]]) -> None:
    ss = st.session_state
    label = str(ss.get("sql_add_label") or "")
    where = ss.get("sql_add_after")
    after = paths[where] if isinstance(where, int) and 0 <= where < len(paths) else None
    _run(lambda: add_term(text, label, after, str(ss.get("sql_add_define") or "")), f"added `{label.strip()}`", text)


def _define(text: str) -> None:
    ss = st.session_state
    var, cond = str(ss.get("sql_define_var") or ""), str(ss.get("sql_define_text") or "")
    _run(lambda: set_define(text, var, cond), f"DEFINE {var} AS {cond.strip()}", text)


def _run(make: Any, note: str, text: str) -> None:
    ss = st.session_state
    if current_text() != text:  # the editor changed with the same click: its text wins
        ss["sql_canvas_error"] = (current_text(), "the query changed in the editor, so the form was not applied; "
                                  "check the form and apply it again", None)
        return
    try:
        new_text = make()
    except EditError as err:
        _fail(err)
        return
    set_text(new_text, [note])
