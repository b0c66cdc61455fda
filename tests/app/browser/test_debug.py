"""Browser tests of the Debug and Learn pages: the app under ``streamlit run``, driven by
Playwright with Debian's chromium, loopback only (as tests/app/browser/test_app.py). Screenshots go
to ``tests/artifacts/debug-*.png`` and ``learn-*.png``."""
from __future__ import annotations

import re
import time

import pytest

from tests.browser_support import (ARTIFACTS, _idle, _no_exception, _shot, app_url, browser, page,  # noqa: F401
                                   sync_api)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open_debug(pg, url: str) -> None:
    pg.goto(f"{url}/Debug")
    pg.get_by_role("heading", name="Debug", exact=True).first.wait_for()
    pg.get_by_text("events traced with").first.wait_for()
    _idle(pg)
    _no_exception(pg)


def _step_value(pg) -> int:
    """The Event # slider's value, 1-based (the second slider; the first is the speed)."""
    return int(pg.locator("[data-testid=stSliderThumbValue]").nth(1).inner_text(timeout=5000))


def test_debug_stock_preset_steps_to_a_match_and_highlights_it(page, app_url):
    _open_debug(page, app_url)
    assert page.get_by_text("8 events traced with").count() == 1
    assert page.get_by_text("event #1 (id 1) · Stock at ts 1").count() == 1
    page.get_by_role("button", name="Next match").click()
    page.get_by_text("2 matches completed on this step").wait_for()
    _idle(page)
    _no_exception(page)
    assert _step_value(page) == 6                    # the slider counts events from 1
    done = page.locator("[data-testid=stAlert]").filter(has_text="2 matches completed on this step").inner_text()
    assert "#1 · a=1,2,3,4,5 b=6" in done and "#2 · a=3,4 b=6" in done
    # the match's run: its path on the automaton (legend "match path"), its moves in words
    automaton = page.locator(".js-plotly-plot").first
    assert "match path" in automaton.inner_text()
    assert "live runs" in automaton.inner_text()
    page.get_by_text("Its run: begin #1 (id 1) (a[1] → a[i])").first.wait_for()
    # the run table lists both runs; the buffer shows the shared stacks
    assert page.get_by_role("heading", name="Runs (2)").count() == 1
    assert page.get_by_role("heading", name=re.compile(r"Shared buffer \(8 entries\)")).count() == 1
    # why it fired: the explanation text
    page.get_by_text("match #1 (engine nfab): a=[1,2,3,4,5] b=[6]").first.wait_for()
    _shot(page, "debug-stock-match", height=1500, scroll_to="Automaton")
    _shot(page, "debug-stock-buffer", height=1300, scroll_to="Runs (2)")
    # pick match #2 by number: R2's run (begin e3, take e4, proceed e6)
    box = page.get_by_role("spinbutton", name=re.compile("Highlight match #"))
    box.fill("2")
    box.press("Enter")
    page.get_by_text("Its run: begin #3 (id 3) (a[1] → a[i]) → take #4 (id 4) (a[i])").first.wait_for()
    _idle(page)
    _no_exception(page)
    _shot(page, "debug-stock-match2", height=1500, scroll_to="Automaton")


