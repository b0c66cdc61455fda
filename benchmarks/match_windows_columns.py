"""Match windows from columns: the filter (f) evaluated on the loaded columns, before events exist.

``match_windows.py`` feeds every configuration a list of events built beforehand, so its filter runs
in Python once per event: at k = 8 that per-event floor kept P_set at about 74x the plain window
(docs/benchmarks_windows.md). ``cep run`` now starts from columns: a row no component can bind
(its type, and every element-wise filter of that component: here ``vi.ticker = 'X_i'``) never
becomes an event (``engine.type_filter``, one comparison per distinct value). That test is the
match-windows filter f itself (an event f drops is one no variable can take), done on columns.

Both sides here start from the same validated columns in memory (the trade stream of
``match_windows.py``, read and checked once, outside the timings: reading and the rules cost the
same for every configuration):

- **baseline**: Algorithm 1 with every technique off (the plain window, one call of A per event),
  fed every event, each built from the columns;
- **f+p+c, events**: Algorithm 1 with filtering, partitioning and the necessary conditions, fed
  every event built from the columns, in ``cep run``'s chunks (``feed_many``: the filter's batch
  prefilter);
- **f+p+c, columns**: as ``cep run`` runs it: f on the columns (``load.table_events`` with the
  pattern's types and element-wise filters: the rows are picked before any value is converted, and
  only the picked rows' values are), the picked rows kept as columns (``EventColumns``, the lazy
  load), fed in ``cep run``'s chunks through ``feed_columns``: for one window of an event set (P_set)
  Algorithm 1 takes each chunk as arrays (``engine/engines/windows/batch.py``: β_e once per distinct
  ticker, the completed windows and their necessary conditions from arrays, A called only on the
  windows that pass) and builds ``Event`` objects only for the windows A reads and the events the
  window keeps.

Throughput is input rows per CPU second (``time.process_time``); a factor is the baseline's time
over the configuration's for the same pattern (mean over the patterns, min-max in brackets); the
runs of one pattern are interleaved ``--repeats`` times and the median kept. Every configuration
returns the same matches (checked). *rows picked*: the rows f keeps on the columns (fewer of them
become ``Event`` objects).

    python benchmarks/match_windows_columns.py [--events 20000] [--ks 1,4,8] [--patterns 3] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from match_windows import trade_frame, workload_text  # noqa: E402
from engine.dsl import parse  # noqa: E402
from engine.engines.windows.algorithm import Techniques  # noqa: E402
from engine.engines.windows.matcher import MatchWindowMatcher  # noqa: E402
from engine.events.arrow_table import read_arrow_table  # noqa: E402
from engine.events.load import checked_order, table_events  # noqa: E402
from engine.events.mapping import guess_mapping  # noqa: E402
from engine.type_filter import bindable  # noqa: E402

CHUNK = 1024  # cep run's chunk for feed_many (engine/commands/run_matches.py)
CONFIGS = ("baseline", "f+p+c, events", "f+p+c, columns")


def columns(n: int) -> tuple[Any, Any, Any, list[float], list[str]]:
    """The trade stream as validated columns: (table, checked rules, row order, times, tickers
    ranked 11..100 by frequency)."""
    import pyarrow as pa

    df = trade_frame(n)
    ranked = list(df["ticker"].value_counts().index)
    table = read_arrow_table(pa.Table.from_pandas(df, preserve_index=False))
    assert table is not None
    checked = checked_order(table, guess_mapping(table.columns))
    assert checked is not None
    chk, order, _ = checked
    return table, chk, order, chk.ts[order].tolist(), ranked[10:100]


def run(config: str, pattern: Any, data: tuple[Any, Any, Any, list[float]]) -> tuple[float, list[Any], int]:
    """CPU seconds, the matches' keys and the rows picked (events, or rows kept as columns), for one
    configuration."""
    table, chk, order, ts = data
    techniques = Techniques(False, False, False) if config == "baseline" else Techniques(True, True, True)
    t0 = time.process_time()
    columnar = config == "f+p+c, columns"
    types = bindable(pattern) if columnar else None
    events, _ = table_events(table, chk, order, ts, types, lazy=columnar)  # cep run loads lazily
    m = MatchWindowMatcher(pattern, inner="ses", techniques=techniques, max_runs=2_000_000)
    out: list[Any] = []
    if config == "baseline":
        feed = m.feed
        for e in events:
            out.extend(feed(e))
    elif columnar:  # as cep run feeds columns (run_matches._chunk_feeds): feed_columns per chunk
        for i in range(0, len(events), CHUNK):
            m.feed_columns(events, i, min(len(events), i + CHUNK), out)
    else:
        for i in range(0, len(events), CHUNK):
            m.feed_many(events[i:i + CHUNK], out)
    out.extend(m.close())
    seconds = time.process_time() - t0
    return seconds, sorted(x.key for x in out), len(events)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--ks", default="1,4,8")
    ap.add_argument("--patterns", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--shapes", default="P_set")
    ap.add_argument("--window", default="50 ms")
    a = ap.parse_args(argv)
    table, chk, order, ts, pool = columns(a.events)
    data = (table, chk, order, ts)
    rng = random.Random(13)  # the patterns match_windows.py draws
    print(f"{len(order):,} trades, WITHIN {a.window}; {a.patterns} pattern(s) per k, SES automaton, "
          f"earliest_maximal; each configuration run {a.repeats}x interleaved, the median kept; "
          f"load average {os.getloadavg()[0]:.1f} at the start.\n")
    print("| workload | k | baseline rows/s | f+p+c, events | f+p+c, columns | rows picked (columns) | matches |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    ks = [int(k) for k in a.ks.split(",")]
    for shape in ("P_seq", "P_set"):
        for k in range(1, max(ks) + 1):
            texts = [workload_text(shape, rng.sample(pool, k), a.window, "earliest_maximal")
                     for _ in range(a.patterns)]
            if shape not in a.shapes.split(",") or k not in ks:
                continue
            factors: dict[str, list[float]] = {c: [] for c in CONFIGS[1:]}
            base_s: list[float] = []
            built = matches = 0
            for text in texts:
                pattern = parse(text)
                times: dict[str, list[float]] = {c: [] for c in CONFIGS}
                keys: dict[str, Any] = {}
                for _ in range(a.repeats):
                    for c in CONFIGS:
                        s, got, n_built = run(c, pattern, data)
                        times[c].append(s)
                        keys[c] = got
                        if c == "f+p+c, columns":
                            built_one = n_built
                if not keys["baseline"] == keys["f+p+c, events"] == keys["f+p+c, columns"]:
                    raise SystemExit(f"the configurations differ on {text}")
                median = {c: statistics.median(v) for c, v in times.items()}
                base_s.append(median["baseline"])
                for c in CONFIGS[1:]:
                    factors[c].append(median["baseline"] / median[c])
                built += built_one
                matches += len(keys["baseline"])

            def show(v: list[float]) -> str:
                return f"{statistics.mean(v):.1f}x [{min(v):.1f}-{max(v):.1f}]"

            print(f"| {shape} | {k} | {len(order) / statistics.mean(base_s):,.0f} | {show(factors['f+p+c, events'])} "
                  f"| **{show(factors['f+p+c, columns'])}** | {built / len(texts) / len(order):.1%} | {matches:,} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
