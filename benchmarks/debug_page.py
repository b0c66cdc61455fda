"""The Debug page's server time at 100k events: opening, a jump to a match, a step.

Streamlit's AppTest runs the page script in this process as the server would for a browser
(the page opened from a URL: a generated stock stream of N events, a pattern, an engine), and
times each interaction from the widget change to the finished script run:

- **open**: the first run (the stream generated, the untraced pre-pass, the first window);
- **jump to last / middle match**: the "Go to match" box and its button;
- **step**: the Next button, 20 times after the middle-match jump (median and maximum).

Prints a markdown table; nothing is asserted. Take it on a quiet machine.

    python benchmarks/debug_page.py [--events N] [--engines nfab,lazy-chain,...]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

DEBUG = str(ROOT / "app" / "pages" / "4_Debug.py")
PATTERN = ("PATTERN SEQ(Stock a, Stock b)\nWHERE skip_till_any_match AND [symbol] AND b.price > a.price\n"
           "WITHIN 10 seconds")
ENGINES = ["nfab", "lazy-tree", "lazy-chain", "ses", "eager", "match-windows"]


def timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def page(engine: str, n: int) -> dict[str, Any]:
    at = AppTest.from_file(DEBUG, default_timeout=600)
    at.query_params.update({"pattern": PATTERN, "data": "generated", "gen": "stocks", "n": str(n), "seed": "1",
                            "engine": engine, "windows": "off"})
    row: dict[str, Any] = {"engine": engine, "open": timed(at.run)}
    if at.exception:
        row["note"] = str(at.exception[0].value)[:80]
        return row
    t = at.session_state["dbg_traced"]
    count = len(t.run.matches)
    row["matches"] = count
    for name, k in (("jump last", count), ("jump middle", max(1, count // 2))):
        at.number_input(key="dbg_go_match").set_value(k)
        row[name] = timed(lambda: at.button(key="dbg_go_match_btn").click().run())
    steps = [timed(lambda: at.button(key="dbg_fwd").click().run()) for _ in range(20)]
    row["step median"] = statistics.median(steps) * 1000
    row["step max"] = max(steps) * 1000
    return row


COLUMNS = ["engine", "matches", "open", "jump last", "jump middle", "step median", "step max", "note"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--engines", default=",".join(ENGINES))
    args = ap.parse_args(argv)
    os.environ["CEP_SPARK_WARMUP"] = "0"
    rows = []
    for engine in args.engines.split(","):
        rows.append(page(engine, args.events))
        print(rows[-1], file=sys.stderr, flush=True)

    def cell(c: str, v: Any) -> str:
        if v is None:
            return ""
        if c.startswith("step"):
            return f"{v:.0f} ms"
        if isinstance(v, float):
            return f"{v:.2f} s"
        return f"{v:,}" if isinstance(v, int) else str(v)
    print(f"{args.events:,} events, the page's server time per interaction (AppTest)\n")
    print("| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(cell(c, r.get(c)) for c in COLUMNS) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