def test_debug_why_not_for_chosen_events(page, app_url):
    _open_debug(page, app_url)
    page.get_by_role("heading", name="Why not?").evaluate("e => e.scrollIntoView({block: 'start'})")
    box = page.locator("[data-testid=stMultiSelect]").filter(has_text="Events")
    for label in ("(id 1) · Stock", "(id 2) · Stock"):          # two from the list ...
        box.locator("input").click()
        page.get_by_role("option", name=re.compile(re.escape(label))).first.click()
        time.sleep(0.5)
    page.keyboard.press("Escape")
    _idle(page, settle=0.5)
    page.get_by_text("Pick events on a timeline").click()   # ... and e6 clicked on the timeline
    _idle(page, settle=0.5)
    plot = page.locator("[data-testid=stExpander]").filter(has_text="Pick events on a timeline") \
        .locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    x, y = plot.evaluate("""gd => { const L = gd._fullLayout, r = gd.getBoundingClientRect();
        return [r.left + L.xaxis._offset + L.xaxis.l2p(6), r.top + L.yaxis._offset + L.yaxis.l2p(0)]; }""")
    page.mouse.click(x, y)
    _idle(page)
    picked = box.inner_text()
    assert "(id 6) · Stock @ 6" in picked and "(id 1) · Stock @ 1" in picked, picked
    page.get_by_role("button", name="Why not?").click()
    page.get_by_text("is not a match").first.wait_for()
    _idle(page)
    _no_exception(page)
    answer = page.locator("[data-testid=stAlert]").filter(has_text="is not a match").first.inner_text()
    assert "1,2,6" in answer and "strategy" in answer
    assert "event 3 satisfies the take formula" in answer
    assert page.locator("[data-testid=stAlert]").filter(has_text="Did you mean match #1?").count() == 1
    _shot(page, "debug-why-not", height=1300, scroll_to="Why not?")
    # the nearest match is one click away
    page.get_by_role("button", name="Show match #1").click()
    _idle(page)
    assert _step_value(page) == 6


def test_debug_plays_a_few_steps(page, app_url):
    """Play on a generated stream of 300 stock ticks: the step moves on by itself, at the
    chosen speed, without recomputing the trace; the per-step render time is printed."""
    _open_debug(page, app_url)
    page.get_by_text("Generated stream").click()
    page.get_by_text("300 events traced with").wait_for(timeout=180_000)
    _idle(page)
    speed = page.get_by_role("slider").first
    speed.focus()
    speed.press("ArrowRight")          # 2 -> 4 steps per second
    _idle(page)
    page.get_by_role("button", name="Play").click()
    seen = []
    t0 = time.time()
    while time.time() - t0 < 8:
        try:
            seen.append((round(time.time() - t0, 1), _step_value(page)))
        except sync_api.Error:
            pass
        time.sleep(0.5)
    page.get_by_role("button", name="Pause").click()
    _idle(page, settle=2.0)
    _no_exception(page)
    steps = [v for _t, v in seen]
    assert steps[-1] >= 5, seen            # at 4 steps/s, 8 s of play is far more than 5 steps
    assert len(set(steps)) >= 3, seen      # and the page showed several of them on the way
    caption = page.get_by_text(re.compile(r"This step rendered in \d+ ms")).first.inner_text()
    print(f"\nplay at 4 steps/s for 8 s: step values seen {seen}\n{caption}")
    (ARTIFACTS / "debug-play.txt").write_text(f"{seen}\n{caption}\n")
    _shot(page, "debug-play", height=1500, scroll_to="Automaton")


def test_learn_shows_the_four_strategies_with_their_counts(page, app_url):
    page.goto(f"{app_url}/Learn")
    page.get_by_role("tab", name="Explore").click()  # the experiments, beside the course
    page.get_by_role("heading", name="One stream, four strategies").wait_for()
    _idle(page)
    _no_exception(page)
    values = page.locator("[data-testid=stMetric]").filter(has_text="matches")
    got = [v.locator("[data-testid=stMetricValue]").inner_text().strip() for v in values.all()]
    assert got[:4] == ["2", "2", "3", "68"], got
    for s in ("strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"):
        assert page.get_by_text(s, exact=True).count() >= 1
    _shot(page, "learn-strategies", height=1500, scroll_to="One stream, four strategies")
    page.get_by_role("heading", name="Lazy vs eager evaluation").evaluate("e => e.scrollIntoView({block: 'start'})")
    page.get_by_text("b → c → a").first.wait_for()
    _shot(page, "learn-lazy-eager", height=1300, scroll_to="Lazy vs eager evaluation")
