"""Lazy chain / tree NFA vs the eager NFA (Kolchinsky & Schuster §8;
docs/papers.md, "Lazy chain / tree NFA"): events/s, peak and created partial matches, condition
evaluations, buffered events and peak memory, on stock-like streams whose type rates are
skewed 1:3, 1:10, 1:100 and 1:700, for SEQ of 3-5, AND of 3-4, negation and Kleene, plus a
stream whose rarest type changes over time (the tree NFA's case, Fig. 18).

Streams come from ``sample_streams.generators.skewed_types``: every frequent type arrives
at 1 event/s, the rare one at 1/ratio events/s, with ``price`` uniform in 1..100 and ``x``
uniform in [0, 1). The window is 10 s (about 10 events of each frequent type), 5 s for
Kleene (the paper halves it for ITER3). The chain gets the generator's rates (frequencies
given in advance, §4); the tree gets nothing. Ratios are measured against eager in the same
run; timings are printed, never asserted.

    python benchmarks/lazy_vs_eager.py            # full run (a few minutes on 2 cores)
    python benchmarks/lazy_vs_eager.py --quick    # small streams, for a smoke check
    python benchmarks/lazy_vs_eager.py --out docs/benchmarks_lazy.md
"""
from __future__ import annotations

import argparse
import gc
import itertools
import os
import platform
import sys
import time
import tracemalloc
from dataclasses import dataclass, field
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine.dsl import parse  # noqa: E402
from engine.events import Event, make_stream  # noqa: E402
from engine.engines.lazy.eager_matcher import EagerMatcher  # noqa: E402
from engine.engines.lazy.chain_matcher import LazyChainMatcher  # noqa: E402
from engine.engines.lazy.tree_matcher import LazyTreeMatcher  # noqa: E402
from sample_streams.generators import skewed_types  # noqa: E402

W = 10


def stream(n: int, rates: dict[str, float], seed: int = 1) -> list[Event]:
    df = skewed_types(n, rates, seed=seed)
    return make_stream(df.to_dict("records"))


def rates_for(types: str, rare: str, ratio: float) -> dict[str, float]:
    return {t: (1.0 / ratio if t == rare else 1.0) for t in types}


def seq_text(k: int, window: float = W) -> str:
    vs = "abcde"[:k]
    items = ", ".join(f"{v.upper()} {v}" for v in vs)
    return f"PATTERN SEQ({items}) WHERE {vs[0]}.price < {vs[-1]}.price WITHIN {window:g}"


@dataclass
class Row:
    name: str
    text: str
    rates: dict[str, float]
    n: int
    note: str = ""
    engines: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    seed: int = 1
    events: list[Event] | None = None


def default_engines(rates: dict[str, float]) -> list[tuple[str, Callable[..., Any]]]:
    return [("eager", lambda p: EagerMatcher(p)),
            ("lazy-chain", lambda p: LazyChainMatcher(p, rates=rates)),
            ("lazy-tree", lambda p: LazyTreeMatcher(p))]


def rows(scale: float) -> list[Row]:
    def n(x: int) -> int:
        return max(300, int(x * scale))

    out: list[Row] = []
    for ratio in (3, 10, 100, 700):
        r = rates_for("ABCD", "D", ratio)
        out.append(Row(f"SEQ4 1:{ratio}", seq_text(4), r, n(20_000 if ratio > 3 else 12_000)))
    r = rates_for("ABC", "C", 100)
    out.append(Row("SEQ3 1:100", seq_text(3), r, n(40_000)))
    r = rates_for("ABCDE", "E", 100)
    out.append(Row("SEQ5 1:100", seq_text(5), r, n(8_000)))
    r = rates_for("ABCD", "A", 100)
    out.append(Row("SEQ4 1:100 rare first", seq_text(4), r, n(20_000),
                   note="the rare type starts the sequence: eager already evaluates it first"))
    r = rates_for("ABC", "C", 100)
    out.append(Row("AND3 1:100", f"PATTERN AND(A a, B b, C c) WHERE a.price < c.price WITHIN {W}", r, n(30_000)))
    r = rates_for("ABCD", "D", 100)
    out.append(Row("AND4 1:100", f"PATTERN AND(A a, B b, C c, D d) WHERE a.price < d.price WITHIN {W}", r,
                   n(6_000)))
    r = rates_for("ABCDE", "E", 100)
    neg = (f"PATTERN SEQ(A a, !(B b), C c, D d, E e) WHERE b.price = c.price AND a.price < e.price WITHIN {W}")
    out.append(Row("NEG SEQ5 (2nd negated) 1:100", neg, r, n(10_000), engines=[
        ("eager", lambda p: EagerMatcher(p)),
        ("lazy-chain PP", lambda p, r=r: LazyChainMatcher(p, rates=r, negation="pp")),
        ("lazy-chain FC", lambda p, r=r: LazyChainMatcher(p, rates=r, negation="fc")),
        ("lazy-tree", lambda p: LazyTreeMatcher(p))]))
    r = rates_for("ABC", "C", 100)
    out.append(Row("ITER3 SEQ(A, B+, C) 1:100", "PATTERN SEQ(A a, B+ b[], C c) WHERE a.price < c.price WITHIN 5",
                   r, n(15_000), note="window halved, as in the paper"))
    return out


