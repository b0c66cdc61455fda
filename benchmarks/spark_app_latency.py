"""The Run page's Spark run, timed from the click: right after the app starts, and warm.

    .venv/bin/python benchmarks/spark_app_latency.py                 # the app as it is
    .venv/bin/python benchmarks/spark_app_latency.py --proposed-warm # with the Spark warm-up at app start

Starts ``streamlit run app/Home.py`` on a loopback port (Spark warm-up on, as a person
starts it), opens the Run page in Debian's chromium (Playwright, as tests/browser_support.py
does), picks "Spark", clicks "Run on Spark" as soon as the page is there, and times the
click until "3 matches · spark" shows (the stock sample, preset stock_trend). Then it
clicks again ``--warm`` times (a warm session) and once after ``--idle`` seconds without a
run (Spark ends Python workers idle for a minute). The in-process run of the same sample
is timed in this process for comparison. The 1-minute load average is printed with each
figure (the machine is shared); nothing is asserted.

``--proposed-warm`` replaces ``app.state._warm`` in the app's process with the function in
``PROPOSED_WARM`` (below) before Streamlit starts: ``engine.spark.pipeline.warm_up`` (the
app's own sample path, twice).
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]

# The body proposed for app/state.py's _warm() (the lead applies it there); here it replaces
# app.state._warm in the app's process before Streamlit starts.
PROPOSED_WARM = """
import app.state as S


def _warm() -> None:
    try:
        from engine.spark.pipeline import warm_up
        from engine.spark.session import get_spark

        S._WARM["state"] = "starting"
        spark = get_spark()
        S._WARM["state"] = "warming up"
        s = S.sample_streams.load(S.DEFAULT_SAMPLE)
        warm_up(s.presets[S.DEFAULT_PRESET], s.path, mapping=s.mapping, spark=spark, rounds=2)
        S._WARM["state"] = "ready"
    except Exception as err:  # noqa: BLE001 - reported when a run needs Spark
        S._WARM["state"] = f"unavailable ({str(err).splitlines()[0] if str(err) else type(err).__name__})"


S._warm = _warm
"""

LAUNCH = """
import sys
sys.path.insert(0, {root!r})
{warm}
from streamlit.web import cli
sys.argv = ["streamlit", "run", {home!r}, "--server.port", {port!r}, "--server.address", "127.0.0.1",
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", "--global.developmentMode", "false"]
sys.exit(cli.main())
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _load() -> float:
    return os.getloadavg()[0]


def start_app(proposed: bool, log: Path) -> tuple[subprocess.Popen, str, float]:
    port = _port()
    code = LAUNCH.format(root=str(ROOT), warm=PROPOSED_WARM if proposed else "", home=str(ROOT / "app" / "Home.py"),
                         port=str(port))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                            env=dict(os.environ, CEP_SPARK_WARMUP="1", PYTHONUNBUFFERED="1"), start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url, t0
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the app did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.2)


def _idle(pg, timeout: float = 120) -> None:
    pg.wait_for_selector("[data-testid=stApp]")
    deadline = time.time() + timeout
    time.sleep(0.3)
    while time.time() < deadline:
        if pg.locator("[data-testid=stStatusWidget]").count() == 0 and pg.locator("[data-stale=true]").count() == 0:
            return
        time.sleep(0.1)


# Notes when this run's progress bar passes "starting" and then says "done": the result of
# the previous click stays on the page until the rerun replaces it, so seeing the result
# text alone would time nothing.
_WATCH = """() => {
  window.__cep = {started: false, done: false};
  if (window.__cepObs) window.__cepObs.disconnect();
  window.__cepObs = new MutationObserver(records => {
    for (const r of records) {
      const text = (r.target && r.target.textContent) || "";
      if (!window.__cep.started && /starting|reading and validating|Spark: \\d/.test(text)) window.__cep.started = true;
      if (window.__cep.started && /done: \\d+ match/.test(text)) window.__cep.done = true;
    }
  });
  window.__cepObs.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def timed_click(pg, expected: int = 3) -> float:
    """Click "Run on Spark"; seconds until this run's result shows (progress bar done, the
    result caption there, the app idle)."""
    pg.evaluate(_WATCH)
    t = time.perf_counter()
    pg.get_by_role("button", name="Run on Spark").click()
    pg.wait_for_function("() => window.__cep.done", timeout=600_000, polling=50)
    pg.get_by_text(f"{expected} matches · spark").first.wait_for(timeout=600_000)
    while pg.locator("[data-testid=stStatusWidget]").count() or pg.locator("[data-stale=true]").count():
        time.sleep(0.05)
    return time.perf_counter() - t


def in_process_seconds() -> float:
    import sample_streams
    from app import runner
    from engine.dsl import parse

    s = sample_streams.load("stocks_sase")
    pat = parse(s.presets["stock_trend"])
    mapping = runner.mapping_from(s.mapping)
    src = runner.Source("sample", "stocks_sase", str(s.path), None)
    t = time.perf_counter()
    runner.run_local(pat, runner.load(src, mapping))
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--proposed-warm", action="store_true")
    ap.add_argument("--warm", type=int, default=3, help="warm runs after the first")
    ap.add_argument("--idle", type=float, default=75.0, help="seconds without a run before the last click (0: skip)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    log = Path(tempfile.gettempdir()) / f"cep-app-latency-{os.getpid()}.log"
    rows: list[tuple[str, float, float]] = []
    proc, url, t0 = start_app(args.proposed_warm, log)
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            pg = b.new_context(viewport={"width": 1500, "height": 1300}).new_page()
            pg.set_default_timeout(600_000)
            pg.goto(f"{url}/Run")
            _idle(pg)
            pg.locator("[data-testid=stRadio]", has_text="Execution").get_by_text("Spark (the scalable path)").click()
            pg.get_by_role("button", name="Run on Spark").wait_for()
            _idle(pg)
            since = time.perf_counter() - t0
            first = timed_click(pg)
            rows.append((f"first run, clicked {since:.1f} s after the app started", first, _load()))
            _idle(pg)
            for i in range(args.warm):
                rows.append((f"warm run {i + 1}", timed_click(pg), _load()))
                _idle(pg)
            if args.idle > 0:
                time.sleep(args.idle)
                rows.append((f"after {args.idle:.0f} s idle", timed_click(pg), _load()))
            b.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    rows.append(("in-process run (runner.run_local, this process)", in_process_seconds(), _load()))
    print(f"app: {'proposed warm-up' if args.proposed_warm else 'as it is'}; log {log}")
    for what, secs, load in rows:
        print(f"  {what:<55} {secs:7.2f} s   load {load:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
