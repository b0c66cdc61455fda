"""Stream generators for the match-windows workloads (the match-windows paper §6).

Deterministic for a ``seed`` (``numpy.random.default_rng``); rows in stream order; ``id``
is the row number.

- :func:`chemo` scales the Chemo relation of §5.1 up: patients on chemotherapy cycles
  (``L`` = C Ciclofosfamide, P Prednisone, D/E/F other drugs, B white and H red blood
  counts), columns ``id, PID, L, V, U, T`` like ``data/chemo.csv`` (``T`` a date-time, or
  days as numbers with ``dates=False``). The Onco data set of the paper is not public.
- :func:`trades` is an NYSE-like trade stream (§6): one event type ``Trade`` with
  ``ticker`` and ``price`` (a random walk per ticker), ``ts`` in seconds with millisecond
  resolution. The NYSE data of the paper (nyxdata.com) is not public either.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["chemo", "trades", "CHEMO_MAPPING", "TRADES_MAPPING", "TICKERS"]

CHEMO_MAPPING: dict[str, str | None] = {"type_col": "L", "ts_col": "T", "id_col": "id",
                                        "lower_col": None, "upper_col": None}
TRADES_MAPPING: dict[str, str | None] = {"type_col": "type", "ts_col": "ts", "id_col": "id",
                                         "lower_col": None, "upper_col": None}
TICKERS = ("AAPL", "GOOG", "IBM", "MSFT", "ORCL", "INTC", "CSCO", "AMZN", "HPQ", "DELL")

_DOSE = {"C": (1200.0, 1800.0, "mg"), "P": (80.0, 120.0, "mg"), "D": (50.0, 100.0, "mg"),
         "E": (10.0, 40.0, "mg"), "F": (200.0, 400.0, "mg")}
_COUNT = {"B": (2500.0, 11000.0, "1/µl"), "H": (3.5e6, 5.5e6, "1/µl")}


def chemo(patients: int = 50, days: int = 180, seed: int = 0, cycle: tuple[int, int] = (18, 28),
          start: str = "2011-07-01", dates: bool = True) -> pd.DataFrame:
    """Chemotherapy cycles per patient (the paper's P1 and P_onco workloads).

    Each patient starts on a random day of the first cycle and repeats cycles of a random
    length in ``cycle`` (days) until ``days``. A cycle has: C on day 0 (probability 0.9);
    1-3 P administrations on days 0-5, each dose usually above the previous one (the
    ``prev(p.V) < p.V`` of P1 holds about 80 % of the time); each of D, E, F with
    probability 0.5 on days 0-6; a white (B) and a red (H) blood count on days 7-14 and a
    second B on days 15-20. ``V`` is the dose (mg) or the count (1/µl, U says which). Events
    of one day are ordered C, P, other drugs, counts; the stream is sorted by ``T``.
    """
    rng = np.random.default_rng(seed)
    rows: list[tuple[int, str, float, str, float]] = []
    for pid in range(1, patients + 1):
        t = float(rng.integers(0, cycle[1]))
        while t < days:
            day0 = t
            if rng.random() < 0.9:
                rows.append(_dose(rng, pid, "C", day0, 0))
            n_p = int(rng.integers(1, 4))
            p_days = np.sort(rng.choice(np.arange(6), size=n_p, replace=False))
            lo, hi, _u = _DOSE["P"]
            dose = float(rng.uniform(lo, hi))
            for d in p_days:
                rows.append((pid, "P", round(dose, 1), "mg", day0 + float(d) + 0.1))
                dose = dose * (1.08 if rng.random() < 0.8 else 0.9)
            for drug in ("D", "E", "F"):
                if rng.random() < 0.5:
                    rows.append(_dose(rng, pid, drug, day0 + float(rng.integers(0, 7)), 0.2))
            rows.append(_count(rng, pid, "B", day0 + float(rng.integers(7, 15))))
            rows.append(_count(rng, pid, "H", day0 + float(rng.integers(7, 15))))
            rows.append(_count(rng, pid, "B", day0 + float(rng.integers(15, 21))))
            t = day0 + float(rng.integers(cycle[0], cycle[1] + 1))
    df = pd.DataFrame(rows, columns=["PID", "L", "V", "U", "T"])
    df = df[df["T"] < days].sort_values(["T", "PID"], kind="stable").reset_index(drop=True)
    df["T"] = np.floor(df["T"])  # whole days, as in the paper's table; ties keep the order above
    df.insert(0, "id", np.arange(1, len(df) + 1, dtype=np.int64))
    if dates:
        df["T"] = pd.Timestamp(start) + pd.to_timedelta(df["T"], unit="D")
    return df


def _dose(rng: np.random.Generator, pid: int, drug: str, day: float, frac: float) -> tuple:
    lo, hi, unit = _DOSE[drug]
    return (pid, drug, round(float(rng.uniform(lo, hi)), 1), unit, day + frac)


def _count(rng: np.random.Generator, pid: int, label: str, day: float) -> tuple:
    lo, hi, unit = _COUNT[label]
    return (pid, label, float(round(rng.uniform(lo, hi), -2)), unit, day + 0.5)


def trades(n: int, tickers: int | Sequence[str] = 100, seed: int = 0, per_ms: float = 5.0,
           start: float = 34_200.0, skew: float = 0.0) -> pd.DataFrame:
    """``n`` trades over ``tickers`` (an int k gives the ten names of :data:`TICKERS` first,
    then ``T0010``, ...), ``per_ms`` trades per millisecond on average (exponential gaps,
    ts in seconds from ``start`` = 9:30, rounded to the millisecond, so several trades can
    share a ts). ``skew`` > 0 makes ticker frequencies Zipf-like (rank^-skew). ``price`` is
    a random walk per ticker in cents (up, down or same with equal probability)."""
    rng = np.random.default_rng(seed)
    if isinstance(tickers, (int, np.integer)):
        names = list(TICKERS[: int(tickers)]) + [f"T{i:04d}" for i in range(len(TICKERS), int(tickers))]
    else:
        names = list(tickers)
    k = len(names)
    w = np.arange(1, k + 1, dtype=float) ** (-skew) if skew > 0 else np.ones(k)
    sym = rng.choice(k, size=n, p=w / w.sum())
    gaps = rng.exponential(1.0 / per_ms, size=n)          # ms
    ts = start + np.round(np.cumsum(gaps)) / 1000.0
    moves = rng.integers(-1, 2, size=n)
    price = np.zeros(n, dtype=np.int64)
    last = {i: int(rng.integers(2_000, 60_000)) for i in range(k)}
    for j in range(n):
        s = int(sym[j])
        last[s] += int(moves[j])
        price[j] = last[s]
    return pd.DataFrame({"id": np.arange(n, dtype=np.int64), "type": np.full(n, "Trade", dtype=object), "ts": ts,
                         "ticker": np.array(names, dtype=object)[sym], "price": price / 100.0})