def dynamic_row(scale: float) -> Row:
    """SEQ(A, B, C) where the rare type (1:100) rotates C, A, B every segment (Fig. 18)."""
    seg = max(200, int(8_000 * scale))
    events: list[Event] = []
    t0 = 0.0
    for k, rare in enumerate("CABCAB"[: 6 if scale >= 0.5 else 3]):
        df = skewed_types(seg, rates_for("ABC", rare, 100), seed=10 + k)
        df["ts"] = df["ts"] + t0
        df["id"] = df["id"] + k * seg
        t0 = float(df["ts"].iloc[-1]) + 1.0
        events.extend(make_stream(df.to_dict("records")))
    events = make_stream([dict(type=e.type, ts=e.ts, id=e.id, **e.attrs) for e in events])
    first = rates_for("ABC", "C", 100)
    engines: list[tuple[str, Callable[..., Any]]] = [("eager", lambda p: EagerMatcher(p)),
                                                     ("lazy-tree", lambda p: LazyTreeMatcher(p))]
    for order in itertools.permutations("abc"):
        engines.append((f"chain order {''.join(order).upper()}",
                        lambda p, o=list(order): LazyChainMatcher(p, order=o)))
    engines.append(("lazy-chain (rates of 1st segment)", lambda p: LazyChainMatcher(p, rates=first)))
    row = Row("SEQ3, rarest type changes", seq_text(3), first, len(events), engines=engines,
              note=f"rare type rotates C, A, B every {seg:,} events")
    row.events = events
    return row


def measure(make: Callable[[], Any], events: list[Event], mem_events: int) -> dict[str, Any]:
    gc.collect()
    m = make()
    t = time.process_time()  # CPU time of this process: the machine may be shared
    matches = 0
    for e in events:
        matches += len(m.feed(e))
    matches += len(m.close())
    dt = time.process_time() - t
    s = m.stats
    res = dict(eps=len(events) / dt if dt > 0 else float("inf"), seconds=dt, matches=matches,
               peak=s.runs_peak, created=s.runs_created, evals=s.predicate_evals, buffered=s.buffer_peak)
    # peak memory on a prefix (tracemalloc slows everything down, so a separate pass)
    gc.collect()
    m = make()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for e in events[:mem_events]:
        m.feed(e)
    m.close()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    res["mb"] = peak / 1e6
    return res


def fmt_int(x: float) -> str:
    return f"{x:,.0f}"


def run(scale: float, out_path: str | None) -> int:
    all_rows = rows(scale) + [dynamic_row(scale)]
    lines = []
    header = ("| pattern | engine | events/s | × eager | peak partial matches | created | condition evals "
              "| peak buffered | peak MB | matches |")
    sep = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    lines += [header, sep]
    print(header)
    print(sep)
    verdicts: list[str] = []
    t_all = time.perf_counter()
    for row in all_rows:
        p = parse(row.text)
        events = row.events if row.events is not None else stream(row.n, row.rates, row.seed)
        engines = row.engines or default_engines(row.rates)
        results = []
        for name, mk in engines:
            res = measure(lambda mk=mk: mk(p), events, mem_events=min(len(events), max(300, int(5_000 * scale))))
            results.append((name, res))
        base = results[0][1]
        counts = {r["matches"] for _, r in results}
        assert len(counts) == 1, f"{row.name}: engines disagree on the number of matches: {counts}"
        for name, r in results:
            ratio = r["eps"] / base["eps"] if base["eps"] else float("nan")
            line = (f"| {row.name} | {name} | {fmt_int(r['eps'])} | {ratio:.1f} | {fmt_int(r['peak'])} | "
                    f"{fmt_int(r['created'])} | {fmt_int(r['evals'])} | {fmt_int(r['buffered'])} | "
                    f"{r['mb']:.2f} | {fmt_int(r['matches'])} |")
            lines.append(line)
            print(line, flush=True)
        lazy = [(n_, r) for n_, r in results if n_ != "eager"]
        # fixed-order chains of the dynamic row are there to show a wrong order; not judged
        fewer = [n_ for n_, r in lazy if r["peak"] >= base["peak"] and not n_.startswith("chain order")]
        if fewer:
            verdicts.append(f"- {row.name}: peak partial matches not below eager for {', '.join(fewer)}")
        if row.name == "SEQ4 1:100":
            chain = dict(results)["lazy-chain"]
            x = chain["eps"] / base["eps"]
            verdicts.insert(0, f"- target (chain >= 10x eager throughput, SEQ4 at 1:100): "
                               f"{'met' if x >= 10 else 'NOT met'} ({x:.1f}x)")
    elapsed = time.perf_counter() - t_all
    print()
    print("\n".join(verdicts) or "- every lazy engine had fewer peak partial matches than eager in every row")
    print(f"total {elapsed:.0f} s")
    if out_path:
        write_doc(out_path, lines, verdicts, scale, elapsed)
    return 0


