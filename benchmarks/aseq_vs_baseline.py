"""A-Seq vs the construct-then-aggregate baseline (A-Seq §6, Figs. 12-14, 16).

    .venv/bin/python benchmarks/aseq_vs_baseline.py [--events 10000] [--budget 5] [--out docs/benchmarks_aseq.md]

Data: a synthetic stock stream like the paper's (the event type is the ticker): ``--types``
tickers T0..T9 drawn uniformly, one event per millisecond (``ts`` = position, so ``WITHIN
1000`` is 1 s and holds ~100 events of each ticker), ``price`` uniform in 1..100.
Queries: ``SEQ(T0 v0, ..., T{l-1} v{l-1}) AGG COUNT WITHIN W``; negation on inserts ``!T9``
between the first two positions (the paper's q2 = (DELL, IPIX, !QQQ, AMAT)).

Both engines run in this process on the same events. A-Seq always runs the whole stream.
The baseline runs the whole stream when it fits ``--budget`` seconds; otherwise it runs the
longest prefix that fits and its time for the whole stream is **extrapolated** (and the
table says so): its work is modelled as ``units = events + matches built + stored matches
aggregated`` (a push per event, a DFS step per built match, one addition per stored match
at every TRIG, §2.2), the three counts for the whole stream are computed exactly by A-Seq
(the increment of the positive pattern's COUNT at a TRIG is the number of matches the
baseline builds there; the COUNT itself is the number of stored matches it aggregates),
and the seconds per unit are those the baseline measured on its prefix (or, when not even
one TRIG fits the budget, on the calibration run). ``model error`` compares the model's
prediction with the measured time on the runs that completed. Peak live objects of the
baseline = stack entries + pointers + negated events + stored matches (measured on the
prefix; for the whole stream, computed: events in the window + their pointers + the peak
COUNT). Timings are never asserted; ratios are measured in one process.
"""
from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.engines.aseq.baseline import StackBaseline  # noqa: E402
from engine.engines.aseq.core import ALL  # noqa: E402
from engine.engines.aseq.engine import AseqMatcher  # noqa: E402
from engine.engines.aseq.workload import Query, WorkloadMatcher  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.events import Event  # noqa: E402
from engine.match import StateExplosion  # noqa: E402


CALIBRATION = [(2, 100, False), (2, 250, False), (2, 500, False), (3, 100, False), (3, 250, False),
               (2, 100, True), (3, 100, True), (4, 100, False)]


def ticks(n: int, types: int = 10, seed: int = 1) -> list[Event]:
    r = random.Random(seed)
    return [Event(id=i, type=f"T{r.randrange(types)}", ts=float(i), seq=i, attrs={"price": r.randint(1, 100)})
            for i in range(n)]


def query(length: int, window: int, negation: bool, func: str = "COUNT") -> str:
    items = [f"T{i} v{i}" for i in range(length)]
    if negation and length >= 2:
        items.insert(1, "!T9 n")
    return f"PATTERN SEQ({', '.join(items)}) AGG {func} WITHIN {window}"


def run_aseq(text: str, events: list[Event]) -> dict[str, Any]:
    m = AseqMatcher(parse(text))
    t0 = time.perf_counter()
    for e in events:
        m.feed(e)
    m.close()
    dt = time.perf_counter() - t0
    return {"seconds": dt, "peak": m.stats.extra["prefix_counters_peak"], "updates": m.stats.extra["counter_updates"]}


def work_profile(text: str, events: list[Event]) -> tuple[list[int], list[int]]:
    """Per event: matches completed there (the baseline's DFS builds them) and the COUNT at
    a TRIG (the stored matches the baseline aggregates), both exact, from A-Seq."""
    m = AseqMatcher(parse(text))
    c = m.counters
    built, stored = [], []
    for e in events:
        c.expire_to(c.coord(e))
        before = c.value(0, ALL).c
        res = c.feed(e, None) if c.relevant(e.type) else []
        after = res[0][2].c if res else before
        built.append(after - before if res else 0)
        stored.append(after if res else 0)
    return built, stored


