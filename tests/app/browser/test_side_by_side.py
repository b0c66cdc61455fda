"""Browser test of the Debug page's side-by-side stepping and of the figures' export: a person
chooses two strategies, steps both runs together, jumps to where they diverge (the step the
engine's comparison names), and downloads the shared timeline from the chart's toolbar as an
SVG under a meaningful name with its caption in it. Playwright with Debian's chromium, loopback
only (tests/browser_support.py). Screenshot: ``tests/artifacts/debug-side-by-side.png``."""
from __future__ import annotations

import re

import pytest

import sample_streams
from engine.checkpoints import CheckpointedRun
from engine.dsl import parse
from engine.run_choice import choose_run
from engine.step_compare import compare
from tests.browser_support import (ARTIFACTS, _idle, _no_exception, _shot, app_url, browser, page,  # noqa: F401
                                   sync_api)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

A, B = "skip_till_next_match", "skip_till_any_match"


def _engine_divergence() -> int:
    """The first diverging step the engine finds for the stock preset under A and B (0-based)."""
    events = sample_streams.events("stocks_sase")
    text = sample_streams.load("stocks_sase").presets["stock_trend"]
    runs = []
    for strategy in (A, B):
        p = parse(re.sub(r"skip_till_next_match|skip_till_any_match", strategy, text))
        runs.append(CheckpointedRun(choose_run(p, "auto", "auto", rates={"Stock": len(events)}), p, events))
    got = compare(*runs).divergence
    assert got is not None
    return got.step


def _choose(pg, label: str, option: str) -> None:
    box = pg.locator("[data-testid=stSelectbox]").filter(has_text=label)
    box.scroll_into_view_if_needed()
    box.locator("input").click()
    pg.get_by_role("option", name=option, exact=True).first.click()
    _idle(pg, settle=0.5)


def _sbs_step(pg) -> int:
    """The side-by-side slider's value (1-based: event #)."""
    slider = pg.locator(".st-key-dbg_sbs_slider [data-testid=stSliderThumbValue]")
    return int(slider.inner_text(timeout=10_000))


def test_two_strategies_jump_to_where_they_diverge_and_export_the_timeline(page, app_url):
    page.goto(f"{app_url}/Debug")
    page.get_by_role("heading", name="Debug", exact=True).first.wait_for()
    page.get_by_text("events traced with").first.wait_for(timeout=180_000)
    _idle(page)
    _no_exception(page)
    page.get_by_text("Step two runs side by side").first.click()
    _idle(page, settle=0.5)
    _choose(page, "Strategy A", A)
    _choose(page, "Strategy B", B)
    page.get_by_role("button", name="Step side by side").click()
    page.get_by_role("button", name="Jump to where they diverge").wait_for(timeout=120_000)
    _idle(page)
    _no_exception(page)
    assert _sbs_step(page) == 1
    page.get_by_role("button", name="Jump to where they diverge").click()
    banner = page.locator("[data-testid=stAlert]").filter(has_text="They diverge here")
    banner.wait_for(timeout=60_000)
    _idle(page)
    _no_exception(page)
    expected = _engine_divergence()
    assert _sbs_step(page) == expected + 1
    assert f"event #{expected + 1} (id {expected + 1})" in banner.inner_text()
    assert "A keeps 1 live run(s), B 2" in banner.inner_text()
    assert f"sbs_event={expected + 1}" in page.url and "sbs=strategy" in page.url
    # the shared timeline: its caption drawn in it, the camera downloading an SVG named for the pair
    chart = page.locator(".st-key-dbg_sbs_timeline .js-plotly-plot")
    chart.scroll_into_view_if_needed()
    assert "they first differ at event #2" in chart.inner_text()
    _shot(page, "debug-side-by-side", height=1500)
    chart.hover()
    camera = chart.locator(".modebar-btn[data-title='Download plot']")
    camera.wait_for(timeout=10_000)
    with page.expect_download(timeout=60_000) as info:
        camera.click()
    download = info.value
    assert download.suggested_filename == f"side-by-side-{A}-vs-{B}.svg"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / download.suggested_filename
    download.save_as(str(path))
    svg = path.read_text()
    assert svg.lstrip().startswith("<svg") and "they first differ at event #2" in svg