def write_doc(path: str, lines: list[str], verdicts: list[str], scale: float, elapsed: float) -> None:
    import numpy
    import pandas

    head = f"""# Lazy chain / tree NFA vs eager NFA

Generated by `python benchmarks/lazy_vs_eager.py --out docs/benchmarks_lazy.md`
(scale {scale:g}, {elapsed:.0f} s; Python {platform.python_version()}, numpy {numpy.__version__},
pandas {pandas.__version__}, {platform.machine()}, {os.cpu_count()} CPUs). Events/s are events per
second of the process's CPU time, from one run on a shared machine: compare the ratios, not the
absolute numbers.

**Setup.** Stock-like streams from `sample_streams.generators.skewed_types`: every frequent type
arrives at 1 event/s and the rare one at 1/ratio events/s; `price` is uniform in 1..100. The window
is 10 s (about 10 events of each frequent type), 5 s for the Kleene row. Unless the row says
otherwise the rare type is the **last** of the sequence (the paper's Example 1: the eager NFA keeps
every A and AB prefix while it waits for the rare C). Each SEQ has the condition
`first.price < last.price`. The chain is given the generator's rates (frequencies known in advance,
§4) and evaluates in ascending rate order; the tree gets no rates (§7). "Peak partial matches"
counts live instances (for the lazy engines including the transient ones inside one event's
cascade); "created" counts non-root, non-final instances; "condition evaluations" counts
candidate checks against WHERE conditions (unary filters included); "peak MB" is the tracemalloc
peak over the first 5,000 events. All engines return the same matches in every row (checked by
the script).

"""
    tail = """

## Reading the table

""" + "\n".join(verdicts or ["- every lazy engine had fewer peak partial matches than eager in every row"]) + """
- **Skew.** The gain grows with the skew (§8.2): for SEQ4 the chain's advantage rises from a few
  times at 1:3 to tens of times at 1:100 and 1:700. Eager pays for every A, AB and ABC prefix
  whether or not a D ever comes; the chain stores A, B, C and starts from D, so between two D's
  no partial match exists at all (peak 3 = the depth of one D's cascade).
- **Rare type first** (an extra row, not from the issue): with the rates tied for B, C, D, the
  ascending order keeps pattern order, so the chain *is* the eager automaton (the base case of
  Lemma 1) and has exactly eager's partial matches. It keeps no buffers: every state is entered
  right after a take of the stream's newest event by a variable it must follow, so no buffered
  event could ever be found (`buffer_searches` in `engine/engines/lazy/compiled_steps.py`). The tree breaks the
  tie by live counts and creates fewer partial matches and condition evaluations, but its
  per-event bookkeeping (live counts, the rarest variable per instance) costs more than eager's
  already cheap work here: this is the case where lazy evaluation has nothing to save.
- **AND** has no ordering filters, so searches scan the whole window and stream-capable
  instances wait (§4.2); it still beats the eager subset lattice by a wide margin.
- **Negation** (SEQ5, 2nd event negated): First-Chance decides the absence of B as soon as A and
  C are bound and halves the condition evaluations of Post-Processing; both are far ahead of
  eager, which carries every prefix to the end.
- **Kleene** (ITER3): eager clones an instance per subset of B's (the take self-loop), the chain
  enumerates subsets only between an A and a C that already exist.
- **Rarest type changing** (§8.3, Fig. 18): every fixed chain order is wrong in some segment and
  creates 25-50 times more partial matches than the tree (at least 56,000 vs about 2,000); the
  tree follows the live counts, creates the fewest partial matches and condition evaluations,
  and is about as fast as the best fixed order. A chain given the first segment's rates keeps
  that order and degrades when the rates rotate.
- **Memory**: lazy engines buffer the window (a few dozen events here) but hold far fewer
  partial matches; the tracemalloc peak of the chain (given the rates) and of the tree is at most
  eager's in every row except "rare first", where eager's state is already tiny.
"""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + "\n".join(lines) + "\n" + tail)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small streams (a smoke run)")
    ap.add_argument("--scale", type=float, default=None, help="stream size factor (default 1, --quick 0.05)")
    ap.add_argument("--out", default=None, help="also write the table as Markdown here")
    args = ap.parse_args(argv)
    scale = args.scale if args.scale is not None else (0.05 if args.quick else 1.0)
    return run(scale, args.out)


if __name__ == "__main__":
    sys.exit(main())
