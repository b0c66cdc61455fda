"""Browser test of the SQL row pattern's canvas on the Design page: the v_shape query drawn as
three terms, a term added, a term renamed with a new DEFINE and a term deleted in the page's
dialog (the library's node menus never show), each written into the query editor, and the
editor's text drawn again on the canvas (the app under ``streamlit run``, Playwright with
Debian's chromium, loopback only)."""
from __future__ import annotations

import time

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, choose_option, page, sync_api  # noqa: F401
from tests.app.browser.test_editor import editor_value, fill_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FLOW = "iframe[title='streamlit_flow.streamlit_flow']"


def _editor_value(pg, contains: str, timeout: float = 30) -> str:
    return editor_value(pg, contains, timeout)


NODES = ".react-flow__node:not([data-id^='frame'])"  # not the invisible frame the canvas is fitted to


def _node_texts(frame, count: int, timeout: float = 30) -> list[str]:
    deadline = time.time() + timeout
    while frame.locator(NODES).count() != count and time.time() < deadline:
        time.sleep(0.3)
    return frame.locator(NODES).all_inner_texts()




def _fill(dialog, label: str, value: str) -> None:
    box = dialog.get_by_role("textbox", name=label)
    box.fill(value)
    box.press("Enter")


def test_sql_canvas_both_ways(page, app_url):
    page.goto(f"{app_url}/Design")
    _idle(page)
    page.get_by_text("SQL (MATCH_RECOGNIZE)").first.click()
    _idle(page)
    # the pattern's canvas may still be shown for a while under load: wait for the query's (the frame
    # looked up again each time, as the page may replace it)
    want = ["STRT", "DOWN+", "UP+"]
    deadline = time.time() + 60
    while True:
        frame = page.frame_locator(FLOW).last
        texts = frame.locator(NODES).all_inner_texts()
        if [t.splitlines()[0] for t in texts if t] == want or time.time() > deadline:
            break
        time.sleep(0.3)
    assert [t.splitlines()[0] for t in texts] == want, texts
    assert any("price < PREV(price)" in t for t in texts)
    time.sleep(1.0)
    # a right click opens none of the library's menus
    pane = frame.locator(".react-flow__pane")
    box = pane.bounding_box()
    assert box is not None
    pane.click(button="right", position={"x": box["width"] - 60, "y": 30})
    frame.locator(NODES).first.click(button="right")
    time.sleep(1.0)
    for words in ("Create New Node", "Edit Node", "Node Type", "Source Position", "Delete Node"):
        assert frame.get_by_text(words).count() == 0, words
    page.keyboard.press("Escape")
    # a new term at the end of the pattern, with its DEFINE
    page.get_by_role("button", name="Add a term").click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=30_000)
    _fill(dialog, "Variable", "FLAT")
    choose_option(page, dialog, "How many rows", "zero or more (*)")
    _fill(dialog, "DEFINE (the condition a row must meet; empty: every row)", "price = PREV(price)")
    dialog.get_by_role("button", name="Add the term").click()
    value = _editor_value(page, "FLAT*", timeout=30)
    if "FLAT*" not in value:
        _shot(page, "sql-canvas-failure")
    assert "PATTERN (STRT DOWN+ UP+ FLAT*)" in value and "FLAT AS price = PREV(price)" in value, value
    _idle(page)
    assert len(_node_texts(frame, 4)) == 4
    _no_exception(page)
    _shot(page, "sql-canvas-added", height=1300)
    # a click on UP+ opens its dialog: a new name and a new DEFINE, written everywhere UP was named
    time.sleep(1.0)
    frame.locator(NODES).filter(has_text="UP+").first.click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=30_000)
    assert dialog.get_by_role("textbox", name="Variable").input_value() == "UP"
    _fill(dialog, "Variable", "RISE")
    _fill(dialog, "DEFINE (the condition a row must meet; empty: every row)", "price > PREV(price) + 1")
    dialog.get_by_role("button", name="Save").click()
    value = _editor_value(page, "RISE+", timeout=30)
    assert "PATTERN (STRT DOWN+ RISE+ FLAT*)" in value and "RISE AS price > PREV(price) + 1" in value, value
    assert "SKIP TO LAST RISE" in value and "LAST(RISE.ts)" in value
    _idle(page)
    # delete FLAT*: the term and its DEFINE go
    time.sleep(1.0)
    frame.locator(NODES).filter(has_text="FLAT*").first.click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=30_000)
    dialog.get_by_role("button", name="Delete FLAT*").click()
    deadline = time.time() + 30
    while "FLAT" in editor_value(page, "", timeout=2) and time.time() < deadline:
        time.sleep(0.3)
    value = editor_value(page, "", timeout=2)
    assert "PATTERN (STRT DOWN+ RISE+)" in value and "FLAT" not in value, value
    _idle(page)
    _no_exception(page)
    # the editor's text drawn again on the canvas
    fill_editor(page, value.replace("PATTERN (STRT DOWN+ RISE+)", "PATTERN (STRT (DOWN | RISE)+ RISE)"))
    deadline = time.time() + 30
    while not any("one of" in t for t in frame.locator(NODES).all_inner_texts()) \
            and time.time() < deadline:
        time.sleep(0.3)
    assert any("one of" in t for t in frame.locator(NODES).all_inner_texts())
    _idle(page)
    _no_exception(page)
    _shot(page, "sql-canvas-alternation", height=1300)
    # a click on the box: how often the group repeats
    time.sleep(1.0)
    frame.locator(".react-flow__node[data-id^='g:']").filter(has_text="one of").first.click(position={"x": 20, "y": 10})
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=30_000)
    choose_option(page, dialog, "How many times", "zero or more (*)")
    dialog.get_by_role("button", name="Save").click()
    value = _editor_value(page, "RISE)*", timeout=30)
    assert "PATTERN (STRT (DOWN | RISE)* RISE)" in value, value
    _idle(page)
    _no_exception(page)
    # the zoom controls cover no node
    controls = frame.locator(".react-flow__controls").bounding_box()
    for k in range(frame.locator(NODES).count()):
        node = frame.locator(NODES).nth(k).bounding_box()
        assert controls and node
        assert not (controls["x"] < node["x"] + node["width"] and node["x"] < controls["x"] + controls["width"]
                    and controls["y"] < node["y"] + node["height"] and node["y"] < controls["y"] + controls["height"])
