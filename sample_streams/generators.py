"""Synthetic event streams for benchmarks and property tests.

Every generator is deterministic for a given ``seed`` (``numpy.random.default_rng``),
vectorised (a million rows take about a second), and returns a pandas DataFrame whose
columns fit the mapping in :data:`POINT_MAPPING` or :data:`INTERVAL_MAPPING`
(``type``, ``ts``, ``id`` or ``type``, ``id``, ``lower``, ``upper``). Rows are in stream
order: ``ts`` (or ``lower``) is non-decreasing and ``id`` is the row number.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["POINT_MAPPING", "INTERVAL_MAPPING", "stocks", "skewed_types", "keyed",
           "cluster_trace"]

POINT_MAPPING: dict[str, str | None] = {"type_col": "type", "ts_col": "ts", "id_col": "id",
                                        "lower_col": None, "upper_col": None}
INTERVAL_MAPPING: dict[str, str | None] = {"type_col": "type", "ts_col": None, "id_col": "id",
                                           "lower_col": "lower", "upper_col": "upper"}


def _names(spec: int | Sequence[str], prefix: str) -> np.ndarray:
    if isinstance(spec, (int, np.integer)):
        if spec < 1:
            raise ValueError(f"need at least one {prefix!r} name, got {spec}")
        width = len(str(int(spec) - 1))
        return np.array([f"{prefix}{i:0{width}d}" for i in range(int(spec))], dtype=object)
    out = np.array(list(spec), dtype=object)
    if len(out) == 0:
        raise ValueError(f"need at least one {prefix!r} name")
    return out


def _group_cumsum(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` within each group, in stream order (vectorised)."""
    order = np.argsort(groups, kind="stable")
    v = values[order]
    cs = np.cumsum(v)
    g = groups[order]
    starts = np.r_[True, g[1:] != g[:-1]]
    # subtract the running total reached before each group's first element
    first = np.maximum.accumulate(np.where(starts, np.arange(len(v)), 0))
    offset = (cs - v)[first]
    out = np.empty_like(cs)
    out[order] = cs - offset
    return out


def stocks(n: int, symbols: int | Sequence[str] = 2, p_up: float = 0.55, seed: int = 0,
           start_price: int = 10_000, price_step: int = 1,
           volume: tuple[int, int] = (1, 1000)) -> pd.DataFrame:
    """Stock ticks as generated in the SASE+ experiments (sase-nfab.md §7).

    One event type ``Stock(symbol, price, volume)``. For each event:

    - ``symbol`` is uniform over ``symbols`` (an int ``k`` gives ``S0..S{k-1}``; the
      paper uses two symbols);
    - the price of that symbol, relative to its previous event, goes up by
      ``price_step`` with probability ``p_up``, down with ``(1 - p_up) / 2`` and stays
      with ``(1 - p_up) / 2`` (SASE's open-source generator: 55/22/23 %). The first event
      of a symbol has ``start_price``;
    - ``volume`` is a uniform integer in ``[volume[0], volume[1]]`` (inclusive; the
      paper's range is lost, 1..1000 keeps ``b.volume < 150`` at ~15 %);
    - ``ts`` = ``id`` = the event's sequence number ``0..n-1``, as in SASE's template
      (``WITHIN 500`` = 500 events).

    Prices are integers, start at a multiple of 500 (10 000) and move by 1, so
    ``a[1].price % 500 = 0`` of the paper's query template selects about one event in
    500 whenever the walk crosses a multiple of 500. Prices are not clipped: with
    ``p_up < 1/3`` the walk drifts down and a long stream can reach 0 or below; raise
    ``start_price`` then.
    """
    if not 0.0 <= p_up <= 1.0:
        raise ValueError(f"p_up must be in [0, 1], got {p_up}")
    lo, hi = volume
    if lo > hi:
        raise ValueError(f"volume range {volume} is empty")
    rng = np.random.default_rng(seed)
    names = _names(symbols, "S")
    sym = rng.integers(0, len(names), size=n)
    q = (1.0 - p_up) / 2.0
    u = rng.random(n)
    moves = np.where(u < p_up, 1, np.where(u < p_up + q, -1, 0)).astype(np.int64)
    vol = rng.integers(lo, hi + 1, size=n)
    # the first event of each symbol has no previous price: no move
    first = np.zeros(n, dtype=bool)
    _, first_idx = np.unique(sym, return_index=True)
    first[first_idx] = True
    moves[first] = 0
    price = start_price + price_step * _group_cumsum(moves, sym)
    idx = np.arange(n, dtype=np.int64)
    return pd.DataFrame({
        "id": idx,
        "type": np.full(n, "Stock", dtype=object),
        "ts": idx,
        "symbol": names[sym],
        "price": price.astype(np.int64),
        "volume": vol.astype(np.int64),
    })


