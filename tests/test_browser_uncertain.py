"""Browser test of the Uncertain time page (issue 11 item 8): the app under ``streamlit
run``, driven by Playwright with Debian's chromium, loopback only (as tests/test_browser.py):
the page opens on the cluster preset, steps, and shows ranges and confidences. Screenshots
go to ``tests/artifacts/uncertain-*.png``."""
from __future__ import annotations

import os
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
    """``streamlit run app/Home.py`` on a free loopback port; no Spark warm-up (the Debug and
    Learn pages run in-process)."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / "streamlit-uncertain.log", "w")
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
            pytest.fail("the app did not start:\n" + (ARTIFACTS / "streamlit-uncertain.log").read_text()[-3000:])
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


def _step_value(pg) -> int:
    return int(pg.locator("[data-testid=stSliderThumbValue]").first.inner_text(timeout=5000))


def _expected_cluster() -> list[tuple[str, tuple[int, int], str]]:
    """The possible-worlds oracle on the cluster preset: (signature text, range, n/d)."""
    from engine.dsl import parse
    from engine.uncertain.oracle import run_uncertain
    from sample_streams import events, load

    ms = run_uncertain(parse(load("cluster").presets["query1"]), events("cluster"))
    return [(" ".join(f"{v}={ids[0]}" for v, ids in m.bindings), m.range, m.to_json()["confidence_exact"])
            for m in ms]


def test_uncertain_page_steps_through_the_cluster_preset(page, app_url):
    page.goto(f"{app_url}/Uncertain_time")
    page.get_by_role("heading", name="Uncertain time", exact=True).first.wait_for()
    page.get_by_text("agrees with the possible-worlds oracle").first.wait_for(timeout=120_000)
    _idle(page)
    _no_exception(page)
    assert page.get_by_text("53 events").count() >= 1
    text = page.get_by_label("Pattern (DSL)").input_value()  # the cluster preset: Query 1
    assert "SEQ(TaskStart a, CPU b, TaskFinish c, CPU d)" in text and "WITHIN 15 seconds" in text
    assert _step_value(page) == 0
    assert page.get_by_text("No signature is final yet at this step.").count() == 1
    _shot(page, "uncertain-cluster-start", height=1400)
    # step by step: Forward moves the slider, the frontier line moves with it
    page.get_by_role("button", name="Forward").click()
    _idle(page)
    assert _step_value(page) == 1
    timeline = page.locator(".js-plotly-plot").first
    assert "F = " in timeline.inner_text()
    # on to the first step that emits a signature, then to the end of the stream
    page.get_by_role("button", name="Next result").click()
    page.get_by_text("emitted here").first.wait_for()
    _idle(page)
    _no_exception(page)
    assert _step_value(page) > 1
    slider = page.get_by_role("slider").first
    slider.focus()
    slider.press("End")
    page.get_by_text("end of stream").first.wait_for()
    _idle(page)
    _no_exception(page)
    expected = _expected_cluster()
    bars = page.locator(".js-plotly-plot").nth(1).inner_text()
    for _sig, _rng, exact in expected:  # every signature's confidence gauge shows its exact value
        assert f"({exact})" in bars, (exact, bars)
    # the explainer names a signature's range and confidence
    sig, (lo, hi), exact = expected[-1]
    box = page.locator("[data-testid=stSelectbox]").filter(has_text="Signature")
    box.scroll_into_view_if_needed()
    box.locator("input").click()
    page.get_by_role("option", name=sig).first.click()
    _idle(page)
    _no_exception(page)
    page.get_by_text(f"range [{lo}, {hi}], confidence {exact}").first.wait_for()
    _shot(page, "uncertain-cluster-end", height=1800)
    page.get_by_role("heading", name="Why this confidence?").evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(1.0)
    page.screenshot(path=str(ARTIFACTS / "uncertain-cluster-explainer.png"))
