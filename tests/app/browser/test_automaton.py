"""Browser test of the Automaton page (issues 13.7 and 15.5): the SES automaton of the event-set
preset and the uncertain engines' drawings of the cluster-monitoring preset, opened from their
Home cards, have no edge label over another label or a state's name, and no label text spills
out of its box (the SVG boxes as chromium lays them out). Playwright with Debian's chromium,
loopback only (tests/browser_support.py). Screenshots: ``tests/artifacts/automaton-*.png``."""
from __future__ import annotations

import pytest

from tests.browser_support import (ARTIFACTS, app_url, assert_readable, browser,  # noqa: F401 (fixtures)
                                   choose_engine, drawing_boxes, open_automaton, page)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _check_drawing(pg, name: str, states: set[str]) -> list[dict]:
    """The drawing's labels and state names: none overlaps another, none spills out of its box."""
    labels, drawn = drawing_boxes(pg)
    assert states <= {s["text"] for s in drawn}, (name, [s["text"] for s in drawn])
    assert len(labels) >= 4, (name, labels, drawn)
    assert_readable(labels, drawn, name)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"automaton-{name}.png"))
    return labels


def test_ses_automaton_of_the_event_set_preset_has_no_overlapping_labels(page, app_url):
    open_automaton(page, app_url, "Event sets, earliest and maximal")
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("Event-set automaton"), title  # the engine that selects earliest / maximal matches
    labels = _check_drawing(page, "ses-chemo-earliest", {"(1,{})", "(1,{c})", "(1,{p})", "(1,{c,p})", "(2,{b})"})
    text = " ".join(lb["text"] for lb in labels)
    assert "next set" in text and "16 days" in text
    legend = page.locator("[data-testid=stDataFrame]").first
    legend.scroll_into_view_if_needed()
    assert page.get_by_text("Legend").count() >= 1


def test_uncertain_automata_of_the_cluster_preset_have_no_overlapping_labels(page, app_url):
    open_automaton(page, app_url, "Cluster monitoring")
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("Uncertain, event-based"), title  # interval data opens on what runs it
    assert "interval data" in title and "point automaton" not in title
    assert page.locator("[data-testid=stAlert]", has_text="drawn is what uncertain-event runs").count() == 1
    labels = _check_drawing(page, "uncertain-event-cluster", {"start", "q{a}", "q{a,b,c}", "F", "α"})
    assert any(lb["text"].startswith("begin") for lb in labels)
    choose_engine(page, "Uncertain, point-based")
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith("Uncertain, point-based"), title
    labels = _check_drawing(page, "uncertain-point-cluster", {"a", "b", "c", "d", "F", "α", "R"})
    assert any("collapse" in lb["text"] for lb in labels) and any("expire" in lb["text"] for lb in labels)
