"""NFA^b on the SASE+ experiment template (SASE+ §6).

    PATTERN SEQ(Stock+ a[], Stock b)
    WHERE ES AND [symbol] AND a[1].price % 500 = 0 AND P AND b.volume < 150
    WITHIN W events

ES in {s1 = partition_contiguity, s2 = skip_till_next_match}; P in {p1 = true,
p2 = a[i].price > a[i-1].price, p3 = a[i].price > agg(a[..i-1].price), agg in max/min/avg}.
The stream: two symbols, price random walk (up with p, down/same with (1-p)/2 each), volume
uniform in 1..1000 (sample_streams.generators.stocks). The paper's attribute ranges are lost;
we use price steps of 10 so that `% 500 = 0` starts runs often enough for the trends to show.

Prints markdown tables: Expt 1 (ES x P at W = 500), Expt 2 (W sweep), merge on/off, and the
whole `cep run` path on a CSV of the stream (subprocess, one core). Timings are measured in
this run; nothing is asserted. `--quick` runs a small version (used by the test suite to
check that the benchmark runs).
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.dsl import parse  # noqa: E402
from engine.events import load_events  # noqa: E402
from engine.engines.nfab.matcher import NfabMatcher  # noqa: E402
from sample_streams.generators import stocks  # noqa: E402

TEMPLATE = ("PATTERN SEQ(Stock+ a[], Stock b) WHERE {es} AND [symbol] AND a[1].price % 500 = 0 "
            "AND {p} AND b.volume < 150 WITHIN {w} events")
ES = {"s1": "partition_contiguity", "s2": "skip_till_next_match"}
PRED = {
    "p1": "true",
    "p2": "a[i].price > a[i-1].price",
    "p3-max": "a[i].price > max(a[..i-1].price)",
    "p3-min": "a[i].price > min(a[..i-1].price)",
    "p3-avg": "a[i].price > avg(a[..i-1].price)",
}


LINKS = ("What matches cost on the output-heavy queries (count mode, JSON Lines, against the revision "
         "before): [benchmarks_nfab_output.md](benchmarks_nfab_output.md).\n\n")


def measure(events: list, es: str, p: str, w: int, merge: bool = True) -> dict:
    pat = parse(TEMPLATE.format(es=ES[es], p=PRED[p], w=w))
    m = NfabMatcher(pat, merge=merge)
    n_matches = 0
    total_len = 0
    t0 = time.perf_counter()
    for e in events:
        for mm in m.feed(e):
            n_matches += 1
            total_len += len(mm.ids("a")) + 1
    for mm in m.close():
        n_matches += 1
        total_len += len(mm.ids("a")) + 1
    dt = time.perf_counter() - t0
    construction = m.stats.phase_seconds.get("construction", 0.0)
    return {
        "es": es, "p": p, "w": w, "merge": merge,
        "eps": len(events) / dt, "seconds": dt,
        "runs_per_event": m.stats.runs_created / len(events),
        "runs_peak": m.stats.runs_peak,
        "matches": n_matches,
        "avg_len": total_len / n_matches if n_matches else 0.0,
        "construction_pct": 100 * construction / dt if dt else 0.0,
        "merged": m.stats.extra["runs_merged"],
    }


def fmt_rate(x: float) -> str:
    return f"{x:,.0f}"


def table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def cep_run_path(df, es: str, p: str, w: int) -> tuple[float, int]:
    """Wall time of `cep run` (import, CSV load, validation, matching, output) on one core."""
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "stocks.csv"
        df.to_csv(csv, index=False)
        pat = Path(d) / "q.cep"
        pat.write_text(TEMPLATE.format(es=ES[es], p=PRED[p], w=w))
        cmd = [sys.executable, "-m", "engine.commands.cli", "run", str(pat), "--data", str(csv), "--format", "count"]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        pre = ["taskset", "-c", "0"] if shutil_which("taskset") else []
        t0 = time.perf_counter()
        out = subprocess.run(pre + cmd, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        dt = time.perf_counter() - t0
        return dt, int(out.stdout.strip())


def shutil_which(name: str) -> str | None:
    import shutil

    return shutil.which(name)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--sweep-events", type=int, default=50_000)
    ap.add_argument("--p-up", type=float, default=0.55)
    ap.add_argument("--price-step", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="a small run (smoke test)")
    ap.add_argument("--out", help="also write the tables to this markdown file")
    args = ap.parse_args(argv)
    if args.quick:
        args.events, args.sweep_events = 3_000, 2_000
    df = stocks(args.events, seed=7, p_up=args.p_up, price_step=args.price_step)
    events = load_events(df).events
    parts: list[str] = [f"Stream: {args.events:,} events, 2 symbols, p = {args.p_up}, price step "
                        f"{args.price_step}; Python {sys.version.split()[0]}, one process."]

    # Expt 1: ES x P at W = 500 (merge on), plus the merge on/off ratio
    rows = []
    preds = ["p1", "p2", "p3-max", "p3-min", "p3-avg"] if not args.quick else ["p1", "p2"]
    res1 = {}
    for p in preds:
        for es in ("s1", "s2"):
            on = measure(events, es, p, 500, merge=True)
            off = measure(events, es, p, 500, merge=False)
            res1[(p, es)] = on
            rows.append([f"{p}{es}", fmt_rate(on["eps"]), f"{on['runs_per_event']:.3f}", str(on["runs_peak"]),
                         f"{on['matches']:,}", f"{on['avg_len']:.1f}", f"{100 - on['construction_pct']:.0f}% / "
                         f"{on['construction_pct']:.0f}%", fmt_rate(off["eps"]), f"{on['eps'] / off['eps']:.2f}x",
                         f"{on['merged']:,}"])
    parts.append("### Expt 1: strategy x predicate, W = 500 events\n\n" + table(
        ["query", "events/s (merge on)", "runs created / event", "peak runs", "matches", "avg match length",
         "matching / construction", "events/s (merge off)", "merge on/off", "runs merged"], rows))
    gap = res1[("p2", "s1")]["eps"] / res1[("p2", "s2")]["eps"]
    parts.append(f"p2: s1 / s2 throughput = **{gap:.1f}x** (the paper: an order of magnitude).")

    # Expt 2: W sweep on a shorter stream
    sweep_df = stocks(args.sweep_events, seed=11, p_up=args.p_up, price_step=args.price_step)
    sweep_ev = load_events(sweep_df).events
    ws = [100, 200, 400, 800] if not args.quick else [50, 100]
    rows = []
    for q in (("p1", "s2"), ("p3-avg", "s2"), ("p2", "s2"), ("p2", "s1")):
        rates = [measure(sweep_ev, q[1], q[0], w)["eps"] for w in ws]
        slope = math.log(rates[0] / rates[-1]) / math.log(ws[-1] / ws[0]) if rates[-1] > 0 else float("nan")
        rows.append([f"{q[0]}{q[1]}", *(fmt_rate(r) for r in rates), f"{slope:.2f}"])
    parts.append(f"### Expt 2: throughput (events/s) vs W, {args.sweep_events:,} events\n\n" + table(
        ["query", *(f"W={w}" for w in ws), "k in throughput ~ W^-k"], rows))

    # Targets: the whole `cep run` path on the stream above and on the generator's default
    # stream (price step 1, where `% 500 = 0` starts far fewer runs), one core
    rows = []
    plain = stocks(args.events, seed=7, p_up=args.p_up, price_step=1)
    for label, frame in ((f"step {args.price_step}", df), ("step 1", plain)):
        for p, es in (("p2", "s1"), ("p2", "s2")):
            dt, n = cep_run_path(frame, es, p, 500)
            rows.append([f"{p}{es}", label, f"{dt:.2f} s", f"{n:,}", fmt_rate(args.events / dt)])
    parts.append(f"### `cep run` end to end ({args.events:,} events CSV, one core, includes start-up)\n\n" + table(
        ["query", "stream", "wall time", "matches", "events/s"], rows))
    text = "\n\n".join(parts) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text("# NFA^b benchmark (benchmarks/nfab_sase.py)\n\n" + LINKS + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
