"""The course's figure (visualizers/course_view.py) and the Debug page's lesson data source
(app/debug_data.py) opened from a link."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.events import Event
from engine.lessons import course, lesson_events, lesson_run
from visualizers import course_view as CV

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
DEBUG = str(ROOT / "app" / "pages" / "4_Debug.py")
BY_ID = {lesson.id: lesson for lesson in course(str(ROOT / "lessons"))}


def test_the_figure_names_each_event_and_rings_the_picked_ones():
    lesson = BY_ID["seq-and-variables"]
    events = lesson_events(lesson)
    fig = CV.stream_figure(events, picked=["1", "5"])
    ids = [i for t in fig.data for i in t.customdata]
    assert sorted(ids, key=int) == [str(e.id) for e in events]
    rings = {c: w for t in fig.data for c, w in zip(t.customdata, t.marker.line.width)}
    assert rings["1"] == rings["5"] == 4 and rings["3"] == 0
    assert fig.layout.title.text == "The stream"


def test_revealed_matches_are_rows_joining_their_events():
    lesson = BY_ID["seq-and-variables"]
    matches = CV.match_rows(lesson_run(lesson).matches)
    assert matches == [{"l": [1], "b": [3]}, {"l": [1], "b": [5]}, {"l": [4], "b": [5]}]
    fig = CV.stream_figure(lesson_events(lesson), matches=matches)
    rows = [t for t in fig.data if t.name.startswith("match ")]
    assert [t.name for t in rows] == ["match 1", "match 2", "match 3"]
    assert list(rows[0].x) == [1, 3] and list(rows[0].text) == ["l=1", "b=3"]
    assert fig.layout.title.text == "The stream and its 3 matches"


def test_names_from_a_lesson_are_escaped_in_the_figure():
    evil = "<b onmouseover=alert(1)>X</b>"
    events = [Event(id=1, type=evil, ts=1, attrs={"note": "<img src=x>"}, seq=0)]
    fig = CV.stream_figure(events, matches=[{"a": [1]}])
    text = fig.to_json()
    assert "<b onmouseover" not in text and "<img" not in text


def test_debug_opens_a_lessons_stream_from_its_link():
    lesson = BY_ID["negation"]
    at = AppTest.from_file(DEBUG, default_timeout=180)
    for k, v in {"pattern": lesson.pattern.strip(), "data": "lesson", "lesson": lesson.id, "engine": "auto",
                 "event": "5"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="dbg_source").value == "lesson"
    assert at.selectbox(key="dbg_lesson").value == lesson.id
    assert at.session_state["cep_text"].strip() == lesson.pattern.strip()
    assert at.session_state["dbg_step"] == 4
    assert any(f"{len(lesson_events(lesson))} events of the lesson" in c.value for c in at.caption)
    assert "lesson" in str(at.query_params["data"])


def test_debug_says_so_when_the_link_names_an_unknown_lesson():
    at = AppTest.from_file(DEBUG, default_timeout=180)
    at.query_params["data"] = "lesson"
    at.query_params["lesson"] = "gone"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("gone" in w.value for w in at.warning)


def test_a_chart_click_adds_an_event_and_a_second_click_drops_it(monkeypatch):
    from app import course_exercises as CE

    lesson = BY_ID["seq-and-variables"]
    state: dict = {}
    monkeypatch.setattr(CE, "_ss", lambda: state)

    def click(*ids: str, n: int = 0) -> list[str]:
        CE.take_selection(lesson, {"selection": {"points": [{"customdata": i, "n": n} for i in ids]}})
        return state.get(f"crs_events_{lesson.id}", [])

    assert click("3") == ["3"]
    assert click("1") == ["1", "3"]          # added, in stream order
    assert click("4", "5") == ["1", "3", "4", "5"]  # a box: both added
    assert click("3") == ["1", "4", "5"]     # a picked event clicked again: dropped
    CE.take_selection(lesson, None)          # no selection: nothing changes
    assert state[f"crs_events_{lesson.id}"] == ["1", "4", "5"]
    assert click("3") == ["1", "4", "5"]     # the same selection again (no new click): nothing changes
    assert click() == ["1", "4", "5"]        # the selection cleared
    assert click("3") == ["1", "3", "4", "5"]  # then the same event clicked again: picked
