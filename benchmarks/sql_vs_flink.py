"""MATCH_RECOGNIZE: the studio's `sql` engine against Apache Flink 2.3's, on the same file.

The workload: OpenCEP's NASDAQ stream (``NASDAQ_AAPL_AMZN_GOOG.txt``, 1,365 minute bars of three
symbols; fetched, never committed; ``--source``) or, by default, one day of a stream of the same
shape (``benchmarks/opencep_day.py`` ``write_streams``: three tickers minute by minute over 455
minutes), repeated ×110 (150,150 rows) and ×1,100 (1,501,500 rows), each copy shifted in time
after the previous one; columns ``symbol, ts, price, volume`` (ts in seconds, price the bar's
close). Queries, per symbol:

- ``rise3`` / ``rise5``: a rising run of 3 / 5 bars (``A B C``, each above the one before);
- ``bbb``: ``A B{3} C`` (three bars above A, then one below A);
- ``bplus``: ``A B+ C`` with C the complement of B's condition (``B > A``, ``C <= A``).

The studio is timed as a whole process (``cep run QUERY.sql --data FILE --format jsonl``: start-up,
reading, matching, output; bytecode caches written by a first uncounted run), min of ``--repeat``,
in wall and CPU seconds (the child's user +
system); with ``--base DIR`` (a copy of an earlier revision) that revision's ``cep run`` runs in
the same rounds, interleaved. Flink by its own ``query_seconds`` (submission to last row, in its
JVM after start-up, a warm-up query first) and its JVM's CPU seconds over the query (/proc), in
streaming and batch mode at parallelism 1, through ``engine/engines/sql/flink`` (.venv-flink;
``--modes ""`` leaves Flink out). The rows are compared: where they differ, the table says so.
Writes a markdown table (``--out``). The issue's comparison (150k and 1.5M, batch and streaming):

    python benchmarks/sql_vs_flink.py --out FILE            # 150k and 1.5M, streaming and batch
    python benchmarks/sql_vs_flink.py --copies 1100 --modes streaming --flink-skip bplus --repeat 1
    python benchmarks/sql_vs_flink.py --copies 110 --modes "" --base /tmp/base   # ours against a revision
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

QUERIES = {
    "rise3": ("A B C", "A.ts AS a_ts, C.ts AS c_ts", "B AS B.price > A.price, C AS C.price > B.price"),
    "rise5": ("A B C D E", "A.ts AS a_ts, E.ts AS e_ts",
              "B AS B.price > A.price, C AS C.price > B.price, D AS D.price > C.price, E AS E.price > D.price"),
    "bbb": ("A B{3} C", "A.ts AS a_ts, LAST(B.ts) AS b_ts, C.ts AS c_ts",
            "B AS B.price > A.price, C AS C.price < A.price"),
    "bplus": ("A B+ C", "A.ts AS a_ts, LAST(B.ts) AS b_ts, C.ts AS c_ts",
              "B AS B.price > A.price, C AS C.price <= A.price"),
}


def query(name: str, order: str = "ts") -> str:
    pattern, measures, define = QUERIES[name]
    return (f"SELECT * FROM nasdaq MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY {order} MEASURES {measures} "
            f"ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ({pattern}) DEFINE {define})")


def build(source: Path, copies: int, out: Path) -> int:
    rows = [ln.strip().split(",") for ln in source.read_text().splitlines() if ln.strip()]

    def seconds(s: str) -> int:
        return int((dt.datetime.strptime(s, "%Y%m%d%H%M") - dt.datetime(2008, 2, 1)).total_seconds())

    base = [(r[0], seconds(r[1]), r[5], int(r[6])) for r in rows]
    span = max(b[1] for b in base) + 60
    with out.open("w") as f:
        f.write("symbol,ts,price,volume\n")
        for c in range(copies):
            for s, t, p, v in base:
                f.write(f"{s},{t + c * span},{p},{v}\n")
    return len(base) * copies


def studio(qfile: Path, data: Path, repeat: int, base: Path | None = None) -> dict[str, Any]:
    """``cep run`` as a whole process, min of ``repeat`` rounds: wall and CPU seconds (user + system
    of the child), and with ``base`` (a copy of an earlier revision) that revision's run in the
    same rounds, interleaved."""
    best: dict[str, Any] = {}
    sides = [("ours", ROOT)] + ([("base", base)] if base is not None else [])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for side, root in sides:  # a first, uncounted round writes the bytecode caches
        subprocess.run([sys.executable, "-m", "engine.commands.cli", "run", str(qfile), "--data", str(data),
                        "--format", "count"], capture_output=True, cwd=root, env=dict(env, PYTHONPATH=str(root)))
    for _ in range(repeat):
        for side, root in sides:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-m", "engine.commands.cli", "run", str(qfile), "--data", str(data),
                                "--format", "jsonl"], capture_output=True, text=True, cwd=root,
                               env=dict(env, PYTHONPATH=str(root)))
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if p.returncode != 0:
                raise SystemExit(p.stderr)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best[f"{side}_wall"] = min(best.get(f"{side}_wall", float("inf")), wall)
            best[f"{side}_cpu"] = min(best.get(f"{side}_cpu", float("inf")), cpu)
            best[f"{side}_out"] = p.stdout
    best["rows"] = [json.loads(x) for x in best["ours_out"].splitlines()]
    if base is not None and best["base_out"] != best["ours_out"]:
        best["base_differs"] = True
    return best


def flink(names: list[str], data: Path, mode: str) -> dict[str, tuple[float, float | None, list[dict]]]:
    """Per query: (Flink's query seconds, its JVM's CPU seconds over the query, the rows)."""
    from engine.engines.sql.flink.runner import FlinkJob, FlinkRefused, run_flink_many

    cols = [("symbol", "STRING"), ("ts", "BIGINT"), ("price", "DOUBLE"), ("volume", "BIGINT")]
    warm = FlinkJob(query("rise3", "ts_time").replace("FROM nasdaq", "FROM nasdaq"), "nasdaq", cols,
                    [{"symbol": "X", "ts": i, "price": float(i), "volume": 1} for i in range(5)], "ts", mode)
    jobs = [warm] + [FlinkJob(query(n, "ts_time"), "nasdaq", cols, data, "ts", mode) for n in names]
    results = run_flink_many(jobs, timeout=7200)[1:]
    out = {}
    for n, r in zip(names, results):
        if isinstance(r, FlinkRefused):
            raise SystemExit(f"Flink refused {n}: {r}")
        out[n] = (r.query_seconds, r.jvm_cpu_seconds, r.rows)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, help="OpenCEP's NASDAQ_AAPL_AMZN_GOOG.txt (default: one day of the "
                                                "issue's stream shape, benchmarks/opencep_day.py write_streams)")
    ap.add_argument("--copies", default="110,1100")
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", default="streaming,batch", help="Flink's modes; empty: Flink not run")
    ap.add_argument("--flink-skip", default="", help="queries not run in Flink (e.g. bplus at 1.5M rows: its "
                                                    "held-back matches make Flink's run hours long)")
    ap.add_argument("--base", type=Path, help="a copy of an earlier revision (git archive REV | tar -x): its "
                                              "cep run is timed in the same rounds, interleaved")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    names = a.queries.split(",")
    modes = [m for m in a.modes.split(",") if m]
    head = ["rows", "query", "matches", "cep run s (wall)", "cep run CPU s", "rows/s"]
    if a.base:
        head += ["base wall s", "base CPU s", "× base (CPU)"]
    for m in modes:
        head += [f"Flink {m} s (query)", f"Flink {m} JVM CPU s", f"ratio {m} (query / cep run wall)"]
    head += ["rows equal"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    with tempfile.TemporaryDirectory() as tmp:
        source = a.source
        if source is None:
            from opencep_day import write_streams

            _ours, source = write_streams(Path(tmp), 1)
        for copies in (int(c) for c in a.copies.split(",")):
            data = Path(tmp) / f"nasdaq_{copies}.csv"
            n = build(source, copies, data)
            skip = set(a.flink_skip.split(",")) if copies > 110 else set()
            runs = {m: flink([x for x in names if x not in skip], data, m) for m in modes}
            for name in names:
                qfile = Path(tmp) / f"{name}.sql"
                qfile.write_text(query(name))
                got = studio(qfile, data, a.repeat, a.base)
                rows, secs = got["rows"], got["ours_wall"]
                cells = [f"{n:,}", f"`{QUERIES[name][0]}`", f"{len(rows):,}", f"{secs:.2f}", f"{got['ours_cpu']:.2f}",
                         f"{n / secs:,.0f}"]
                if a.base:
                    cells += [f"{got['base_wall']:.2f}", f"{got['base_cpu']:.2f}",
                              f"{got['base_cpu'] / got['ours_cpu']:.2f}×" + (" (rows differ)" if got.get("base_differs")
                                                                             else "")]
                equal = []
                for m in modes:
                    if name not in runs[m]:
                        cells += ["not run", "", ""]
                        equal.append(f"{m}: not run in Flink")
                        continue
                    fs, fcpu, frows = runs[m][name]
                    cells += [f"{fs:.2f}", "" if fcpu is None else f"{fcpu:.2f}", f"{fs / secs:.1f}×"]
                    key = sorted(json.dumps({k: v for k, v in r.items()}, sort_keys=True) for r in rows)
                    fkey = sorted(json.dumps({k: v for k, v in r.items()}, sort_keys=True) for r in frows)
                    if key == fkey:
                        equal.append(f"{m}: yes")
                    else:
                        from engine.engines.sql.conversion.flink_sql import flink_warnings
                        from engine.engines.sql.parser import parse_query
                        why = [w.split(":")[0] for w in flink_warnings(parse_query(query(name)))
                               if not w.startswith("tie")]
                        equal.append(f"{m}: no, {len(frows):,} rows (explained: {'; '.join(why) or 'nothing'})")
                lines.append("| " + " | ".join(cells + ["; ".join(equal) or "Flink not run"]) + " |")
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if a.out:
        a.out.write_text("# MATCH_RECOGNIZE: the studio against Flink 2.3\n\n" + (__doc__ or "").split("\n\n", 1)[1]
                         + "\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
