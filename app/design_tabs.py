"""The Design page's side forms as tabs: component, groups, predicates, window and
strategy (``app.design_forms``), aggregate and RETURN (``app.design_aggregate``)."""
from __future__ import annotations

import streamlit as st

from app import design_forms as forms
from app import ui
from app.design_aggregate import aggregate_form

TABS = ["Component", "Groups", "Predicates", "Window & strategy", "Aggregate & RETURN"]


def side_forms() -> None:
    """The forms, in tabs that keep the one a person chose across edits (``design_tab``)."""
    tabs = st.tabs(TABS, key="design_tab", on_change="rerun")
    with tabs[0]:
        forms.component_form()
    with tabs[1]:
        forms.group_form()
    with tabs[2]:
        forms.predicate_form()
    with tabs[3]:
        forms.window_form()
    with tabs[4]:
        aggregate_form()
    ui.pattern_error(("form",))
    forms.form_data_check(("form",))
