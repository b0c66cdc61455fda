"""Browser tests of the pattern editor (app.pattern_editor, Ace in a Streamlit component's iframe):
completion of the data's attributes after a variable, a typo marked at its line and column with its
message, the one-click fix, and the person's text kept as typed.

The helpers here (``editor_box``, ``editor_value``, ``fill_editor``) are what the other browser
tests use to read and type the pattern: the editor lives in an iframe (``page.frame_locator``),
its Ace instance is ``el.env.editor`` on the ``#editor`` element."""
from __future__ import annotations

import time

import pytest

from tests.browser_support import _idle, _no_exception, _shot, app_url, browser, page, sync_api  # noqa: F401

pytestmark = [pytest.mark.browser]

FRAME = 'iframe[title*="pattern_editor"]'
TYPO = "PATTERN SEQ(Stock a, Stock b)\nWHERE [symbol] AND a.prise > 1\nWITHIN 30 minutes"


def editor_frame(pg):
    return pg.frame_locator(FRAME).first


def editor_box(pg, timeout: float = 60_000):
    """The editor's ``#editor`` element, once Ace has drawn its text."""
    box = editor_frame(pg).locator("#editor")
    box.locator(".ace_content").wait_for(timeout=timeout)
    return box


def editor_value(pg, contains: str = "PATTERN", timeout: float = 30) -> str:
    """The editor's text once it contains ``contains`` (what it holds after ``timeout`` seconds)."""
    deadline = time.time() + timeout
    value = ""
    while time.time() < deadline:
        try:
            value = editor_box(pg, timeout=2000).evaluate("el => el.env.editor.getValue()")
        except sync_api.Error:
            value = ""
        if contains in value:
            break
        time.sleep(0.3)
    return value


def fill_editor(pg, text: str) -> None:
    """Replace the editor's text and apply it with Ctrl+Enter, as a person does."""
    box = editor_box(pg)
    box.evaluate("(el, t) => { el.env.editor.setValue(t, 1); el.env.editor.focus(); }", text)
    box.locator(".ace_text-input").press("Control+Enter")


def _canonical(pg) -> str:
    """The "Canonical text" under the editor (the last pattern shown as code on Design)."""
    codes = [c for c in pg.locator("[data-testid=stCode]").all_inner_texts() if c.strip().startswith("PATTERN")]
    return codes[-1] if codes else ""


def _wait(predicate, timeout: float = 30, what: str = "") -> None:
    deadline = time.time() + timeout
    while not predicate():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def test_completion_offers_the_attributes_of_the_variables_type(page, app_url):
    page.goto(f"{app_url}/Design")
    box = editor_box(page)
    _idle(page, settle=0.3)
    box.evaluate("el => { el.env.editor.focus(); el.env.editor.navigateFileEnd(); }")
    box.locator(".ace_text-input").type("\n  AND b.", delay=30)
    popup = editor_frame(page).locator(".ace_autocomplete")
    popup.wait_for(timeout=15_000)
    _wait(lambda: "volume" in popup.text_content(), 10, "the attributes in the popup")
    items = popup.text_content()
    for attr in ("price", "symbol", "volume"):
        assert attr in items, items
    assert "attribute of Stock" in items and "PATTERN" not in items  # only the attributes of b's type
    _shot(page, "editor-completion")
    # pick one: the attribute is written after the dot
    box.locator(".ace_text-input").type("vol", delay=30)
    box.locator(".ace_text-input").press("Enter")
    _wait(lambda: box.evaluate("el => el.env.editor.getValue()").rstrip().endswith("AND b.volume"), 10,
          "the picked attribute")
    # a keyword and an event type of the data, by their first letters
    box.locator(".ace_text-input").press("Escape")
    box.locator(".ace_text-input").type(" > 1\n  AND St", delay=30)
    popup.wait_for(timeout=15_000)
    _wait(lambda: "event type" in popup.text_content(), 10, "the event type in the popup")
    assert "Stock" in popup.text_content()
    _no_exception(page)


def test_a_typo_is_marked_inline_and_fixed_in_one_click_and_the_text_stays_as_typed(page, app_url):
    page.goto(f"{app_url}/Design")
    editor_box(page)
    _idle(page, settle=0.3)
    fill_editor(page, TYPO)
    frame = editor_frame(page)
    marker = frame.locator(".pe-error")
    try:
        marker.wait_for(timeout=30_000)
    except sync_api.Error:
        _shot(page, "editor-typo-failure")
        raise
    box = editor_box(page)
    # the marker is on `prise` (line 2, column 22), the gutter of line 2 is marked, the message under it
    ranges = box.evaluate("""el => Object.values(el.env.editor.session.getMarkers(true))
        .filter(m => m.clazz === 'pe-error').map(m => [m.range.start.row, m.range.start.column, m.range.end.column])""")
    assert ranges == [[1, 19, 26]], ranges  # `a.prise`, where the checker puts it (0-based row and column)
    gutter = frame.locator(".ace_gutter-cell.ace_error")
    gutter.wait_for()
    assert gutter.inner_text().strip() == "2"
    status = frame.locator("#status").inner_text()
    assert status == "Line 2, column 20: unknown attribute prise on a (type Stock); did you mean price?", status
    # hovering the underlined span shows the message
    spot = marker.bounding_box()
    assert spot is not None
    page.mouse.move(spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2)
    tip = frame.locator("#tip")
    tip.wait_for(timeout=5_000)
    assert "did you mean price" in tip.inner_text()
    _shot(page, "editor-typo")
    # the one-click fix: exactly the name replaced, the pattern applied, the text as typed
    page.get_by_role("button", name="Replace prise with price").click()
    fixed = TYPO.replace("a.prise", "a.price")
    _wait(lambda: editor_value(page, "a.price", timeout=2) == fixed, 30, "the fixed text in the editor")
    _wait(lambda: "a.price > 1" in _canonical(page), 30, "the fixed pattern applied")
    frame.locator(".pe-error").wait_for(state="detached", timeout=30_000)
    assert "WITHIN 30 min" in _canonical(page) and "minutes" not in _canonical(page)  # canonical beside it
    _idle(page, settle=1.0)
    assert editor_value(page) == fixed  # `30 minutes` stays as typed
    _no_exception(page)
    _shot(page, "editor-fixed")


def test_an_unknown_variable_gets_its_fix_and_typing_on_is_not_lost(page, app_url):
    page.goto(f"{app_url}/Design")
    editor_box(page)
    _idle(page, settle=0.3)
    typed = "PATTERN SEQ(Stock a, Stock b)\nWHERE bb.price > 1\nWITHIN 30 minutes"
    fill_editor(page, typed)
    editor_frame(page).locator(".pe-error").wait_for(timeout=30_000)
    page.get_by_text("undefined variable").first.wait_for()
    page.get_by_role("button", name="Replace bb with b").click()
    fixed = typed.replace("bb.price", "b.price")
    _wait(lambda: editor_value(page, "b.price", timeout=2) == fixed, 30, "the fixed text")
    _wait(lambda: "b.price > 1" in _canonical(page), 30, "the pattern applied")
    # applied by a pause in typing: the text stays as typed
    box = editor_box(page)
    box.evaluate("el => { el.env.editor.focus(); el.env.editor.navigateFileEnd(); }")
    box.locator(".ace_text-input").type("\n-- my note", delay=20)
    _idle(page, settle=2.0)
    assert editor_value(page).endswith("-- my note")
    _no_exception(page)
