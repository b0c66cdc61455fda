"""The interval engines now against a git revision, in one process: the same workloads of
``uncertain_frameworks.py`` (3 components, selectivity 1/5, skip_till_any_match) run on
``engine_base`` (the revision, ``baseline.extract_base``) and on this tree, interleaved round by
round; CPU seconds, best of the rounds; the match counts must agree.

    python benchmarks/uncertain_ab.py --rev REV [--rounds 5]
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from baseline import extract_base, markdown, module_in, report  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.engines.uncertain.event import EventBasedMatcher  # noqa: E402
from engine.engines.uncertain.point import PointBasedMatcher  # noqa: E402
from uncertain_frameworks import stream  # noqa: E402

#: (window W, interval half-width delta, events)
WORKLOADS = [(10, 5, 300), (50, 5, 200), (20, 20, 120)]
PATTERN = ("PATTERN SEQ(E1 x1, E2 x2, E3 x3) WHERE x1.v % 5 = 0 AND x2.v % 5 = 0 AND x3.v % 5 = 0 "
           "AND skip_till_any_match WITHIN {w}")


def run(cls: Any, pattern: Any, events: list[Any], **options: Any) -> tuple[float, int]:
    m = cls(pattern, **options)
    t0 = time.process_time()
    n = sum(len(m.feed(e)) for e in events) + len(m.close())
    return time.process_time() - t0, n


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        extract_base(a.rev, Path(tmp))
        bdsl = importlib.import_module("engine_base.dsl")
        bev = importlib.import_module("engine_base.events")
        base_event = importlib.import_module(module_in("engine_base", "engines.uncertain.event")).EventBasedMatcher
        base_point = importlib.import_module(module_in("engine_base", "engines.uncertain.point")).PointBasedMatcher
        for w, delta, n in WORKLOADS:
            text = PATTERN.format(w=w)
            now_p, base_p = parse(text), bdsl.parse(text)
            now_ev = stream(n, delta)
            base_ev = [bev.Event(id=e.id, type=e.type, ts=e.ts, seq=e.seq, attrs=e.attrs, lower=e.lower,
                                 upper=e.upper) for e in now_ev]
            for name, base_cls, now_cls, opts in (("event-based, any-state", base_event, EventBasedMatcher,
                                                   {"mode": "any-state"}),
                                                  ("point-based", base_point, PointBasedMatcher, {})):
                tb, tn, counts = [], [], set()
                for _ in range(a.rounds):
                    s, k1 = run(base_cls, base_p, base_ev, u_max=2 * delta, **opts)
                    tb.append(s)
                    s, k2 = run(now_cls, now_p, now_ev, u_max=2 * delta, **opts)
                    tn.append(s)
                    counts.add((k1, k2))
                (k1, k2), = counts
                assert k1 == k2, (name, w, delta, k1, k2)
                rows.append([f"W={w}, delta={delta}, {n} events", name, f"{k2:,}", f"{min(tb):.3f}",
                             f"{min(tn):.3f}", f"{min(tn) / min(tb):.2f}"])
    text = markdown(f"Interval engines now vs {a.rev}: CPU seconds, best of {a.rounds} interleaved rounds in one "
                    "process.", ["workload", "engine", "signatures", f"{a.rev} s", "now s", "now / base"], rows)
    report(text, a.out, "Interval engines against a revision", "uncertain_ab.py --rev REV")
    return text


if __name__ == "__main__":
    main()