def run_baseline(text: str, events: list[Event], budget: float, prof: tuple[list[int], list[int]],
                 neg_prof: list[int], model: "CostModel | None" = None) -> dict[str, Any]:
    """The baseline on the longest prefix whose predicted time fits ``budget`` seconds
    (without a model: the whole stream)."""
    built, _ = prof
    k = len(events)
    if model is not None:
        acc = 0.0
        for i in range(len(events)):
            acc += model(1, built[i], neg_prof[i])
            if acc > budget:
                k = i
                break
    m = StackBaseline(parse(text), max_runs=10 ** 12, max_work=10 ** 12)
    t0 = time.perf_counter()
    try:
        for e in events[:k]:
            m.feed(e)
    except StateExplosion:  # pragma: no cover - limits are off
        pass
    dt = time.perf_counter() - t0
    st = m.stats.extra
    return {"seconds": dt, "events": k, "built": st.get("matches_built", 0),
            "stored": sum(neg_prof[:k]), "peak": st.get("live_objects_peak", 0)}


def fmt_s(x: float) -> str:
    if x >= 3600:
        return f"{x / 3600:,.1f} h"
    if x >= 60:
        return f"{x / 60:,.1f} min"
    return f"{x:,.3g} s"


class CostModel:
    """The baseline's seconds = a·events + b·matches built + c·stored matches aggregated,
    fitted by least squares on runs that completed."""

    def __init__(self) -> None:
        self.coef = (0.0, 0.0, 0.0)
        self.samples: list[tuple[float, float, float, float]] = []

    def add(self, events: float, built: float, stored: float, seconds: float) -> None:
        self.samples.append((events, built, stored, seconds))

    def fit(self) -> None:
        import numpy as np

        X = np.array([s[:3] for s in self.samples], dtype=float)
        y = np.array([s[3] for s in self.samples], dtype=float)
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        self.coef = tuple(float(max(c, 0.0)) for c in coef)  # type: ignore[assignment]

    def __call__(self, events: float, built: float, stored: float) -> float:
        a, b, c = self.coef
        return a * events + b * built + c * stored

    def errors(self) -> list[float]:
        return [abs(self(*s[:3]) - s[3]) / s[3] for s in self.samples if s[3] > 0]


def point(length: int, window: int, neg: bool, events: list[Event], budget: float, model: CostModel
          ) -> dict[str, Any]:
    text = query(length, window, neg)
    pos_text = query(length, window, False)
    a = run_aseq(text, events)
    prof = work_profile(pos_text, events)
    neg_stored = work_profile(text, events)[1] if neg else prof[1]
    n, built, stored = len(events), sum(prof[0]), sum(neg_stored)
    b = run_baseline(text, events, budget, prof, neg_stored, model)
    complete = b["events"] == n
    if complete:
        base_s, how = b["seconds"], "measured"
    else:
        full = model(n, built, stored)
        pre = model(b["events"], b["built"], b["stored"])
        if b["built"] > 0 and pre > 0:  # the model, corrected by what the prefix measured
            base_s = full * b["seconds"] / pre
            how = f"extrapolated from {b['events']:,} events"
        else:
            base_s, how = full, "extrapolated (cost model only)"
    in_window = sum(1 for e in events[:window] if e.type in {f"T{i}" for i in range(length)} | {"T9"})
    peak_obj = b["peak"] if complete else 2 * in_window + max(neg_stored)
    return {"l": length, "W": window, "neg": neg, "aseq_s": a["seconds"], "aseq_peak": a["peak"],
            "base_s": base_s, "base_peak": peak_obj, "built": built, "how": how,
            "ratio": base_s / a["seconds"] if a["seconds"] > 0 else float("inf"),
            "pred": model(n, built, stored), "events": n}


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| l | W (ms) | negation | A-Seq time | A-Seq events/s | peak prefix counters | baseline time | "
           "baseline events/s | matches built | baseline peak live objects | ratio | baseline |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        n = r["events"]
        out.append(f"| {r['l']} | {r['W']} | {'on' if r['neg'] else 'off'} | {fmt_s(r['aseq_s'])} | "
                   f"{n / r['aseq_s']:,.0f} | {r['aseq_peak']:,} | {fmt_s(r['base_s'])} | {n / r['base_s']:,.3g} | "
                   f"{r['built']:,} | {r['base_peak']:,} | **{r['ratio']:,.0f}×** | {r['how']} |")
    return "\n".join(out)


