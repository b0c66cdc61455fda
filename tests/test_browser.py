"""Browser tests: the app under ``streamlit run``, driven by Playwright with Debian's chromium.

Loopback only: the app listens on 127.0.0.1 and the browser aborts every request to
another host. Screenshots go to ``tests/artifacts/`` (git-ignored).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
EDITOR = "Pattern (press Ctrl+Enter or click outside to apply)"

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not os.path.exists(CHROMIUM):
    _why = f"Debian's chromium is not installed at {CHROMIUM} (`make test` installs it: apt-get install chromium)"
    if os.environ.get("CI"):  # CI must exercise the browser path, never skip it silently
        raise RuntimeError(_why)
    pytest.skip(_why, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url():
    """``streamlit run app/Home.py`` on a free loopback port (its Spark warms up in the background)."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / "streamlit.log", "w")
    env = dict(os.environ, CEP_SPARK_MASTER=os.environ.get("CEP_SPARK_MASTER", "local[2]"),
               PYTHONUNBUFFERED="1")
    env.pop("CEP_SPARK_WARMUP", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "Home.py"),
         "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
         "--global.developmentMode", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            log.close()
            pytest.fail("the app did not start:\n" + (ARTIFACTS / "streamlit.log").read_text()[-3000:])
        time.sleep(0.5)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1300})

    def loopback_only(route):
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost", "::1") or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    ctx.route("**/*", loopback_only)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    ctx.close()


def _idle(pg, settle: float = 1.0, timeout: float = 60) -> None:
    """Wait until the script run is over (Streamlit's running indicator is gone)."""
    pg.wait_for_selector("[data-testid=stApp]")
    deadline = time.time() + timeout
    time.sleep(0.5)
    while time.time() < deadline:
        if pg.locator("[data-testid=stStatusWidget]").count() == 0:
            break
        time.sleep(0.3)
    time.sleep(settle)


def _editor_value(pg, contains: str = "PATTERN", timeout: float = 30) -> str:
    editor = pg.get_by_label(EDITOR)
    deadline = time.time() + timeout
    value = ""
    while time.time() < deadline:
        try:
            value = editor.input_value(timeout=2000)
        except sync_api.Error:
            value = ""
        if contains in value:
            break
        time.sleep(0.3)
    return value


def _no_exception(pg) -> None:
    boxes = pg.locator("[data-testid=stException]")
    assert boxes.count() == 0, boxes.all_inner_texts()


def _shot(pg, name: str, height: int | None = None) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if height:
        pg.set_viewport_size({"width": 1500, "height": height})
        time.sleep(1.0)
    pg.screenshot(path=str(path))
    return path


@pytest.mark.parametrize("route,title", [("", "CEP Studio"), ("Design", "Design"), ("Automaton", "Automaton"),
                                         ("Run", "Run")])
def test_every_page_opens_without_exception(page, app_url, route, title):
    page.goto(f"{app_url}/{route}")
    page.get_by_role("heading", name=title, exact=True).first.wait_for()
    _idle(page, settle=1.0)
    _no_exception(page)
    if route == "Automaton":
        page.locator(".js-plotly-plot").first.wait_for()
    _shot(page, f"page-{route or 'Home'}")


def test_home_card_opens_design_with_the_preset(page, app_url):
    page.goto(app_url)
    _idle(page)
    card = page.locator("[data-testid=stVerticalBlock]").filter(
        has=page.get_by_role("heading", name="Shoplifting")).last
    card.get_by_role("button", name="Open in Design").click()
    page.get_by_role("heading", name="Design", exact=True).first.wait_for()
    assert "PATTERN SEQ(Shelf a, !(Register b), Exit c)" in _editor_value(page, "Shelf")
    _idle(page)
    _no_exception(page)


def test_design_add_component_on_canvas_changes_dsl(page, app_url):
    page.goto(f"{app_url}/Design")
    _idle(page)
    frame = page.frame_locator("iframe[title='streamlit_flow.streamlit_flow']")
    frame.locator(".react-flow__node").first.wait_for()
    assert frame.locator(".react-flow__node").count() == 2
    time.sleep(1.0)
    pane = frame.locator(".react-flow__pane")
    box = pane.bounding_box()
    assert box is not None
    # right-click the empty top-right corner of the canvas: a new node lands right of the others
    for attempt in range(2):
        pane.click(button="right", position={"x": box["width"] - 60, "y": 30})
        try:
            frame.get_by_text("Create New Node").click(timeout=10_000)
            break
        except sync_api.Error:
            if attempt:
                _shot(page, "design-canvas-failure")
                raise
    frame.locator("textarea").fill("Stock c")
    frame.get_by_role("button", name="Create Node").click()
    value = _editor_value(page, "Stock c")
    if "Stock c" not in value:
        _shot(page, "design-canvas-failure")
    assert value.startswith("PATTERN SEQ(Stock+ a[], Stock b, Stock c)"), value
    _idle(page)
    frame.locator(".react-flow__node").nth(2).wait_for()
    assert frame.locator(".react-flow__node").count() == 3
    _no_exception(page)
    _shot(page, "design-canvas-added", height=1100)


def test_design_editor_updates_canvas(page, app_url):
    page.goto(f"{app_url}/Design")
    _idle(page)
    editor = page.get_by_label(EDITOR)
    editor.fill("PATTERN SEQ(Stock+ a[], AND(Stock b, Stock c), Stock d)\nWHERE [symbol]\nWITHIN 1 hour")
    editor.press("Control+Enter")
    frame = page.frame_locator("iframe[title='streamlit_flow.streamlit_flow']")
    deadline = time.time() + 30
    while frame.locator(".react-flow__node").count() < 5 and time.time() < deadline:
        time.sleep(0.3)
    texts = frame.locator(".react-flow__node").all_inner_texts()
    assert any("AND" in t for t in texts) and any("Stock d" in t for t in texts)
    _idle(page)
    _no_exception(page)
    # a broken pattern: the error with line, column and caret
    editor.fill("PATTERN SEQ(Stock a, Stock b\nWITHIN 1 hour")
    editor.press("Control+Enter")
    page.get_by_text("line 2, column 1").first.wait_for()
    _no_exception(page)
    _shot(page, "design-error")


def test_design_load_pattern_file(page, app_url, tmp_path):
    from engine.dsl import parse

    f = tmp_path / "shoplifting.json"
    f.write_text(parse("PATTERN SEQ(Shelf a, !(Register b), Exit c)\nWHERE [tag_id]\nWITHIN 12 hours")
                 .model_dump_json(indent=2))
    page.goto(f"{app_url}/Design")
    _idle(page)
    page.get_by_text("Save / load").click()
    page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(str(f))
    assert _editor_value(page, "Shelf").startswith("PATTERN SEQ(Shelf a, !Register b, Exit c)")
    _idle(page)
    _no_exception(page)


def _run_and_count(page, expected: int) -> None:
    spark = page.locator("[data-testid=stRadio]", has_text="Execution").get_by_text("Spark (the scalable path)")
    spark.click()
    page.get_by_role("button", name="Run on Spark").wait_for()
    page.get_by_role("button", name="Run on Spark").click()
    page.get_by_text(f"{expected} match{'es' if expected != 1 else ''} · spark").first.wait_for(timeout=300_000)
    _idle(page, settle=2.0)
    _no_exception(page)
    metric = page.locator("[data-testid=stMetric]", has_text="Matches")
    assert metric.locator("[data-testid=stMetricValue]").inner_text().strip() == str(expected)
    assert page.get_by_text(f"Matches ({expected})").count() == 1
    assert page.locator("[data-testid=stDataFrame]").count() >= 2  # preview + matches table


def test_run_stock_preset_on_spark_shows_the_matches(page, app_url):
    page.goto(f"{app_url}/Run")
    _idle(page)
    _run_and_count(page, 3)
    page.locator(".js-plotly-plot").first.wait_for()
    _shot(page, "run-stock-trend", height=2300)
    page.set_viewport_size({"width": 1500, "height": 1500})
    time.sleep(1.0)
    page.get_by_role("heading", name="Results").evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(1.5)
    page.screenshot(path=str(ARTIFACTS / "run-stock-trend-results.png"))
    # the same data under skip_till_any_match
    page.get_by_role("heading", name="2 · Pattern").evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(0.5)
    box = page.locator("[data-testid=stSelectbox]", has_text="or use a preset of this sample")
    box.locator("input").click()
    page.get_by_role("option", name="stock_trend_any").click()
    page.get_by_role("button", name="Use preset").click()
    _idle(page)
    _run_and_count(page, 68)
    _shot(page, "run-stock-trend-any")


def test_docs_images_exist_for_the_readme():
    """The README shows one Design and one Run screenshot (copied from tests/artifacts)."""
    for name in ("design.png", "run.png"):
        assert (ROOT / "docs" / "images" / name).is_file(), f"docs/images/{name} is missing"


def _copy_for_docs() -> None:  # pragma: no cover - run by hand to refresh the README pictures
    (ROOT / "docs" / "images").mkdir(parents=True, exist_ok=True)
    shutil.copy(ARTIFACTS / "design-canvas-added.png", ROOT / "docs" / "images" / "design.png")
    shutil.copy(ARTIFACTS / "run-stock-trend-results.png", ROOT / "docs" / "images" / "run.png")
