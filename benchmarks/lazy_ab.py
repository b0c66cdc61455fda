"""The lazy chain, the lazy tree and the eager NFA now vs an earlier git revision, on every
workload of ``benchmarks/lazy_vs_eager.py`` (SEQ 3-5 at several skews, AND, negation,
Kleene, the changing rarest type): a check that a change made for one workload does not
slow the others down.

The revision's ``engine`` is extracted as the package ``engine_base``
(``benchmarks/baseline.py``) and run in this process on the same rows, interleaved round by
round with the current engines. Times are CPU seconds of this process
(``time.process_time``: the machine is shared); the table gives the current engine's
events/s and the ratio ``REV time / now time`` (above 1: faster now). Match counts must be
equal (the run stops otherwise). Nothing is asserted.

    python benchmarks/lazy_ab.py --rev REV [--scale 0.25] [--rounds 2] [--out FILE]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from baseline import extract_base, module_in, markdown, report  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.engines.lazy.eager_matcher import EagerMatcher  # noqa: E402
from engine.engines.lazy.chain_matcher import LazyChainMatcher  # noqa: E402
from engine.engines.lazy.tree_matcher import LazyTreeMatcher  # noqa: E402
from lazy_vs_eager import dynamic_row, rows, stream  # noqa: E402

ENGINES = ("lazy-chain", "lazy-tree", "eager")


def cpu_run(m: Any, events: list[Any]) -> tuple[float, int]:
    t0 = time.process_time()
    n = 0
    for e in events:
        n += len(m.feed(e))
    n += len(m.close())
    return time.process_time() - t0, n


def makers(mods: tuple[Any, Any, Any], rates: dict[str, float]) -> dict[str, Callable[[Any], Any]]:
    chain, tree, eager = mods
    return {"lazy-chain": lambda p: chain(p, rates=rates), "lazy-tree": lambda p: tree(p),
            "eager": lambda p: eager(p)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", required=True)
    ap.add_argument("--scale", type=float, default=0.25)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        extract_base(a.rev, Path(tmp))
        import engine_base.dsl as bdsl  # type: ignore[import-not-found]
        BEager = importlib.import_module(module_in("engine_base", "engines.lazy.eager_matcher")).EagerMatcher
        BChain = importlib.import_module(module_in("engine_base", "engines.lazy.chain_matcher")).LazyChainMatcher
        BTree = importlib.import_module(module_in("engine_base", "engines.lazy.tree_matcher")).LazyTreeMatcher

        work = rows(a.scale) + [dynamic_row(a.scale)]
        for row in work:
            events = row.events if row.events is not None else stream(row.n, row.rates, row.seed)
            now = makers((LazyChainMatcher, LazyTreeMatcher, EagerMatcher), row.rates)
            base = makers((BChain, BTree, BEager), row.rates)
            p, bp = parse(row.text), bdsl.parse(row.text)
            times: dict[tuple[str, str], list[float]] = {}
            counts: set[int] = set()
            for _ in range(a.rounds):
                for eng in ENGINES:
                    for side, mk, pat in (("now", now[eng], p), ("base", base[eng], bp)):
                        dt, n = cpu_run(mk(pat), events)
                        times.setdefault((eng, side), []).append(dt)
                        counts.add(n)
            if len(counts) != 1:
                raise SystemExit(f"{row.name}: match counts differ: {counts}")
            cells = [row.name, f"{len(events):,}", f"{counts.pop():,}"]
            for eng in ENGINES:
                t_now, t_base = min(times[(eng, "now")]), min(times[(eng, "base")])
                cells += [f"{len(events) / t_now:,.0f}", f"{t_base / t_now:.2f}x"]
            table.append(cells)
    head = ["workload", "events", "matches"]
    for eng in ENGINES:
        head += [f"{eng} ev/s", f"vs {a.rev}"]
    caption = (f"Scale {a.scale:g} of benchmarks/lazy_vs_eager.py; best of {a.rounds} interleaved rounds; CPU "
               f"seconds; load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
               f"Python {sys.version.split()[0]}.")
    report(markdown(caption, head, table), a.out, "Lazy engines now vs an earlier revision", "lazy_ab.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