def workload_rows(events: list[Event]) -> tuple[str, str]:
    """Shared (PreTree / Chop-Connect) vs unshared A-Seq, Fig. 16's two axes."""
    def run(qs: list[Query], share: bool) -> tuple[float, int]:
        # one counter vector per START on both sides, as in the paper (§4 shares across queries;
        # counters shared across STARTs would also change what a "counter update" is)
        m = WorkloadMatcher(qs, share=share, share_starts=False)
        t0 = time.perf_counter()
        for e in events:
            m.feed(e)
        m.close()
        return time.perf_counter() - t0, m.stats.extra["counter_updates"]

    def q(name: str, types: list[str]) -> Query:
        return Query(name, parse(f"PATTERN SEQ({', '.join(f'{t} v{i}' for i, t in enumerate(types))}) "
                                 "AGG COUNT WITHIN 500"))

    speed: dict[str, list[tuple[float, float]]] = {}
    lines = ["| workload | queries | shared length | unshared time | shared time | speed-up | "
             "unshared counter updates | shared counter updates |", "|---|---|---|---|---|---|---|---|"]
    cases = []
    for p in (2, 3, 4, 5, 6):  # 3 queries sharing a prefix of length p (distinct last type)
        cases.append(("prefix (PreTree)", p, [q(f"q{i}", [f"T{j}" for j in range(p)] + [f"T{6 + i}"])
                                              for i in range(3)]))
    for k in (2, 4, 6):  # k queries sharing a prefix of length 3
        cases.append(("prefix (PreTree)", 3, [q(f"q{i}", ["T0", "T1", "T2", f"T{3 + i}"]) for i in range(k)]))
    for p in (2, 3, 4):  # queries sharing a substring of length p after different STARTs (Chop-Connect)
        sub = [f"T{j}" for j in range(p)]
        cases.append(("substring (Chop-Connect)", p, [q("base", sub)] + [q(f"q{i}", [f"T{6 + i}"] + sub)
                                                                          for i in range(3)]))
    for kind, p, qs in cases:
        tu, uu = run(qs, False)
        ts, us = run(qs, True)
        lines.append(f"| {kind} | {len(qs)} | {p} | {fmt_s(tu)} | {fmt_s(ts)} | {tu / ts:.2f}× | {uu:,} | {us:,} |")
        speed.setdefault(kind, []).append((tu / ts, uu / us))
    pre, cc = speed["prefix (PreTree)"], speed["substring (Chop-Connect)"]
    prose = (f"Prefix sharing updates each shared node once per START instead of once per query: here "
             f"{min(u for _, u in pre):.1f}×–{max(u for _, u in pre):.1f}× fewer counter updates and "
             f"{min(t for t, _ in pre):.2f}×–{max(t for t, _ in pre):.2f}× less time, growing with the prefix "
             "length and the number of queries (the paper: 3× to 5× by prefix length, about 2× by query count, "
             "Java). Chop-Connect cuts the counter updates "
             f"{min(u for _, u in cc):.1f}×–{max(u for _, u in cc):.1f}×, but in Python its snapshots (O(live "
             "STARTs) per CNET event, §4.2) and the connect step at every TRIG cost about as much as they save: "
             f"{min(t for t, _ in cc):.2f}×–{max(t for t, _ in cc):.2f}× in time (the paper: 1.3×–2.6×).")
    return "\n".join(lines), prose


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--types", type=int, default=10)
    ap.add_argument("--budget", type=float, default=5.0, help="seconds the baseline may run per point")
    ap.add_argument("--lengths", default="2,3,4,5,6,7")
    ap.add_argument("--windows", default="100,250,500,1000,2000")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    events = ticks(args.events, args.types)
    # calibration: complete baseline runs on cheap settings fit the cost model
    model = CostModel()
    for length, window, neg in CALIBRATION:
        text = query(length, window, neg)
        prof = work_profile(query(length, window, False), events)
        stored = work_profile(text, events)[1] if neg else prof[1]
        b = run_baseline(text, events, float("inf"), prof, stored)
        model.add(len(events), b["built"], sum(stored), b["seconds"])
    model.fit()
    lengths = [int(x) for x in args.lengths.split(",")]
    windows = [int(x) for x in args.windows.split(",")]
    by_len = []
    for neg in (False, True):
        for length in lengths:
            r = point(length, 1000, neg, events, args.budget, model)
            by_len.append(r)
            print(table([r]).splitlines()[-1], flush=True)
    by_w = []
    for neg in (False, True):
        for w in windows:
            r = point(3, w, neg, events, args.budget, model)
            by_w.append(r)
            print(table([r]).splitlines()[-1], flush=True)
    errs = [abs(r["pred"] - r["base_s"]) / r["base_s"] for r in by_len + by_w if r["how"] == "measured"
            and r["base_s"] > 0.05]
    a_, b_, c_ = model.coef
    wl, wl_prose = workload_rows(events)
    five = next((r for r in by_len if r["l"] == 5 and not r["neg"]), None)
    doc = f"""# A-Seq vs the construct-then-aggregate baseline

Produced by `benchmarks/aseq_vs_baseline.py --events {args.events} --budget {args.budget:g}` on
{platform.python_implementation()} {platform.python_version()}, {platform.machine()} (2 cores shared with
other work: absolute times are noisy, ratios are measured in one process on the same events).
Data: {args.events:,} events, {args.types} tickers T0..T{args.types - 1} drawn uniformly, one event per ms,
so `WITHIN W` holds about W/{args.types} events of each ticker. Query: `SEQ(T0, ..., T(l-1)) AGG COUNT WITHIN W`;
negation on = `!T9` between the first two positions (A-Seq §6, Fig. 14b).

**Extrapolation.** Where the baseline would run for minutes to hours, it runs the longest prefix of the
stream that fits {args.budget:g} s and its time for the whole stream is extrapolated (column *baseline*
says so). The baseline's time is modelled as `a·events + b·matches built + c·stored matches aggregated`
(§2.2: a push per event, a DFS path per match, the stored matches read at every TRIG), fitted by least
squares on {len(model.samples)} complete runs of cheap settings (a = {a_ * 1e6:.2f} µs, b = {b_ * 1e6:.2f} µs,
c = {c_ * 1e9:.1f} ns; median error {(statistics.median(model.errors()) * 100):.0f} % on those runs, and
{(statistics.median(errs) * 100 if errs else float('nan')):.0f} % on the complete runs of the tables). The
three counts for the whole stream are exact, computed by A-Seq (the increment of the positive pattern's
COUNT at a TRIG is what the baseline's DFS builds there; the COUNT is what it stores). An extrapolated
time is the model's prediction for the whole stream times (measured / predicted) on the prefix the
baseline ran, or the model alone when not even one match fits the budget.
Peak live objects of an extrapolated baseline are computed (events in the window and their pointers plus
the peak number of stored matches), not measured.

## Pattern length (W = 1000 ms; Fig. 12)

{table(by_len)}

At length 5, W = 1000 (negation off) A-Seq is **{(five['ratio'] if five else float('nan')):,.0f}×** faster than the
baseline ({five['how'] if five else ''}); the paper reports 16,736× (Java, CHAOS). The gap grows with the length: the
baseline's work grows like |E|^l per window (Eq. 3) while A-Seq's stays O(live STARTs) per event.

## Window (l = 3; Fig. 13)

{table(by_w)}

## Several queries (A-Seq shared vs unshared; Fig. 16)

Three queries sharing a prefix of length p (PreTree), k queries sharing a prefix of length 3, and three
queries that contain a shared query as a substring after a different START (Chop-Connect, with
snapshots). Both columns are A-Seq; "unshared" runs every query on its own counters. W = 500.

{wl}

{wl_prose}
"""
    print(doc)
    if args.out:
        Path(args.out).write_text(doc, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
