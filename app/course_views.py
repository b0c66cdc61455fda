"""One lesson of the course: its stream as a timeline, its pattern, its text (the teacher's
markdown, never raw HTML), its exercise (``app.course_exercises``), the "In the papers" section,
links, and Open in Debug (the Debug page with the lesson's pattern, data, engine, strategy and
step set).

Session keys are prefixed ``crs_``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import course, course_exercises, figures, glossary
from engine.lessons import ChooseExercise, Lesson, lesson_events, lesson_run
from engine.lessons.running import RunOutcome
from visualizers import course_view as CV
from visualizers import escape

__all__ = ["lesson_view", "debug_params", "open_in_debug", "revealed_matches"]


def _ss() -> Any:
    return st.session_state


def revealed_matches(lesson: Lesson) -> list[dict[str, list[Any]]]:
    """The lesson pattern's matches on its stream, as ``{variable: [ids]}``."""
    outcome: RunOutcome = lesson_run(lesson)
    if outcome.error:
        return []
    return CV.match_rows(outcome.matches)


def debug_params(lesson: Lesson, option: str | None = None) -> dict[str, str]:
    """The Debug page's URL for the lesson: its pattern (a choose exercise's ``option`` applied
    when given), the lesson's stream as data, its engine and match-windows mode, and the step at
    which its first match completes (the first event when there is none)."""
    from engine.lessons.options import OptionError, apply_option

    text, engine = lesson.pattern, lesson.engine
    if option is not None and isinstance(lesson.exercise, ChooseExercise):
        try:
            run = apply_option(lesson, option)
            text, engine = run.text, run.engine
        except OptionError:
            pass
    step = 1
    events = lesson_events(lesson)
    matches = revealed_matches(lesson)
    if matches:
        position = {str(e.id): n for n, e in enumerate(events, 1)}
        step = max((position.get(str(i), 1) for ids in matches[0].values() for i in ids), default=1)
    return {"pattern": text.strip(), "data": "lesson", "lesson": lesson.id, "engine": engine,
            "windows": lesson.match_windows, "event": str(step)}


def open_in_debug(lesson: Lesson, option: str | None = None) -> None:
    """Switch to the Debug page with the lesson's state in its URL (read again on arrival)."""
    from app import debug_data

    debug_data.open_debug(debug_params(lesson, option), "step through this lesson")


def _figure(lesson: Lesson) -> None:
    """The timeline; a predict exercise on events takes the chart's selection as its guess."""
    events = lesson_events(lesson)
    if course_exercises.clicks_events(lesson):  # the chart's selection (kept from the last run) as the guess
        course_exercises.take_selection(lesson, _ss().get(f"crs_fig_{lesson.id}"))
    shown = course_exercises.is_revealed(lesson)
    matches = revealed_matches(lesson) if shown else []
    picked = course_exercises.picked_events(lesson)
    fig = CV.stream_figure(events, picked=picked, matches=matches)
    caption = figure_caption(lesson, bool(matches))
    chart = ({"on_select": "rerun", "selection_mode": ("points", "box", "lasso")}
             if course_exercises.clicks_events(lesson) else {})
    figures.show(fig, caption, f"crs_fig_{lesson.id}", f"lesson-{lesson.id}", **chart)


def figure_caption(lesson: Lesson, matches_shown: bool) -> str:
    """What the lesson's timeline shows, in the figure and under it (so a slide made from it says it)."""
    return (f"{lesson.title}: each dot is an event (its number above it), one row per event type, left to right "
            "in time." + (" Below the types, one row per match joins the events it took." if matches_shown else ""))


def _share_link(lesson: Lesson) -> None:
    """A link to the lesson and its exercise (its address is the one to share)."""
    label = "Link to this lesson and its exercise"
    try:
        st.page_link("pages/5_Learn.py", label=label, icon=":material/link:", query_params={"lesson": lesson.id})
    except Exception:  # noqa: BLE001 - the page runs on its own (outside the multipage app)
        st.caption(f"{label}: the Learn page with {escape.code(course.lesson_link(lesson.id))}")


def lesson_view(lesson: Lesson, number: int, next_id: str | None) -> None:
    """The lesson ``number`` of the course."""
    st.header(f"{number}. {escape.markdown(lesson.title)}", anchor=f"lesson-{lesson.id}")
    if lesson.id in course.solved():
        st.success("Solved.", icon=":material/check_circle:")
    _figure(lesson)  # the lesson texts speak of "the timeline above" and "the pattern above"
    st.markdown("**The pattern**")
    st.code(lesson.pattern.strip(), language="sql")
    if lesson.text.strip():
        st.markdown(lesson.text)  # the teacher's markdown; raw HTML is never allowed
    if lesson.papers.strip():
        glossary.in_the_papers(lesson.papers)
    course_exercises.exercise_view(lesson)
    st.divider()
    c1, c2, c3 = st.columns([2, 2, 2], vertical_alignment="center")
    option = course_exercises.chosen_option(lesson)
    if c1.button("Open in Debug", key=f"crs_debug_{lesson.id}", icon=":material/bug_report:",
                 help="step through this lesson's run event by event, with its pattern, stream and engine set"):
        open_in_debug(lesson, option)
    with c2:
        _share_link(lesson)
    exercise = lesson.exercise
    if isinstance(exercise, ChooseExercise) and exercise.axis in ("strategy", "engine"):
        a, b = _pair(exercise, option)
        if st.button(f"Step through {a} and {b} side by side", key=f"crs_sbs_{lesson.id}",
                     icon=":material/compare_arrows:",
                     help="the Debug page steps both over this lesson's stream and marks the first event where "
                          "they differ"):
            open_side_by_side(lesson, exercise.axis, a, b)
    if next_id is not None:
        c3.button("Next lesson", key=f"crs_next_{lesson.id}", icon=":material/arrow_forward:",
                  on_click=course.go_to, args=(next_id,))


def _pair(exercise: ChooseExercise, option: str | None) -> tuple[str, str]:
    """The two options to step side by side: the one chosen and another (the first two when none is)."""
    options = list(exercise.options)
    first = option if option in options else options[0]
    second = next(o for o in options if o != first)
    return first, second


def open_side_by_side(lesson: Lesson, axis: str, a: str, b: str) -> None:
    """Switch to the Debug page on the lesson's stream with ``a`` and ``b`` (two strategies or two
    engines) stepped side by side."""
    from app import debug_side_by_side

    debug_side_by_side.open_debug(debug_params(lesson), axis, a, b)
