"""A stream shaped like OpenCEP's NASDAQ file, replicated: what issue benchmarks of OpenCEP use.

OpenCEP's own file (``NASDAQ_AAPL_AMZN_GOOG``: one OHLCV bar per ticker per minute over one
trading day) cannot be shipped, so this writes a stream of the same shape: three tickers (AAPL,
AMZN, GOOG) interleaved minute by minute (each pattern type is 1 event in 3), one bar per ticker
per minute over ``minutes`` minutes (455, about a trading day), peaks a random walk per ticker (reverting to a common mean),
the day replicated ``days`` times (110: 150,150 events) with a one-day shift. Columns:
``id, type, ts`` (seconds since the epoch, integers), ``open, peak, lowest, close, volume``.

    python benchmarks/nasdaq_day.py OUT.csv [--days 110] [--minutes 455] [--format csv|jsonl|parquet]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa

TICKERS = ("AAPL", "AMZN", "GOOG")
DAY_START = 1_372_680_000  # 2013-07-01 12:00 UTC, as OpenCEP's file starts on 201307011100 local time


def day_table(days: int = 110, minutes: int = 455, seed: int = 7) -> pa.Table:
    """The replicated day as an Arrow table (``days * minutes * 3`` rows, sorted by ts)."""
    rng = np.random.default_rng(seed)
    k = len(TICKERS)
    # per ticker a random walk of peaks (in cents) around 100.00 that reverts to it (AR(1), phi 0.9),
    # so that the tickers' order keeps changing (momentum3 compares peaks across tickers)
    steps = rng.integers(-30, 31, size=(minutes, k))
    walk = np.zeros((minutes, k), dtype=np.int64)
    for m in range(1, minutes):
        walk[m] = (9 * walk[m - 1]) // 10 + steps[m]
    peak = 10_000 + walk
    spread = rng.integers(0, 40, size=(minutes, k))
    open_ = peak - spread
    close = peak - rng.integers(0, 40, size=(minutes, k))
    lowest = np.minimum(open_, close) - rng.integers(0, 20, size=(minutes, k))
    volume = rng.integers(100, 50_000, size=(minutes, k))
    minute_ts = DAY_START + 60 * np.arange(minutes, dtype=np.int64)
    n_day = minutes * k
    ts_day = np.repeat(minute_ts, k)
    type_day = np.tile(np.arange(k), minutes)
    shift = (86_400 * np.arange(days, dtype=np.int64))[:, None]
    ts = (ts_day[None, :] + shift).ravel()
    n = n_day * days
    cols = {
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "type": pa.DictionaryArray.from_arrays(pa.array(np.tile(type_day, days).astype(np.int32)),
                                               pa.array(TICKERS)).cast(pa.string()),
        "ts": pa.array(ts),
    }
    for name, v in (("open", open_), ("peak", peak), ("lowest", lowest), ("close", close), ("volume", volume)):
        day = v.ravel()  # minute-major, ticker-minor: the same order as ts_day
        vals = np.tile(day, days)
        cols[name] = pa.array(vals / 100 if name != "volume" else vals)
    return pa.table(cols)


def write(out: Path, days: int = 110, minutes: int = 455, fmt: str | None = None) -> Path:
    """Write the stream to ``out`` (format from ``fmt`` or the extension)."""
    table = day_table(days, minutes)
    kind = fmt or out.suffix.lstrip(".")
    if kind == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, out)
    elif kind == "jsonl":
        import json

        with out.open("w") as f:
            for row in table.to_pylist():
                f.write(json.dumps(row) + "\n")
    else:
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--days", type=int, default=110)
    ap.add_argument("--minutes", type=int, default=455)
    ap.add_argument("--format", choices=("csv", "jsonl", "parquet"))
    a = ap.parse_args(argv)
    write(a.out, a.days, a.minutes, a.format)
    print(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
