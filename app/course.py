"""The course on the Learn page: the lessons of ``lessons/`` in order (plus the lessons a teacher
uploaded in this session), a list with progress marks, one lesson at a time.

Progress lives in the URL: ``?lesson=<id>&solved=<id>,<id>`` is written on every change (a
lesson chosen, an exercise solved), so a reload, a bookmark or a shared link opens the same
lesson with the same lessons marked solved; nothing is stored on the server between sessions.
An uploaded lesson lives in the session only (a link names it, but the file must be uploaded
again in another session). Session keys are prefixed ``crs_``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from engine.lessons import Lesson, LessonError, course, lesson_from_upload
from visualizers import escape

__all__ = ["LESSONS_DIR", "all_lessons", "find_lesson", "solved", "mark_solved", "current_id", "write_url",
           "render", "upload_panel", "lesson_link"]

LESSONS_DIR = Path(__file__).resolve().parents[1] / "lessons"
MAX_UPLOAD = 200_000  # bytes of a lesson file


def _ss() -> Any:
    return st.session_state


def _stamp(folder: Path) -> tuple[tuple[str, float], ...]:
    return tuple(sorted((p.name, p.stat().st_mtime) for p in folder.glob("*.md")))


@st.cache_resource(show_spinner=False, max_entries=4)
def _course(folder: str, _stamp_key: tuple[tuple[str, float], ...]) -> tuple[list[Lesson], str | None]:
    """The repository's course (reloaded when a file changes); a file that does not validate is
    reported, not a crash."""
    try:
        return course(folder), None
    except LessonError as err:
        return [], "; ".join(str(p) for p in err.problems[:5])


def _uploaded() -> dict[str, Lesson]:
    return _ss().setdefault("crs_uploaded", {})


def all_lessons() -> list[Lesson]:
    """The course's lessons in order: the repository's, with this session's uploads added (an
    upload with a repository lesson's id replaces it for this session)."""
    base, _problem = _course(str(LESSONS_DIR), _stamp(LESSONS_DIR))
    mine = _uploaded()
    merged = [lesson for lesson in base if lesson.id not in mine] + list(mine.values())
    return sorted(merged, key=lambda lesson: (lesson.order, lesson.source))


def find_lesson(lesson_id: str | None) -> Lesson | None:
    """The lesson with this id (an upload of this session first), or None."""
    if not lesson_id:
        return None
    return next((lesson for lesson in all_lessons() if lesson.id == lesson_id), None)


# --------------------------------------------------------------------------- progress and the URL

def _restore() -> None:
    """Once per session: the lesson and the solved lessons the URL names (later, the lesson a
    followed link names)."""
    ss = _ss()
    q = st.query_params
    ids = {lesson.id for lesson in all_lessons()}
    if ss.get("crs_url_done"):
        # a link followed inside the session (the lesson's link): open the lesson it names
        want = q.get("lesson")
        if want and want in ids and want != ss.get("crs_url_lesson"):
            ss["crs_lesson"] = want
        return
    ss["crs_url_done"] = True
    ss["crs_solved"] = [i for i in str(q.get("solved") or "").split(",") if i in ids]
    want = q.get("lesson")
    if want in ids:
        ss["crs_lesson"] = want
    elif want:
        ss["crs_missing"] = str(want)[:64]


def solved() -> list[str]:
    """The ids of the lessons solved in this session (and the URL)."""
    return list(_ss().get("crs_solved", []))


def mark_solved(lesson_id: str) -> None:
    """A lesson solved: kept in the session and written to the URL at once."""
    done = solved()
    if lesson_id not in done:
        _ss()["crs_solved"] = [*done, lesson_id]
    write_url()


def current_id() -> str | None:
    return _ss().get("crs_lesson")


def write_url() -> None:
    """The lesson shown and the solved lessons into the URL (only changed keys are sent)."""
    q = st.query_params
    want = {"lesson": current_id() or "", "solved": ",".join(solved())}
    _ss()["crs_url_lesson"] = want["lesson"]
    for k, v in want.items():
        if not v:
            if k in q:
                del q[k]
        elif q.get(k) != v:
            q[k] = v


def lesson_link(lesson_id: str, exercise: bool = False) -> str:
    """A relative link to the lesson (``#exercise``: to its exercise) on the Learn page."""
    return f"?lesson={lesson_id}" + ("#exercise" if exercise else "")


# --------------------------------------------------------------------------- the teacher's upload

