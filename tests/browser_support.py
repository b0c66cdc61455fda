"""What the browser tests of the pages share: Debian's chromium (required under CI), the app
under ``streamlit run`` on a loopback port, Playwright's browser and a loopback-only page,
and helpers to wait for the app, check for exceptions and take screenshots. A test module
imports the fixtures it uses (``from tests.browser_support import app_url, browser, page``).

The app runs without Spark unless the module sets ``SPARK_WARMUP = True`` (then it warms up
its SparkSession in the background at start, on ``CEP_SPARK_MASTER`` or ``local[2]``, as
``make run`` does). ``new_page(browser)`` opens another fresh session (its own context)."""
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


def wait_health(url: str, proc: subprocess.Popen, log_path: Path, seconds: float = 90) -> None:
    """Wait until the app at ``url`` answers its health check; fail with the end of its log
    when the process dies or ``seconds`` pass."""
    deadline = time.time() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            pytest.fail("the app did not start:\n" + log_path.read_text()[-3000:])
        time.sleep(0.5)


@pytest.fixture(scope="module")
def app_url(request):
    """``streamlit run app/Home.py`` on a free loopback port, one per test module (its log is
    ``tests/artifacts/streamlit-<module>.log``); Spark warms up only for a module with
    ``SPARK_WARMUP = True`` (the other pages' tests run in-process)."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log_path = ARTIFACTS / f"streamlit-{request.module.__name__.rsplit('.', 1)[-1]}.log"
    log = open(log_path, "w")
    if getattr(request.module, "SPARK_WARMUP", False):
        env = dict(os.environ, CEP_SPARK_WARMUP="1", PYTHONUNBUFFERED="1",
                   CEP_SPARK_MASTER=os.environ.get("CEP_SPARK_MASTER", "local[2]"))
    else:
        env = dict(os.environ, CEP_SPARK_WARMUP="0", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "Home.py"),
         "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
         "--global.developmentMode", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    wait_health(url, proc, log_path)
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


def _loopback_only(route) -> None:
    host = urlparse(route.request.url).hostname
    if host in ("127.0.0.1", "localhost", "::1") or route.request.url.startswith(("data:", "blob:")):
        route.continue_()
    else:
        route.abort()


def new_page(browser):
    """A page in a new browser context (a fresh app session), loopback only; close it with
    ``pg.context.close()``."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1300})
    ctx.route("**/*", _loopback_only)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    return pg


@pytest.fixture
def page(browser, app_url):
    pg = new_page(browser)
    yield pg
    pg.context.close()


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


# Automaton drawings: every annotation's text (edge labels) with its background box, and every
# state's name, as chromium lays out the plotly SVG.
_DRAWING_BOXES_JS = """e => {
  const out = [];
  e.querySelectorAll('g.annotation').forEach(a => {
    const t = a.querySelector('text');
    if (!t || !t.textContent.trim()) return;
    const r = t.getBoundingClientRect();
    const bg = a.querySelector('rect.bg');
    const b = bg ? bg.getBoundingClientRect() : r;
    out.push({kind: 'label', text: t.textContent, box: [r.left, r.top, r.right, r.bottom],
              bg: [b.left, b.top, b.right, b.bottom]});
  });
  e.querySelectorAll('g.trace.scatter g.textpoint text').forEach(t => {
    const r = t.getBoundingClientRect();
    out.push({kind: 'state', text: t.textContent, box: [r.left, r.top, r.right, r.bottom]});
  });
  return out;
}"""


def drawing_boxes(pg) -> tuple[list[dict], list[dict]]:
    """(edge labels but ``start``, state names) of the first plot on the page, scrolled into view."""
    plot = pg.locator(".js-plotly-plot").first
    plot.evaluate("e => e.scrollIntoView({block: 'start'})")
    time.sleep(1.0)
    items = plot.evaluate(_DRAWING_BOXES_JS)
    return ([i for i in items if i["kind"] == "label" and i["text"] != "start"],
            [i for i in items if i["kind"] == "state"])


def _boxes_overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def assert_readable(labels: list[dict], states: list[dict], name: str) -> None:
    """No label or state name overlaps another, and no label's text spills out of its box."""
    everything = labels + states
    clashes = [(a["text"], b["text"]) for k, a in enumerate(everything) for b in everything[k + 1:]
               if _boxes_overlap(a["box"], b["box"])]
    assert not clashes, (name, clashes)
    spills = [lb["text"] for lb in labels
              if lb["box"][2] - lb["box"][0] > lb["bg"][2] - lb["bg"][0] + 1
              or lb["box"][3] - lb["box"][1] > lb["bg"][3] - lb["bg"][1] + 1]
    assert not spills, (name, spills)


def open_automaton(pg, url: str, card_title: str) -> None:
    """A fresh Home, the card ``card_title`` opened in Design, then the Automaton page drawn."""
    pg.goto(url)
    _idle(pg)
    card = pg.locator("[data-testid=stVerticalBlock]").filter(has=pg.get_by_role("heading", name=card_title)).last
    card.get_by_role("button", name="Open in Design").click()
    pg.get_by_role("heading", name="Design", exact=True).first.wait_for(timeout=180_000)
    _idle(pg, timeout=180)
    pg.get_by_role("link", name="Automaton").click()
    pg.get_by_role("heading", name="Automaton", exact=True).first.wait_for(timeout=180_000)
    pg.locator(".js-plotly-plot").first.wait_for(timeout=180_000)
    _idle(pg, settle=1.5, timeout=180)
    _no_exception(pg)


def choose_engine(pg, option: str) -> None:
    """Pick ``option`` in the Automaton page's Engine box and wait for the drawing."""
    box = pg.locator("[data-testid=stSelectbox]", has_text="Engine")
    box.scroll_into_view_if_needed()
    box.locator("input").click()
    pg.get_by_role("option", name=option).first.click()
    _idle(pg, settle=1.5)
    _no_exception(pg)


def choose_option(pg, container, label: str, option: str, timeout: float = 20) -> None:
    """Pick ``option`` in the selectbox labelled ``label`` inside ``container`` (a dialog, the
    page) and wait until the box shows it."""
    combo = container.get_by_role("combobox", name=label, exact=True)
    if combo.input_value() == option:
        return
    combo.click()
    pg.get_by_role("option", name=option, exact=True).click()
    deadline = time.time() + timeout
    while combo.input_value() != option and time.time() < deadline:
        time.sleep(0.2)
    assert combo.input_value() == option, f"{option} chosen in {label}"
