"""OpenCEP against CEP Studio on OpenCEP's stream shape: googleAscend and momentum3.

The stream is ``nasdaq_day.py``'s: three tickers interleaved minute by minute (each pattern type
is 1 event in 3), one bar per ticker per minute over a trading day, the day replicated ``--days``
times (110: 150,150 events). OpenCEP (a checkout of it: ``--opencep DIR`` or ``$OPENCEP_DIR``; it is
not part of this project and not shipped) reads it in its own Metastock format; CEP Studio reads the
same bars as CSV. Measured, each in its own process, interleaved round by round:

- **OpenCEP matching**: ``CEP.run`` minus the time its data formatter takes to parse the same lines
  (parsed apart in the same process), i.e. its evaluation alone;
- **OpenCEP process**: the wall time of its whole process (import, read, parse, match);
- **CEP Studio matching**: the matcher ``cep run --format count`` chooses, fed as ``cep run`` feeds it
  (in chunks where the engine takes them: the lazy chain's columnar path), after loading;
- **CEP Studio load**: ``load_events`` with the pattern's types (what ``cep run`` does);
- **cep run**: the wall time of ``cep run PATTERN --data FILE --format count``; with ``--base DIR``
  (a copy of an earlier revision: ``git archive REV | tar -x -C DIR``) that revision's too, in the
  same rounds.

Every process runs with bytecode caches (``PYTHONDONTWRITEBYTECODE`` removed), as an installed program
runs; a first round, not counted, writes them. Match counts must be equal (the script says so when
they are not). Prints a Markdown table.

    python benchmarks/opencep_day.py --opencep DIR [--days 110] [--rounds 2] [--base DIR] [--out FILE]
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from nasdaq_day import TICKERS, day_table  # noqa: E402

# OpenCEP's window holds when last - first <= W, ours when last - first < W (docs/semantics.md): on
# timestamps in whole seconds, W + 1 s is OpenCEP's 3 and 5 minutes
PATTERNS = {
    "googleAscend": ("PATTERN SEQ(GOOG a, GOOG b, GOOG c) WHERE skip_till_any_match "
                     "AND a.peak < b.peak AND b.peak < c.peak WITHIN 181 s"),
    "momentum3": ("PATTERN SEQ(AAPL a, AMZN b, GOOG c) WHERE skip_till_any_match "
                  "AND a.peak < b.peak AND b.peak < c.peak AND a.open < b.open AND b.open < c.open "
                  "WITHIN 301 s"),
}

# OpenCEP's own two tests (its test/BasicTests.py), built with its API in its process
_OPENCEP = r'''
import json, sys, time
t_start = time.perf_counter()
sys.path.insert(0, sys.argv[1])
import collections, collections.abc  # OpenCEP imports collections.Callable (gone in Python 3.10)
collections.Callable = collections.abc.Callable
from datetime import timedelta
from CEP import CEP
from base.Pattern import Pattern
from base.PatternStructure import SeqOperator, PrimitiveEventStructure
from condition.CompositeCondition import AndCondition
from condition.BaseRelationCondition import SmallerThanCondition
from condition.Condition import Variable
from plugin.stocks.Stocks import MetastockDataFormatter
from stream.FileStream import FileInputStream
from stream.Stream import OutputStream

def lt(a, b, key):
    return SmallerThanCondition(Variable(a, lambda x: x[key]), Variable(b, lambda x: x[key]))

name, path = sys.argv[2], sys.argv[3]
if name == "googleAscend":
    pattern = Pattern(SeqOperator(PrimitiveEventStructure("GOOG", "a"), PrimitiveEventStructure("GOOG", "b"),
                                  PrimitiveEventStructure("GOOG", "c")),
                      AndCondition(lt("a", "b", "Peak Price"), lt("b", "c", "Peak Price")), timedelta(minutes=3))
else:
    pattern = Pattern(SeqOperator(PrimitiveEventStructure("AAPL", "a"), PrimitiveEventStructure("AMZN", "b"),
                                  PrimitiveEventStructure("GOOG", "c")),
                      AndCondition(lt("a", "b", "Peak Price"), lt("b", "c", "Peak Price"),
                                   lt("a", "b", "Opening Price"), lt("b", "c", "Opening Price")),
                      timedelta(minutes=5))
formatter = MetastockDataFormatter()
t0 = time.perf_counter()
lines = open(path).readlines()
for line in lines:  # what CEP.run spends parsing, measured apart
    payload = formatter.parse_event(line)
    formatter.get_event_timestamp(payload)
    formatter.get_event_type(payload)
parse = time.perf_counter() - t0
cep = CEP([pattern])
matches = OutputStream()
run = cep.run(FileInputStream(path), matches, formatter)
count = sum(1 for _ in matches)
print(json.dumps({"run": run, "parse": parse, "matches": count}))
'''

_OURS = r'''
import json, sys, time
from collections import Counter
from engine.dsl import parse
from engine.events import load_events
from engine.run_choice import choose_run
from engine.type_filter import bindable_types
pattern = parse(open(sys.argv[1]).read())
t0 = time.perf_counter()
loaded = load_events(sys.argv[2], types=bindable_types(pattern))
t1 = time.perf_counter()
# the matcher cep run --format count builds, fed as cep run feeds it (run_matches.feed_events)
choice = choose_run(pattern, "auto", "auto", rates=dict(Counter(e.type for e in loaded.events)), count_only=True)
m = choice.build(pattern)
t2 = time.perf_counter()
out = []
events = loaded.events
if choice.spec.feeds_many:
    size = getattr(m, "feed_chunk", 1024)
    for i in range(0, len(events), size):
        m.feed_many(events[i:i + size], out)
else:
    feed = m.feed
    for e in events:
        out.extend(feed(e))
out.extend(m.close())
n = len(out) + (m.counted if choice.count_only else 0)
t3 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "match": t3 - t2, "matches": n, "engine": type(m).__name__}))
'''


def write_streams(folder: Path, days: int) -> tuple[Path, Path]:
    """The stream as CSV (ours) and in Metastock's format (OpenCEP's), the same bars in the same order."""
    import datetime as dt

    import pyarrow.csv as pcsv

    table = day_table(days)
    ours = folder / "nasdaq.csv"
    pcsv.write_csv(table, ours)
    theirs = folder / "nasdaq.txt"
    cols = table.to_pydict()
    with theirs.open("w") as f:
        for k in range(table.num_rows):
            stamp = dt.datetime.fromtimestamp(cols["ts"][k], dt.timezone.utc).strftime("%Y%m%d%H%M")
            f.write(f"{cols['type'][k]},{stamp},{cols['open'][k]},{cols['peak'][k]},{cols['lowest'][k]},"
                    f"{cols['close'][k]},{cols['volume'][k]}\n")
    assert set(cols["type"]) == set(TICKERS)
    return ours, theirs


def _json_of(cmd: list[str], env: dict[str, str] | None = None) -> tuple[dict, float]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode:
        raise SystemExit(f"{cmd[2][:40]!r}... failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1]), time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opencep", default=os.environ.get("OPENCEP_DIR"), help="a checkout of OpenCEP")
    ap.add_argument("--days", type=int, default=110)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    ap.add_argument("--base", help="a copy of an earlier revision: its cep run is timed in the same rounds")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    if not a.opencep or not (Path(a.opencep) / "CEP.py").is_file():
        ap.error("--opencep DIR must name a checkout of OpenCEP (with CEP.py)")
    # every process runs with bytecode caches, as an installed program runs (a first, untimed round
    # of each command writes them)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    best: dict[str, dict[str, float]] = {}
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs = write_streams(Path(tmp), a.days)
        events = sum(1 for _ in theirs.open())
        for round_ in range(a.rounds + 1):  # round 0 writes the bytecode caches and is not counted
            for name in a.patterns.split(","):
                pat = Path(tmp) / f"{name}.cep"
                pat.write_text(PATTERNS[name] + "\n")
                b = best.setdefault(name, {})
                c = counts.setdefault(name, {})
                oc, oc_wall = _json_of([sys.executable, "-c", _OPENCEP, a.opencep, name, str(theirs)], env)
                mine, _ = _json_of([sys.executable, "-c", _OURS, str(pat), str(ours)], env)
                t0 = time.perf_counter()
                run = subprocess.run([sys.executable, "-m", "engine.commands.cli", "run", str(pat), "--data",
                                      str(ours), "--format", "count"], check=True, capture_output=True, text=True,
                                     env=env)
                cep_wall = time.perf_counter() - t0
                if a.base:
                    t0 = time.perf_counter()
                    base_run = subprocess.run([sys.executable, "-m", "engine.commands.cli", "run", str(pat), "--data",
                                               str(ours), "--format", "count"], check=True, capture_output=True,
                                              text=True, env=dict(env, PYTHONPATH=a.base), cwd=a.base)
                    b["cep_run_base"] = min(b.get("cep_run_base", float("inf")), time.perf_counter() - t0)
                    c["base"] = int(base_run.stdout.strip())
                c.update(opencep=oc["matches"], ours=mine["matches"], cep_run=int(run.stdout.strip()))
                if round_ == 0:
                    best[name] = {}
                    continue
                for key, value in (("opencep_match", oc["run"] - oc["parse"]), ("opencep_process", oc_wall),
                                   ("ours_match", mine["match"]), ("ours_load", mine["load"]),
                                   ("cep_run", cep_wall)):
                    b[key] = min(b.get(key, float("inf")), value)
                b["engine"] = mine["engine"]  # type: ignore[assignment]
    lines = [f"{events:,} events ({a.days} days × 455 minutes × 3 tickers); best of {a.rounds} rounds; "
             f"load average {os.getloadavg()[0]:.1f} at the end.", "",
             "| pattern | matches (OpenCEP / ours) | OpenCEP matching s | ours matching s | × matching | "
             "ours load s | OpenCEP process s | cep run s | × process | cep run @base s | × base | engine |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, b in best.items():
        c = counts[name]
        same = "" if c["opencep"] == c["ours"] == c["cep_run"] == c.get("base", c["ours"]) else " **(differ)**"
        lines.append(f"| {name} | {c['opencep']:,} / {c['ours']:,}{same} | {b['opencep_match']:.2f} | "
                     f"{b['ours_match']:.3f} | {b['opencep_match'] / b['ours_match']:.1f}× | {b['ours_load']:.3f} | "
                     f"{b['opencep_process']:.2f} | {b['cep_run']:.2f} | {b['opencep_process'] / b['cep_run']:.1f}× | "
                     + (f"{b['cep_run_base']:.2f} | {b['cep_run_base'] / b['cep_run']:.2f}× | " if "cep_run_base" in b
                        else "— | — | ") + f"{b['engine']} |")
    text = "\n".join(lines)
    print(text)
    if a.out:
        about = "\n\n".join(__doc__.split("\n\n")[1:-1])  # the docstring without its first line and usage
        Path(a.out).write_text("# OpenCEP on its own stream shape\n\n`python benchmarks/opencep_day.py "
                               f"--opencep DIR --rounds {a.rounds}" + (" --base DIR" if a.base else "")
                               + f"`\n\n{about}\n\n{text}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
