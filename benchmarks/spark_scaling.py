"""Spark scaling: in-process vs Spark local[1] vs local[2], keyed vs time-chunked.

    .venv/bin/python benchmarks/spark_scaling.py                 # 1e5 and 1e6 events
    .venv/bin/python benchmarks/spark_scaling.py --sizes 100000  # quicker

Events: ``sample_streams.generators.keyed(n, keys=1000, types=A/B/C)`` written to CSV
(ts = id = 0..n-1). Both sides read the same CSV (in-process: ``load_events``; Spark:
``engine.spark.io.read_events``) and run the same engine (``--engine``, default auto =
NFA^b). Patterns:

- keyed:   ``SEQ(A a, B b, C c) WHERE [key] AND b.value > a.value WITHIN 20000``
- chunked: ``SEQ(A a, B b, C c) WHERE a.key = c.key AND b.value > a.value WITHIN 20``
  (``b`` is not tied to the key, so there is no partition key: time chunks)

Each Spark configuration runs in its own process (one SparkSession per process), and that
process also runs the in-process baseline, so every ratio is measured in one process. JVM
start-up and a warm-up run on 20,000 events (``--warm-events``; JIT, Python workers; each timed
action's own path) are reported separately and excluded from the Spark time. ``--rounds R``
runs in-process and Spark R times in turn in one process (one ratio per round). The Spark
time is read + validate + match + the action: ``count`` (persist the matches and count them, the older way) or ``collect`` (one
action bringing the matches to the driver as Arrow, what ``cep run --spark`` and the app
do); the in-process time is load + match. The 1-minute load average is printed with every
figure (the machine is shared). Results are printed as a table; nothing is asserted.
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


def in_process(path: Path, mode: str, engine: str) -> dict:
    from engine.dsl import parse
    from engine.events import load_events
    from engine.engines.planner import make_matcher

    pat = parse(PATTERNS[mode])
    t0 = time.perf_counter()
    res = load_events(str(path))
    t1 = time.perf_counter()
    m = make_matcher(pat, engine)
    n = 0
    for e in res.events:
        n += len(m.feed(e))
    n += len(m.close())
    t2 = time.perf_counter()
    return {"load": t1 - t0, "match": t2 - t1, "total": t2 - t0, "matches": n, "events": len(res.events)}


def spark_start(path: Path, mode: str, engine: str, master: str, warm_events: int = 20_000,
                actions: tuple[str, ...] = ("collect",)) -> tuple:
    """The session, its partitions and the JVM start + warm-up seconds (a run on ``warm_events``
    events: JIT, Python workers)."""
    from engine.dsl import parse
    from engine.spark import pipeline
    from engine.spark.io import read_events
    from engine.spark.session import get_spark

    t0 = time.perf_counter()
    spark = get_spark(master, conf={"spark.driver.memory": "4g"})
    par = spark.sparkContext.defaultParallelism
    parts = pipeline.partitions_for(10**6, par)
    warm = read_events(str(data_file(warm_events, 1000, path.parent)), spark=spark)
    for action in actions:  # (each timed action's own path)
        pipeline.run(parse(PATTERNS[mode]), warm, engine=engine, spark=spark, partitions=parts,
                     collect=action == "collect").unpersist()
    warm.unpersist()
    return spark, parts, time.perf_counter() - t0


def spark_round(spark, parts: int, path: Path, mode: str, engine: str, actions: list[str]) -> dict:
    """One Spark round: read + match + the action, per action."""
    from engine.dsl import parse
    from engine.spark import pipeline
    from engine.spark.io import read_events

    out: dict = {}
    for action in actions:
        load = os.getloadavg()[0]
        t1 = time.perf_counter()
        ev = read_events(str(path), spark=spark)
        t2 = time.perf_counter()
        res = pipeline.run(parse(PATTERNS[mode]), ev, engine=engine, spark=spark, partitions=parts,
                           collect=action == "collect")
        t3 = time.perf_counter()
        out[action] = {"read": t2 - t1, "match": t3 - t2, "total": t3 - t1, "matches": res.count,
                       "events": ev.count, "mode": res.mode, "info": res.info,
                       "load": (load + os.getloadavg()[0]) / 2}
        res.unpersist()
        ev.unpersist()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--keys", type=int, default=1000)
    ap.add_argument("--modes", default="keyed,chunked")
    ap.add_argument("--masters", default="local[2]")
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--actions", default="collect", help="count,collect: the Spark action(s) timed")
    ap.add_argument("--warm-events", type=int, default=20_000,
                    help="events of the warm-up run (excluded from the timing); the first million-row "
                         "round of a process still compiles more of the JVM's paths after 20,000")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds per process, in-process and Spark interleaved (one ratio per round)")
    ap.add_argument("--worker", nargs=3, metavar=("PATH", "MODE", "MASTER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    actions = args.actions.split(",")
    if args.worker:
        path, mode, master = args.worker
        spark, parts, jvm = spark_start(Path(path), mode, args.engine, master, args.warm_events, tuple(actions))
        for _ in range(args.rounds):
            load = os.getloadavg()[0]
            base = in_process(Path(path), mode, args.engine)
            base["load"] = (load + os.getloadavg()[0]) / 2
            r = {"inproc": base, "spark": {"jvm": jvm, "runs": spark_round(spark, parts, Path(path), mode,
                                                                              args.engine, actions)}}
            print("RESULT " + json.dumps(r), flush=True)
        return 0
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="cep-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    modes = args.modes.split(",")
    masters = args.masters.split(",")
    rows = []
    for n in sizes:
        path = data_file(n, args.keys, workdir)
        for mode in modes:
            for master in masters:
                cmd = [sys.executable, __file__, "--engine", args.engine, "--actions", args.actions,
                       "--rounds", str(args.rounds), "--warm-events", str(args.warm_events),
                       "--worker", str(path), mode, master]
                proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
                found = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
                if not found:
                    print(f"spark {master} {mode} n={n} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
                    continue
                for line in found:
                    rows.extend(_rows(n, mode, master, json.loads(line[7:])))
    _print(rows)
    return 0


def _rows(n: int, mode: str, master: str, r: dict) -> list[tuple]:
    """Table rows of one round: the in-process run, then each Spark action (its ratio against
    that round's in-process run)."""
    b = r["inproc"]
    rows = [(n, mode, "in-process", "-", "-", b["total"], b["events"] / b["total"], 1.0, None, b["matches"],
             b["load"])]
    for action, sr in r["spark"]["runs"].items():
        rows.append((n, mode, f"spark {master}", sr["mode"], action, sr["total"], sr["events"] / sr["total"],
                     b["total"] / sr["total"], r["spark"]["jvm"], sr["matches"], sr["load"]))
    print(f"  done: n={n} {mode} {master}: in-process {b['total']:.2f} s, spark "
          + ", ".join(f"{a} {x['total']:.2f} s (read {x['read']:.2f} s)" for a, x in r["spark"]["runs"].items()),
          file=sys.stderr, flush=True)
    return rows


def _print(rows: list[tuple]) -> None:
    hdr = ("events", "pattern", "run", "spark mode", "action", "seconds", "events/s", "speed-up vs in-process",
           "JVM+warm-up s", "matches", "load avg")
    table = [hdr] + [(f"{n:,}", m, lab, sm, act, f"{s:.2f}", f"{eps:,.0f}", f"{ratio:.2f}x",
                      "-" if jvm is None else f"{jvm:.1f}", f"{nm:,}", f"{ld:.1f}")
                     for n, m, lab, sm, act, s, eps, ratio, jvm, nm, ld in rows]
    widths = [max(len(str(r[c])) for r in table) for c in range(len(hdr))]
    for r in table:
        print("  ".join(str(cell).rjust(widths[c]) for c, cell in enumerate(r)))


if __name__ == "__main__":
    raise SystemExit(main())
