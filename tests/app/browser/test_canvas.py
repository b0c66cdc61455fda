"""Browser tests of the Design canvas: the page's own dialog adds, edits and deletes a component
(the DSL follows), the library's generic node dialog never shows, the dialog is not clipped by
the canvas, the zoom controls cover no node and the same pattern comes back at the same zoom.

The app, browser and page fixtures are those of ``tests/browser_support.py`` (loopback only)."""
from __future__ import annotations

import re
import time

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, choose_option, page, sync_api  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FLOW = "iframe[title='streamlit_flow.streamlit_flow']"
# the labels of streamlit-flow-component's own node and pane dialogs (its frontend bundle)
LIBRARY_WORDS = ["Create New Node", "Edit Node", "Node Type", "Source Position", "Target Position", "Delete Node",
                 "Edit Edge", "Delete Edge", "Reset Layout"]


def _frame(pg):
    return pg.frame_locator(FLOW)


def _nodes(pg):
    """The component and group nodes (not the invisible frame the canvas is fitted to)."""
    return _frame(pg).locator(".react-flow__node:not([data-id^='frame'])")


def _open_design(pg, app_url) -> None:  # noqa: F811 - the fixture's value
    pg.goto(f"{app_url}/Design")
    _idle(pg)
    _nodes(pg).first.wait_for(timeout=60_000)
    _wait(lambda: _nodes(pg).count() == 2, "the preset's two components on the canvas")


def _wait(cond, what: str, timeout: float = 40) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if cond():
                return
        except sync_api.Error:
            pass
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def _pattern_texts(pg) -> list[str]:
    return pg.locator("[data-testid=stCode]").filter(has_text="PATTERN SEQ(").all_inner_texts()


def _wait_dsl(pg, pattern: str, what: str) -> str:
    """Wait until a pattern text shown on the page (canonical text, current pattern) matches."""
    found: list[str] = []

    def ok() -> bool:
        found[:] = [t for t in _pattern_texts(pg) if re.search(pattern, t.replace("\n", " "))]
        return bool(found)

    try:
        _wait(ok, what)
    except AssertionError:
        _shot(pg, "canvas-dialog-failure")
        raise AssertionError(f"{what}: {pattern!r} not in {_pattern_texts(pg)}") from None
    return found[0]


def _dialog(pg):
    d = pg.get_by_role("dialog")
    d.wait_for(timeout=30_000)
    return d




def _zoom(pg) -> float:
    style = _frame(pg).locator(".react-flow__viewport").get_attribute("style") or ""
    m = re.search(r"scale\(([0-9.]+)\)", style)
    assert m, style
    return float(m.group(1))


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def _controls_cover_no_node(pg) -> None:
    controls = _frame(pg).locator(".react-flow__controls").bounding_box()
    assert controls is not None
    for k in range(_nodes(pg).count()):
        box = _nodes(pg).nth(k).bounding_box()
        assert box is not None and not _overlap(controls, box), (controls, box)


def _settled_zoom(pg) -> float:
    """The zoom once the canvas has stopped changing it."""
    last = [-1.0]

    def steady() -> bool:
        z = _zoom(pg)
        same = abs(z - last[0]) < 1e-6
        last[0] = z
        return same

    _wait(steady, "a steady zoom")
    time.sleep(0.8)
    _wait(steady, "a steady zoom")
    return last[0]


