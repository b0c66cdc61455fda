"""Spark scaling: ``cep run`` in process vs Spark local[2], keyed vs time-chunked.

    .venv/bin/python benchmarks/spark_scaling.py --sizes 1000000 --rounds 3
    .venv/bin/python benchmarks/spark_scaling.py --sizes 100000 --old-baseline   # + the old baseline

Events: ``sample_streams.generators.keyed(n, keys=1000, types=A/B/C)`` written to CSV
(ts = id = 0..n-1). Patterns:

- keyed:   ``SEQ(A a, B b, C c) WHERE [key] AND b.value > a.value WITHIN 20000``
- chunked: ``SEQ(A a, B b, C c) WHERE a.key = c.key AND b.value > a.value WITHIN 20``
  (``b`` is not tied to the key, so there is no partition key: time chunks)

The in-process side is ``cep run``'s own path (``engine.commands.run_matches``): the columnar
load (``load_events(lazy=True)``, only the types the pattern binds), the type counts, the
planner's choice with them (``build_matcher``: the lazy chain, its columnar path) and
``feed_events`` / ``close_matcher`` into a ``MatchWriter``. Two outputs, each against Spark's
same output:

- ``count``: ``cep run --format count`` (the chain counts, builds no match) vs Spark counting in
  the tasks (``engine.spark.columnar_run.run_columnar(count_only=True)``);
- ``matches``: every match built on the driver (in process: ``Match`` objects counted by the
  writer; Spark: the match rows brought to the driver as one Arrow table, ``count_only=False``).

``--old-baseline`` adds the benchmark's earlier in-process side (``load_events`` + ``make_matcher``
without rates, i.e. NFA^b, fed one event at a time), labelled as such. ``--spark-path pipeline``
times ``pipeline.run`` (the JVM read and per-event workers) instead of the columnar path.

Each configuration runs in its own process (one SparkSession); its in-process and Spark runs
alternate round by round (``--rounds``), one ratio per round. Wall seconds and CPU seconds are
both reported: in process ``time.process_time``; for Spark the CPU of the whole process tree (the
driver, the JVM and the Python workers, from ``/proc``). JVM start-up and a warm-up run on 20,000
events are excluded. The 1-minute load average is printed with every figure (the machine is
shared: compare ratios of one round). Nothing is asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PATTERNS = {
    "keyed": "PATTERN SEQ(A a, B b, C c) WHERE [key] AND b.value > a.value WITHIN 20000",
    "chunked": "PATTERN SEQ(A a, B b, C c) WHERE a.key = c.key AND b.value > a.value WITHIN 20",
}


def data_file(n: int, keys: int, workdir: Path) -> Path:
    from sample_streams import generators

    path = workdir / f"keyed_{n}_{keys}.csv"
    if not path.exists():
        generators.keyed(n, keys=keys, types=("A", "B", "C"), seed=1).to_csv(path, index=False)
    return path


def in_process(path: Path, mode: str, engine: str, output: str) -> dict:
    """``cep run``'s in-process path (see the module): ``output`` count or matches."""
    import argparse
    import io

    from engine.commands.output import MatchWriter
    from engine.commands.run_matches import build_matcher, close_matcher, feed_events
    from engine.dsl import parse
    from engine.events import load_events
    from engine.events.event_columns import type_counts
    from engine.memory import MemoryGuard, loaded_objects_frozen
    from engine.type_filter import bindable_types

    pat = parse(PATTERNS[mode])
    args = argparse.Namespace(engine=engine, match_windows="auto", format="count" if output == "count" else "jsonl",
                              max_runs=None)
    c0, t0 = time.process_time(), time.perf_counter()
    res = load_events(str(path), lazy=True, types=bindable_types(pat))
    t1 = time.perf_counter()
    rates = type_counts(res.events) if engine == "auto" else None
    matcher, choice = build_matcher(args, pat, rates)
    writer = MatchWriter("count", io.StringIO(), [c.var for c in pat.positive])
    guard = MemoryGuard(None)
    with loaded_objects_frozen():  # as cep run runs it
        feed_events(matcher, res.events, writer, guard, choice)
        close_matcher(matcher, writer, choice)
    t2 = time.perf_counter()
    return {"load": t1 - t0, "match": t2 - t1, "total": t2 - t0, "cpu": time.process_time() - c0,
            "matches": writer.count, "events": len(res.events) + res.events_skipped, "engine": choice.engine}


def old_in_process(path: Path, mode: str, engine: str) -> dict:
    """The benchmark's earlier in-process side: ``load_events`` and ``make_matcher`` without rates
    (NFA^b), fed one event at a time."""
    from engine.dsl import parse
    from engine.events import load_events
    from engine.engines.planner import make_matcher

    pat = parse(PATTERNS[mode])
    c0, t0 = time.process_time(), time.perf_counter()
    res = load_events(str(path))
    m = make_matcher(pat, engine)
    n = 0
    for e in res.events:
        n += len(m.feed(e))
    n += len(m.close())
    t2 = time.perf_counter()
    return {"total": t2 - t0, "cpu": time.process_time() - c0, "matches": n, "events": len(res.events)}


def tree_cpu() -> float:
    """CPU seconds of this process and every process under it (the JVM, its Python workers),
    their reaped children included, from ``/proc``."""
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    times: dict[int, float] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(fields[1])
        times[int(d)] = sum(int(x) for x in fields[11:15]) / tick
    me = os.getpid()
    total = 0.0
    for pid in times:
        p = pid
        while p and p != me:
            p = parent.get(p, 0)
        if p == me:
            total += times[pid]
    return total


