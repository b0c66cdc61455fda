"""Browser test of the Aggregate page (issue 12.9): the app under ``streamlit run``, driven
by Playwright with Debian's chromium, loopback only (as tests/test_browser_debug.py).
Screenshots go to ``tests/artifacts/aggregate-*.png``."""
from __future__ import annotations

import os
import re
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

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not os.path.exists(CHROMIUM):
    _why = f"Debian's chromium is not installed at {CHROMIUM} (`make test` installs it: apt-get install chromium)"
    if os.environ.get("CI"):
        raise RuntimeError(_why)
    pytest.skip(_why, allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url():
    """``streamlit run app/Home.py`` on a free loopback port; no Spark warm-up (the Aggregate
    page runs in-process)."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / "streamlit-aggregate.log", "w")
    env = dict(os.environ, CEP_SPARK_WARMUP="0", PYTHONUNBUFFERED="1")
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
            pytest.fail("the app did not start:\n" + (ARTIFACTS / "streamlit-aggregate.log").read_text()[-3000:])
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
    pg.wait_for_selector("[data-testid=stApp]")
    deadline = time.time() + timeout
    time.sleep(0.5)
    while time.time() < deadline:
        if pg.locator("[data-testid=stStatusWidget]").count() == 0 and pg.locator("[data-stale=true]").count() == 0:
            break
        time.sleep(0.3)
    time.sleep(settle)


def _no_exception(pg) -> None:
    boxes = pg.locator("[data-testid=stException]")
    assert boxes.count() == 0, boxes.all_inner_texts()


def _shot(pg, name: str, height: int = 1300, scroll_to: str | None = None) -> Path:
    """A screenshot of what a person sees (Streamlit scrolls inside its own container, so a
    taller viewport shows more of the page)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.set_viewport_size({"width": 1500, "height": height})
    _idle(pg, settle=1.0)
    if scroll_to:
        pg.get_by_role("heading", name=scroll_to, exact=True).first.evaluate(
            "e => e.scrollIntoView({block: 'start'})")
        time.sleep(1.0)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path))
    return path


def _open(pg, url: str) -> None:
    pg.goto(f"{url}/Aggregate")
    pg.get_by_role("heading", name="Aggregate (A-Seq)", exact=True).first.wait_for()
    pg.get_by_text("output row(s)").first.wait_for()
    _idle(pg)
    _no_exception(pg)


def _table(pg) -> str:
    return pg.locator("table.aseq-counters").first.inner_text()


def test_aggregate_steps_through_example3_and_agrees_with_the_baseline(page, app_url):
    """T4 (Example 3): Next TRIG goes to d1, where a1's row reads 2 2 2 and Σ = 2 and the
    baseline built 2 matches; Forward to c3 strikes a1 out (it left the window)."""
    _open(page, app_url)
    page.get_by_role("button", name="Next TRIG").click()
    page.get_by_text("agree").first.wait_for()
    _idle(page)
    _no_exception(page)
    table = _table(page)
    rows = [r.split("\t") for r in table.splitlines()]
    a1 = next(r for r in rows if r and r[0].strip() == "a1")
    assert [c.split("\n")[0].strip() for c in a1[3:7]] == ["1", "2", "2", "2"]
    assert page.locator("b.aseq-sum").first.inner_text() == "2"
    assert "A-Seq 2 = baseline 2" in page.locator("[data-testid=stAlert]").filter(has_text="agree").first.inner_text()
    assert "Lemma 1" in page.locator("table.aseq-counters td[title]").first.get_attribute("title")
    _shot(page, "aggregate-example3-d1", height=1500)
    page.get_by_role("button", name="Forward").click()
    _idle(page)
    _no_exception(page)
    expired = page.locator("table.aseq-counters tr.expired")
    assert expired.count() == 1 and "a1" in expired.first.inner_text()
    assert "a1" not in [r.split("\t")[0].strip() for r in _table(page).splitlines()[1:] if "expired" not in r]
    _shot(page, "aggregate-example3-expired", height=1500)


def test_aggregate_negation_reset_and_pretree(page, app_url):
    _open(page, app_url)
    box = page.locator("[data-testid=stSelectbox]").filter(has_text="Example")
    box.click()
    page.get_by_role("option", name="T5 · Example 4: negation resets (A,B)").click()
    page.get_by_text("c1 resets (A,B)").first.wait_for()
    _idle(page)
    for _ in range(2):  # step 0 is a1; on to b1, c1
        page.get_by_role("button", name="Forward").click()
        _idle(page, settle=0.5)
    _no_exception(page)
    cells = page.locator("table.aseq-counters td").filter(has_text="reset (RR)")
    assert cells.count() == 1
    box.click()
    page.get_by_role("option", name="T7 · Example 7: PreTree for five queries").click()
    page.get_by_text("PreTree").first.wait_for()
    _idle(page)
    _no_exception(page)
    tree = page.locator(".js-plotly-plot").first.inner_text()
    assert "Q1" in tree and "Q5" in tree
    _shot(page, "aggregate-pretree", height=1400)
