"""Match windows (match-windows paper §6): the throughput
factor of filtering (f), partitioning (p) and the necessary match conditions (c) over the
plain-window baseline, for the SES automaton and for an all-matches engine.

Workloads (the paper's data sets are not public; ``sample_streams.match_windows`` makes
look-alikes):

- **Chemo** (§5.8): the paper's table, calls of A and events given to A per configuration;
- **P_seq / P_set**, k = 1..8 variables, on an NYSE-like trade stream (100 tickers with
  Zipf(1) frequencies, 5 trades per ms): ``SEQ(Trade v1, ..., Trade vk)`` and
  ``AND(Trade v1, ..., Trade vk)`` with ``vi.ticker = 'X_i'``; for each k ``--patterns``
  patterns with tickers drawn at random (seeded) among the tickers ranked 11..100 (0.2-1.7 %
  of the trades; the ten busiest would make every window hold tens of partial matches per
  variable), WITHIN 50 ms (about 250 trades per plain window);
- **τ**: P_set with k = 4 on the trades for WITHIN 10..100 ms, and a P_onco stand-in on a
  generated chemotherapy cohort (``SEQ(AND(C c, P+ p[], D d), AND(B b, H h))`` with ``[PID]``
  and rising P doses) for WITHIN 5..50 days;
- **eager**: each engine alone on the stream (one instance per start event: the paper's
  "eager original") against the same engine called lazily by Algorithm 1.

The SES automaton runs with ``earliest_maximal`` (what the paper's SES returns); the
all-matches engine is the lazy tree NFA with all matches, fed each window by a fresh matcher
(its construction, about 0.3 ms, is part of every call). The baseline is Algorithm 1 with
every technique off: a plain match window and one call of A per event, where A tests the
properties itself. Throughput is input events per second of process CPU time; a factor is
the baseline's time over the configuration's time for the same pattern (mean over the
patterns, min-max in brackets). Every configuration returns the same matches (checked).
Timings are printed, never asserted.

    python benchmarks/match_windows.py                 # full run (a few minutes on 2 cores)
    python benchmarks/match_windows.py --quick         # small, for a smoke check
    python benchmarks/match_windows.py --out docs/benchmarks_windows.md
"""
from __future__ import annotations

import argparse
import importlib
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from baseline import extract_base, module_in  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.events import ColumnMapping, Event, load_events  # noqa: E402
from engine.match import StateExplosion  # noqa: E402
from engine.model import Pattern  # noqa: E402
from engine.engines.planner import make_matcher  # noqa: E402
from engine.engines.windows.matcher import MatchWindowMatcher  # noqa: E402
from engine.engines.windows.algorithm import Techniques  # noqa: E402
from sample_streams import events as sample_events  # noqa: E402
from sample_streams import load as load_sample  # noqa: E402
from sample_streams.match_windows import chemo, trades  # noqa: E402

CHEMO_COLUMNS = ColumnMapping(type_col="L", ts_col="T", id_col="id")
FLAGS = [("baseline", (False, False, False)), ("f", (True, False, False)), ("f+p", (True, True, False)),
         ("f+p+c", (True, True, True))]
CONFIGS = [(name, Techniques(*flags)) for name, flags in FLAGS]


BEFORE_NOTE = (" *f+p+c before*: the factor of f+p+c over the baseline with the engine of revision `{rev}` (run "
               "in the same process, interleaved with this tree's runs); *now / before*: how many times faster "
               "f+p+c runs now than at `{rev}`.")


@dataclass
class Impl:
    """One revision of the engine: ``engine`` (this tree) or ``engine_base`` (``--base REV``)."""

    label: str
    rev: str
    parse: Callable[[str], Any]
    matcher: Any
    techniques: Any
    load_events: Callable[..., Any]
    mapping: Any
    explosion: type
    events: dict[str, list[Any]] = field(default_factory=dict)

    def stream(self, name: str, frame: Callable[[], Any], mapping: bool = False) -> list[Any]:
        """The events of a generated stream, loaded once per revision (its own Event class)."""
        if name not in self.events:
            df = frame()
            self.events[name] = (self.load_events(df, self.mapping(type_col="L", ts_col="T", id_col="id")) if mapping
                                 else self.load_events(df)).events
        return self.events[name]


