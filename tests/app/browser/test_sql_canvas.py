"""Browser test of the SQL row pattern's canvas on the Design page: the v_shape query drawn as
three terms, a term created with a right click on the pane, a term renamed with a new DEFINE in
Edit Node and a term deleted, each written into the query editor, and the editor's text drawn
again on the canvas (the app under ``streamlit run``, Playwright with Debian's chromium,
loopback only)."""
from __future__ import annotations

import time

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, page, sync_api  # noqa: F401
from tests.app.browser.test_editor import editor_value, fill_editor

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FLOW = "iframe[title='streamlit_flow.streamlit_flow']"


def _editor_value(pg, contains: str, timeout: float = 30) -> str:
    return editor_value(pg, contains, timeout)


def _node_texts(frame, count: int, timeout: float = 30) -> list[str]:
    deadline = time.time() + timeout
    while frame.locator(".react-flow__node").count() != count and time.time() < deadline:
        time.sleep(0.3)
    return frame.locator(".react-flow__node").all_inner_texts()


def test_sql_canvas_both_ways(page, app_url):
    page.goto(f"{app_url}/Design")
    _idle(page)
    page.get_by_text("SQL (MATCH_RECOGNIZE)").first.click()
    _idle(page)
    frame = page.frame_locator(FLOW).last
    frame.locator(".react-flow__node").first.wait_for()
    texts = _node_texts(frame, 3)
    assert [t.splitlines()[0] for t in texts] == ["STRT", "DOWN+", "UP+"], texts
    assert any("price < PREV(price)" in t for t in texts)
    time.sleep(1.0)
    # right-click the pane right of the terms: a new term at the end of the pattern, with its DEFINE
    pane = frame.locator(".react-flow__pane")
    box = pane.bounding_box()
    assert box is not None
    pane.click(button="right", position={"x": box["width"] - 60, "y": 30})
    frame.get_by_text("Create New Node").click(timeout=10_000)
    frame.locator("textarea").fill("FLAT*\n\nprice = PREV(price)")
    frame.get_by_role("button", name="Create Node").click()
    value = _editor_value(page, "FLAT*", timeout=30)
    if "FLAT*" not in value:
        _shot(page, "sql-canvas-failure")
    assert "PATTERN (STRT DOWN+ UP+ FLAT*)" in value and "FLAT AS price = PREV(price)" in value, value
    _idle(page)
    assert len(_node_texts(frame, 4)) == 4
    _no_exception(page)
    _shot(page, "sql-canvas-added", height=1300)
    # Edit Node on UP+: a new name and a new DEFINE, written everywhere UP was named
    time.sleep(1.0)
    frame.locator(".react-flow__node").filter(has_text="UP+").first.click(button="right")
    frame.get_by_text("Edit Node").click(timeout=10_000)
    frame.locator("textarea").first.fill("RISE+\n\n`price > PREV(price) + 1`")
    frame.get_by_role("button", name="Save Changes").click()
    value = _editor_value(page, "RISE+", timeout=30)
    assert "PATTERN (STRT DOWN+ RISE+ FLAT*)" in value and "RISE AS price > PREV(price) + 1" in value, value
    assert "SKIP TO LAST RISE" in value and "LAST(RISE.ts)" in value
    _idle(page)
    # Delete Node on FLAT*: the term and its DEFINE go
    time.sleep(1.0)
    frame.locator(".react-flow__node").filter(has_text="FLAT*").first.click(button="right")
    frame.get_by_text("Delete Node").click(timeout=10_000)
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
    while not any("one of" in t for t in frame.locator(".react-flow__node").all_inner_texts()) \
            and time.time() < deadline:
        time.sleep(0.3)
    assert any("one of" in t for t in frame.locator(".react-flow__node").all_inner_texts())
    _idle(page)
    _no_exception(page)
    _shot(page, "sql-canvas-alternation", height=1300)
