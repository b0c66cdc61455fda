"""Browser test of the Uncertain time page: the app under ``streamlit
run``, driven by Playwright with Debian's chromium, loopback only (as tests/app/browser/test_app.py):
the page opens on the cluster preset, steps, and shows ranges and confidences. Screenshots
go to ``tests/artifacts/uncertain-*.png``."""
from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser_support import ARTIFACTS, _idle, _no_exception, _shot, app_url, browser, page  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _step_value(pg) -> int:
    return int(pg.locator("[data-testid=stSliderThumbValue]").first.inner_text(timeout=5000))


def _expected_cluster() -> list[tuple[str, tuple[int, int], str]]:
    """The possible-worlds oracle on the cluster preset: (signature text, range, n/d)."""
    from engine.dsl import parse
    from engine.engines.uncertain.oracle import run_uncertain
    from sample_streams import events, load

    ms = run_uncertain(parse(load("cluster").presets["query1"]), events("cluster"))
    return [(" ".join(f"{v}={ids[0]}" for v, ids in m.bindings), m.range, m.to_json()["confidence_exact"])
            for m in ms]


def test_uncertain_page_steps_through_the_cluster_preset(page, app_url):
    page.goto(f"{app_url}/Uncertain_time")
    page.get_by_role("heading", name="Uncertain time", exact=True).first.wait_for()
    page.get_by_text("agrees with the possible-worlds oracle").first.wait_for(timeout=120_000)
    _idle(page)
    _no_exception(page)
    assert page.get_by_text("53 events").count() >= 1
    box = page.get_by_label("Pattern (DSL)")
    expect(box).to_have_value(re.compile(r"SEQ\(TaskStart"), timeout=60_000)  # filled once the preset loaded
    text = box.input_value()  # the cluster preset: Query 1
    assert "SEQ(TaskStart a, CPU b, TaskFinish c, CPU d)" in text and "WITHIN 15 seconds" in text
    assert _step_value(page) == 0
    assert page.get_by_text("No result is final yet at this step.").count() == 1
    _shot(page, "uncertain-cluster-start", height=1400)
    # step by step: Forward moves the slider, the frontier line moves with it
    page.get_by_role("button", name="Forward").click()
    _idle(page)
    assert _step_value(page) == 1
    timeline = page.locator(".js-plotly-plot").first
    assert "frontier = " in timeline.inner_text()
    # on to the first step that emits a signature, then to the end of the stream
    page.get_by_role("button", name="Next result").click()
    page.get_by_text("emitted here").first.wait_for()
    _idle(page)
    _no_exception(page)
    assert _step_value(page) > 1
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("End")
    page.get_by_text("end of stream").first.wait_for()
    _idle(page)
    _no_exception(page)
    expected = _expected_cluster()
    bars = page.locator(".js-plotly-plot").nth(1).inner_text()
    for _sig, _rng, exact in expected:  # every signature's confidence gauge shows its exact value
        assert f"({exact})" in bars, (exact, bars)
    # the explainer names a signature's range and confidence
    sig, (lo, hi), exact = expected[-1]
    box = page.locator("[data-testid=stSelectbox]").filter(has_text="Signature")
    box.scroll_into_view_if_needed()
    box.locator("input").click()
    page.get_by_role("option", name=sig).first.click()
    _idle(page)
    _no_exception(page)
    page.get_by_text(f"range [{lo}, {hi}], confidence {exact}").first.wait_for()
    _shot(page, "uncertain-cluster-end", height=1800)
    page.get_by_role("heading", name="Why this confidence?").evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(1.0)
    page.screenshot(path=str(ARTIFACTS / "uncertain-cluster-explainer.png"))