def spark_start(path: Path, mode: str, engine: str, master: str, warm_events: int, spark_path: str) -> tuple:
    """The session and the JVM start + warm-up seconds (each timed path run on ``warm_events``
    events: JIT, Python workers)."""
    from engine.spark.session import get_spark

    t0 = time.perf_counter()
    spark = get_spark(master, conf={"spark.driver.memory": "4g"})
    warm = data_file(warm_events, 1000, path.parent)
    for output in OUTPUTS:
        spark_run(spark, warm, mode, engine, output, spark_path)
    return spark, time.perf_counter() - t0


OUTPUTS = ("count", "matches")


def spark_run(spark, path: Path, mode: str, engine: str, output: str, spark_path: str) -> dict:
    """One Spark run: read + match + the output on the driver (``count``: the count; ``matches``:
    the match rows as an Arrow table)."""
    from engine.dsl import parse

    pat = parse(PATTERNS[mode])
    c0, t0 = tree_cpu(), time.perf_counter()
    res = None
    if spark_path == "columnar":
        from engine.spark.columnar_run import run_columnar

        res = run_columnar(pat, str(path), spark, engine, count_only=output == "count")
    if res is None:  # the JVM read and per-event workers
        from engine.spark import pipeline
        from engine.spark.io import read_events

        ev = read_events(str(path), spark=spark)
        res = pipeline.run(pat, ev, engine=engine, spark=spark,
                           partitions=pipeline.partitions_for(ev.count, spark.sparkContext.defaultParallelism),
                           collect=True)
        out = {"path": "pipeline", "matches": res.count, "events": ev.count, "mode": res.mode, "info": res.info}
        res.unpersist()
    else:
        out = {"path": "columnar", "matches": res.count, "events": res.events, "mode": res.mode,
               "info": res.info, "engine": res.engine}
    out["total"] = time.perf_counter() - t0
    out["cpu"] = tree_cpu() - c0
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--modes", default="keyed,chunked")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--outputs", default="count,matches", help="count,matches: what each side delivers")
    ap.add_argument("--spark-path", default="columnar", choices=("columnar", "pipeline"))
    ap.add_argument("--old-baseline", action="store_true",
                    help="also time the earlier in-process side (NFA^b one event at a time; minutes at 1e6)")
    ap.add_argument("--warm-events", type=int, default=20_000, help="events of the warm-up run (not timed)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds per process, in-process and Spark interleaved (one ratio per round)")
    ap.add_argument("--worker", nargs=2, metavar=("PATH", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    outputs = args.outputs.split(",")
    if args.worker:
        path, mode = Path(args.worker[0]), args.worker[1]
        spark, jvm = spark_start(path, mode, args.engine, args.master, args.warm_events, args.spark_path)
        for rnd in range(args.rounds):
            for output in outputs:
                load = os.getloadavg()[0]
                base = in_process(path, mode, args.engine, output)
                sp = spark_run(spark, path, mode, args.engine, output, args.spark_path)
                r = {"round": rnd, "output": output, "inproc": base, "spark": sp, "jvm": jvm,
                     "load": (load + os.getloadavg()[0]) / 2}
                if args.old_baseline and output == "count":
                    r["old"] = old_in_process(path, mode, args.engine)
                print("RESULT " + json.dumps(r), flush=True)
        return 0
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="cep-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in [int(float(s)) for s in args.sizes.split(",")]:
        path = data_file(n, args.keys, workdir)
        for mode in args.modes.split(","):
            cmd = [sys.executable, __file__, "--engine", args.engine, "--outputs", args.outputs, "--master",
                   args.master, "--rounds", str(args.rounds), "--warm-events", str(args.warm_events),
                   "--spark-path", args.spark_path, "--worker", str(path), mode]
            if args.old_baseline:
                cmd.insert(-3, "--old-baseline")
            proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
            found = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
            if not found:
                print(f"spark {mode} n={n} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
                continue
            for line in found:
                rows.append(_row(n, mode, args.master, json.loads(line[7:])))
    _print(rows)
    return 0


def _row(n: int, mode: str, master: str, r: dict) -> tuple:
    """A table row of one round and output: both sides, the ratios (in-process / Spark) by wall and
    by CPU, the old baseline where timed."""
    b, s = r["inproc"], r["spark"]
    if b["matches"] != s["matches"]:
        print(f"  MISMATCH n={n} {mode} {r['output']}: in-process {b['matches']} spark {s['matches']}", file=sys.stderr)
    old = r.get("old")
    print(f"  done: n={n} {mode} {r['output']} round {r['round']}: in-process {b['total']:.2f} s, "
          f"spark {s['total']:.2f} s ({s['path']}, {s.get('info')})", file=sys.stderr, flush=True)
    return (f"{n:,}", mode, r["output"], str(r["round"]), s["mode"], s["path"], f"{b['matches']:,}",
            f"{b['total']:.2f}", f"{b['cpu']:.2f}", f"{s['total']:.2f}", f"{s['cpu']:.2f}",
            f"{b['total'] / s['total']:.2f}x", f"{b['cpu'] / s['cpu']:.2f}x",
            "-" if old is None else f"{old['total']:.2f}", "-" if old is None else f"{old['total'] / s['total']:.2f}x",
            f"{r['jvm']:.1f}", f"{r['load']:.1f}")


def _print(rows: list[tuple]) -> None:
    hdr = ("events", "pattern", "output", "round", "spark mode", "spark path", "matches", "in-process s",
           "in-process CPU s", "spark s", "spark CPU s (tree)", "speed-up (wall)", "CPU ratio",
           "old per-event baseline s", "speed-up vs old", "JVM+warm-up s", "load avg")
    table = [hdr] + rows
    widths = [max(len(str(r[c])) for r in table) for c in range(len(hdr))]
    for r in table:
        print("  ".join(str(cell).rjust(widths[c]) for c, cell in enumerate(r)))


if __name__ == "__main__":
    raise SystemExit(main())
