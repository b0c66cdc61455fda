"""Debug: step through a run event by event (runs, buffer, matches, why / why not)."""
from __future__ import annotations

from app import debug, ui

ui.page("Debug", "🐞", with_sidebar=False)
from app import debug_data, sql_views  # noqa: E402

if not sql_views.active():
    debug_data.restore_from_url()  # the view a link names, before the sidebar shows the pattern
ui.sidebar()
if sql_views.active():
    import streamlit as st

    from app import debug_sql

    st.title("Debug")
    sql_views.language_switch()
    debug_sql.render()
else:
    debug.render()
    sql_views.language_switch()  # under the pattern's debugger: switch to a MATCH_RECOGNIZE query
