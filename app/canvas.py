"""The Design page's React Flow canvas (streamlit-flow-component), kept in sync with the
shared pattern.

The canvas is redrawn from the pattern whenever the pattern changes (``state.rev``). A
value coming back from the browser (node added, edited, deleted, dragged, edge drawn) is
read with ``app.edit.apply_canvas`` and committed like any other edit. Only values
with a new timestamp are read: the component keeps returning its last value on every
rerun, which after an edit made elsewhere is stale. It also sends its nodes back after
every redraw (an echo, which changes nothing).

A value drawn from an older canvas (its nodes carry the ``build`` number of the canvas
they came from) is not applied, so that a late echo cannot undo an edit made in the editor
or the forms; the canvas is drawn again instead, with a timestamp above that value's:
the component keeps its own nodes while its last value is newer than the state it is
given, so without that it could go on showing the older canvas.
"""
from __future__ import annotations

import time
from typing import Any

import streamlit as st
from streamlit_flow import streamlit_flow
from streamlit_flow.elements import StreamlitFlowEdge, StreamlitFlowNode
from streamlit_flow.layouts import ManualLayout
from streamlit_flow.state import StreamlitFlowState

from app import state
from app.edit import EditError, apply_canvas
from visualizers import escape
from visualizers.canvas import (MIN_ZOOM, cross_predicates, frame_node, framed_height, pattern_header,
                                pattern_to_canvas, without_frame)

KEY = "cep_canvas"
KEEP_BUILDS = 8  # the patterns of the last canvases drawn, to read a value drawn from one of them


def _node(d: dict[str, Any]) -> StreamlitFlowNode:
    extra = {k: d[k] for k in ("parentId", "extent") if k in d}
    return StreamlitFlowNode(
        id=d["id"], pos=(d["position"]["x"], d["position"]["y"]), data=dict(d["data"]),
        node_type=d.get("type", "default"), source_position=d.get("sourcePosition", "right"),
        target_position=d.get("targetPosition", "left"), draggable=d.get("draggable", True),
        selectable=d.get("selectable", True), connectable=d.get("connectable", True),
        deletable=d.get("deletable", True), z_index=d.get("zIndex", 0), style=dict(d.get("style", {})),
        **extra)


def _edge(d: dict[str, Any]) -> StreamlitFlowEdge:
    return StreamlitFlowEdge(
        id=d["id"], source=d["source"], target=d["target"], edge_type=d.get("type", "default"),
        marker_end=dict(d.get("markerEnd", {})), deletable=d.get("deletable", True),
        focusable=d.get("focusable", True), z_index=d.get("zIndex", 0), style=dict(d.get("style", {})))


def flow_state() -> StreamlitFlowState:
    """The state handed to the component, rebuilt when the pattern changed."""
    ss = st.session_state
    fs = ss.get("cep_flow")
    if fs is None or ss.get("cep_flow_rev") != state.rev():
        nodes, edges = pattern_to_canvas(state.pattern())
        build = int(ss.get("cep_flow_build") or 0) + 1
        ss["cep_flow_build"] = build
        for n in nodes:  # travels with the nodes: tells a stale canvas value from a current one
            n["data"]["build"] = build
        # the browser replaces its nodes only for a newer timestamp than its own last one
        ts = max(int(time.time() * 1000), int(ss.get("cep_flow_seen") or 0) + 1)
        fs = StreamlitFlowState([_node(n) for n in nodes], [_edge(e) for e in edges], timestamp=ts)
        ss["cep_flow"] = fs
        ss["cep_flow_rev"] = state.rev()
        drawn = {b: p for b, p in (ss.get("cep_flow_drawn") or {}).items() if b > build - KEEP_BUILDS}
        drawn[build] = state.pattern()
        ss["cep_flow_drawn"] = drawn
    return fs


