"""Start-up of ``cep`` as whole processes: ``import engine.commands.cli``,
``cep --help``, ``cep check`` and ``cep run`` on 10- and 100-row CSV files.

Each command runs ``--runs`` times as ``python -m engine.commands.cli ...`` in a fresh process, the
trees given (``--tree DIR``, default this one; e.g. a ``git archive REV | tar -x -C DIR``
copy as a "before") taking turns, each first on ``PYTHONPATH``. Per process it records the
CPU time (user + system, from ``os.wait4``: load inflates it less than wall time) and the
wall time, and prints a markdown table of medians (and the least wall time). Then
``python -X importtime`` of ``cep run`` on 100 rows, ``--runs`` times per tree: the least
self time of every module, summed per top-level package. Nothing is asserted.

    python benchmarks/startup.py --runs 11 --tree /tmp/before --tree .
"""
from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATTERN_CHECK = "PATTERN SEQ(A a, B b) WITHIN 10"
PATTERN_RUN = "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 10"


def write_rows(path: Path, n: int, seed: int = 1) -> None:
    """``type,ts,id,x``: types A/B at random, ts = id = the row, x in 0..50."""
    rng = random.Random(seed)
    lines = ["type,ts,id,x"] + [f"{rng.choice('AB')},{i},{i},{rng.randint(0, 50)}" for i in range(n)]
    path.write_text("\n".join(lines) + "\n")


def cli_module(tree: Path) -> str:
    """The ``cep`` module of a copy of the project (``engine.cli`` before the commands floor)."""
    return "engine.commands.cli" if (tree / "engine" / "commands" / "cli.py").exists() else "engine.cli"


def commands(data: Path, tree: Path) -> dict[str, list[str]]:
    module = cli_module(tree)
    cli = [sys.executable, "-m", module]
    return {
        "import the cep module": [sys.executable, "-c", f"import {module}"],
        "cep --help": cli + ["--help"],
        "cep check": cli + ["check", PATTERN_CHECK],
        "cep run, 10 rows": cli + ["run", PATTERN_RUN, "--data", str(data / "r10.csv"), "--format", "count"],
        "cep run, 100 rows": cli + ["run", PATTERN_RUN, "--data", str(data / "r100.csv"), "--format", "count"],
    }


def timed(cmd: list[str], tree: Path, cwd: Path) -> tuple[float, float]:
    """(CPU seconds user + system, wall seconds) of one process; raises on failure."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} under {tree} failed ({proc.returncode}): {err[-500:]}")
    return usage.ru_utime + usage.ru_stime, wall


def import_profile(cmd: list[str], tree: Path, cwd: Path, runs: int) -> dict[str, float]:
    """Least self import time (ms) of every module over ``runs`` runs of ``cmd``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    best: dict[str, int] = {}
    for _ in range(runs):
        out = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], cwd=cwd, env=env, capture_output=True,
                             text=True)
        for line in out.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", line)
            if m:
                name, self_us = m.group(3), int(m.group(1))
                best[name] = min(best.get(name, self_us), self_us)
    return {k: v / 1000 for k, v in best.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--tree", action="append", type=Path, help="a copy of the project (repeatable)")
    args = ap.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        write_rows(data / "r10.csv", 10)
        write_rows(data / "r100.csv", 100)
        cmds = {tree: commands(data, tree) for tree in trees}
        names = list(cmds[trees[0]])
        cpu: dict[tuple[str, Path], list[float]] = {}
        wall: dict[tuple[str, Path], list[float]] = {}
        for name in names:
            for tree in trees:  # one warm-up each
                timed(cmds[tree][name], tree, data)
            for _ in range(args.runs):
                for tree in trees:
                    c, w = timed(cmds[tree][name], tree, data)
                    cpu.setdefault((name, tree), []).append(c)
                    wall.setdefault((name, tree), []).append(w)
        print(f"{args.runs} runs per command and tree; load average {os.getloadavg()[0]:.1f} at the end\n")
        print("| command | " + " | ".join(f"{t.name}: CPU median, wall median / min" for t in trees) + " |")
        print("|---|" + "---|" * len(trees))
        for name in names:
            cells = [f"{statistics.median(cpu[name, t]):.3f} s, {statistics.median(wall[name, t]):.2f} / "
                     f"{min(wall[name, t]):.2f} s" for t in trees]
            print(f"| `{name}` | " + " | ".join(cells) + " |")
        print()
        for tree in trees:
            prof = import_profile(cmds[tree]["cep run, 100 rows"], tree, data, args.runs)
            per_package: Counter[str] = Counter()
            for mod, ms in prof.items():
                per_package[mod.split(".")[0]] += ms
            total = sum(prof.values())
            print(f"{tree.name}: `-X importtime` of `cep run` on 100 rows, least self time per module summed "
                  f"per package ({total:.0f} ms in all)\n")
            print("| package | ms |\n|---|---|")
            for pkg, ms in per_package.most_common(10):
                print(f"| {pkg} | {ms:.1f} |")
            print()


if __name__ == "__main__":
    main()
