"""Memory and time of ``cep run`` on big files.

Generates a CSV of N rows (``id,type,ts,x,y,name,zone,v``; types A/B at random, ts = the row
number, x and y uniform in [0, 1), about 84 bytes a row, so 2.4 M rows are ~200 MB), with
one bad row (an unparsable ts) every ``--bad-every`` rows, and runs

    cep run "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN W" --data FILE --skip-bad-rows
            --format jsonl --out OUT

under ``/usr/bin/time -v``. Prints a markdown table: rows, file size, W, matches written,
wall seconds, CPU seconds (user + system), peak RSS (``Maximum resident set size``; polled
``VmRSS`` when the run was killed), the 1-minute load average at the end, exit status and
the last stderr line.
Nothing is asserted. The data file goes to ``--dir`` (default ``/tmp/cep-big``); never
commit it.

``--code DIR`` runs another copy of the project (e.g. ``git archive REV | tar -x -C DIR``)
by putting DIR first on ``PYTHONPATH``: that is how the "before" column of
``docs/benchmarks_memory.md`` was measured. ``--timeout`` stops a run that takes too long
(the table says so).

    python benchmarks/big_file.py --rows 2400000 --within 100 [--code DIR] [--timeout S]
    python benchmarks/big_file.py --rows 1500000 --within 20 --no-bad-rows
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def generate(path: Path, rows: int, bad_every: int, seed: int = 16) -> None:
    """Write the CSV (deterministic for a seed), in chunks of 200,000 rows."""
    rng = np.random.default_rng(seed)
    names = np.array([f"sensor-{k:04d}" for k in range(500)])
    zones = np.array(["north", "south", "east", "west", "centre"])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("id,type,ts,x,y,name,zone,v\n")
        for start in range(0, rows, 200_000):
            n = min(200_000, rows - start)
            idx = np.arange(start, start + n)
            types = np.where(rng.random(n) < 0.5, "A", "B")
            x, y = rng.random(n), rng.random(n)
            nm = names[rng.integers(0, len(names), n)]
            zn = zones[rng.integers(0, len(zones), n)]
            vs = rng.integers(0, 1_000_000, n)
            lines = []
            for i, t, a, b, s, z, v in zip(idx.tolist(), types.tolist(), x.tolist(), y.tolist(),
                                            nm.tolist(), zn.tolist(), vs.tolist()):
                ts = "n/a" if bad_every and i % bad_every == bad_every - 1 else str(i)
                lines.append(f"{i + 1},{t},{ts},{a!r},{b!r},{s},{z},{v}\n")
            fh.write("".join(lines))
    os.replace(tmp, path)


def run(data: Path, within: int, out: Path, code: str | None, timeout: float,
        extra: list[str]) -> dict[str, object]:
    """One ``cep run`` under ``/usr/bin/time -v``: wall seconds, peak RSS, matches, status."""
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    pattern = f"PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN {within}"
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "engine.commands.cli", "run", pattern,
           "--data", str(data), "--skip-bad-rows", "--format", "jsonl", "--out", str(out), *extra]
    if out.exists():
        out.unlink()
    t0 = time.perf_counter()
    status: object
    err_path = out.with_name(out.name + ".stderr")
    with open(err_path, "w") as err_fh:
        # a session of its own: a timeout kills /usr/bin/time and the Python process under it
        proc = subprocess.Popen(cmd, cwd="/tmp", env=env, stdout=subprocess.DEVNULL, stderr=err_fh,
                                start_new_session=True)
        sampled = 0  # KB, the largest VmRSS seen by polling (when /usr/bin/time cannot say)
        while proc.poll() is None:
            sampled = max(sampled, _tree_rss_kb(proc.pid))
            if time.perf_counter() - t0 > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.5)
    wall = time.perf_counter() - t0
    status = proc.returncode if proc.returncode is not None and proc.returncode >= 0 and \
        wall <= timeout else f"killed after {timeout:.0f} s"
    err = err_path.read_text(errors="replace")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    rss_mb = int(m.group(1)) / 1024 if m else sampled / 1024
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", err)) or float("nan")
    matches = 0
    for cand in (out, out.with_name(out.name + ".partial")):
        if cand.exists():
            with open(cand, "rb") as fh:
                matches = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 24), b""))
            break
    said = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("\t")
            and "Command being timed" not in ln and "Command exited" not in ln]
    return {"wall": wall, "cpu": cpu, "rss_mb": rss_mb, "matches": matches, "status": status,
            "said": said[-1][:100] if said else ""}


def _tree_rss_kb(pid: int) -> int:
    """VmRSS (KB) of ``pid`` and its children (one level: /usr/bin/time and the run)."""
    total = 0
    pids = [pid]
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            pids += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    for p in pids:
        try:
            for ln in Path(f"/proc/{p}/status").read_text().splitlines():
                if ln.startswith("VmRSS:"):
                    total += int(ln.split()[1])
        except OSError:
            pass
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_400_000)
    ap.add_argument("--within", type=int, default=100)
    ap.add_argument("--bad-every", type=int, default=10_007, help="one bad row every N rows (0: none)")
    ap.add_argument("--no-bad-rows", action="store_true")
    ap.add_argument("--dir", default="/tmp/cep-big")
    ap.add_argument("--code", default=None, help="run this copy of the project (PYTHONPATH)")
    ap.add_argument("--timeout", type=float, default=3600.0)
    ap.add_argument("--label", default="")
    ap.add_argument("extra", nargs="*", help="more `cep run` arguments (after --)")
    a = ap.parse_args(argv)
    bad_every = 0 if a.no_bad_rows else a.bad_every
    d = Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    data = d / f"big-{a.rows}-{bad_every}.csv"
    if not data.exists():
        t0 = time.perf_counter()
        generate(data, a.rows, bad_every)
        print(f"generated {data} ({data.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)
    out = d / f"matches-{a.rows}-{a.within}{'-' + a.label if a.label else ''}.jsonl"
    r = run(data, a.within, out, a.code, a.timeout, a.extra)
    load = os.getloadavg()[0]
    print("| code | rows | file MB | WITHIN | matches written | wall s | CPU s | peak RSS MB | load | exit "
          "| last stderr line |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {a.label or a.code or 'working tree'} | {a.rows:,} | {data.stat().st_size / 1e6:.0f} | {a.within} "
          f"| {r['matches']:,} | {r['wall']:.0f} | {r['cpu']:.0f} | {r['rss_mb']:,.0f} | {load:.1f} | {r['status']} "
          f"| {r['said']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
