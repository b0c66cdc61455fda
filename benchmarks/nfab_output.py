"""NFA^b on output-heavy queries: what matches cost (matches are read from run paths only when output).

The SASE template of ``benchmarks/nfab_sase.py`` (W = 500 events) on its stock stream, for
the queries whose time went to match construction (p1s1, p2s2, p3-*s2). For each, in one
process, interleaved round by round:

- **baseline**: NFA^b as of a git revision (default ``dc8f60e``, before this work),
  extracted as the package ``engine_base``, matches built and counted;
- **count**: the current NFA^b with ``count_only`` (what ``cep run --format count`` uses):
  matches counted, never built;
- **built**: the current NFA^b, matches built;
- **jsonl**: built and written as ``cep run --format jsonl`` writes them now
  (``engine.commands.output.MatchWriter``, to a null sink);
- **jsonl (baseline)**: the baseline's matches written as its ``cep run --format jsonl``
  wrote them (``json.dumps(m.to_json(), default=...)`` per match).

Times are CPU seconds of this process (``time.process_time``): the machine is shared, and
wall time would measure the neighbours. Prints events/s and the ratios count/baseline and
jsonl/jsonl(baseline). Nothing is asserted.

    python benchmarks/nfab_output.py [--events N] [--rounds R] [--rev REV] [--quick] [--out FILE]
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from engine.dsl import parse  # noqa: E402
from engine.events import make_stream  # noqa: E402
from engine.engines.nfab.matcher import NfabMatcher  # noqa: E402
from engine.commands.output import MatchWriter, json_default  # noqa: E402
from baseline import extract_base, module_in, markdown, report  # noqa: E402
from sample_streams.generators import stocks  # noqa: E402

TEMPLATE = ("PATTERN SEQ(Stock+ a[], Stock b) WHERE {es} AND [symbol] AND a[1].price % 500 = 0 "
            "AND {p} AND b.volume < 150 WITHIN {w} events")
QUERIES = {
    "p1s1": ("partition_contiguity", "true"),
    "p2s2": ("skip_till_next_match", "a[i].price > a[i-1].price"),
    "p3-maxs2": ("skip_till_next_match", "a[i].price > max(a[..i-1].price)"),
    "p3-mins2": ("skip_till_next_match", "a[i].price > min(a[..i-1].price)"),
    "p3-avgs2": ("skip_till_next_match", "a[i].price > avg(a[..i-1].price)"),
}


class Null(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


def count_built(m: Any, events: list[Any]) -> int:
    n = 0
    for e in events:
        n += len(m.feed(e))
    return n + len(m.close())


def write_jsonl(m: Any, events: list[Any]) -> int:
    """The current ``cep run --format jsonl``: matches written by ``MatchWriter`` as produced."""
    w = MatchWriter("jsonl", Null(), m.order)
    for e in events:
        for mm in m.feed(e):
            w.write(mm)
    for mm in m.close():
        w.write(mm)
    return w.count


def write_jsonl_base(m: Any, events: list[Any]) -> int:
    """``cep run --format jsonl`` as of the baseline: ``json.dumps(m.to_json(), default=...)`` per match."""
    out, n = Null(), 0
    for e in events:
        for mm in m.feed(e):
            out.write(json.dumps(mm.to_json(), default=json_default) + "\n")
            n += 1
    for mm in m.close():
        out.write(json.dumps(mm.to_json(), default=json_default) + "\n")
        n += 1
    return n


def counted(m: Any, events: list[Any]) -> int:
    return count_built(m, events) + m.counted


def timed(fn: Callable[[], int]) -> tuple[float, int]:
    """CPU seconds of this process (the machine is shared: wall time measures the neighbours)."""
    t0 = time.process_time()
    n = fn()
    return time.process_time() - t0, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rev", default="dc8f60e")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    if a.quick:
        a.events, a.rounds = 2_000, 1
    rows_df = stocks(a.events, seed=7, p_up=0.55, price_step=10).to_dict("records")
    with tempfile.TemporaryDirectory() as tmp:
        extract_base(a.rev, Path(tmp))
        import engine_base.dsl as bdsl  # type: ignore[import-not-found]
        import engine_base.events as bev  # type: ignore[import-not-found]
        BaseNfab = importlib.import_module(module_in("engine_base", "engines.nfab.matcher")).NfabMatcher

        ev_now, ev_base = make_stream(rows_df), bev.make_stream(rows_df)
        table = []
        for q, (es, p) in QUERIES.items():
            text = TEMPLATE.format(es=es, p=p, w=500)
            pn, pb = parse(text), bdsl.parse(text)
            t: dict[str, list[float]] = {k: [] for k in ("base", "count", "built", "jsonl", "jsonl_base")}
            ns = set()
            for _ in range(a.rounds):
                for key, fn in (("base", lambda: count_built(BaseNfab(pb), ev_base)),
                                ("count", lambda: counted(NfabMatcher(pn, count_only=True), ev_now)),
                                ("built", lambda: count_built(NfabMatcher(pn), ev_now)),
                                ("jsonl", lambda: write_jsonl(NfabMatcher(pn), ev_now)),
                                ("jsonl_base", lambda: write_jsonl_base(BaseNfab(pb), ev_base))):
                    dt, n = timed(fn)
                    t[key].append(dt)
                    ns.add(n)
            if len(ns) != 1:
                raise SystemExit(f"{q}: match counts differ: {ns}")
            med = {k: statistics.median(v) for k, v in t.items()}
            eps = {k: a.events / v for k, v in med.items()}
            table.append([q, f"{ns.pop():,}", *(f"{eps[k]:,.0f}" for k in ("base", "count", "built", "jsonl_base",
                                                                          "jsonl")),
                          f"{med['base'] / med['count']:.1f}x", f"{med['jsonl_base'] / med['jsonl']:.2f}x"])
    head = ["query", "matches", "baseline ev/s", "count ev/s", "built ev/s", "jsonl baseline ev/s", "jsonl ev/s",
            "count / baseline", "jsonl / jsonl baseline"]
    caption = (f"{a.events:,} events (stocks, 2 symbols, price step 10), W = 500 events, median of {a.rounds} "
               f"interleaved rounds; baseline = {a.rev}.")
    report(markdown(caption, head, table), a.out, "NFA^b output cost", "nfab_output.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