def stale(data: list[Any], build: int | None, drawn: dict[int, Any] | None = None,
          pattern: Any = None) -> bool:
    """True when a canvas value (its nodes' ``data`` dicts) was drawn from another build
    of the canvas than the current one; new nodes carry no build and do not count. A value
    drawn from an earlier build of the same pattern (``drawn``: build -> pattern drawn, a
    canvas drawn again without a change) is not stale: an edit made on it still applies."""
    builds = {d.get("build") for d in data if isinstance(d, dict) and "build" in d}
    if not builds or builds == {build}:
        return False
    if drawn is not None and len(builds) == 1:
        b = next(iter(builds))
        return not (b in drawn and drawn[b] == pattern)
    return True


def node_texts() -> list[str]:
    """What the canvas state shows (tests): each node's DSL text."""
    fs = flow_state()
    return [n.data.get("text", n.data.get("content", "")) for n in fs.nodes]


def section() -> None:
    """Header, canvas, legend and what the last canvas edit did.

    Not a fragment: as one, the echo the component sends after each redraw would rerun only
    this part (and a click on another page during it would no longer bounce back to Design),
    but under load the redraw after an edit made on the canvas was then sometimes dropped."""
    from app import design_forms, ui

    from app import canvas_dialog

    header()
    canvas_dialog.buttons()
    render()
    legend()
    for n in state.notes():
        st.info(escape.message(n), icon=":material/edit:")
    ui.pattern_error(("canvas",))
    design_forms.canvas_data_check()


def header() -> None:
    """Above the canvas: strategy, partition, window, output (and AGG / RETURN)."""
    with st.container(border=True):
        st.markdown(pattern_header(state.pattern()))


def legend() -> None:
    """Below the canvas: the predicates over several components, with the marks on their nodes."""
    cross = cross_predicates(state.pattern())
    if cross:
        st.markdown("**Across components** (marked on their nodes): " + " · ".join(
            f"{mark} {escape.code(text)} ({escape.markdown(', '.join(vs))})" for mark, text, vs in cross))


def render(height: int | None = None) -> None:
    ss = st.session_state
    fs = flow_state()
    drawn = [n.asdict() for n in fs.nodes]
    if height is None:
        height = framed_height(drawn)
    # an invisible frame around the pattern, fitted on every redraw: a steady zoom, room for the controls
    shown = StreamlitFlowState([_node(frame_node(drawn, height=height)), *fs.nodes], fs.edges,
                               timestamp=fs.timestamp)
    # the library's own menus (a generic node dialog) stay off: components are added and edited in
    # the page's dialog (app/canvas_dialog.py); drags, new edges and the Delete key still come back
    ret = streamlit_flow(KEY, shown, height=height, fit_view=True, show_controls=True, show_minimap=False,
                         allow_new_edges=True, enable_pane_menu=False, enable_node_menu=False,
                         enable_edge_menu=False, get_node_on_click=True, hide_watermark=True,
                         layout=ManualLayout(), min_zoom=MIN_ZOOM)
    if ret is shown or ret is None or ret.timestamp == ss.get("cep_flow_seen"):
        return
    ss["cep_flow_seen"] = ret.timestamp
    clicked = None
    if ret.selected_id and str(ret.selected_id).startswith("c:"):
        clicked = ss["cep_selected"] = str(ret.selected_id)[2:]
    if stale([n.data for n in without_frame(ret.nodes)], ss.get("cep_flow_build"), ss.get("cep_flow_drawn"),
             state.pattern()):
        # drawn from an older pattern (the browser had not caught up yet): not applied, and
        # the current one is drawn again with a newer timestamp than this value's
        ss["cep_flow_rev"] = None
        st.rerun()
        return
    nodes = [n.asdict() for n in without_frame(ret.nodes)]
    edges = [e.asdict() for e in ret.edges]
    try:
        res = apply_canvas(state.pattern(), nodes, edges)
    except EditError as err:
        state.fail("canvas", str(err))
        ss["cep_flow_rev"] = None  # redraw the last valid pattern
        st.rerun()
        return
    if not res.changed:
        if clicked and clicked in state.pattern().variables:
            from app import canvas_dialog

            canvas_dialog.open_dialog(clicked)  # a click on a node opens its dialog
        return
    if not state.commit(res.pattern, "canvas", res.notes):
        ss["cep_flow_rev"] = None
    st.rerun()
