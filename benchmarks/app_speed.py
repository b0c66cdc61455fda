"""The app's speed as a person meets it: page switches, a run on the Run page, a debugger step.

    .venv/bin/python benchmarks/app_speed.py --rounds 5 --out docs/benchmarks_app.md

Starts ``streamlit run app/Home.py`` on a loopback port with ``CEP_TIMING_LOG`` set, so the
app writes the server time of every script run (``app/timing.py``), and drives it in Debian's
chromium (Playwright). One session, warmed up by visiting every page once; then, ``--rounds``
times, it switches to every page through the sidebar, clicks Run on the Run page (in-process,
the stock sample, preset stock_trend) and steps the Debug page forward once.

For each action it reports the **server time** (the script runs the action caused, summed:
what the issue's targets are about) and the **browser time** (click until the page is idle:
Streamlit's status widget gone and no stale element left; it includes the websocket, the
browser's rendering and the polling of this script, 20 ms). Nothing is asserted; the 1-minute
load average is printed beside the table, since the machine may be shared.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
PAGES = ["Design", "Automaton", "Run", "Debug", "Learn", "Uncertain time", "Aggregate"]
POLL = 0.02
SETTLE = 0.4


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(log: Path, timing: Path, gc_after_runs: bool = False) -> tuple[subprocess.Popen, str]:
    """The app as ``cep serve`` starts it (``gc_after_runs``: with Streamlit's forced full garbage
    collection after every script run, the setting the app had before)."""
    port = _port()
    env = dict(os.environ, CEP_SPARK_WARMUP="0", PYTHONUNBUFFERED="1", CEP_TIMING_LOG=str(timing))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "Home.py"), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--global.developmentMode", "false",
         "--runner.postScriptGC", "true" if gc_after_runs else "false"],
        cwd=ROOT, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the app did not start:\n" + log.read_text()[-2000:])


def idle(pg, timeout: float = 120) -> None:
    """Until the script run is over and its elements are drawn (no status widget, nothing stale)."""
    deadline = time.time() + timeout
    time.sleep(0.05)  # the click's rerun request reaches the server
    while time.time() < deadline:
        if (pg.locator("[data-testid=stStatusWidget]").count() == 0
                and pg.locator("[data-stale=true]").count() == 0):
            return
        time.sleep(POLL)
    raise TimeoutError("the page did not become idle")


def server_seconds(timing: Path, since: float) -> tuple[float, int]:
    """(sum of the script runs that started after ``since``, how many)."""
    runs = [json.loads(line) for line in timing.read_text().splitlines() if line.strip()]
    mine = [r for r in runs if r["start"] >= since - 0.01]
    return sum(r["seconds"] for r in mine), len(mine)


def timed(pg, timing: Path, action, timeout: float = 120) -> tuple[float, float, int]:
    """(server seconds, browser seconds, script runs) of ``action`` (a click): done when at least
    one script run it caused has ended, the page is idle, and no further run started within
    ``SETTLE`` seconds (a component's echo, a rerun the page asks for)."""
    time.sleep(0.3)  # nothing pending before the click
    since = time.time()
    t0 = time.perf_counter()
    action()
    deadline = time.time() + timeout
    while server_seconds(timing, since)[1] == 0 and time.time() < deadline:
        time.sleep(POLL)
    while True:
        idle(pg)
        browser = time.perf_counter() - t0
        seen = server_seconds(timing, since)[1]
        time.sleep(SETTLE)
        if server_seconds(timing, since)[1] == seen and pg.locator("[data-testid=stStatusWidget]").count() == 0:
            break
    server, runs = server_seconds(timing, since)
    return server, browser, runs


def switch(pg, name: str):
    def go() -> None:
        pg.locator("[data-testid=stSidebarNav] a").filter(has_text=name).first.click()
    return go


def one_round(pg, timing: Path, figures: dict[str, list[tuple[float, float, int]]]) -> None:
    for name in PAGES:
        figures.setdefault(f"switch to {name}", []).append(timed(pg, timing, switch(pg, name)))
        if name == "Run":
            button = pg.get_by_role("button", name="Run", exact=True)
            figures.setdefault("Run click to result (in-process, stock sample)", []).append(
                timed(pg, timing, button.click))
        if name == "Debug":
            forward = pg.get_by_role("button", name="Forward").first
            figures.setdefault("Debug: one step forward", []).append(timed(pg, timing, forward.click))


def table(figures: dict[str, list[tuple[float, float, int]]], before: dict | None = None) -> str:
    head = "| action | server time, median (min-max) | browser time, median (min-max) | script runs |"
    rule = "|---|---|---|---|"
    if before:
        head += " server time with the forced collection (before) | before / now |"
        rule += "---|---|"
    lines = [head, rule]
    for action, rows in figures.items():
        srv = [r[0] for r in rows]
        brw = [r[1] for r in rows]
        runs = sorted({r[2] for r in rows})
        line = (f"| {action} | {statistics.median(srv):.3f} s ({min(srv):.3f}-{max(srv):.3f}) | "
                f"{statistics.median(brw):.2f} s ({min(brw):.2f}-{max(brw):.2f}) | {', '.join(map(str, runs))} |")
        if before:
            old = [r[0] for r in before[action]]
            line += (f" {statistics.median(old):.3f} s ({min(old):.3f}-{max(old):.3f}) | "
                     f"{statistics.median(old) / max(statistics.median(srv), 1e-9):.2f}× |")
        lines.append(line)
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", action="store_true",
                    help="also start the app with the forced garbage collection after every run (the setting "
                         "before) and interleave its rounds with the app's")
    ap.add_argument("--out", type=Path, default=None, help="write the table (markdown) here")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="cep-speed-"))
    apps = [("now", False)] + ([("before", True)] if args.baseline else [])
    procs, sessions = [], []
    figures: dict[str, dict[str, list[tuple[float, float, int]]]] = {name: {} for name, _gc in apps}
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            for name, gc_after in apps:
                timing = tmp / f"timing-{name}.jsonl"
                timing.write_text("")
                proc, url = start_app(tmp / f"streamlit-{name}.log", timing, gc_after)
                procs.append(proc)
                pg = b.new_context(viewport={"width": 1500, "height": 1300}).new_page()
                pg.set_default_timeout(120_000)
                pg.goto(url)
                idle(pg)
                for page_name in PAGES:  # warm-up: every page once (imports, caches), each run to its end
                    timed(pg, timing, switch(pg, page_name))
                sessions.append((name, pg, timing))
            for _ in range(args.rounds):
                for name, pg, timing in sessions:  # interleaved: the same machine state for both
                    one_round(pg, timing, figures[name])
            b.close()
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=20)
    load = os.getloadavg()[0]
    text = table(figures["now"], figures.get("before"))
    print(text)
    print(f"\n{args.rounds} rounds; 1-minute load average at the end: {load:.2f}")
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
