"""Writing A-Seq rows: ``{"ts", "event", "group", "value"}`` (and ``query`` for a
workload) as table, CSV, JSON Lines or Parquet. Shared by ``cep run`` in-process
(engine/commands/run_aggregate.py) and on Spark (engine/spark/aseq.py)."""
from __future__ import annotations

import csv
import sys
from typing import Any, Iterable, TextIO

from engine.json_text import json_text
from engine.engines.aseq.values import AggRow, TooLarge

ROW_COLUMNS = ["ts", "event", "group", "value"]


def _where(r: AggRow, k: int) -> str:
    return f"row {k} (ts {r.ts}, event {r.event!r}{'' if r.query is None else ', query ' + r.query})"


def _checked(rows: list[AggRow]) -> list[AggRow]:
    """Rows whose value is beyond the float range (``TooLarge``) get value None and a warning
    on stderr naming the row (docs/semantics.md: never ``Infinity`` in the output)."""
    out = []
    for k, r in enumerate(rows, 1):
        if isinstance(r.value, TooLarge):
            print(f"cep: warning: {_where(r, k)}: the aggregate is beyond the float range (about ±1.8e308); "
                  "written as null", file=sys.stderr)
            r = AggRow(r.ts, r.event, r.group, None, r.query, r.seq)
        out.append(r)
    return out


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return str(int(v))
    if isinstance(v, list):
        return json_text(v, "a group")
    return str(v)


def write_rows(rows: Iterable[AggRow], fmt: str, out: TextIO, workload: bool = False) -> int:
    """Write aggregate rows in ``fmt`` (table, jsonl, csv, count); returns the row count."""
    cols = (["query"] if workload else []) + ROW_COLUMNS
    rows = list(rows)
    if fmt == "count":
        out.write(f"{len(rows)}\n")
        return len(rows)
    rows = _checked(rows)
    if fmt == "jsonl":
        for k, r in enumerate(rows, 1):
            out.write(json_text(r.to_json(), _where(r, k)) + "\n")
    elif fmt == "csv":
        w = csv.writer(out)
        w.writerow(cols)
        for r in rows:
            d = r.to_json()
            w.writerow([_cell(d.get(c)) for c in cols])
    else:
        table = [cols] + [[_cell(r.to_json().get(c)) if r.to_json().get(c) is not None else "null" for c in cols]
                          for r in rows]
        widths = [max(len(t[c]) for t in table) for c in range(len(cols))]
        for t in table:
            out.write("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(t)).rstrip() + "\n")
        out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")
    return len(rows)


def write_parquet(rows: list[AggRow], path: str, workload: bool = False) -> None:
    """The rows as Parquet: ts (double), event / group (text; JSON for a list), value (double)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _checked(rows)

    def text(v: Any) -> Any:
        return None if v is None else (json_text(v, "a group") if isinstance(v, list) else str(v))

    cols: dict[str, Any] = {}
    if workload:
        cols["query"] = pa.array([r.query for r in rows], pa.string())
    cols["ts"] = pa.array([float(r.ts) for r in rows], pa.float64())
    cols["event"] = pa.array([text(r.event) for r in rows], pa.string())
    cols["group"] = pa.array([text(r.group) for r in rows], pa.string())
    cols["value"] = pa.array([None if r.value is None else float(r.value) for r in rows], pa.float64())
    pq.write_table(pa.table(cols), path)


def emit_rows(rows: list[AggRow], args: Any, workload: bool) -> None:
    """Write AGG rows where ``cep run`` was told to: ``--out`` (Parquet by extension) or stdout."""
    out = getattr(args, "out", None)
    if out and out.lower().endswith((".parquet", ".pq")):
        write_parquet(rows, out, workload)
    elif out:
        with open(out, "w", encoding="utf-8", newline="") as fh:
            write_rows(rows, args.format, fh, workload)
    else:
        write_rows(rows, args.format, sys.stdout, workload)
