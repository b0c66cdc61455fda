"""A-Seq's events per second against an earlier revision, in one process (A-Seq §3.2 SEM).

    .venv/bin/python benchmarks/aseq_speed.py [--rev REV] [--events 20000] [--types 5]
        [--windows 60,120,1000] [--lengths 3] [--rounds 5] [--out FILE]

Data: ``aseq_vs_baseline.ticks``: ``--types`` tickers T0.. drawn uniformly, one event per
millisecond (``WITHIN W`` holds about W/types events of each ticker). Queries:
``SEQ(T0 v0, ..., T{l-1} v{l-1}) AGG COUNT WITHIN W`` and the same with ``!T{l}`` after the
START (a negation the stream holds: with 5 types and l = 3, ``!T3``), and with ``[k]``
(3 partitions: the Hashed Prefix Counter). The revision's ``engine`` is extracted as the
package ``engine_base`` (``benchmarks/baseline.py``) and both run on the same events (each
side builds its own ``Event`` objects, outside the timing), interleaved round by round on
CPU seconds (``time.process_time``: the machine is shared). Each cell is the median over
the rounds; the ratio is per round (base seconds / current seconds), its median and range.
Equal outputs are checked on every run.
"""
from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from baseline import extract_base, markdown, module_in, report  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.engines.aseq.engine import AseqMatcher  # noqa: E402
from engine.events import Event  # noqa: E402


def rows(n: int, types: int, seed: int = 1) -> list[dict[str, Any]]:
    """The stream of ``aseq_vs_baseline.ticks`` (same draws), plus a partition key ``k``."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        t = f"T{r.randrange(types)}"
        out.append({"id": i, "type": t, "ts": float(i), "seq": i, "attrs": {"price": r.randint(1, 100), "k": i % 3}})
    return out


def query(length: int, window: int, variant: str) -> str:
    items = [f"T{i} v{i}" for i in range(length)]
    if variant == "negation":
        items.insert(1, f"!T{length} n")
    where = " WHERE [k]" if variant == "partitioned" else ""
    return f"PATTERN SEQ({', '.join(items)}){where} AGG COUNT WITHIN {window}"


def run(make: Any, events: list[Any]) -> tuple[float, list[Any]]:
    m = make()
    t0 = time.process_time()
    out = [r for e in events for r in m.feed(e)]
    out += m.close()
    return time.process_time() - t0, [(r.event, r.value) for r in out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="2fe8da969a5ec21004467fe332e33d15a67ff17f",
                    help="the revision to compare with (default: main before counters were shared across STARTs)")
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--types", type=int, default=5)
    ap.add_argument("--windows", default="60,120,1000")
    ap.add_argument("--lengths", default="3")
    ap.add_argument("--variants", default="plain,negation,partitioned")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    data = rows(a.events, a.types)
    events = [Event(**d) for d in data]
    with tempfile.TemporaryDirectory() as tmp:
        extract_base(a.rev, Path(tmp))
        bdsl = importlib.import_module("engine_base.dsl")
        BEvent = importlib.import_module("engine_base.events").Event
        BAseq = importlib.import_module(module_in("engine_base", "engines.aseq.engine")).AseqMatcher
        base_events = [BEvent(**d) for d in data]
        points = [(length, w, v) for length in map(int, a.lengths.split(",")) for w in map(int, a.windows.split(","))
                  for v in a.variants.split(",")]
        times: dict[tuple, dict[str, list[float]]] = {p: {"new": [], "base": []} for p in points}
        for rnd in range(a.rounds):
            for p in points:
                text = query(*p)
                pat, bpat = parse(text), bdsl.parse(text)
                sides = [("new", lambda: AseqMatcher(pat), events), ("base", lambda: BAseq(bpat), base_events)]
                if rnd % 2:
                    sides.reverse()
                outs = {}
                for name, make, evs in sides:
                    dt, outs[name] = run(make, evs)
                    times[p][name].append(dt)
                assert outs["new"] == outs["base"], f"different rows: {text}"
            print(f"round {rnd + 1}/{a.rounds} done", file=sys.stderr)
    body = []
    for p in points:
        new, base = times[p]["new"], times[p]["base"]
        ratios = sorted(b / n for b, n in zip(base, new))
        body.append([str(p[0]), str(p[1]), p[2], f"{a.events / statistics.median(new):,.0f}",
                     f"{a.events / statistics.median(base):,.0f}",
                     f"**{statistics.median(ratios):.2f}×** [{ratios[0]:.2f}-{ratios[-1]:.2f}]"])
    caption = (f"{a.events:,} events, {a.types} types, CPU seconds, median of {a.rounds} interleaved rounds; "
               f"base = {a.rev[:10]}")
    text = markdown(caption, ["l", "W (ms)", "query", "events/s now", "events/s base", "ratio (base / now)"], body)
    report(text, a.out, "A-Seq speed against an earlier revision", "aseq_speed.py")


if __name__ == "__main__":
    main()