def test_create_a_component_through_the_dialog(page, app_url):  # noqa: F811
    _open_design(page, app_url)
    zoom_before = _settled_zoom(page)
    _controls_cover_no_node(page)
    page.get_by_role("button", name="Add a component").click()
    dialog = _dialog(page)
    # a real modal of the page: inside the window, larger than the canvas it is not clipped by
    box, canvas = dialog.bounding_box(), page.locator(FLOW).bounding_box()
    viewport = page.viewport_size
    assert box and canvas and viewport
    assert box["x"] >= 0 and box["y"] >= 0
    assert box["x"] + box["width"] <= viewport["width"] and box["y"] + box["height"] <= viewport["height"] + 1
    assert box["width"] > canvas["width"] and box["height"] > canvas["height"]
    assert dialog.get_by_role("textbox", name="Variable").input_value() == "c"  # a fresh name
    choose_option(page, dialog, "Event type", "Stock")  # a type of the data in use
    dialog.get_by_text("one or more (+)", exact=True).click()
    choose_option(page, dialog, "Attribute", "price")
    choose_option(page, dialog, "Compare", ">")
    value = dialog.get_by_role("textbox", name="Value (a number, or a text)")
    value.fill("100")
    value.press("Enter")
    dialog.get_by_text("c.price > 100").first.wait_for()
    dialog.get_by_role("button", name="Add the predicate").click()
    dialog.get_by_text("(new)").first.wait_for()
    dialog.get_by_role("button", name="Add the component").click()
    _wait_dsl(page, r"PATTERN SEQ\(Stock\+ a\[\], Stock b, Stock\+ c\[\]\)", "the new component in the DSL")
    _wait_dsl(page, r"AND c\.price > 100", "its predicate in the DSL")
    _wait(lambda: page.get_by_role("dialog").count() == 0, "the dialog to close")
    _wait(lambda: _nodes(page).count() == 3, "three nodes on the canvas")
    _idle(page)
    _no_exception(page)
    _controls_cover_no_node(page)
    _shot(page, "design-canvas-dialog-added", height=1100)

    # deleting it gives the pattern back, at the zoom it had
    _nodes(page).filter(has_text="Stock+ c[]").first.click()
    dialog = _dialog(page)
    dialog.get_by_text("Deleting it also").wait_for()
    dialog.get_by_role("button", name="Delete c").click()
    _wait_dsl(page, r"PATTERN SEQ\(Stock\+ a\[\], Stock b\) WHERE", "the pattern without c")
    _wait(lambda: _nodes(page).count() == 2, "two nodes on the canvas")
    assert not any("c.price" in t for t in _pattern_texts(page))
    _idle(page)
    assert abs(_settled_zoom(page) - zoom_before) < 1e-3
    _controls_cover_no_node(page)
    _no_exception(page)


def test_edit_a_component_its_quantifier_and_a_predicate(page, app_url):  # noqa: F811
    _open_design(page, app_url)
    time.sleep(1.0)
    _nodes(page).filter(has_text="Stock b").first.click()  # a click on a node opens its dialog
    dialog = _dialog(page)
    assert "Edit a component" in dialog.inner_text()
    assert dialog.get_by_role("textbox", name="Variable").input_value() == "b"
    dialog.get_by_text("optional (?)", exact=True).click()
    choose_option(page, dialog, "Attribute", "symbol")
    choose_option(page, dialog, "Compare", "=")
    value = dialog.get_by_role("textbox", name="Value (a number, or a text)")
    value.fill("IBM")
    value.press("Enter")
    dialog.get_by_text("b.symbol = 'IBM'").first.wait_for()
    dialog.get_by_role("button", name="Add the predicate").click()
    dialog.get_by_text("(new)").first.wait_for()
    dialog.get_by_role("button", name="Save").click()
    _wait_dsl(page, r"PATTERN SEQ\(Stock\+ a\[\], Stock\? b\)", "the new quantifier in the DSL")
    _wait_dsl(page, r"AND b\.symbol = 'IBM'", "the new predicate in the DSL")
    _idle(page)
    _no_exception(page)
    # the button above the canvas opens the chosen component again
    page.get_by_role("button", name="Edit b").click()
    dialog = _dialog(page)
    assert dialog.get_by_text("b.symbol = 'IBM'").count() >= 1
    dialog.get_by_role("button", name="Cancel").click()
    _wait(lambda: page.get_by_role("dialog").count() == 0, "the dialog to close")


def test_right_click_shows_no_library_dialog_and_controls_cover_no_node(page, app_url):  # noqa: F811
    _open_design(page, app_url)
    time.sleep(1.0)
    frame = _frame(page)
    pane = frame.locator(".react-flow__pane")
    box = pane.bounding_box()
    assert box is not None
    pane.click(button="right", position={"x": box["width"] - 40, "y": 20})
    _nodes(page).first.click(button="right")
    frame.locator(".react-flow__edge").first.click(button="right", force=True)
    time.sleep(1.5)
    body = frame.locator("body").inner_text()
    for words in LIBRARY_WORDS:
        assert words not in body, words
        assert page.get_by_text(words, exact=True).count() == 0, words
    _controls_cover_no_node(page)
    _no_exception(page)
