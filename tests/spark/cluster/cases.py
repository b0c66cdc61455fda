"""The equality cases the cluster tests run on each backend: a keyed, a time-chunked, an AGG
and an interval pattern over small generated files, as ``cep run`` command lines; the same
lines run in process give the expected output."""
from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[2]


@dataclass(frozen=True)
class Case:
    name: str
    pattern: str
    data: str            # "points" or "intervals"
    mode: str | None     # the Spark mode the run must report (None: AGG rows, mode not checked)
    spark_data: str | None = None  # the data on Spark, when not ``data``


CASES = [
    Case("keyed", "PATTERN SEQ(A a, B b, C c) WHERE [k] AND b.v >= a.v WITHIN 8", "points", "keyed"),
    # a directory: read by Spark's reader on the cluster (a small file is read on the driver)
    Case("time-chunked", "PATTERN SEQ(A a, B b, C c) WHERE b.v >= a.v + 5 WITHIN 6", "points", "time-chunked",
         "points_dir"),
    Case("agg", "PATTERN SEQ(A a, B b) WHERE [k] AGG COUNT GROUP BY k WITHIN 6", "points", None),
    Case("interval", "PATTERN SEQ(A a, B b, C c) WHERE [k] AND b.v >= a.v WITHIN 8", "intervals", "keyed"),
]


# a matcher failing inside a task (its state guard): the run stops with the matcher's own message
EXPLOSION = "cep: stopped: StateExplosion: state explosion in `nfab`"


def write_data(folder: Path) -> dict[str, list[str]]:
    """The two files (600 point events over 5 keys; 300 interval events over 4 keys), a
    directory holding the first, and the ``--data`` and mapping arguments of each."""
    rng = random.Random(27)
    points = folder / "points.csv"
    with open(points, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "type", "ts", "k", "v"])
        t = 0
        for i in range(600):
            t += rng.randint(0, 2)
            w.writerow([i, rng.choice("ABC"), t, rng.randrange(5), rng.randint(0, 9)])
    rows, t = [], 0
    for i in range(300):
        t += rng.randint(0, 2)
        rows.append([i, rng.choice("ABC"), t - rng.randint(0, 3), t + rng.randint(0, 3), rng.randrange(4),
                     rng.randint(0, 3)])
    rows.sort(key=lambda r: (r[2], r[0]))
    intervals = folder / "intervals.csv"
    with open(intervals, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "type", "lower", "upper", "k", "v"])
        w.writerows(rows)
    folder_of_points = folder / "points_dir"
    folder_of_points.mkdir(exist_ok=True)
    (folder_of_points / "part-0.csv").write_bytes(points.read_bytes())
    return {"points": ["--data", str(points)], "points_dir": ["--data", str(folder_of_points)],
            "intervals": ["--data", str(intervals), "--type-col", "type", "--id-col", "id",
                          "--lower-col", "lower", "--upper-col", "upper"]}


def command(case: Case, data: dict[str, list[str]], out: Path, *spark: str) -> list[str]:
    """``cep run`` arguments for ``case``, writing JSON Lines to ``out``; ``spark``: the Spark flags."""
    source = data[case.spark_data or case.data] if spark else data[case.data]
    return ["run", case.pattern, *source, "--format", "jsonl", "--out", str(out), "--stats", *spark]


def expected(folder: Path, data: dict[str, list[str]]) -> dict[str, str]:
    """Each case's output run in process (this process)."""
    from engine.commands.cli import main

    out = {}
    for case in CASES:
        path = folder / f"{case.name}.in-process.jsonl"
        assert main(command(case, data, path)) == 0
        out[case.name] = path.read_text(encoding="utf-8")
    return out


@dataclass
class Runs:
    """Every case run in one subprocess (``run_many.py``) on one backend."""

    backend: str
    folder: Path
    outs: dict[str, Path]
    report_path: Path
    process: subprocess.Popen
    stderr_path: Path

    def finish(self, timeout: float = 300) -> tuple[dict[str, str], dict, str]:
        """Wait for the subprocess: the outputs by case, the report and its stderr."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        stderr = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        assert code == 0, stderr[-4000:]
        report = json.loads(self.report_path.read_text(encoding="utf-8"))
        got = {name: p.read_text(encoding="utf-8") for name, p in self.outs.items() if p.exists()}
        return got, report, stderr


def start_runs(backend: str, folder: Path, data: dict[str, list[str]], flags: list[str],
               env_extra: dict[str, str]) -> Runs:
    """Start every case with ``flags`` (``--master URL`` or ``--remote sc://...``) in one
    subprocess, without waiting (``Runs.finish``)."""
    runs, outs = [], {}
    for case in CASES:
        path = folder / f"{case.name}.{backend}.jsonl"
        outs[case.name] = path
        runs.append(command(case, data, path, *flags))
    runs.append(command(CASES[0], data, folder / f"explosion.{backend}.jsonl", *flags, "--max-runs", "2"))
    runs_path, report_path = folder / f"{backend}.runs.json", folder / f"{backend}.report.json"
    runs_path.write_text(json.dumps(runs), encoding="utf-8")
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = str(PROJECT)  # the driver imports this tree; the workers cannot
    stderr_path = folder / f"{backend}.stderr"
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, str(HERE / "run_many.py"), str(runs_path), str(report_path)],
                                env=env, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, cwd=folder)
    return Runs(backend, folder, outs, report_path, proc, stderr_path)


def bindings(jsonl: str) -> list[list[list]]:
    """The bindings of each match of ``cep run --format jsonl`` output (variables a, b, c), sorted."""
    out = []
    for line in jsonl.splitlines():
        m = json.loads(line)["match"]
        out.append([list(m[v]) for v in ("a", "b", "c")])
    return sorted(out)


def check_lazy(lazy: dict, want: dict[str, str]) -> None:
    """``engine.spark.match`` on the backend found the in-process matches of the point cases."""
    by_pattern = {c.pattern: c for c in CASES if c.data == "points" and "AGG" not in c.pattern}
    assert len(lazy) == 2, sorted(lazy)
    for pattern, got in lazy.items():
        assert got == bindings(want[by_pattern[pattern].name]), by_pattern[pattern].name