def load_impl(pkg: str, label: str, rev: str) -> Impl:
    mod = {m: importlib.import_module(module_in(pkg, m))
           for m in ("dsl", "engines.windows.matcher", "engines.windows.algorithm", "events", "match")}
    return Impl(label, rev, mod["dsl"].parse, mod["engines.windows.matcher"].MatchWindowMatcher,
                mod["engines.windows.algorithm"].Techniques, mod["events"].load_events, mod["events"].ColumnMapping,
                mod["match"].StateExplosion)


@dataclass
class Run:
    seconds: float
    matches: int
    calls: int
    to_a: int
    keys: Any
    stopped: str = ""
    stats: Any = None  # Algorithm 1's WindowStats


def run_windows(p: Pattern, events: list[Event], tech: Techniques, inner: str, impl: Impl | None = None,
                batch: bool | int = False) -> Run:
    """Algorithm 1 with ``tech`` on ``events``, fed one event at a time (as ``cep run`` does),
    or with ``batch`` as one list (``feed_many``: the filter's batch prefilter), or with an int
    ``batch`` in chunks of that many events (as ``cep run`` feeds ``feed_many``)."""
    cls, explosion = (impl.matcher, impl.explosion) if impl is not None else (MatchWindowMatcher, StateExplosion)
    m = cls(p, inner=inner, techniques=tech, max_runs=2_000_000)
    feed = m.feed
    t0 = time.process_time()
    out = []
    try:
        if batch is True:
            out.extend(m.feed_many(events))
        elif batch:
            for i in range(0, len(events), batch):
                out.extend(m.feed_many(events[i:i + batch]))
        else:
            for e in events:
                out.extend(feed(e))
        out.extend(m.close())
    except explosion as err:
        return Run(time.process_time() - t0, 0, 0, 0, None, str(err)[:60])
    dt = time.process_time() - t0
    st = m.algo.stats
    return Run(dt, len(out), st.calls, st.events_to_matcher, sorted(x.key for x in out), stats=st)


