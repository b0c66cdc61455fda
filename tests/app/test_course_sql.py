"""AppTest of the course's MATCH_RECOGNIZE lesson (lessons/15-match-recognize.md) on the Learn
page: a query that finds other matches is answered with the first difference, the reference
query is accepted, and a query that does not parse names its line."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.lessons import load_lesson
from tests.app.test_course import LEARN, _ok
from tests.app.test_pattern_editor import type_text
from tests.lessons.support import LESSONS

pytestmark = pytest.mark.usefixtures("no_spark_warmup")

LESSON = load_lesson(LESSONS / "15-match-recognize.md")
EDITOR = f"crs_editor_{LESSON.id}"
CHECK = f"crs_check_{LESSON.id}"


def _learn() -> AppTest:
    at = AppTest.from_file(LEARN, default_timeout=180)
    at.query_params["lesson"] = LESSON.id
    at.run()
    _ok(at)
    return at


def test_a_query_is_checked_wrong_then_accepted():
    at = _learn()
    type_text(at, LESSON.pattern, EDITOR).run()
    at.button(key=CHECK).click().run()
    _ok(at)
    assert any(e.value.startswith("Not yet: a different match") for e in at.error), [e.value for e in at.error]
    type_text(at, LESSON.exercise.reference, EDITOR).run()
    at.button(key=CHECK).click().run()
    _ok(at)
    assert any("Accepted" in s.value and "hidden variations" in s.value for s in at.success)


def test_a_query_that_does_not_parse_names_its_line():
    at = _learn()
    type_text(at, "SELECT * FROM ticks MATCH_RECOGNIZE (\n  ORDER BY ts\n  PATTERN (STRT DOWN+\n"
                  "  DEFINE DOWN AS price < PREV(price))", EDITOR).run()
    at.button(key=CHECK).click().run()
    _ok(at)
    assert any("line 4" in e.value for e in at.error), [e.value for e in at.error]
