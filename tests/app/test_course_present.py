"""Presentation mode of the course (app/course_present.py): large type and the lesson's figure
alone with its caption, Left / Right / Esc on the buttons, the mode and the lesson in the URL,
and a link with ``present=1`` opening straight into it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import figures
from engine.lessons import course

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

ROOT = Path(__file__).resolve().parents[2]
LEARN = str(ROOT / "app" / "pages" / "5_Learn.py")
LESSONS = course(str(ROOT / "lessons"))


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _param(at: AppTest, key: str) -> str | None:
    v = at.query_params.get(key)
    return v[0] if isinstance(v, list) else v


def _slide(at: AppTest) -> dict:
    """The slide's figure (its plotly spec)."""
    charts = [c for c in at.get("plotly_chart") if "crs_present_fig_" in str(c.proto.id)]
    assert len(charts) == 1, "the figure alone"
    return json.loads(charts[0].proto.spec)


def test_the_toggle_shows_the_lesson_as_a_slide_and_the_arrows_move_through_the_course():
    at = AppTest.from_file(LEARN, default_timeout=180)
    at.run()
    _ok(at)
    at.toggle(key="crs_present").set_value(True).run()
    _ok(at)
    assert _param(at, "present") == "1"
    assert at.title[-1].value == f"1. {LESSONS[0].title}"
    spec = _slide(at)
    captions = [a for a in spec["layout"]["annotations"] if a.get("name") == figures.CAPTION_NAME]
    assert captions and f"Lesson 1 of {len(LESSONS)}" in captions[0]["text"]
    assert not at.get("radio"), "no lesson list on the slide"
    assert any("font-size: 1.55rem" in m.value for m in at.markdown), "large type"
    buttons = {b.key: b for b in at.button}
    assert buttons["crs_present_prev"].disabled and not buttons["crs_present_next"].disabled
    shortcuts = {b.key: b.proto.shortcut for b in at.button if b.key.startswith("crs_present_")}
    assert shortcuts == {"crs_present_prev": "left", "crs_present_exit": "escape", "crs_present_next": "right"}
    at.button(key="crs_present_next").click().run()
    _ok(at)
    assert at.title[-1].value == f"2. {LESSONS[1].title}" and _param(at, "lesson") == LESSONS[1].id
    at.button(key="crs_present_prev").click().run()
    assert at.title[-1].value == f"1. {LESSONS[0].title}"
    at.button(key="crs_present_exit").click().run()
    _ok(at)
    assert _param(at, "present") is None
    assert at.radio(key="crs_pick").value == LESSONS[0].id, "back to the course with its list"


def test_a_link_opens_a_lesson_straight_on_the_projector():
    at = AppTest.from_file(LEARN, default_timeout=180)
    at.query_params["lesson"] = LESSONS[2].id
    at.query_params["present"] = "1"
    at.run()
    _ok(at)
    assert at.title[-1].value == f"3. {LESSONS[2].title}"
    assert _slide(at)["layout"]["font"]["size"] == 18


def test_the_course_figure_carries_its_caption_for_export():
    at = AppTest.from_file(LEARN, default_timeout=180)
    at.run()
    chart = next(c for c in at.get("plotly_chart") if f"crs_fig_{LESSONS[0].id}" in str(c.proto.id))
    spec = json.loads(chart.proto.spec)
    assert any(a.get("name") == figures.CAPTION_NAME and LESSONS[0].title in a["text"]
               for a in spec["layout"]["annotations"])
    assert json.loads(chart.proto.config)["toImageButtonOptions"]["filename"] == f"lesson-{LESSONS[0].id}"
