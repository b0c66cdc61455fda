"""MATCH_RECOGNIZE: the studio's `sql` engine against Apache Flink 2.3's, on the same file.

The workload of issue 22's Deliver 9: OpenCEP's NASDAQ stream (``NASDAQ_AAPL_AMZN_GOOG.txt``,
1,365 minute bars of three symbols; fetched, never committed) repeated ×110 (150,150 rows) and
×1,100 (1,501,500 rows), each copy shifted in time after the previous one; columns
``symbol, ts, price, volume`` (ts in seconds, price the bar's close). Queries, per symbol:

- ``rise3`` / ``rise5``: a rising run of 3 / 5 bars (``A B C``, each above the one before);
- ``bbb``: ``A B{3} C`` (three bars above A, then one below A);
- ``bplus``: ``A B+ C`` with C the complement of B's condition (``B > A``, ``C <= A``).

The studio is timed as a whole process (``cep run QUERY.sql --data FILE --format count``: start-up,
reading, matching, output), min of ``--repeat``; Flink by its own ``query_seconds`` (submission to
last row, in its JVM after start-up, a warm-up query first), in streaming and batch mode at
parallelism 1, through ``engine/engines/sql/flink`` (.venv-flink). The rows are compared: where
they differ, the table says so. Writes a markdown table (``--out``).

    python benchmarks/sql_vs_flink.py --source PATH/NASDAQ_AAPL_AMZN_GOOG.txt --out docs/benchmarks_sql.md
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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


def studio(qfile: Path, data: Path, repeat: int) -> tuple[float, list[dict]]:
    best = float("inf")
    out = ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "engine.commands.cli", "run", str(qfile), "--data", str(data),
                            "--format", "jsonl"], capture_output=True, text=True, cwd=ROOT)
        best = min(best, time.perf_counter() - t0)
        if p.returncode != 0:
            raise SystemExit(p.stderr)
        out = p.stdout
    return best, [json.loads(x) for x in out.splitlines()]


def flink(names: list[str], data: Path, mode: str) -> dict[str, tuple[float, list[dict]]]:
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
        out[n] = (r.query_seconds, r.rows)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", required=True, type=Path, help="OpenCEP's NASDAQ_AAPL_AMZN_GOOG.txt")
    ap.add_argument("--copies", default="110,1100")
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", default="streaming,batch")
    ap.add_argument("--flink-skip", default="", help="queries not run in Flink (e.g. bplus at 1.5M rows: its "
                                                    "held-back matches make Flink's run hours long)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    names = a.queries.split(",")
    lines = ["| rows | query | matches | studio s (whole process) | studio rows/s | "
             + " | ".join(f"Flink {m} s (query) | Flink {m} rows/s | ratio ({m})" for m in a.modes.split(","))
             + " | rows equal |", "|" + "---|" * (6 + 3 * len(a.modes.split(",")))]
    with tempfile.TemporaryDirectory() as tmp:
        for copies in (int(c) for c in a.copies.split(",")):
            data = Path(tmp) / f"nasdaq_{copies}.csv"
            n = build(a.source, copies, data)
            skip = set(a.flink_skip.split(",")) if copies > 110 else set()
            runs = {m: flink([x for x in names if x not in skip], data, m) for m in a.modes.split(",")}
            for name in names:
                qfile = Path(tmp) / f"{name}.sql"
                qfile.write_text(query(name))
                secs, rows = studio(qfile, data, a.repeat)
                cells = [f"{n:,}", f"`{QUERIES[name][0]}`", f"{len(rows):,}", f"{secs:.2f}", f"{n / secs:,.0f}"]
                equal = []
                for m in a.modes.split(","):
                    if name not in runs[m]:
                        cells += ["not run", "", ""]
                        equal.append(f"{m}: not run in Flink")
                        continue
                    fs, frows = runs[m][name]
                    cells += [f"{fs:.2f}", f"{n / fs:,.0f}", f"{fs / secs:.1f}×"]
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
                lines.append("| " + " | ".join(cells + ["; ".join(equal)]) + " |")
                print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if a.out:
        a.out.write_text("# MATCH_RECOGNIZE: the studio against Flink 2.3\n\n" + (__doc__ or "").split("\n\n", 1)[1]
                         + "\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
