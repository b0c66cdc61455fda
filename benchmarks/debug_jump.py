"""The debugger at 100k events: how long the pre-pass, a jump to a match and a step take, per engine.

The Debug page, ``cep trace --from/--to`` and ``cep explain --match K`` reach any point of a
long run through ``engine.checkpoints.CheckpointedRun``: one untraced pass with matcher
snapshots, then a traced window restored from the nearest snapshot. Per engine, on a
100k-event stream (stock ticks; interval events for the uncertain engines), this measures:

- **untraced**: the matcher alone over the stream (``feed``/``close``), the floor;
- **pre-pass**: ``CheckpointedRun(...)`` (the untraced run, the matches kept, the snapshots);
- **jump**: from a cold window cache, the steps a jump to a match reads: the match's span
  (its first event to the step that emitted it, at most 2,000 steps) and 100 steps around
  its emission; for the last match and for the middle one;
- **step**: the next 300 single steps after the jump, one ``steps(k, k+1)`` each (a new chunk
  is traced when a step leaves the cached ones): median and maximum.

Prints a markdown table (seconds, the step column in milliseconds); nothing is asserted.
Take it on a quiet machine: it times one process.

    python benchmarks/debug_jump.py [--events N] [--engines a,b,...] [--quick]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.checkpoints import CheckpointedRun  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.events import load_events  # noqa: E402
from engine.match import EngineUnsupported, StateExplosion  # noqa: E402
from engine.run_choice import choose_run  # noqa: E402
from sample_streams import generators as G  # noqa: E402

SPAN_CAP = 2_000
SEQ = "PATTERN SEQ(Stock a, Stock b) WHERE [symbol] AND b.price > a.price WITHIN 10"
KLEENE = ("PATTERN SEQ(Stock+ a[], Stock b) WHERE skip_till_next_match AND [symbol] "
          "AND a[i].price > a[i-1].price AND b.price < a[a.len].price WITHIN 20")
AGG = "PATTERN SEQ(Stock a, Stock b) WHERE [symbol] AND b.price > a.price AGG COUNT WITHIN 10"
INTERVAL = ("PATTERN SEQ(E1 x1, E2 x2, E3 x3) WHERE x1.v % 5 = 0 AND skip_till_any_match "
            "WITHIN 6")  # the paper's STAM query (uncertain_frameworks.py) on one in five starts

#: (engine, pattern, data[, at most this many events]) per row; data "stocks" or "intervals"
WORKLOADS: list[tuple[Any, ...]] = [
    ("nfab", SEQ, "stocks"),
    ("nfab", KLEENE, "stocks"),
    ("lazy-tree", SEQ, "stocks"),
    ("lazy-chain", SEQ, "stocks"),
    ("ses", SEQ, "stocks"),
    ("eager", SEQ, "stocks"),
    ("match-windows", SEQ, "stocks"),
    ("aseq", AGG, "stocks"),
    ("aseq-baseline", AGG, "stocks"),
    ("uncertain-event", INTERVAL, "intervals"),
    ("uncertain-point", INTERVAL, "intervals"),
    ("oracle", SEQ, "stocks", 500),                 # references: small inputs only
    ("uncertain-oracle", INTERVAL, "intervals", 2_000),
]


def stocks(n: int) -> list[Any]:
    return load_events(G.stocks(n, symbols=2, seed=0, start_price=100, volume=(500, 1500))).events


def intervals(n: int) -> list[Any]:
    """The imprecise-timestamps paper's synthetic stream (benchmarks/uncertain_frameworks.py):
    types E1..E3 in turn, true time = position, each event known within ±1."""
    from engine.events import Event

    return [Event(id=i, type=f"E{i % 3 + 1}", ts=i, seq=i, attrs={"v": i % 1000 + 1}, lower=i, upper=i + 2)
            for i in range(n)]


def timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def measure(engine: str, text: str, events: list[Any], interval: bool) -> dict[str, Any]:
    p = parse(text)
    row: dict[str, Any] = {"engine": engine, "pattern": "Kleene" if "+" in text else ("AGG" if "AGG" in text else
                                                                                   "SEQ")}
    try:
        choice = choose_run(p, engine, "off", interval=interval)
        options = {"u_max": 2} if interval else {}  # intervals at most 2 wide: matches emitted as they complete
        m = choice.build(p, **options)
        row["untraced"], _ = timed(lambda: [*[x for e in events for x in m.feed(e)], *m.close()])
        row["prepass"], run = timed(lambda: CheckpointedRun(choice, p, events, options=options))
    except (EngineUnsupported, StateExplosion, ValueError) as err:
        row["note"] = str(err).split(". ")[0][:90]
        return row
    row["matches"] = len(run.matches)
    row["snapshots"] = run.snapshots
    if not run.matches:
        row["note"] = "no matches"
        return row
    for name, mark in (("jump last", run.matches[-1]), ("jump middle", run.matches[len(run.matches) // 2])):
        run._chunks.clear()  # a cold cache: the jump traces its windows
        run._cursors.clear()
        first = _first_step(run, mark)
        k = mark.step
        secs, _ = timed(lambda: (run.steps(max(first, k - SPAN_CAP), k + 1), run.steps(k - 50, k + 50)))
        row[name] = secs
    k = run.matches[len(run.matches) // 2].step
    times = []
    for j in range(k + 1, min(k + 301, run.total_steps)):
        t, _ = timed(lambda: run.steps(j, j + 1))
        times.append(t)
    row["step median"] = statistics.median(times) * 1000 if times else None
    row["step max"] = max(times) * 1000 if times else None
    return row


def _first_step(run: CheckpointedRun, mark: Any) -> int:
    m = mark.match
    if isinstance(m.get("match"), dict):
        ids = {i for v in m["match"].values() for i in v}
        seqs = [e.seq for e in run.events if e.id in ids] if len(ids) < 50 else []
        return min(seqs) if seqs else mark.step
    return mark.step


COLUMNS = ["engine", "pattern", "events", "matches", "untraced", "prepass", "snapshots", "jump last", "jump middle",
           "step median", "step max", "note"]


def table(rows: list[dict[str, Any]]) -> str:
    def cell(c: str, v: Any) -> str:
        if v is None:
            return ""
        if c in ("step median", "step max"):
            return f"{v:.1f} ms"
        if isinstance(v, float):
            return f"{v:.2f} s"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v)
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        out.append("| " + " | ".join(cell(c, r.get(c)) for c in COLUMNS) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--engines", default="", help="comma-separated engine names (default: all)")
    ap.add_argument("--quick", action="store_true", help="2,000 events (the test suite runs this)")
    args = ap.parse_args(argv)
    n = 2_000 if args.quick else args.events
    wanted = {e for e in args.engines.split(",") if e}
    data = {"stocks": stocks(n), "intervals": intervals(n)}
    rows = []
    for engine, text, kind, *cap in WORKLOADS:
        if wanted and engine not in wanted:
            continue
        events = data[kind][: cap[0]] if cap else data[kind]
        rows.append(measure(engine, text, events, kind == "intervals"))
        rows[-1]["events"] = len(events)
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(f"{n:,} events\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
