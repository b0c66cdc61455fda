"""Browser test of the match-window views: the chemotherapy preset opened from
its Home card, traced on the Debug page in match windows (as ``cep run`` by default), then with
the engine ``match-windows``, stepped to the event that
completes patient 1's windows, and the Learn page's pruning view. Playwright with Debian's
chromium, loopback only (fixtures of tests/app/browser/test_debug.py). Screenshots:
``tests/artifacts/windows-*.png``."""
from __future__ import annotations

import time

import pytest

from tests.app.browser.test_debug import _idle, _no_exception, _shot, _step_value, app_url, browser, page  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open_chemo(page, url: str) -> None:
    page.goto(url)
    _idle(page)
    card = page.locator("[data-testid=stVerticalBlock]").filter(
        has=page.get_by_role("heading", name="Chemotherapy")).last
    card.get_by_role("button", name="Open in Design").click()
    page.get_by_role("heading", name="Design", exact=True).first.wait_for()
    _idle(page)


def test_debug_shows_why_windows_were_skipped_on_the_chemo_preset(page, app_url):
    _open_chemo(page, app_url)
    page.get_by_role("link", name="Debug").click()
    page.get_by_text("events traced with").first.wait_for()
    _idle(page)
    # auto runs an event-set pattern in match windows, as `cep run` does (the numbering of cep run)
    assert page.get_by_text("events traced with match windows around").count() >= 1
    page.get_by_role("combobox", name="Engine", exact=True).click()  # not the Compare view's "Engine B"
    page.get_by_role("option", name="match windows").first.click()
    page.get_by_text("events traced with match windows").first.wait_for()
    _idle(page)
    _no_exception(page)
    page.get_by_role("button", name="Next match").click()
    page.get_by_text("Windows completed on this step").first.wait_for()
    _idle(page)
    _no_exception(page)
    assert _step_value(page) == 14  # event #14 (e14) is the first patient-1 event beyond 16 days of e1
    done = page.locator("[data-testid=stMarkdownContainer]").filter(
        has_text="Windows completed on this step").first.inner_text()
    assert "window of e1, key 1: matcher called, 4 match(es)" in done
    assert "window of e2, key 1: skipped: the first event e2 fits no first variable (c, p)" in done
    assert "window of e3, key 1: skipped: no candidate for c" in done
    lanes = page.locator(".js-plotly-plot").filter(has_text="partition key").first
    text = lanes.inner_text()
    assert "filtered" in text and "e6" in text and "e14" in text
    assert page.get_by_text("Window of key 1").count() >= 1
    _shot(page, "windows-debug-chemo", height=1500, scroll_to="Match windows")


def test_learn_pruning_view_shows_the_calls_saved(page, app_url):
    page.goto(f"{app_url}/Learn")
    page.get_by_role("tab", name="Explore").click(timeout=120_000)  # the experiments, beside the course
    page.get_by_role("heading", name="Pruning by match windows").wait_for(timeout=120_000)
    _idle(page, settle=1.5)
    _no_exception(page)
    page.get_by_role("heading", name="Pruning by match windows").evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(1.0)
    metrics = page.locator("[data-testid=stMetric]")
    texts = " | ".join(metrics.all_inner_texts())
    assert "14 → 3" in texts and "100 → 15" in texts, texts
    _shot(page, "windows-learn-pruning", height=1400, scroll_to="Pruning by match windows")