def skewed_types(n: int, rates: Mapping[str, float], seed: int = 0,
                 price: tuple[int, int] = (1, 100)) -> pd.DataFrame:
    """Several event types with given arrival rates (for lazy evaluation, lazy-chain-nfa.md).

    ``rates`` maps a type name to its rate in events per second (only the ratios matter
    for the type mix; the absolute values set the time scale). Types are drawn i.i.d. with
    probability ``rate / sum(rates)``; ``ts`` (float seconds) is a Poisson process of
    total rate ``sum(rates)``: exponential gaps, strictly increasing, starting near 0.
    Attributes: ``price`` a uniform integer in ``[price[0], price[1]]`` and ``x`` a
    uniform float in ``[0, 1)``.
    """
    if not rates:
        raise ValueError("rates is empty")
    types = np.array(list(rates), dtype=object)
    r = np.array([float(rates[t]) for t in rates])
    if (r < 0).any() or r.sum() <= 0:
        raise ValueError(f"rates must be non-negative with a positive sum, got {dict(rates)}")
    total = r.sum()
    rng = np.random.default_rng(seed)
    t = rng.choice(len(types), size=n, p=r / total)
    gaps = rng.exponential(1.0 / total, size=n)
    gaps[gaps <= 0] = np.finfo(float).tiny  # keep ts strictly increasing
    ts = np.cumsum(gaps)
    return pd.DataFrame({
        "id": np.arange(n, dtype=np.int64),
        "type": types[t],
        "ts": ts,
        "price": rng.integers(price[0], price[1] + 1, size=n).astype(np.int64),
        "x": rng.random(n),
    })


def keyed(n: int, keys: int | Sequence[str] = 1000, types: int | Sequence[str] = ("A", "B", "C"),
          seed: int = 0, value: tuple[int, int] = (1, 100)) -> pd.DataFrame:
    """A stream over many partition keys (for the Spark partitioning benchmarks).

    ``key`` is uniform over ``keys`` (an int ``k`` gives the integers ``0..k-1``, else the
    given names), ``type`` uniform over ``types`` (an int gives ``T0..``), ``ts`` = ``id``
    = ``0..n-1`` and ``value`` a uniform integer in ``[value[0], value[1]]``. A pattern
    with ``[key]`` then splits into ``len(keys)`` independent partitions.
    """
    rng = np.random.default_rng(seed)
    if isinstance(keys, (int, np.integer)):
        if keys < 1:
            raise ValueError(f"need at least one key, got {keys}")
        key_col = rng.integers(0, int(keys), size=n).astype(np.int64)
    else:
        kn = np.array(list(keys), dtype=object)
        key_col = kn[rng.integers(0, len(kn), size=n)]
    tn = _names(types, "T")
    idx = np.arange(n, dtype=np.int64)
    return pd.DataFrame({
        "id": idx,
        "type": tn[rng.integers(0, len(tn), size=n)],
        "ts": idx,
        "key": key_col,
        "value": rng.integers(value[0], value[1] + 1, size=n).astype(np.int64),
    })


