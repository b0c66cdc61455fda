"""Browser test of the Debug page on a 100k-event generated stream, opened from a URL at a
late event: the page fits in three screens, stepping moves the slider and the URL, and a
reload restores the view. One server (``app_url``, module-scoped) and one page serve the
whole module. Screenshot: ``tests/artifacts/debug-long.png``."""
from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, page, sync_api  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N = 100_000
PATTERN = ("PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_next_match AND [symbol] AND a.volume > 1400 "
           "AND b.price > a.price\nWITHIN 10 seconds")
SCREEN = 900                   # px: a laptop screen's height
WIDTH = 1500


def _step_value(pg) -> int:
    """The Event # slider's value (the second slider; the first is the speed)."""
    text = pg.locator("[data-testid=stSliderThumbValue]").nth(1).inner_text(timeout=10_000)
    return int(text.replace(",", ""))


def _page_height(pg) -> int:
    """The height of the page's content (Streamlit scrolls inside its own container)."""
    return int(pg.evaluate("""() => Math.max(...[document.body,
        document.querySelector('[data-testid=stMain]'),
        document.querySelector('[data-testid=stAppViewContainer]'),
        document.querySelector('[data-testid=stMainBlockContainer]')].filter(Boolean).map(e => e.scrollHeight))"""))


def _wait_step(pg, want: int, seconds: float = 30) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if _step_value(pg) == want:
                return
        except sync_api.Error:
            pass
        time.sleep(0.3)
    assert _step_value(pg) == want


def test_a_late_event_of_100k_from_a_url_fits_three_screens_and_survives_a_reload(page, app_url):
    query = urlencode({"pattern": PATTERN, "data": "generated", "gen": "stocks", "n": N, "seed": 1, "event": 99_990})
    page.set_viewport_size({"width": WIDTH, "height": SCREEN})
    t0 = time.time()
    page.goto(f"{app_url}/Debug?{query}")
    page.get_by_text("100,000 events traced with").first.wait_for(timeout=180_000)
    _idle(page)
    _no_exception(page)
    opened = time.time() - t0
    assert _step_value(page) == 99_990
    page.get_by_text("event #99,990 (id").first.wait_for()
    height = _page_height(page)
    print(f"\n100k events: opened at event #99,990 in {opened:.1f} s; page height {height} px")
    _shot(page, "debug-long", height=max(SCREEN * 3, height + 50))
    assert height <= 3 * SCREEN, height
    page.set_viewport_size({"width": WIDTH, "height": SCREEN})
    # a step forward: the slider and the URL follow
    page.get_by_role("button", name="Forward").click()
    _wait_step(page, 99_991)
    _idle(page)
    _no_exception(page)
    page.get_by_text("event #99,991 (id").first.wait_for()
    deadline = time.time() + 10
    while parse_qs(urlparse(page.url).query).get("event") != ["99991"] and time.time() < deadline:
        time.sleep(0.3)
    assert parse_qs(urlparse(page.url).query).get("event") == ["99991"], page.url
    assert parse_qs(urlparse(page.url).query).get("pattern") == [PATTERN]
    # a reload keeps the view
    page.reload()
    page.get_by_text("100,000 events traced with").first.wait_for(timeout=180_000)
    _idle(page)
    _no_exception(page)
    assert _step_value(page) == 99_991
    page.get_by_text("event #99,991 (id").first.wait_for()
    # the last match: its path and why it fired, still within three screens
    page.get_by_role("button", name="Match", exact=True).click()
    page.get_by_text(re.compile(r"Why match #[\d,]+ fired")).first.wait_for()
    _idle(page)
    _no_exception(page)
    height = _page_height(page)
    print(f"at the last match: page height {height} px")
    _shot(page, "debug-long-match", height=max(SCREEN * 3, height + 50))
    assert height <= 3 * SCREEN, height