def _uploaded_file() -> None:
    """The uploader's callback: a new file is validated; a good lesson is added and opened."""
    ss = _ss()
    up = ss.get("crs_upload")
    ss.pop("crs_upload_problems", None)
    ss.pop("crs_upload_added", None)
    if up is None:
        return
    data = up.getvalue()
    if len(data) > MAX_UPLOAD:
        ss["crs_upload_problems"] = (up.name, [f"the file is {len(data):,} bytes; a lesson file may have at most "
                                               f"{MAX_UPLOAD:,}"])
        return
    try:
        lesson = lesson_from_upload(data, up.name)
    except LessonError as err:
        ss["crs_upload_problems"] = (up.name, [
            (f"line {p.line}" if p.line is not None else "the whole file", p.message) for p in err.problems[:20]])
        return
    _uploaded()[lesson.id] = lesson
    ss["crs_upload_added"] = lesson.id
    go_to(lesson.id)


def upload_panel() -> None:
    """Upload a lesson file: validated (line-numbered problems in plain words), then added to the
    course for this session and opened."""
    ss = _ss()
    with st.expander("Add your own lesson", icon=":material/upload_file:",
                     expanded=bool(ss.get("crs_upload_problems") or ss.get("crs_upload_added"))):
        st.caption("A lesson is one markdown file with a small header: its title, stream, pattern and exercise "
                   "(the format is described in the project's lessons guide). It is checked here and added to "
                   "the course for this session.")
        st.file_uploader("Lesson file (.md)", type=["md"], key="crs_upload", on_change=_uploaded_file)
        problems = ss.get("crs_upload_problems")
        if problems:
            name, items = problems
            st.error(f"The lesson {escape.code(name)} cannot be used:", icon=":material/error:")
            for item in items:
                if isinstance(item, tuple):
                    st.markdown(f"- **{item[0]}**: {escape.markdown(item[1])}")
                else:
                    st.markdown(f"- {escape.markdown(item)}")
        added = find_lesson(ss.get("crs_upload_added"))
        if added is not None:
            st.success(f"Added {escape.markdown(added.title)} to the course for this session. Its link: "
                       f"{escape.code(lesson_link(added.id))} (the file is not stored: in another session, "
                       "upload it again).", icon=":material/check_circle:")


# --------------------------------------------------------------------------- the page

def _label(lessons: list[Lesson]) -> Any:
    done = set(solved())
    number = {lesson.id: n for n, lesson in enumerate(lessons, 1)}
    by_id = {lesson.id: lesson for lesson in lessons}

    def fmt(lesson_id: str) -> str:
        mark = "✓" if lesson_id in done else "○"
        lesson = by_id.get(lesson_id)
        title = escape.markdown(lesson.title) if lesson else escape.markdown(lesson_id)
        return f"{mark} {number.get(lesson_id, '?')}. {title}"

    return fmt


def _picked() -> None:
    _ss()["crs_lesson"] = _ss().get("crs_pick")
    write_url()


def go_to(lesson_id: str) -> None:
    """Open another lesson (a callback: the list and the URL follow)."""
    _ss()["crs_lesson"] = lesson_id
    _ss()["crs_pick"] = lesson_id
    write_url()


def render() -> None:
    """The course: the lesson list (with progress) beside the lesson shown."""
    from app import course_views

    _restore()
    ss = _ss()
    lessons = all_lessons()
    _base, problem = _course(str(LESSONS_DIR), _stamp(LESSONS_DIR))
    if problem:
        st.warning(f"A lesson file of the course does not validate: {escape.message(problem)}",
                   icon=":material/warning:")
    if not lessons:
        st.info("The course has no lessons yet.")
        upload_panel()
        return
    ids = [lesson.id for lesson in lessons]
    if ss.get("crs_lesson") not in ids:
        ss["crs_lesson"] = ids[0]
    if ss.get("crs_pick") != ss["crs_lesson"]:
        ss["crs_pick"] = ss["crs_lesson"]
    from app import course_present

    if course_present.active():
        write_url()
        k = ids.index(ss["crs_lesson"])
        lesson = lessons[k]
        course_present.view(lesson, k + 1, len(ids), ids[k - 1] if k > 0 else None,
                            ids[k + 1] if k + 1 < len(ids) else None)
        return
    left, right = st.columns([1, 3], gap="medium")
    with left:
        done = len([i for i in solved() if i in ids])
        st.progress(done / len(ids), text=f"{done} of {len(ids)} lessons solved")
        st.radio("Lessons", ids, key="crs_pick", format_func=_label(lessons), on_change=_picked,
                 label_visibility="collapsed")
        course_present.toggle()
        upload_panel()
    if ss.get("crs_missing"):
        right.warning(f"The link names the lesson {escape.code(ss['crs_missing'])}, which this course does not "
                      "have (an uploaded lesson must be uploaded again in a new session).",
                      icon=":material/link_off:")
    write_url()
    with right:
        lesson = next(lesson for lesson in lessons if lesson.id == ss["crs_lesson"])
        k = ids.index(lesson.id)
        course_views.lesson_view(lesson, k + 1, ids[k + 1] if k + 1 < len(ids) else None)