def cluster_trace(n: int, seed: int = 0, delta: float = 7.5, delta_task: float = 0.5,
                  tick: float = 0.1, nodes: int = 10, period: float = 15.0,
                  task_rate: float = 5.0, mean_duration: float = 8.0,
                  truth: bool = False) -> pd.DataFrame:
    """A Hadoop/Ganglia-like trace with uncertainty intervals (imprecise-timestamps.md §5).

    Time is discrete: ``lower``/``upper`` are integer instants of ``tick`` seconds (the
    paper rounds Hadoop times to 0.1 s). Events (``INTERVAL_MAPPING``; no ``ts`` column):

    - ``CPU(nodeId, value)``: every node reports its load every ``period`` s (Ganglia,
      15 s, random phase per node); ``value`` is an integer percentage, a clipped
      normal(55, 20), so ``value > 95`` is rare (~2 %) and ``value <= 70`` common (~77 %).
      Interval ``[t - delta, t + delta]``, delta = 7.5 s = half the sampling period.
    - ``TaskStart(taskId, nodeId)`` / ``TaskFinish(taskId, nodeId)``: tasks start as a
      Poisson process of ``task_rate`` per second on uniform nodes and run an exponential
      time of mean ``mean_duration`` s (at least one tick). Interval
      ``[t - delta_task, t + delta_task]`` (job-tracker clock skew, 0.5 s).

    ``t`` is the true instant; the rows are sorted by ``lower`` (then ``t``), which
    satisfies the paper's arrival assumption ``e1.lower <= e2.upper`` for e1 before e2.
    ``id`` is the row number; ``taskId`` is missing (``<NA>``) on CPU events and ``value``
    on task events. ``truth=True`` adds the true instant as a column ``t``.
    Query 1 with 15 s reads ``WITHIN 150`` when ``tick`` = 0.1 s (``round(15 / tick)``).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = np.random.default_rng(seed)
    d_cpu = int(round(delta / tick))
    d_task = int(round(delta_task / tick))
    per = max(1, int(round(period / tick)))
    rate_ticks = task_rate * tick            # task starts per tick
    ev_per_tick = 2 * rate_ticks + nodes / per
    horizon = int(n / ev_per_tick * 1.05) + 10 * per + 10
    while True:
        # tasks
        m = rng.poisson(rate_ticks * horizon)
        start = np.sort(rng.integers(0, horizon, size=m))
        dur = np.maximum(1, np.round(rng.exponential(mean_duration / tick, size=m))).astype(np.int64)
        tnode = rng.integers(0, nodes, size=m)
        # CPU samples
        phase = rng.integers(0, per, size=nodes)
        k = horizon // per + 1
        ct = (phase[:, None] + per * np.arange(k)[None, :]).ravel()
        cnode = np.repeat(np.arange(nodes), k)
        keep = ct < horizon
        ct, cnode = ct[keep], cnode[keep]
        cval = np.clip(np.round(rng.normal(55.0, 20.0, size=len(ct))), 0, 100).astype(np.int64)
        total = 2 * m + len(ct)
        if total >= n or horizon > 1e12:
            break
        horizon *= 2
    task_ids = np.arange(m, dtype=np.int64)
    # shift so that every lower bound is >= 0
    t = np.concatenate([start, start + dur, ct]).astype(np.int64) + max(d_cpu, d_task)
    kind = np.concatenate([np.zeros(m, np.int8), np.ones(m, np.int8), np.full(len(ct), 2, np.int8)])
    node = np.concatenate([tnode, tnode, cnode]).astype(np.int64)
    tid = np.concatenate([task_ids, task_ids, np.zeros(len(ct), np.int64)])
    val = np.concatenate([np.zeros(2 * m, np.int64), cval])
    half = np.where(kind == 2, d_cpu, d_task).astype(np.int64)
    lower = t - half
    upper = t + half
    order = np.lexsort((t, lower))[:n]
    kind, t, node, tid, val, lower, upper = (a[order] for a in (kind, t, node, tid, val, lower, upper))
    is_cpu = kind == 2
    type_names = np.array(["TaskStart", "TaskFinish", "CPU"], dtype=object)
    df = pd.DataFrame({
        "type": type_names[kind],
        "id": np.arange(len(t), dtype=np.int64),
        "lower": lower,
        "upper": upper,
        "taskId": pd.arrays.IntegerArray(tid, is_cpu.copy()),
        "nodeId": node,
        "value": pd.arrays.IntegerArray(val, ~is_cpu),
    })
    if truth:
        df["t"] = t
    return df
