"""A lesson's exercise on the Learn page, checked by the engine (``engine.lessons``):

- *predict*: pick the events that form matches (on the timeline, or in the list below it, which
  always works), or type the number of matches / the value; Check explains each wrong guess and
  each missed match; Reveal draws the matches on the timeline;
- *write*: the pattern editor; Check runs the pattern and the lesson's reference on its stream
  and hidden variations and shows the first differing match, explained;
- *choose*: one of the options; Check runs every option.

Hints come one at a time. A right answer marks the lesson solved (``app.course``). Session keys
are prefixed ``crs_`` and suffixed with the lesson's id.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from app import course, pattern_editor
from engine.lessons import (ChooseExercise, Feedback, Lesson, PredictExercise, WriteExercise, check_choose,
                            check_predict, check_write, lesson_events)
from visualizers import course_view as CV
from visualizers import escape

__all__ = ["exercise_view", "is_revealed", "picked_events", "clicks_events", "take_selection", "chosen_option",
           "hints_view", "written_text"]


def _ss() -> Any:
    return st.session_state


def _key(kind: str, lesson: Lesson) -> str:
    return f"crs_{kind}_{lesson.id}"


def is_revealed(lesson: Lesson) -> bool:
    """Whether the matches are drawn (revealed, or the exercise answered right)."""
    return bool(_ss().get(_key("reveal", lesson))) or lesson.id in course.solved()


def clicks_events(lesson: Lesson) -> bool:
    """A predict exercise answered by picking events."""
    ex = lesson.exercise
    return isinstance(ex, PredictExercise) and ex.ask == "matches"


def picked_events(lesson: Lesson) -> list[str]:
    """The event ids (as text) picked so far."""
    return [str(i) for i in _ss().get(_key("events", lesson), [])]


def take_selection(lesson: Lesson, selection: Any) -> None:
    """A new chart selection adds its events to the picked ones (a click on one picked event
    drops it): called before the events list is drawn, so the list shows it."""
    try:
        points = selection["selection"]["points"]
    except (KeyError, TypeError):
        return
    ids = [str(p.get("customdata")) for p in points if isinstance(p, dict) and p.get("customdata") is not None]
    seen = _key("selseen", lesson)
    if not ids:  # the selection cleared (a click on empty space or on the selected point)
        _ss().pop(seen, None)
        return
    if _ss().get(seen) == ids:
        return
    _ss()[seen] = ids
    picked = picked_events(lesson)
    if len(ids) == 1 and ids[0] in picked:
        picked.remove(ids[0])
    else:
        picked.extend(i for i in ids if i not in picked)
    known = [str(e.id) for e in lesson_events(lesson)]
    _ss()[_key("events", lesson)] = [i for i in known if i in set(picked)]


def chosen_option(lesson: Lesson) -> str | None:
    """The option picked in a choose exercise (for Open in Debug), or None."""
    if isinstance(lesson.exercise, ChooseExercise):
        return _ss().get(_key("option", lesson))
    return None


def written_text(lesson: Lesson) -> str:
    """The pattern the learner wrote last (before they write: the exercise's start text, else the
    lesson's pattern, which the questions ask to change)."""
    ex = lesson.exercise
    start = (ex.start or lesson.pattern.strip()) if isinstance(ex, WriteExercise) else ""
    return _ss().get(_key("written", lesson), start)


# --------------------------------------------------------------------------- results

def _feedback(items: list[Feedback], title: str) -> None:
    if not items:
        return
    st.markdown(f"**{title}**")
    for f in items:
        st.markdown(f"- {escape.markdown(f.summary)}")
        if f.explanation:
            st.code(f.explanation.rstrip(), language=None, wrap_lines=True)


def _sentence(message: str) -> str:
    """The check's one-line verdict, escaped, as a sentence (capital first letter)."""
    return escape.markdown(message[:1].upper() + message[1:])


def _right(lesson: Lesson, message: str) -> None:
    st.success(f"Accepted. {_sentence(message)}", icon=":material/check_circle:")
    if lesson.explanation.strip():
        st.markdown(lesson.explanation)


def _predict_result(lesson: Lesson, result: Any) -> None:
    if result.error:
        st.error(f"The run stopped: {escape.message(result.error)}", icon=":material/error:")
        return
    if result.correct:
        _right(lesson, result.message)
        return
    st.error(_sentence(result.message), icon=":material/cancel:")
    _feedback(result.wrong, "Why these are no match")
    _feedback(result.missed, "Matches you did not pick, and why they match")


def _write_result(lesson: Lesson, result: Any) -> None:
    if result.accepted:
        _right(lesson, result.message)
        return
    where = ""
    if result.error and result.line is not None:
        where = f" (line {result.line}" + (f", column {result.column}" if result.column else "") + ")"
    st.error(_sentence(result.message) + where, icon=":material/cancel:")
    if result.difference is not None:
        side = {"yours": "found by your pattern only", "reference": "found by the lesson's pattern only"}
        st.markdown(f"**The first different match**, on {escape.markdown(result.stream or 'the stream')}, "
                    f"{side.get(result.side or '', '')}: {escape.markdown(result.difference.summary)}")
        if result.difference.explanation:
            st.code(result.difference.explanation.rstrip(), language=None, wrap_lines=True)


def _choose_result(lesson: Lesson, result: Any) -> None:
    if result.correct:
        _right(lesson, result.message)
    else:
        st.error(_sentence(result.message), icon=":material/cancel:")
        return
    rows = [{"option": o.option, "matches": o.count, "partial runs created": o.runs_created,
             "gives what is asked": "yes" if o.right else "no"} for o in result.options]
    st.dataframe(rows, hide_index=True, key=_key("options_table", lesson))


# --------------------------------------------------------------------------- the exercise kinds

def _check(lesson: Lesson, result: Any, ok: bool) -> None:
    _ss()[_key("result", lesson)] = result
    if ok and lesson.id not in course.solved():
        course.mark_solved(lesson.id)
        st.rerun()  # the lesson list (drawn before the exercise) shows the new mark


def _predict(lesson: Lesson, ex: PredictExercise) -> None:
    if ex.ask == "matches":
        events = lesson_events(lesson)
        by_text = {str(e.id): e for e in events}
        key = _key("events", lesson)
        _ss()[key] = [i for i in _ss().get(key, []) if i in by_text]
        st.caption("Click an event on the timeline to pick it (click it again to drop it), or drag a box around "
                   "several; or pick them in the list.")
        st.multiselect("The events that take part in a match (click them on the timeline, or pick them here)",
                       list(by_text), key=key, format_func=lambda i: CV.event_label(by_text[i]),
                       placeholder="Pick events")
        guess: Any = {by_text[i].id for i in _ss()[key]}
    elif ex.ask == "count":
        guess = int(st.number_input("How many matches?", min_value=0, max_value=100_000, step=1, value=None,
                                    key=_key("count", lesson), placeholder="a number") or 0)
    else:
        typed = st.text_input("The value", key=_key("value", lesson), max_chars=60)
        guess = _number(typed)
    c1, c2 = st.columns(2)
    if c1.button("Check", key=_key("check", lesson), type="primary", icon=":material/task_alt:"):
        if ex.ask == "count" and _ss().get(_key("count", lesson)) is None:
            st.warning("Type the number of matches first.")
        else:
            result = check_predict(lesson, guess)
            _check(lesson, result, result.correct)
    _reveal_button(lesson, c2)
    result = _ss().get(_key("result", lesson))
    if result is not None:
        _predict_result(lesson, result)
    if _ss().get(_key("reveal", lesson)) and not (result is not None and result.correct):
        expected = check_predict(lesson, 0)
        answer = (f"the value is {escape.markdown(expected.expected_value)}" if ex.ask == "value"
                  else f"{expected.expected_count} match{'es' if expected.expected_count != 1 else ''}")
        st.info(f"The answer: {answer}, drawn on the timeline. Open in Debug to watch the run find "
                f"{'it' if ex.ask == 'value' else 'them'} step by step.", icon=":material/visibility:")
        if lesson.explanation.strip():
            st.markdown(lesson.explanation)


def _reveal_button(lesson: Lesson, where: Any) -> None:
    """Reveal the answer (the timeline then draws the matches)."""
    if where.button("Reveal the answer", key=_key("reveal_button", lesson), icon=":material/visibility:"):
        _ss()[_key("reveal", lesson)] = True
        st.rerun()  # the timeline, drawn above, shows the matches


def _number(text: str) -> Any:
    text = (text or "").strip()
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            continue
    return text


def _editor_sent(lesson: Lesson) -> None:
    text = pattern_editor.sent_text(_ss().get(_key("editor", lesson)))
    if text is not None:
        _ss()[_key("written", lesson)] = text


def _write(lesson: Lesson, ex: WriteExercise) -> None:
    st.caption("Write the pattern here (Ctrl+Enter or leaving the editor sends it), then Check: it runs on the "
               "lesson's stream and on hidden variations of it, next to the lesson's own answer.")
    text = written_text(lesson)
    pattern_editor.editor(text, key=_key("editor", lesson), version=f"{lesson.id}", height=140,
                          label="Your pattern", on_change=_editor_sent, args=(lesson,))
    c1, c2 = st.columns(2)
    if c1.button("Check", key=_key("check", lesson), type="primary", icon=":material/task_alt:"):
        written = written_text(lesson)
        if not written.strip():
            st.warning("Write a pattern first.")
        else:
            result = check_write(lesson, written)
            _check(lesson, result, result.accepted)
    _reveal_button(lesson, c2)
    result = _ss().get(_key("result", lesson))
    if result is not None:
        _write_result(lesson, result)
    if _ss().get(_key("reveal", lesson)) and not (result is not None and result.accepted):
        st.info("An answer (yours may differ and still be right: it is checked by what it finds):",
                icon=":material/visibility:")
        st.code(ex.reference.strip(), language="sql")
        if lesson.explanation.strip():
            st.markdown(lesson.explanation)


def _choose(lesson: Lesson, ex: ChooseExercise) -> None:
    st.radio("Your choice", list(ex.options), key=_key("option", lesson), index=None,
             format_func=escape.markdown)
    c1, c2 = st.columns(2)
    if c1.button("Check", key=_key("check", lesson), type="primary", icon=":material/task_alt:"):
        option = _ss().get(_key("option", lesson))
        if option is None:
            st.warning("Choose an option first.")
        else:
            result = check_choose(lesson, option)
            _check(lesson, result, result.correct)
    _reveal_button(lesson, c2)
    result = _ss().get(_key("result", lesson))
    if result is not None:
        _choose_result(lesson, result)
    if _ss().get(_key("reveal", lesson)) and not (result is not None and result.correct):
        st.info(f"The answer: {escape.markdown(ex.answer)}. Open in Debug to step through its run.",
                icon=":material/visibility:")
        if lesson.explanation.strip():
            st.markdown(lesson.explanation)


def hints_view(lesson: Lesson) -> None:
    """The hints, one more at each click."""
    if not lesson.hints:
        return
    key = _key("hints", lesson)
    shown = int(_ss().get(key, 0))
    for hint in lesson.hints[:shown]:
        st.info(hint, icon=":material/lightbulb:")
    if shown < len(lesson.hints):
        left = len(lesson.hints) - shown

        def more() -> None:
            _ss()[key] = shown + 1

        st.button("Show a hint" if shown == 0 else "Another hint", key=_key("hint_button", lesson),
                  icon=":material/lightbulb:", on_click=more, help=f"{left} hint{'s' if left != 1 else ''} left")


def exercise_view(lesson: Lesson) -> None:
    """The exercise, its hints and its verdict."""
    ex = lesson.exercise
    st.subheader("Exercise", anchor="exercise")
    if ex.question.strip():
        st.markdown(ex.question)
    if isinstance(ex, PredictExercise):
        _predict(lesson, ex)
    elif isinstance(ex, WriteExercise):
        _write(lesson, ex)
    else:
        _choose(lesson, ex)
    hints_view(lesson)
