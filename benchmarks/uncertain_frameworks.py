"""Point-based vs event-based evaluation over imprecise timestamps (the
imprecise-timestamps paper §5, Figs. 4-5): throughput as the half-width delta of the
uncertainty intervals grows (1, 5, 10, 20, 50) and as the window W grows, under
skip_till_any_match (STAM) and skip_till_next_match (STNM), with the size of the
possible-worlds space a window spans (what the oracle would enumerate) for scale.

Workload (notes §5, resolution 14): one event per time unit, true time t = 0, 1, 2, ...;
interval [t - delta, t + delta]; event i has type E{i mod l + 1} (components exclusive)
and attribute v = i mod 1000 + 1; the query is
``SEQ(E1 a, E2 b, E3 c) WHERE a.v % V = 0 AND b.v % V = 0 AND c.v % V = 0 WITHIN W``.

Each configuration runs for at most ``--budget`` CPU seconds (or ``--events`` events) and
reports events per CPU second over what it processed (CPU time, not wall time: the machine
is shared): the slow point-based runs at large delta process
a prefix. Every engine runs in this process, in the same way, so the ratios are fair.
Timings are printed, never asserted. ``--out FILE`` writes the markdown tables.

    python benchmarks/uncertain_frameworks.py --out docs/benchmarks_uncertain.md
"""
from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.dsl import parse  # noqa: E402
from engine.events import Event  # noqa: E402
from engine.match import StateExplosion  # noqa: E402
from engine.engines.uncertain.event import EventBasedMatcher  # noqa: E402
from engine.engines.uncertain.point import PointBasedMatcher  # noqa: E402


def stream(n: int, delta: int, ell: int = 3) -> list[Event]:
    """The synthetic stream (module docstring), in arrival order = true time."""
    out = []
    for i in range(n):
        t = i + delta
        out.append(Event(id=i, type=f"E{i % ell + 1}", ts=t - delta, seq=i, attrs={"v": i % 1000 + 1},
                         lower=t - delta, upper=t + delta))
    return out


def query(ell: int, v: int, w: int, strategy: str) -> Any:
    comps = ", ".join(f"E{j + 1} x{j + 1}" for j in range(ell))
    preds = " AND ".join(f"x{j + 1}.v % {v} = 0" for j in range(ell))
    return parse(f"PATTERN SEQ({comps}) WHERE {preds} AND {strategy} WITHIN {w}")


@dataclass
class Result:
    engine: str
    events: int
    seconds: float
    matches: int
    runs_peak: int
    stopped: str = ""

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("inf")


def measure(make: Any, events: list[Event], budget: float) -> Result:
    m = make()
    n = matches = 0
    t0 = time.process_time()
    stopped = ""
    try:
        for e in events:
            matches += len(m.feed(e))
            n += 1
            if n % 50 == 0 and time.process_time() - t0 > budget:
                stopped = "budget"
                break
        else:
            matches += len(m.close())
    except StateExplosion:
        stopped = "guard"
    secs = time.process_time() - t0
    return Result(m.name + (f"/{m.mode}" if hasattr(m, "mode") else ""), n, secs, matches, m.stats.runs_peak,
                  stopped)


def worlds_per_window(delta: int, w: int) -> str:
    """log10 of the number of possible worlds of the events one window spans (one event per
    time unit, 2*delta + 1 instants each): the space the oracle enumerates."""
    return f"10^{w * math.log10(2 * delta + 1):,.0f}"


ENGINES = {
    "point": lambda p, u: PointBasedMatcher(p, u_max=u),
    "event/any-state": lambda p, u: EventBasedMatcher(p, u_max=u, mode="any-state"),
    "event/sorted": lambda p, u: EventBasedMatcher(p, u_max=u, mode="sorted"),
    "event/selectivity": lambda p, u: EventBasedMatcher(p, u_max=u, mode="selectivity"),
}


def sweep(kind: str, values: list[int], strategy: str, args: argparse.Namespace) -> list[list[str]]:
    rows = []
    for x in values:
        delta = x if kind == "delta" else args.delta
        w = x if kind == "W" else args.window
        p = query(args.length, args.v, w, strategy)
        evs = stream(args.events, delta, args.length)
        res = {name: measure(lambda f=f: f(p, 2 * delta), evs, args.budget) for name, f in ENGINES.items()}
        best_event = max((r for k, r in res.items() if k != "point"), key=lambda r: r.rate)
        pt = res["point"]
        row = [str(x), worlds_per_window(delta, w)]
        for name in ENGINES:
            r = res[name]
            row.append(f"{r.rate:,.0f}" + (f" ({r.events:,} ev)" if r.stopped else ""))
        row.append(f"{best_event.rate / pt.rate:,.1f}x")
        row.append(f"{res['event/sorted'].runs_peak:,} / {pt.runs_peak:,}")
        rows.append(row)
        print(f"[{strategy} {kind}={x}] " + " | ".join(row), file=sys.stderr, flush=True)
    return rows


def table(title: str, head: list[str], rows: list[list[str]]) -> str:
    out = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=3000, help="stream length (default 3000)")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per configuration (default 20)")
    ap.add_argument("--length", type=int, default=3, help="pattern length l (default 3)")
    ap.add_argument("--v", type=int, default=5, help="per-component selectivity 1/V (default 5)")
    ap.add_argument("--delta", type=int, default=5, help="delta for the W sweep (default 5)")
    ap.add_argument("--window", type=int, default=100, help="W for the delta sweep (default 100)")
    ap.add_argument("--deltas", default="1,5,10,20,50")
    ap.add_argument("--windows", default="10,50,100,200")
    ap.add_argument("--strategies", default="skip_till_any_match,skip_till_next_match")
    ap.add_argument("--out", help="write the markdown tables here")
    args = ap.parse_args(argv)
    deltas = [int(x) for x in args.deltas.split(",")]
    windows = [int(x) for x in args.windows.split(",")]
    head_base = ["events/s: point", "event any-state", "event sorted", "event selectivity",
                 "best event / point", "peak runs sorted / point"]
    parts = []
    for strategy in args.strategies.split(","):
        short = "STAM" if "any" in strategy else "STNM"
        rows = sweep("delta", deltas, strategy, args)
        parts.append(table(f"{short}: throughput vs delta (W = {args.window}, l = {args.length}, 1/V = 1/{args.v})",
                           ["delta", "worlds per window", *head_base], rows))
        rows = sweep("W", windows, strategy, args)
        parts.append(table(f"{short}: throughput vs W (delta = {args.delta}, l = {args.length}, 1/V = 1/{args.v})",
                           ["W", "worlds per window", *head_base], rows))
    env = (f"Python {platform.python_version()} on {platform.machine()}, {args.events:,} events per run, "
           f"at most {args.budget:g} s per configuration")
    text = "\n".join(parts)
    print(text)
    if args.out:
        Path(args.out).write_text(header(env) + text + footer(), encoding="utf-8")
    return 0


def header(env: str) -> str:
    return f"""# Imprecise timestamps: point-based vs event-based

`benchmarks/uncertain_frameworks.py` (the imprecise-timestamps paper §5).
{env}. Throughput is events per CPU second of this process (the benchmark machine is
shared, so wall time would measure the neighbours). A cell with "(N ev)" processed only the
first N events within the budget; its rate is over those, which favours the point-based
engine (the first W events hold fewer runs than the rest). "worlds per window" is the number of possible worlds of the events
one window spans, what the oracle would enumerate. Peak runs: live runs of the event-based
engine (sorted order) vs point runs of the point-based one.

"""


def footer() -> str:
    return ""


if __name__ == "__main__":
    sys.exit(main())
