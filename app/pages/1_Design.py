"""Design: the pattern on a React Flow canvas, side forms, and the DSL editor, in sync."""
from __future__ import annotations

import streamlit as st

from app import canvas, state, ui
from app import design_forms as forms
from app import design_tabs
from engine.dsl import to_text

ui.page("Design", "✏️")
ss = st.session_state

st.title("Design")
from app import sql_views  # noqa: E402

if sql_views.language_switch() == "sql":
    sql_views.design()
    st.stop()
forms.preset_bar()

left, right = st.columns([3, 2], gap="medium")
with left:
    st.markdown("##### Canvas")
    st.caption("Add a component with the button above the canvas. Click a component to edit or delete it "
               "(its type, name, how many events, NOT and its predicates). Drag from a component's right "
               "handle to another one to set the order.")
    canvas.section()
    design_tabs.side_forms()

with right:
    st.markdown("##### DSL")
    forms.editor()
    ui.pattern_error(("editor",))
    forms.data_check()
    st.caption("Canonical text: the pattern as the studio writes it (your text above is kept as you typed it; "
               "Format writes this into the editor)")
    st.code(to_text(state.pattern()).strip(), language="sql")
    forms.save_load()
    with st.expander("JSON form"):
        st.code(state.pattern().model_dump_json(indent=2), language="json")