def run_ab(text: str, stream: str, frame: Callable[[], Any], impls: list[Impl], inner: str, repeats: int,
           mapping: bool = False) -> dict[str, dict[str, Run]]:
    """Every configuration on every revision, interleaved (baseline, f, f+p, f+p+c of one
    revision, then of the next, ``repeats`` times); per revision and configuration the run
    with the median time. Keys ``f+p+c`` (this tree) and ``before:f+p+c`` (the base)."""
    runs: dict[str, list[Run]] = {}
    for _ in range(repeats):
        for impl in impls:
            p = impl.parse(text)
            ev = impl.stream(stream, frame, mapping)
            for name, flags in FLAGS:
                runs.setdefault(impl.label + name, []).append(run_windows(p, ev, impl.techniques(*flags), inner, impl))
            if impl.label == "":  # this tree: f+p+c fed as one batch too
                runs.setdefault("batch:f+p+c", []).append(
                    run_windows(p, ev, impl.techniques(True, True, True), inner, impl, batch=True))
    out: dict[str, dict[str, Run]] = {}
    for key, rs in runs.items():
        out[key] = sorted(rs, key=lambda r: r.seconds)[len(rs) // 2]  # type: ignore[assignment]
    return out  # type: ignore[return-value]


def run_alone(p: Pattern, events: list[Event], engine: str) -> Run:
    m = make_matcher(p, engine)
    t0 = time.process_time()
    out = []
    for e in events:
        out.extend(m.feed(e))
    out.extend(m.close())
    return Run(time.process_time() - t0, len(out), 0, 0, sorted(x.key for x in out))


def trade_frame(n: int, seed: int = 1) -> Any:
    return trades(n, 100, seed=seed, per_ms=5.0, skew=1.0)


def trade_events(n: int, seed: int = 1) -> tuple[list[Event], list[str]]:
    df = trade_frame(n, seed)
    ranked = list(df["ticker"].value_counts().index)
    return load_events(df).events, ranked[10:100]


def workload_text(shape: str, tickers: list[str], window: str, selection: str) -> str:
    vs = [f"Trade v{i + 1}" for i in range(len(tickers))]
    body = (f"SEQ({', '.join(vs)})" if shape == "P_seq" else f"AND({', '.join(vs)})") if len(vs) > 1 \
        else f"SEQ({vs[0]})"
    conj = [selection] if selection else []
    conj += [f"v{i + 1}.ticker = '{t}'" for i, t in enumerate(tickers)]
    return f"PATTERN {body} WHERE {' AND '.join(conj)} WITHIN {window}"


def workload(shape: str, tickers: list[str], window: str, selection: str) -> Pattern:
    return parse(workload_text(shape, tickers, window, selection))


def fmt_rate(n: int, s: float) -> str:
    return f"{n / s:,.0f}" if s > 0 else "∞"


def factors(rows: list[dict[str, Run]], name: str, base: str = "baseline") -> str:
    fs = [r[base].seconds / r[name].seconds for r in rows if r[name].seconds > 0 and not r[name].stopped
          and not r[base].stopped]
    if not fs:
        return "–"
    if len(fs) == 1:
        return f"{fs[0]:.1f}"
    return f"{statistics.mean(fs):.1f} [{min(fs):.1f}-{max(fs):.1f}]"


def check_same(rows: dict[str, Run], what: str) -> None:
    keys = {n: r.keys for n, r in rows.items() if not r.stopped}
    ref = next(iter(keys.values()))
    for n, k in keys.items():
        if k != ref:
            raise SystemExit(f"{what}: {n} differs from the others ({len(k)} vs {len(ref)} matches)")


def before_after(rows: list[dict[str, Run]], ab: bool) -> str:
    """With a base revision: its f+p+c factor over its own baseline, and how much faster
    f+p+c runs now than before (same process, interleaved)."""
    if not ab:
        return ""
    return f" | {factors(rows, 'before:f+p+c', 'before:baseline')} | {factors(rows, 'f+p+c', 'before:f+p+c')}"


# --------------------------------------------------------------------------- tables

def table_chemo(out: Callable[[str], None]) -> None:
    p1 = load_sample("chemo").presets["chemo_cycle"]
    ev = sample_events("chemo")
    out("## Chemo, P1 (§5.8)\n")
    out("The paper's worked example on its 14 events (data/chemo.csv): calls of A and events given to A.\n")
    out("| configuration | A calls | events given to A | SES (earliest_maximal) | lazy tree (all matches) |")
    out("|---|---:|---:|---:|---:|")
    for name, tech in CONFIGS:
        ses = run_windows(parse(p1.replace("WHERE [PID]", "WHERE earliest_maximal AND [PID]")), ev, tech, "ses")
        lt = run_windows(parse(p1), ev, tech, "lazy-tree")
        out(f"| {name} | {ses.calls} | {ses.to_a} | {ses.matches} | {lt.matches} |")
    out("")


def table_k(out: Callable[[str], None], impls: list[Impl], n: int, ks: list[int], n_patterns: int, inner: str,
            selection: str, repeats: int, window: str = "50 ms", shapes: set[str] | None = None,
            shown: list[int] | None = None) -> None:
    """``shapes`` / ``shown``: only these rows are run; the patterns are drawn for every row
    (the same patterns as a full run)."""
    _, pool = trade_events(n)
    rng = random.Random(13)
    ab = len(impls) > 1
    label = "SES automaton, earliest_maximal" if inner == "ses" else f"{inner}, all matches"
    out(f"## P_seq and P_set, k = {ks[0]}…{ks[-1]} ({label})\n")
    out(f"{n:,} trades, WITHIN {window}; {n_patterns} random pattern(s) per k; each configuration run {repeats}× "
        "interleaved, the median kept. Throughput of the baseline (events/s), then the factor over it per "
        "configuration; calls of A and events given to A for f+p+c against the baseline's."
        + (BEFORE_NOTE.format(rev=impls[1].rev) if ab else "") + "\n")
    head = "| workload | k | baseline events/s | f | f+p | f+p+c | f+p+c feed_many |"
    if ab:
        head += " f+p+c before | f+p+c now / before |"
    out(head + " calls f+p+c / baseline | events to A f+p+c / baseline | matches |")
    out("|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if ab else "") + "---:|---:|---:|")
    for shape in ("P_seq", "P_set"):
        for k in ks:
            rows = []
            texts = [workload_text(shape, rng.sample(pool, k), window, selection) for _ in range(n_patterns)]
            if (shapes is not None and shape not in shapes) or (shown is not None and k not in shown):
                continue
            for text in texts:
                r = run_ab(text, f"trades{n}", lambda: trade_frame(n), impls, inner, repeats)
                check_same(r, f"{shape} k={k}")
                rows.append(r)
            base = statistics.mean(r["baseline"].seconds for r in rows)
            calls = sum(r["f+p+c"].calls for r in rows), sum(r["baseline"].calls for r in rows)
            to_a = sum(r["f+p+c"].to_a for r in rows), sum(r["baseline"].to_a for r in rows)
            out(f"| {shape} | {k} | {fmt_rate(n, base)} | {factors(rows, 'f')} | {factors(rows, 'f+p')} "
                f"| **{factors(rows, 'f+p+c')}** | {factors(rows, 'batch:f+p+c')}{before_after(rows, ab)} "
                f"| {calls[0]:,} / {calls[1]:,} "
                f"| {to_a[0]:,} / {to_a[1]:,} | {sum(r['baseline'].matches for r in rows):,} |")
            print(f"  {shape} k={k} done", file=sys.stderr)
    out("")


def table_tau(out: Callable[[str], None], impls: list[Impl], n: int, patients: int, days: int, n_patterns: int,
              repeats: int) -> None:
    ab = len(impls) > 1
    out("## Duration τ\n")
    out("P_set with k = 4 and k = 8 on the trades (random tickers as above, SES earliest_maximal), and the P_onco stand-in "
        f"on a generated cohort of {patients} patients over {days} days "
        "(`SEQ(AND(C c, P+ p[], D d), AND(B b, H h)) WHERE earliest_maximal AND [PID] AND p[i].V > p[i-1].V`). "
        "Factors over the baseline.\n")
    head = "| workload | WITHIN | baseline events/s | f | f+p | f+p+c | f+p+c feed_many |"
    if ab:
        head += " f+p+c before | f+p+c now / before |"
    out(head + " calls f+p+c / baseline | matches |")
    out("|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if ab else "") + "---:|---:|")
    _, pool = trade_events(n)
    rng = random.Random(7)
    for k in (4, 8):
        picks = [rng.sample(pool, k) for _ in range(n_patterns)]
        for ms in (10, 20, 50, 100, 200, 1000):
            rows = []
            for tick in picks:
                text = workload_text("P_set", tick, f"{ms} ms", "earliest_maximal")
                r = run_ab(text, f"trades{n}", lambda: trade_frame(n), impls, "ses", repeats)
                check_same(r, f"P_set tau={ms}")
                rows.append(r)
            base = statistics.mean(r["baseline"].seconds for r in rows)
            out(f"| P_set k={k} | {ms} ms | {fmt_rate(n, base)} | {factors(rows, 'f')} "
                f"| {factors(rows, 'f+p')} | **{factors(rows, 'f+p+c')}** | {factors(rows, 'batch:f+p+c')}"
                f"{before_after(rows, ab)} "
                f"| {sum(r['f+p+c'].calls for r in rows):,} / "
                f"{sum(r['baseline'].calls for r in rows):,} | {sum(r['baseline'].matches for r in rows):,} |")
        print(f"  tau k={k} done", file=sys.stderr)
    for d in (5, 10, 20, 50):
        text = ("PATTERN SEQ(AND(C c, P+ p[], D d), AND(B b, H h)) WHERE earliest_maximal AND [PID] "
                f"AND p[i].V > p[i-1].V WITHIN {d} days")
        r = run_ab(text, "onco", lambda: chemo(patients, days, seed=3), impls, "ses", repeats, mapping=True)
        check_same(r, f"onco tau={d}")
        n_onco = len(impls[0].events["onco"])
        out(f"| P_onco | {d} days | {fmt_rate(n_onco, r['baseline'].seconds)} | {factors([r], 'f')} "
            f"| {factors([r], 'f+p')} | **{factors([r], 'f+p+c')}** | {factors([r], 'batch:f+p+c')}"
            f"{before_after([r], ab)} "
            f"| {r['f+p+c'].calls:,} / {r['baseline'].calls:,} | {r['baseline'].matches:,} |")
        print(f"  onco {d} days done", file=sys.stderr)
    out("")


def table_eager(out: Callable[[str], None], n: int, patients: int, days: int) -> None:
    out("## Eager original vs lazy calls\n")
    out("Each engine alone on the stream (SES: an instance at every event that fits a first variable; lazy "
        "tree: its own buffers) against Algorithm 1 (f+p+c) calling the same engine lazily.\n")
    out("| workload | engine | alone events/s | match windows f+p+c events/s | factor | matches |")
    out("|---|---|---:|---:|---:|---:|")
    events, pool = trade_events(n)
    rng = random.Random(5)
    tick = rng.sample(pool, 4)
    onco = load_events(chemo(patients, days, seed=3), CHEMO_COLUMNS).events
    cases = [("P_set k=4, 50 ms", events, workload("P_set", tick, "50 ms", ""), ["ses", "lazy-tree"]),
             ("P_seq k=4, 50 ms", events, workload("P_seq", tick, "50 ms", ""), ["ses", "lazy-tree"]),
             ("P1 on the cohort, 16 days", onco,
              parse(load_sample("chemo").presets["chemo_cycle"]), ["ses", "lazy-tree"])]
    for name, ev, p, engines in cases:
        for eng in engines:
            alone = run_alone(p, ev, eng)
            lazy = run_windows(p, ev, Techniques(), eng)
            if alone.keys != lazy.keys:
                raise SystemExit(f"eager table: {name} {eng} differs")
            out(f"| {name} | {eng} | {fmt_rate(len(ev), alone.seconds)} | {fmt_rate(len(ev), lazy.seconds)} "
                f"| {alone.seconds / lazy.seconds:.1f} | {alone.matches:,} |")
    out("")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small inputs (a smoke check)")
    ap.add_argument("--out", help="write the Markdown tables here")
    ap.add_argument("--events", type=int, default=None, help="trades per run")
    ap.add_argument("--patterns", type=int, default=None, help="random patterns per k")
    ap.add_argument("--repeats", type=int, default=None, help="runs per configuration (the median is kept)")
    ap.add_argument("--base", help="also run the engine of this git revision (before/after columns)")
    ap.add_argument("--tables", default="chemo,k,tree,tau,eager", help="which tables (comma-separated)")
    ap.add_argument("--shapes", default="P_seq,P_set", help="the k table's workloads (the patterns drawn are the same)")
    ap.add_argument("--ks", default=None, help="the k table's k values (comma-separated; default 1…8)")
    args = ap.parse_args()
    n = args.events or (2_000 if args.quick else 20_000)
    n_pat = args.patterns or (1 if args.quick else 3)
    reps = args.repeats or (1 if args.quick else 3)
    ks = [1, 2, 4] if args.quick else list(range(1, 9))
    shown_ks = [int(k) for k in args.ks.split(",")] if args.ks else ks
    shapes = set(args.shapes.split(","))
    patients, days = (10, 60) if args.quick else (40, 180)
    tables = set(args.tables.split(","))
    lines: list[str] = []
    t0 = time.time()
    impls = [load_impl("engine", "", "HEAD")]
    tmp = None
    if args.base:
        tmp = tempfile.TemporaryDirectory()
        extract_base(args.base, Path(tmp.name))
        impls.append(load_impl("engine_base", "before:", args.base))

    def out(s: str) -> None:
        lines.append(s)
        print(s)

    if "chemo" in tables:
        table_chemo(out)
    if "k" in tables:
        table_k(out, impls, n, ks, n_pat, "ses", "earliest_maximal", reps, shapes=shapes, shown=shown_ks)
    if "tree" in tables:
        # this tree only: a base revision's Algorithm 1 loads the all-matches engines of this tree by name
        table_k(out, impls[:1], max(n // 5, 1000), [k for k in ks if k <= 4], 1 if args.quick else 2, "lazy-tree",
                "", 1)
    if "tau" in tables:
        table_tau(out, impls, n, patients, days, n_pat, reps)
    if "eager" in tables:
        table_eager(out, n, patients, days)
    took = time.time() - t0
    if args.out:
        cmd = " ".join(sys.argv[1:])
        head = [
            "# Match windows: throughput over the plain-window baseline", "",
            f"Generated by `python benchmarks/match_windows.py {cmd}` ({took:.0f} s; Python "
            f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, a machine shared with other "
            "work: compare the factors, not the absolute numbers). The script's docstring describes the workloads.",
            "",
        ]
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(head + lines) + "\n")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
