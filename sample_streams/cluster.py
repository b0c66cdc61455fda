"""The ``cluster`` sample: cluster monitoring with imprecise timestamps (the
imprecise-timestamps paper's Query 1 and its §5 "Real trace").

Time is in whole seconds (the instants of the uncertainty intervals).

- Ids 1..5 are the notes' T6: Query 1 with certain timestamps (TaskStart, two high CPU
  samples, TaskFinish, a low CPU sample, all on node 1, instants 1..5).
- Then ``nodes`` nodes for ``seconds`` seconds. Ganglia reports every node's CPU load every
  15 s (a random phase per node); a sample's instant is uncertain within the 15 s period:
  ``[t - 7, t + 7]``, 15 instants (the paper's delta = 7.5 s, in whole seconds). Hadoop logs
  task starts and finishes; the job tracker's clock skew makes them ``[t, t + 1]``. A node's
  load is high (> 95 %) while a task runs on it with probability ``busy``, else 30..90 %.
- Rows are in arrival order, by lower bound (then true instant): an order that always keeps
  the arrival assumption (``lower <= a later event's upper``), and the loader's ts order, so
  no "unsorted" warning. ``make_csv()`` writes ``data/cluster.csv``.

Query 1 (``presets/cluster__query1.cep``): ``SEQ(TaskStart a, CPU b, TaskFinish c, CPU d)``
with ``a.taskId = c.taskId``, b and d on a's node, ``b.value > 95``, ``d.value <= 70``,
``WITHIN 15 seconds``.
"""
from __future__ import annotations

import random
from pathlib import Path

import pandas as pd

__all__ = ["cluster_sample", "make_csv", "T6_ROWS", "CPU_HALF", "TASK_WIDTH", "PERIOD"]

PERIOD = 15      # Ganglia sampling period (s)
CPU_HALF = 7     # CPU intervals [t - 7, t + 7]: the 15 s period in whole seconds
TASK_WIDTH = 1   # task events [t, t + 1]: job-tracker clock skew

#: (type, id, lower, upper, taskId, nodeId, value): the notes' T6, certain timestamps
T6_ROWS = [("TaskStart", 1, 1, 1, 1, 1, None), ("CPU", 2, 2, 2, None, 1, 97), ("CPU", 3, 3, 3, None, 1, 99),
           ("TaskFinish", 4, 4, 4, 1, 1, None), ("CPU", 5, 5, 5, None, 1, 60)]


def cluster_sample(seed: int = 2, nodes: int = 3, seconds: int = 120, start: int = 25, tasks_per_node: int = 4,
                   busy: float = 0.7) -> pd.DataFrame:
    """The sample as a DataFrame (columns type, id, lower, upper, taskId, nodeId, value)."""
    rng = random.Random(seed)
    events: list[tuple[int, int, tuple]] = []  # (true instant, tie order, row without id)
    task_id = 2
    running: dict[int, list[tuple[int, int]]] = {}
    for node in range(1, nodes + 1):
        t = start + rng.randrange(5)
        spans = []
        for _ in range(tasks_per_node):
            t += rng.randrange(4, 20)
            dur = rng.randrange(3, 11)
            spans.append((t, t + dur))
            events.append((t, 0, ("TaskStart", t, t + TASK_WIDTH, task_id, node, None)))
            events.append((t + dur, 2, ("TaskFinish", t + dur, t + dur + TASK_WIDTH, task_id, node, None)))
            task_id += 1
            t += dur
        running[node] = spans
    for node in range(1, nodes + 1):
        t = start + rng.randrange(PERIOD)
        while t < start + seconds:
            busy_now = any(a <= t <= b for a, b in running[node])
            value = rng.randrange(96, 101) if busy_now and rng.random() < busy else rng.randrange(30, 91)
            events.append((t, 1, ("CPU", t - CPU_HALF, t + CPU_HALF, None, node, value)))
            t += PERIOD
    events.sort(key=lambda e: (e[2][1], e[0], e[1], e[2][4]))  # lower, true instant, kind, node
    rows = [dict(zip(("type", "id", "lower", "upper", "taskId", "nodeId", "value"), r)) for r in T6_ROWS]
    for k, (_t, _o, (typ, lo, hi, tid, node, value)) in enumerate(events, start=len(T6_ROWS) + 1):
        rows.append({"type": typ, "id": k, "lower": lo, "upper": hi, "taskId": tid, "nodeId": node, "value": value})
    df = pd.DataFrame(rows)
    for c in ("taskId", "value"):
        df[c] = df[c].astype("Int64")
    return df


def make_csv(path: str | Path | None = None, **kw: object) -> Path:
    """Write the sample (``data/cluster.csv`` by default)."""
    out = Path(path) if path is not None else Path(__file__).resolve().parent / "data" / "cluster.csv"
    cluster_sample(**kw).to_csv(out, index=False)  # type: ignore[arg-type]
    return out


if __name__ == "__main__":  # pragma: no cover
    print(make_csv())
