"""Browser test of the Debug page's shared buffer at a busy step: on a generated stream of 300
stock ticks, at step ~151, chromium's boxes of the figure's SVG text (version labels, entry
names, stack headers, marks) never overlap one another, nor does a label cover another entry's
square; at the page's usual width and a narrower one. Screenshots go to
``tests/artifacts/debug-labels-*.png``."""
from __future__ import annotations

import time

import pytest

from tests.browser_support import ARTIFACTS, _idle, _no_exception, app_url, browser, page  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# every text of the buffer figure and every entry square, as chromium lays them out
_BOXES_JS = """e => {
  const out = [];
  e.querySelectorAll('.main-svg g.trace.scatter g.textpoint text').forEach(t => {
    if (!t.textContent.trim()) return;
    const r = t.getBoundingClientRect();
    out.push({kind: 'text', text: t.textContent, box: [r.left, r.top, r.right, r.bottom]});
  });
  e.querySelectorAll('.main-svg g.trace.scatter g.points path.point').forEach(p => {
    const r = p.getBoundingClientRect();
    if (r.width > 25 && r.height > 25) out.push({kind: 'entry', text: '', box: [r.left, r.top, r.right, r.bottom]});
  });
  return out;
}"""


def _overlap(a, b, slack=0.5):
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def _inside(box, sq):
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return sq[0] <= cx <= sq[2] and sq[1] <= cy <= sq[3]


def clashes(items):
    texts = [i for i in items if i["kind"] == "text"]
    squares = [i for i in items if i["kind"] == "entry"]
    bad = [(a["text"], b["text"]) for k, a in enumerate(texts) for b in texts[k + 1:] if _overlap(a["box"], b["box"])]
    for t in texts:
        for sq in squares:
            if _overlap(t["box"], sq["box"]) and not _inside(t["box"], sq["box"]):
                bad.append((t["text"], "an entry square"))
    return bad


def _step_value(pg) -> int:
    return int(pg.locator("[data-testid=stSliderThumbValue]").nth(1).inner_text(timeout=5000))


def _go_to_step(pg, target: int, last: int) -> None:
    """Click the Step slider's track where ``target`` is, then nudge with the arrow keys."""
    slider = pg.get_by_role("slider").nth(1)
    track = pg.locator("[data-testid=stSlider]").nth(1)
    box = track.bounding_box()
    thumb = slider.bounding_box()
    y = thumb["y"] + thumb["height"] / 2
    x = box["x"] + box["width"] * target / last
    pg.mouse.click(x, y)
    _idle(pg)
    for _ in range(12):
        now = _step_value(pg)
        if now == target:
            return
        slider.focus()
        slider.press("ArrowRight" if now < target else "ArrowLeft")
        _idle(pg, settle=0.5)


@pytest.mark.parametrize("width", [1500, 1150])
def test_buffer_labels_never_overlap_at_a_busy_step(page, app_url, width):
    page.set_viewport_size({"width": width, "height": 1300})
    page.goto(f"{app_url}/Debug")
    page.get_by_role("heading", name="Debug", exact=True).first.wait_for()
    page.get_by_text("Generated stream").click()
    page.get_by_text("300 events traced with").wait_for(timeout=180_000)
    _idle(page)
    _go_to_step(page, 151, 300)
    _idle(page)
    _no_exception(page)
    assert abs(_step_value(page) - 151) <= 2
    plot = page.locator(".st-key-dbg_buffer .js-plotly-plot").first
    plot.evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(1.0)
    items = plot.evaluate(_BOXES_JS)
    labels = [i for i in items if i["kind"] == "text" and i["text"].startswith("[")]
    assert len(labels) >= 5, items   # a busy step: many version labels drawn
    assert [i for i in items if i["kind"] == "entry"]
    bad = clashes(items)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    plot.screenshot(path=str(ARTIFACTS / f"debug-labels-{width}.png"))
    assert not bad, bad[:10]
