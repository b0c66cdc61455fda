"""Browser test of the course on the Learn page: a student goes through lessons 1 to 4, answers
one exercise wrong (and sees why), one right by picking events and one right by choosing (both
accepted), asks for a hint, then reloads the page and finds the same lesson and the solved
lessons marked. Playwright with Debian's chromium, loopback only. Every step waits for what it
needs on the page (widgets, texts), never for a fixed time alone. Screenshots:
``tests/artifacts/course-*.png``."""
from __future__ import annotations

import re

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, page  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _lesson(page, heading: str) -> None:
    page.get_by_role("heading", name=heading).first.wait_for(timeout=120_000)
    _idle(page)
    _no_exception(page)


def _pick_events(page, labels: list[str]) -> None:
    """Pick events in the list under the timeline (the fallback of clicking on the chart)."""
    box = page.locator("[data-testid=stMultiSelect]").filter(has_text="The events that take part in a match")
    for label in labels:
        box.locator("input").click()
        page.get_by_role("option", name=label, exact=True).click()
        box.get_by_text(label, exact=True).wait_for()
    page.keyboard.press("Escape")
    _idle(page)


def _lesson_list(page):
    return page.locator("[data-testid=stRadio]").filter(has_text="Events and streams").first


def test_a_student_goes_through_three_lessons_and_keeps_the_progress(page, app_url):
    page.goto(f"{app_url}/Learn")
    _lesson(page, "1. Events and streams")

    # lesson 1: a wrong guess (event 1 clicked on the timeline), explained
    chart = page.locator("[data-testid=stPlotlyChart]").first
    chart.locator(".scatterlayer .trace").first.locator("path.point").first.click(force=True)
    box = page.locator("[data-testid=stMultiSelect]").filter(has_text="The events that take part in a match")
    box.get_by_text("1 · Temp at 1", exact=True).wait_for()
    _idle(page)
    page.get_by_role("button", name="Check").first.click()
    page.get_by_text("Why these are no match").wait_for()
    _idle(page)
    _no_exception(page)
    assert page.get_by_text(re.compile(r"^Not quite: 1 picked event in no match")).count() >= 1
    assert page.get_by_text("event 1 is in no match").count() >= 1
    _shot(page, "course-wrong", height=1600, scroll_to="Exercise")
    page.get_by_role("button", name="Next lesson").click()

    # lesson 2: the right events, accepted; the list marks the lesson solved
    _lesson(page, "2. SEQ and variables")
    _pick_events(page, ["1 · Login at 1", "3 · Buy at 3", "4 · Login at 4", "5 · Buy at 5"])
    page.get_by_role("button", name="Check").first.click()
    page.get_by_text(re.compile(r"^Accepted")).first.wait_for()
    _idle(page)
    _no_exception(page)
    _lesson_list(page).get_by_text("✓ 2. SEQ and variables").wait_for()
    _shot(page, "course-right", height=1600, scroll_to="Exercise")
    page.get_by_role("button", name="Next lesson").click()

    # lesson 3: a hint on demand
    _lesson(page, "3. Predicates across variables")
    page.get_by_role("button", name="Show a hint").click()
    page.get_by_role("button", name="Another hint").wait_for()
    _no_exception(page)

    # lesson 4, chosen in the list: the right window, accepted
    _lesson_list(page).get_by_text("4. Time and count windows").click()
    _lesson(page, "4. Time and count windows")
    page.locator("[data-testid=stRadio]").filter(has_text="Your choice").get_by_text("10 s", exact=True).click()
    _idle(page)
    page.get_by_role("button", name="Check").first.click()
    page.get_by_text(re.compile(r"^Accepted")).first.wait_for()
    _lesson_list(page).get_by_text("✓ 4. Time and count windows").wait_for()
    _idle(page)
    assert "lesson=windows" in page.url and "solved=" in page.url, page.url

    # a reload: the same lesson, the solved ones marked
    page.reload()
    _lesson(page, "4. Time and count windows")
    _lesson_list(page).get_by_text("✓ 2. SEQ and variables").wait_for()
    _lesson_list(page).get_by_text("✓ 4. Time and count windows").wait_for()
    assert _lesson_list(page).get_by_text("○ 1. Events and streams").count() == 1
    assert page.get_by_text(re.compile(r"^2 of \d+ lessons solved")).count() == 1
    _no_exception(page)
    _shot(page, "course-reloaded", height=1300)


def test_open_in_debug_steps_through_the_lessons_run(page, app_url):
    page.goto(f"{app_url}/Learn?lesson=seq-and-variables")
    _lesson(page, "2. SEQ and variables")
    _shot(page, "course-lesson", height=1400)
    page.get_by_role("button", name="Open in Debug").click()
    page.get_by_role("heading", name="Debug", exact=True).first.wait_for(timeout=120_000)
    page.get_by_text(re.compile(r"events traced")).first.wait_for(timeout=120_000)
    _idle(page)
    _no_exception(page)
    assert "data=lesson" in page.url and "lesson=seq-and-variables" in page.url and "event=3" in page.url, page.url
    data = page.locator("[data-testid=stRadio]").filter(has_text="Generated stream").first
    assert data.get_by_role("radio", name="Lesson", exact=True).is_checked()
    assert page.get_by_text("5 events of the lesson SEQ and variables.").count() == 1
    assert page.locator("[data-testid=stCode]").filter(has_text="PATTERN SEQ(Login l, Buy b)").count() >= 1
    _shot(page, "course-open-in-debug", height=1400)


def test_presentation_mode_moves_with_the_arrow_keys(page, app_url):
    """A teacher opens a lesson straight on the projector from its link (``present=1``): the
    lesson alone in large type, Right / Left move through the course, Esc leaves."""
    from engine.lessons import course as load_course
    from tests.browser_support import ROOT

    lessons = load_course(str(ROOT / "lessons"))
    page.goto(f"{app_url}/Learn?lesson={lessons[0].id}&present=1")
    _lesson(page, f"1. {lessons[0].title}")
    assert page.locator("[data-testid=stSidebar]").is_hidden()
    page.get_by_role("heading", name=f"1. {lessons[0].title}").first.click()  # the page has the keyboard's focus
    page.keyboard.press("ArrowRight")
    _lesson(page, f"2. {lessons[1].title}")
    assert re.search(rf"lesson={re.escape(lessons[1].id)}", page.url) and "present=1" in page.url
    page.keyboard.press("ArrowLeft")
    _lesson(page, f"1. {lessons[0].title}")
    _shot(page, "course-presentation")
    page.keyboard.press("Escape")
    page.locator("[data-testid=stRadio]").filter(has_text="Events and streams").first.wait_for()
    assert "present=1" not in page.url
