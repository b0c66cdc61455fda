"""Presentation mode of the course, for a classroom: large type, the lesson's figure alone,
and the keyboard's Left / Right arrows for the previous / next lesson (Esc leaves).

The mode is kept in the URL (``present=1``) with the lesson, so a teacher can open a lesson
straight on the projector from its link. The style is a constant of this module (no text of
a lesson or its data goes into it); the lesson's title and the figure's caption are escaped
as everywhere else.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import course, figures
from engine.lessons import Lesson, lesson_events
from visualizers import course_view as CV
from visualizers import escape

KEY = "crs_present"
# Larger type, no sidebar, no page header: a projector at the back of a room.
STYLE = """<style>
section[data-testid="stSidebar"], header[data-testid="stHeader"] { display: none; }
div[data-testid="stMainBlockContainer"] { max-width: 100%; padding-top: 1.5rem; }
div[data-testid="stMainBlockContainer"] p, div[data-testid="stMainBlockContainer"] li { font-size: 1.55rem; }
div[data-testid="stMainBlockContainer"] h1 { font-size: 3.2rem; }
div[data-testid="stMainBlockContainer"] code { font-size: 1.35rem; }
</style>"""


def _ss() -> Any:
    return st.session_state


def active() -> bool:
    """Whether the course is shown in presentation mode (the URL's ``present=1`` or the toggle)."""
    ss = _ss()
    if KEY not in ss:
        ss[KEY] = st.query_params.get("present") == "1"
    return bool(ss[KEY])


def toggle() -> None:
    """The switch into the mode (beside the lesson list)."""
    active()
    st.toggle("Presentation mode", key=KEY, on_change=_sync_url,
              help="large type and the lesson's figure alone, for a projector; Left / Right arrow keys for the "
                   "previous / next lesson, Esc to leave")


def _sync_url() -> None:
    if _ss().get(KEY):
        st.query_params["present"] = "1"
    else:
        st.query_params.pop("present", None)


def _leave() -> None:
    _ss()[KEY] = False
    st.query_params.pop("present", None)


def view(lesson: Lesson, number: int, total: int, previous_id: str | None, next_id: str | None) -> None:
    """The lesson on a slide: its number and title, its stream's figure with the caption, the
    pattern, and the keys to move on."""
    st.markdown(STYLE, unsafe_allow_html=True)
    st.title(f"{number}. {escape.markdown(lesson.title)}")
    fig = CV.stream_figure(lesson_events(lesson))
    fig.update_layout(height=max(fig.layout.height or 0, 420), font={"size": 18})
    caption = (f"Lesson {number} of {total}, {lesson.title}: each dot is an event (its number above it), one row "
               "per event type, left to right in time.")
    figures.show(fig, caption, f"crs_present_fig_{lesson.id}", f"lesson-{lesson.id}-slide")
    st.code(lesson.pattern.strip(), language="sql")
    c1, c2, c3 = st.columns(3)
    c1.button("Previous lesson", key="crs_present_prev", shortcut="Left", disabled=previous_id is None,
              on_click=course.go_to, args=(previous_id or "",), icon=":material/arrow_back:", width="stretch")
    c2.button("Leave presentation", key="crs_present_exit", shortcut="Esc", on_click=_leave,
              icon=":material/close_fullscreen:", width="stretch")
    c3.button("Next lesson", key="crs_present_next", shortcut="Right", disabled=next_id is None,
              on_click=course.go_to, args=(next_id or "",), icon=":material/arrow_forward:", width="stretch")
