"""A long fuzz run of the pattern language (no pattern may crash the parser, printer or compilers).

Runs the checks of ``tests/fuzz/test_patterns.py`` (parse; print, re-parse and compare; JSON
round trip; ``planner.reasons`` against ``planner.make_matcher``; run on a few events) on N
inputs from a seeded ``random.Random``: half random text over the grammar, half mutations of
the presets, the README's patterns and the papers' queries, plus the adversarial cases of
the issue. Prints a count table (clean error / no engine / stopped by a guard / ran / other
exception), the slowest inputs, and the first few inputs of every other exception (there
should be none). Timings are printed, never asserted.

    python benchmarks/fuzz_patterns.py              # 20,000 inputs, auto + one engine each
    python benchmarks/fuzz_patterns.py 100000 --seed 7 --engines all
"""
from __future__ import annotations

import argparse
import collections
import os
import platform
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.engines import planner  # noqa: E402
from engine.dsl import DslError, parse  # noqa: E402
from engine.model import MAX_COMPONENTS, MAX_NESTING  # noqa: E402
from tests.fuzz.test_patterns import SEEDS, check_text, grammar_text, mutate  # noqa: E402

PRE = "PATTERN SEQ(A a) WHERE "


def adversarial() -> list[tuple[str, str]]:
    """The issue's hostile inputs (name, text)."""
    cases = [
        ("200 nested parentheses", PRE + "(" * 200 + "a.x > 1" + ")" * 200),
        ("1,000 chained NOT", PRE + "NOT " * 1000 + "a.x > 1"),
        ("1,000 chained unary minus", PRE + "a.x > " + "- " * 1000 + "a.y"),
        ("1,000 nested SEQ", "PATTERN " + "SEQ(" * 1000 + "A a" + ")" * 1000),
        ("200 nested SEQ", "PATTERN " + "SEQ(" * 200 + "A a" + ")" * 200),
        ("5,000-digit integer", PRE + "a.x > " + "9" * 5000),
        ("WITHIN 1e400 weeks", "PATTERN SEQ(A a, B b) WITHIN 1e400 weeks"),
        ("WITHIN 1e309", "PATTERN SEQ(A a, B b) WITHIN 1e309"),
        ("WITHIN 10^400", "PATTERN SEQ(A a, B b) WITHIN 1" + "0" * 400),
        ("10^400 percent", PRE + "a.x > 1" + "0" * 400 + "%"),
        ("10^300 percent", PRE + "a.x > 1" + "0" * 300 + "%"),
        ("SEQ of 1,000 components", "PATTERN SEQ(" + ", ".join(f"A a{i}" for i in range(1000)) + ")"),
        (f"SEQ of {MAX_COMPONENTS} components", "PATTERN SEQ(" + ", ".join(f"A a{i}" for i in range(MAX_COMPONENTS)) + ")"),
        (f"SEQ of {MAX_COMPONENTS} Kleene components",
         "PATTERN SEQ(" + ", ".join(f"A+ a{i}[]" for i in range(MAX_COMPONENTS)) + ") WITHIN 10"),
        (f"{MAX_NESTING} nested SEQ", "PATTERN " + "SEQ(" * MAX_NESTING + "A a" + ")" * MAX_NESTING),
        ("chain of 5,000 +", PRE + "a.x > " + " + ".join(["a.y"] * 5000)),
        ("20 optional components", "PATTERN SEQ(" + ", ".join(f"A? a{i}" for i in range(20)) + ", B b)"),
        ("AND of 6 OR(3)", "PATTERN AND(" + ", ".join(f"OR(A a{i}, B b{i}, C c{i})" for i in range(6)) + ")"),
        ("100,001 characters", PRE + " AND ".join(["a.x > 1"] * 14300)),
    ]
    for k in (MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1, 400, 800):
        cases.append((f"{k} nested parentheses", PRE + "(" * k + "a.x > 1" + ")" * k))
    return cases


def classify(text: str, rng: random.Random, engines: str) -> tuple[str, str | None]:
    try:
        return check_text(text, rng, engines=engines), None
    except Exception as err:  # noqa: BLE001 - counted and shown
        return "other exception", f"{type(err).__name__}: {str(err)[:200]}\n{traceback.format_exc(limit=-3)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", nargs="?", type=int, default=20_000, help="number of random inputs (default 20,000)")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--engines", choices=["auto+one", "all"], default="auto+one",
                    help="run auto and one random engine (default), or every engine, on each pattern")
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    counts: dict[str, collections.Counter[str]] = {"grammar": collections.Counter(),
                                                   "mutation": collections.Counter(),
                                                   "adversarial": collections.Counter()}
    others: list[tuple[str, str]] = []
    slow: list[tuple[float, str, str]] = []
    t_start = time.perf_counter()

    def one(source: str, text: str) -> None:
        t0 = time.perf_counter()
        outcome, detail = classify(text, rng, args.engines)
        dt = time.perf_counter() - t0
        counts[source][outcome] += 1
        slow.append((dt, source, text))
        slow.sort(key=lambda s: -s[0])
        del slow[5:]
        if detail is not None:
            others.append((text, detail))

    print("adversarial cases (parse + planner + matcher):")
    for name, text in adversarial():
        t0 = time.perf_counter()
        try:
            m = parse(text)
            planner.reasons(m)
            result = f"ran on {type(planner.make_matcher(m)).__name__}"
        except DslError as err:
            result = "refused: " + err.message
        except Exception as err:  # noqa: BLE001
            result = f"OTHER {type(err).__name__}: {err}"
        dt = time.perf_counter() - t0
        print(f"  {name:34s} {dt * 1000:9.1f} ms  {result[:90]}")
        one("adversarial", text)

    for k in range(args.n):
        if k % 2:
            one("grammar", grammar_text(rng))
        else:
            one("mutation", mutate(rng, rng.choice(SEEDS)))
    elapsed = time.perf_counter() - t_start

    cols = ["error", "unsupported", "stopped", "ran", "other exception"]
    heads = ["clean error", "no engine", "stopped", "ran", "other exception"]
    print()
    print(f"fuzz_patterns: {args.n:,} random inputs + {sum(counts['adversarial'].values())} adversarial, "
          f"seed {args.seed}, engines {args.engines}, {elapsed:.1f} s "
          f"(Python {platform.python_version()}, {os.cpu_count()} cpus)")
    print()
    print("| inputs | " + " | ".join(heads) + " | total |")
    print("|---|" + "---:|" * (len(cols) + 1))
    total: collections.Counter[str] = collections.Counter()
    for source, c in counts.items():
        total.update(c)
        print(f"| {source} | " + " | ".join(f"{c[k]:,}" for k in cols) + f" | {sum(c.values()):,} |")
    print("| **all** | " + " | ".join(f"**{total[k]:,}**" for k in cols) + f" | **{sum(total.values()):,}** |")
    print()
    print("slowest inputs:")
    for dt, source, text in slow:
        print(f"  {dt * 1000:8.1f} ms  {source:11s} {text[:100]!r}")
    if others:
        print()
        print(f"{len(others)} inputs raised another exception; the first ones:")
        for text, detail in others[:5]:
            print("-" * 60)
            print(repr(text[:500]))
            print(detail)
    return 1 if others else 0


if __name__ == "__main__":
    sys.exit(main())
