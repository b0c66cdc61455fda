"""Throughput on OpenCEP's two NASDAQ stock patterns, on a NASDAQ-like generated stream.

OpenCEP (the Python CEP engine) ships a NASDAQ minute-bar file and two standard tests;
we reproduce their shape on generated data (its data file is not ours to ship):

- **googleAscend**: ``SEQ(GOOG a, GOOG b, GOOG c)`` with rising ``peak``, skip_till_any_match,
  WITHIN 3 minutes;
- **momentum3**: ``SEQ(AAPL a, AMZN b, GOOG c)`` with rising ``peak`` and ``open``, WITHIN 5 min.

The stream: ``--tickers`` symbols (GOOG, AAPL, AMZN among them), each event one minute bar
``(open, peak, lowest, close, volume)`` from a per-ticker random walk; event types are the
ticker names, as in OpenCEP; prices revert to a common mean so that orders across tickers
keep changing; timestamps in seconds, a Poisson process whose rate puts
about seven GOOG bars in three minutes (so googleAscend finds tens of thousands of matches
on 150,150 events, the order of OpenCEP's replicated run). Every engine that supports the
pattern runs in this process on the same events, interleaved round by round; the eager
NFA is the baseline. Prints events/s, matches, and the ratio to eager. Nothing is asserted.

    python benchmarks/opencep_patterns.py [--events 150150] [--rounds 2] [--quick] [--out FILE]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.dsl import parse  # noqa: E402
from engine.events import Event  # noqa: E402
from engine.planner import ENGINES, make_matcher  # noqa: E402

PATTERNS = {
    "googleAscend": ("PATTERN SEQ(GOOG a, GOOG b, GOOG c) WHERE skip_till_any_match "
                     "AND a.peak < b.peak AND b.peak < c.peak WITHIN 3 min"),
    "momentum3": ("PATTERN SEQ(AAPL a, AMZN b, GOOG c) WHERE skip_till_any_match "
                  "AND a.peak < b.peak AND b.peak < c.peak AND a.open < b.open AND b.open < c.open "
                  "WITHIN 5 min"),
}


def nasdaq(n: int, tickers: int = 15, seed: int = 5) -> list[Event]:
    """``n`` minute bars over ``tickers`` symbols (uniform mix), as Events typed by ticker."""
    rng = np.random.default_rng(seed)
    names = ["GOOG", "AAPL", "AMZN"] + [f"T{k:02d}" for k in range(tickers - 3)]
    sym = rng.integers(0, len(names), size=n)
    per_goog = n / len(names)
    total_seconds = per_goog / 7 * 180  # ~7 GOOG bars per 3 minutes
    ts = np.cumsum(rng.exponential(total_seconds / n, size=n))
    noise = rng.normal(0, 1, size=n)
    price = np.zeros(n)
    for k in range(len(names)):  # per ticker a mean-reverting walk around 100 (AR(1), phi 0.9)
        idx = np.flatnonzero(sym == k)
        x = 0.0
        for i in idx:
            x = 0.9 * x + noise[i]
            price[i] = 100 + x
    spread = np.abs(rng.normal(0, 0.5, size=n)).tolist()
    vol = rng.integers(100, 10_000, size=n).tolist()
    prices, tss, syms = price.tolist(), ts.tolist(), sym.tolist()  # Python numbers, as the loader gives
    out = []
    for i in range(n):
        p, s = prices[i], spread[i]
        out.append(Event(id=i, type=names[syms[i]], ts=tss[i], seq=i,
                         attrs={"open": round(p - s / 2, 3), "peak": round(p + s, 3), "lowest": round(p - s, 3),
                                "close": round(p, 3), "volume": vol[i]}))
    return out


def run(engine: str, pattern: Any, events: list[Event], rates: dict[str, float]) -> tuple[float, int]:
    m = make_matcher(pattern, engine, rates=rates if engine == "lazy-chain" else None)
    t0 = time.perf_counter()
    n = 0
    for e in events:
        n += len(m.feed(e))
    n += len(m.close())
    return time.perf_counter() - t0, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=150_150)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    if a.quick:
        a.events, a.rounds = 5_000, 1
    events = nasdaq(a.events)
    rates: dict[str, float] = {}
    for e in events:
        rates[e.type] = rates.get(e.type, 0) + 1
    lines = [f"{a.events:,} events, {len(rates)} tickers; best of {a.rounds} interleaved rounds; Python "
             f"{sys.version.split()[0]}; matching only (events already in memory).", ""]
    head = ["pattern", "engine", "matches", "seconds", "events/s", "vs eager"]
    lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for name, text in PATTERNS.items():
        p = parse(text)
        engines = [n for n in ("nfab", "lazy-chain", "lazy-tree", "eager") if ENGINES[n].supports(p) is None]
        times: dict[str, list[float]] = {n: [] for n in engines}
        counts: dict[str, int] = {}
        for _ in range(a.rounds):
            for eng in engines:
                dt, n = run(eng, p, events, rates)
                times[eng].append(dt)
                counts[eng] = n
        if len(set(counts.values())) != 1:
            raise SystemExit(f"{name}: engines disagree on the match count: {counts}")
        base = min(times["eager"])
        for eng in engines:
            best = min(times[eng])
            lines.append(f"| {name} | {eng} | {counts[eng]:,} | {best:.2f} | {a.events / best:,.0f} | "
                         f"{base / best:.1f}x |")
    out = "\n".join(lines)
    print(out)
    if a.out:
        Path(a.out).write_text("# OpenCEP's NASDAQ patterns\n\n`python benchmarks/opencep_patterns.py`\n\n"
                               + out + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
