"""Where the time of match windows goes: cProfile of the plain-window baseline
and of f+p+c with the SES automaton on P_set, k = 1, 4, 8 (the trades of
``benchmarks/match_windows.py``, WITHIN 50 ms), the split of f+p+c into filtering (the
gate alone, with the caller's loop) and the rest (the buffered events and the calls of A),
and the floor of any matcher fed one event at a time in Python. All times are process CPU
time, medians of interleaved runs.

The factor of f+p+c over the baseline is at most (baseline time per event) / (floor per
event): the floor is the caller's loop and one Python call that returns an empty list.

    python benchmarks/match_windows_profile.py [--events 20000] [--out docs/...md]
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from match_windows import CONFIGS, run_windows, trade_events, workload  # noqa: E402

from engine.commands.run_matches import CHUNK  # noqa: E402  (cep run's chunks of feed_many)
from engine.engines.windows.matcher import MatchWindowMatcher  # noqa: E402

TECH = dict(CONFIGS)


def timed(p: Any, events: list[Any], config: str, batch: bool | int = False) -> tuple[float, Any]:
    r = run_windows(p, events, TECH[config], "ses", batch=batch)
    return r.seconds, r.stats


def gate_only(p: Any, events: list[Any]) -> float:
    """Seconds of the caller's loop over the filtering gate alone (kept events are dropped)."""
    gate, _count = MatchWindowMatcher(p, inner="ses").plan.gate(lambda e, b: [])
    out: list[Any] = []
    t0 = time.process_time()
    for e in events:
        out.extend(gate(e))
    return time.process_time() - t0


def floor(events: list[Any], repeats: int) -> float:
    """Seconds per event of the loop ``out.extend(feed(e))`` with a feed that returns []."""
    def feed(e: Any) -> list[Any]:
        return []

    ts = []
    for _ in range(repeats):
        out: list[Any] = []
        t0 = time.process_time()
        for e in events:
            out.extend(feed(e))
        ts.append(time.process_time() - t0)
    return statistics.median(ts) / len(events)


def top(p: Any, events: list[Any], config: str, n: int) -> list[str]:
    pr = cProfile.Profile()
    m = MatchWindowMatcher(p, inner="ses", techniques=TECH[config], max_runs=2_000_000)
    feed = m.feed
    out: list[Any] = []
    pr.enable()
    for e in events:
        out.extend(feed(e))
    out.extend(m.close())
    pr.disable()
    st = pstats.Stats(pr)
    total = sum(v[2] for v in st.stats.values())  # type: ignore[attr-defined]
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:n]  # type: ignore[attr-defined]
    lines = []
    for (fn, line, name), (_cc, nc, tt, _ct, _callers) in rows:
        where = f"{os.path.relpath(fn, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))}:{line}" \
            if fn.startswith("/") else fn
        lines.append(f"{name} ({where}) {nc:,} calls {100 * tt / total:.0f}%")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    events, pool = trade_events(args.events)
    rng = random.Random(13)
    n = len(events)
    lines = ["| k | baseline µs/event | f+p+c ns/event | filtering ns/event | buffered events and calls of A "
             "ns/event (per buffered event) | calls of A | factor | f+p+c feed_many ns/event | factor "
             "| f+p+c cep run chunks ns/event | factor | floor ns/event | baseline / floor |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    profiles: list[str] = []
    fl = floor(events, args.repeats)
    for k in range(1, 9):
        p = workload("P_set", rng.sample(pool, k), "50 ms", "earliest_maximal")
        if k not in (1, 4, 8):
            continue
        base, fpc, many, gate, chunked = [], [], [], [], []
        st: Any = None
        for _ in range(args.repeats):  # interleaved
            base.append(timed(p, events, "baseline")[0])
            t, st = timed(p, events, "f+p+c")
            fpc.append(t)
            many.append(timed(p, events, "f+p+c", batch=True)[0])
            chunked.append(timed(p, events, "f+p+c", batch=CHUNK)[0])
            gate.append(gate_only(p, events))
        b, f, fm, g, fc = (statistics.median(x) for x in (base, fpc, many, gate, chunked))
        kept = st.events_in - st.events_filtered
        rest = max(f - g, 0.0)
        lines.append(f"| {k} | {b / n * 1e6:.2f} | {f / n * 1e9:.0f} | {g / n * 1e9:.0f} "
                     f"| {rest / n * 1e9:.0f} ({rest / max(kept, 1) * 1e6:.1f} µs × {kept:,}) "
                     f"| {st.calls} | {b / f:.1f} | {fm / n * 1e9:.0f} "
                     f"| {b / fm:.1f} | {fc / n * 1e9:.0f} | {b / fc:.1f} | {fl * 1e9:.0f} | {b / n / fl:.0f} |")
        for cfg in ("baseline", "f+p+c"):
            profiles.append(f"- k = {k}, {cfg}: " + "; ".join(top(p, events, cfg, 6)))
        print(f"  k={k} done", file=sys.stderr)
    text = "\n".join(lines + ["", "cProfile, functions by own time (share of the profiled run):", ""] + profiles)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
