"""What the step trace costs (with no tracer, the engines must cost what they cost before the trace existed).

Three columns per workload, all measured in this one process, interleaved round by round
so that machine drift hits each alike:

- **baseline**: the engines as they were before the trace (a git revision, default
  ``dc8f60e``, extracted to a temporary package ``engine_base`` and imported beside the
  current ``engine``);
- **now, no tracer**: the current engines with ``tracer=None``;
- **now, traced**: the current engines with a ``Recorder`` and ``trace.record`` (what
  ``cep trace`` and the Debug page do), on a prefix of the stream.

Prints a markdown table of median seconds and the ratios now/baseline and traced/now.
Nothing is asserted; ``--quick`` runs small inputs (used by the test suite).

    python benchmarks/trace_overhead.py [--rev REV] [--events N] [--rounds R] [--quick]
"""
from __future__ import annotations

import argparse
import importlib
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
from engine.trace import Recorder, record  # noqa: E402
from baseline import extract_base, markdown, module_in, report  # noqa: E402
from sample_streams.generators import skewed_types, stocks  # noqa: E402

BASE_REV = "dc8f60e"

WORKLOADS = [
    # (label, module, class, pattern, stream kind)
    ("NFA^b, SASE template s2 p3-avg", "engines.nfab.matcher", "NfabMatcher",
     "PATTERN SEQ(Stock+ a[], Stock b) WHERE skip_till_next_match AND [symbol] AND a[1].price % 500 = 0 "
     "AND a[i].price > avg(a[..i-1].price) AND b.volume < 150 WITHIN 500 events", "stocks"),
    ("NFA^b, any match, 3 singletons", "engines.nfab.matcher", "NfabMatcher",
     "PATTERN SEQ(Stock a, Stock b, Stock c) WHERE skip_till_any_match AND [symbol] AND b.price > a.price "
     "AND c.price > b.price WITHIN 20 events", "stocks"),
    ("lazy chain, skewed SEQ(A,B,C)", "engines.lazy.chain_matcher", "LazyChainMatcher",
     "PATTERN SEQ(A a, B b, C c) WHERE b.x > a.x WITHIN 3", "skewed"),
    ("lazy tree, skewed SEQ(A,B,C)", "engines.lazy.tree_matcher", "LazyTreeMatcher",
     "PATTERN SEQ(A a, B b, C c) WHERE b.x > a.x WITHIN 3", "skewed"),
    ("eager, skewed SEQ(A,B,C)", "engines.lazy.eager_matcher", "EagerMatcher",
     "PATTERN SEQ(A a, B b, C c) WHERE b.x > a.x WITHIN 3", "skewed"),
]


def streams(n: int) -> dict[str, tuple[list[Any], list[Any]]]:
    """The same events for both packages (each its own Event class)."""
    import engine.events as now_ev
    import engine_base.events as base_ev  # type: ignore[import-not-found]

    st = stocks(n, symbols=2, seed=3)
    sk = skewed_types(n, {"A": 20, "B": 5, "C": 1}, seed=3)
    out = {}
    for name, df in (("stocks", st), ("skewed", sk)):
        rows = df.to_dict("records")
        out[name] = (now_ev.make_stream(rows), base_ev.make_stream(rows))
    return out


def timed(fn: Callable[[], int]) -> tuple[float, int]:
    t0 = time.perf_counter()
    n = fn()
    return time.perf_counter() - t0, n


def run_plain(cls: Any, pattern: Any, events: list[Any], **kw: Any) -> int:
    m = cls(pattern, **kw)
    n = 0
    for e in events:
        n += len(m.feed(e))
    return n + len(m.close())


def run_traced(cls: Any, pattern: Any, events: list[Any], **kw: Any) -> int:
    m = cls(pattern, tracer=Recorder(), **kw)
    return sum(len(s.matches) for s in record(m, events, limit=None))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default=BASE_REV, help="the baseline revision (before the trace)")
    ap.add_argument("--events", type=int, default=30_000)
    ap.add_argument("--traced-events", type=int, default=2_000, help="prefix traced (a trace keeps every step)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", help="also write the table to this markdown file")
    a = ap.parse_args(argv)
    if a.quick:
        a.events, a.traced_events, a.rounds = 600, 200, 1
    with tempfile.TemporaryDirectory() as tmp:
        extract_base(a.rev, Path(tmp))
        import engine_base.dsl as base_dsl  # type: ignore[import-not-found]

        data = streams(a.events)
        rows = []
        for label, mod, cls_name, text, kind in WORKLOADS:
            now_cls = getattr(importlib.import_module(f"engine.{mod}"), cls_name)
            base_cls = getattr(importlib.import_module(module_in("engine_base", mod)), cls_name)
            kw: dict[str, Any] = {"order": ["c", "b", "a"]} if cls_name == "LazyChainMatcher" else {}
            now_p, base_p = parse(text), base_dsl.parse(text)
            ev_now, ev_base = data[kind]
            t_base, t_now, t_tr, t_tr_plain = [], [], [], []
            counts = set()
            for _ in range(a.rounds):
                dt, n1 = timed(lambda: run_plain(base_cls, base_p, ev_base, **kw))
                t_base.append(dt)
                dt, n2 = timed(lambda: run_plain(now_cls, now_p, ev_now, **kw))
                t_now.append(dt)
                prefix = ev_now[: a.traced_events]
                dt, n3 = timed(lambda: run_plain(now_cls, now_p, prefix, **kw))
                t_tr_plain.append(dt)
                dt, n4 = timed(lambda: run_traced(now_cls, now_p, prefix, **kw))
                t_tr.append(dt)
                counts.add((n1, n2))
                if n3 != n4:
                    raise SystemExit(f"{label}: traced run found {n4} matches, plain {n3}")
            if len(counts) != 1 or len({c for pair in counts for c in pair}) != 1:
                raise SystemExit(f"{label}: baseline and current disagree on the match count: {counts}")
            mb, mn = statistics.median(t_base), statistics.median(t_now)
            mt, mtp = statistics.median(t_tr), statistics.median(t_tr_plain)
            rows.append([label, f"{counts.pop()[0]:,}", f"{mb:.3f}", f"{mn:.3f}", f"{mn / mb:.2f}",
                         f"{mtp:.3f}", f"{mt:.3f}", f"{mt / mtp:.1f}"])
    head = ["workload", "matches", "baseline s", "now, no tracer s", "now / baseline",
            f"prefix {a.traced_events:,} ev, no tracer s", "traced s", "traced / untraced"]
    caption = f"{a.events:,} events per stream, median of {a.rounds} interleaved rounds; baseline = {a.rev}."
    report(markdown(caption, head, rows), a.out, "Step trace overhead", "trace_overhead.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
