"""Run several ``cep run`` command lines in one process (one Spark session for all of them),
then report where the workers imported the engine from.

    python run_many.py RUNS.json REPORT.json

``RUNS.json``: a list of argument lists for ``cep run`` (each with its own ``--out``).
``REPORT.json``: ``{"status": [exit codes], "workers": [{"engine": file, "python": exe}],
"master": url, "app": the Run page's Spark run of the first command's pattern and data
(app.runner.run_spark: matches, where it ran, its progress texts), "lazy": the bindings
engine.spark.match finds for the point-data patterns}``.

The cluster tests start it as a subprocess: a process holds one classic SparkSession, and
pyspark runs one kind of session (classic or Connect) per process.
"""
from __future__ import annotations

import json
import sys
import time
from typing import Iterator


def where(batches: Iterator) -> Iterator:
    """On a worker: the file ``engine`` was imported from and the Python running it."""
    import pyarrow as pa

    for _ in batches:
        pass
    import engine

    yield pa.RecordBatch.from_pylist([{"engine": engine.__file__, "python": sys.executable}])


def app_run(argv: list[str]) -> dict:
    """The Run page's Spark path (``app.runner.run_spark``) on this process's session, for the
    pattern and data file of ``argv`` (a ``cep run`` command line)."""
    from app.run_progress import LiveProgress
    from app.runner import Source, run_spark
    from engine.dsl import parse
    from engine.events import guess_mapping

    data = argv[argv.index("--data") + 1]
    texts: list[str] = []
    live = LiveProgress()
    out = run_spark(parse(argv[1]), Source("path", "data", data, None), guess_mapping(["id", "type", "ts", "k", "v"]), rows=600,
                    on_progress=lambda fraction, text: texts.append(text), poll=0.05, live=live)
    return {"matches": len(out.matches), "cluster": live.cluster, "info_cluster": out.info.get("cluster"),
            "texts": texts, "stages": live.spark.stages if live.spark else 0}


def lazy_runs(runs: list[list[str]]) -> dict:
    """``engine.spark.match`` (the lazy DataFrame API) on this process's session for the
    pattern of each ``runs`` line that reads the point events: each match's bindings, sorted."""
    from engine.spark import match
    from engine.spark.session import get_spark

    spark = get_spark()
    out = {}
    for argv in runs:
        data = argv[argv.index("--data") + 1]
        if not data.endswith(("points.csv", "points_dir")) or "AGG" in argv[1] or "--max-runs" in argv:
            continue
        df = spark.read.csv(data, header=True, inferSchema=True)
        rows = match(df, argv[1]).collect()
        out[argv[1]] = sorted([[list(v) if isinstance(v, (list, tuple)) else [v] for v in (r["a"], r["b"], r["c"])]
                               for r in rows])
    return out


def main(runs_path: str, report_path: str) -> int:
    from engine.commands.cli import main as cep
    from engine.spark.session import get_spark, master_of, stop_spark

    runs = json.loads(open(runs_path, encoding="utf-8").read())
    t0 = time.perf_counter()
    spark = get_spark()
    print(f"run_many: session {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    status = []
    for argv in runs:
        t0 = time.perf_counter()
        status.append(cep(argv))
        print(f"run_many: {argv[1][:40]!r} {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    workers = [r.asDict() for r in spark.range(0, 4, 1, 2).mapInArrow(where, "engine string, python string").collect()]
    t0 = time.perf_counter()
    app = app_run(runs[0])
    t1 = time.perf_counter()
    lazy = lazy_runs(runs)
    print(f"run_many: app {t1 - t0:.1f} s, lazy {time.perf_counter() - t1:.1f} s", file=sys.stderr)
    report = {"status": status, "workers": workers, "master": master_of(spark), "app": app, "lazy": lazy}
    open(report_path, "w", encoding="utf-8").write(json.dumps(report))
    stop_spark(master_of(spark))
    stop_spark()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
