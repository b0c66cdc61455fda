"""Browser test of the Aggregate page: the app under ``streamlit run``, driven
by Playwright with Debian's chromium, loopback only (as tests/app/browser/test_debug.py).
Screenshots go to ``tests/artifacts/aggregate-*.png``."""
from __future__ import annotations

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, page  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open(pg, url: str) -> None:
    pg.goto(f"{url}/Aggregate")
    pg.get_by_role("heading", name="Aggregate", exact=True).first.wait_for()
    pg.get_by_text("output row(s)").first.wait_for()
    _idle(pg)
    _no_exception(pg)


def _table(pg) -> str:
    return pg.locator("table.aseq-counters").first.inner_text()


def test_aggregate_steps_through_example3_and_agrees_with_the_baseline(page, app_url):
    """T4 (Example 3): Next TRIG goes to d1, where a1's row reads 2 2 2 and Σ = 2 and the
    baseline built 2 matches; Forward to c3 strikes a1 out (it left the window)."""
    _open(page, app_url)
    page.get_by_role("button", name="Next TRIG").click()
    page.get_by_text("agree").first.wait_for()
    _idle(page)
    _no_exception(page)
    table = _table(page)
    rows = [r.split("\t") for r in table.splitlines()]
    a1 = next(r for r in rows if r and r[0].strip() == "a1")
    assert [c.split("\n")[0].strip() for c in a1[3:7]] == ["1", "2", "2", "2"]
    assert page.locator("b.aseq-sum").first.inner_text() == "2"
    assert "A-Seq 2 = baseline 2" in page.locator("[data-testid=stAlert]").filter(has_text="agree").first.inner_text()
    assert "Lemma 1" in page.locator("table.aseq-counters td[title]").first.get_attribute("title")
    _shot(page, "aggregate-example3-d1", height=1500)
    page.get_by_role("button", name="Forward").click()
    _idle(page)
    _no_exception(page)
    expired = page.locator("table.aseq-counters tr.expired")
    assert expired.count() == 1 and "a1" in expired.first.inner_text()
    assert "a1" not in [r.split("\t")[0].strip() for r in _table(page).splitlines()[1:] if "expired" not in r]
    _shot(page, "aggregate-example3-expired", height=1500)


def test_aggregate_negation_reset_and_pretree(page, app_url):
    _open(page, app_url)
    box = page.locator("[data-testid=stSelectbox]").filter(has_text="Example")
    box.click()
    page.get_by_role("option", name="A negated event resets the count").click()
    page.get_by_text("c1 resets (A,B)").first.wait_for()
    _idle(page)
    for _ in range(2):  # step 0 is a1; on to b1, c1
        page.get_by_role("button", name="Forward").click()
        _idle(page, settle=0.5)
    _no_exception(page)
    cells = page.locator("table.aseq-counters td").filter(has_text="reset (RR)")
    assert cells.count() == 1
    box.click()
    page.get_by_role("option", name="Five queries sharing their common start").click()
    page.get_by_text("Shared prefix tree").first.wait_for()
    _idle(page)
    _no_exception(page)
    tree = page.locator(".js-plotly-plot").first.inner_text()
    assert "Q1" in tree and "Q5" in tree
    _shot(page, "aggregate-pretree", height=1400)
