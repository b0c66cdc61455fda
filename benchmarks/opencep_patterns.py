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
NFA is the baseline. With ``--rev REV`` the lazy chain of that git revision (extracted as the
package ``engine_base``, ``benchmarks/baseline.py``) runs in the same rounds, and the table
gains its ratio (``vs REV``). Ratios and events/s are on CPU seconds of this process
(``time.process_time``: the machine is shared); wall seconds and the load average are
printed beside them. Prints events/s, matches, and the
ratio to eager. Nothing is asserted.

    python benchmarks/opencep_patterns.py [--events 150150] [--rounds 2] [--rev REV] [--engines a,b]
                                          [--quick] [--out FILE]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from baseline import extract_base, module_in  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.events import Event  # noqa: E402
from engine.engines.planner import ENGINES, make_matcher  # noqa: E402

PATTERNS = {
    "googleAscend": ("PATTERN SEQ(GOOG a, GOOG b, GOOG c) WHERE skip_till_any_match "
                     "AND a.peak < b.peak AND b.peak < c.peak WITHIN 3 min"),
    "momentum3": ("PATTERN SEQ(AAPL a, AMZN b, GOOG c) WHERE skip_till_any_match "
                  "AND a.peak < b.peak AND b.peak < c.peak AND a.open < b.open AND b.open < c.open "
                  "WITHIN 5 min"),
}


def nasdaq(n: int, tickers: int = 15, seed: int = 5, event: Any = Event) -> list[Event]:
    """``n`` minute bars over ``tickers`` symbols (uniform mix), as Events typed by ticker
    (``event``: the Event class, the baseline revision's for its engine)."""
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
        out.append(event(id=i, type=names[syms[i]], ts=tss[i], seq=i,
                         attrs={"open": round(p - s / 2, 3), "peak": round(p + s, 3), "lowest": round(p - s, 3),
                                "close": round(p, 3), "volume": vol[i]}))
    return out


def run(m: Any, events: list[Event]) -> tuple[float, float, int]:
    """CPU and wall seconds to feed every event to matcher ``m`` and close it, and the match count."""
    t0, w0 = time.process_time(), time.perf_counter()
    n = 0
    for e in events:
        n += len(m.feed(e))
    n += len(m.close())
    return time.process_time() - t0, time.perf_counter() - w0, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=150_150)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rev", help="also run the lazy chain of this git revision (A/B in one process)")
    ap.add_argument("--engines", default="nfab,lazy-chain,lazy-tree,eager",
                    help="comma-separated engines to run (eager is the baseline of `vs eager`)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    if a.quick:
        a.events, a.rounds = 5_000, 1
    with tempfile.TemporaryDirectory() as tmp:
        base = None
        if a.rev:
            extract_base(a.rev, Path(tmp))
            import engine_base.dsl as bdsl  # type: ignore[import-not-found]
            import engine_base.events as bev  # type: ignore[import-not-found]
            BaseChain = importlib.import_module(module_in("engine_base", "engines.lazy.chain_matcher")).LazyChainMatcher
            base = (bdsl, BaseChain, nasdaq(a.events, event=bev.Event))
        out = table(a, base)
    print(out)
    if a.out:
        Path(a.out).write_text("# OpenCEP's NASDAQ patterns\n\n`python benchmarks/opencep_patterns.py`\n\n"
                               + out + "\n")
    return 0


def table(a: argparse.Namespace, base: Any) -> str:
    events = nasdaq(a.events)
    rates: dict[str, float] = {}
    for e in events:
        rates[e.type] = rates.get(e.type, 0) + 1
    load0 = os.getloadavg()[0]
    lines = []
    head = ["pattern", "engine", "matches", "CPU s", "events/s (CPU)", "wall s", "vs eager"] + ([f"vs {a.rev}"] if base else [])
    lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for name, text in PATTERNS.items():
        p = parse(text)
        engines = [n for n in a.engines.split(",") if ENGINES[n].supports(p) is None]
        makers = {n: (lambda n=n: make_matcher(p, n, rates=rates if n == "lazy-chain" else None), events)
                  for n in engines}
        if base is not None:
            bdsl, base_chain, bevents = base
            bp = bdsl.parse(text)
            makers[f"lazy-chain @ {a.rev}"] = (lambda: base_chain(bp, rates=rates), bevents)
        times: dict[str, list[float]] = {n: [] for n in makers}
        walls: dict[str, list[float]] = {n: [] for n in makers}
        counts: dict[str, int] = {}
        for _ in range(a.rounds):
            for eng, (make, evs) in makers.items():
                dt, wall, n = run(make(), evs)
                times[eng].append(dt)
                walls[eng].append(wall)
                counts[eng] = n
        if len(set(counts.values())) != 1:
            raise SystemExit(f"{name}: engines disagree on the match count: {counts}")
        eager = min(times["eager"]) if "eager" in times else None
        ref = min(times[f"lazy-chain @ {a.rev}"]) if base is not None else None
        for eng in makers:
            best = min(times[eng])
            row = [name, eng, f"{counts[eng]:,}", f"{best:.2f}", f"{a.events / best:,.0f}",
                   f"{min(walls[eng]):.2f}", f"{eager / best:.1f}x" if eager else "-"]
            if ref is not None:
                row.append(f"{ref / best:.2f}x")
            lines.append("| " + " | ".join(row) + " |")
    load1 = os.getloadavg()[0]
    caption = (f"{a.events:,} events, {len(rates)} tickers; best of {a.rounds} interleaved rounds; ratios and "
               f"events/s on CPU seconds of this process; Python {sys.version.split()[0]}; matching only (events already in memory); "
               f"load average {load0:.1f} at the start, {load1:.1f} at the end.")
    return "\n".join([caption, ""] + lines)


if __name__ == "__main__":
    raise SystemExit(main())
