"""Small inputs for Spark: read and validate on the driver, then parallelise the events.

Spark's own reader (``engine.spark.io.read_events``) costs several Spark jobs before any
matching starts (the header, a scan that types every column, the validation pass); on a
sample of a few hundred rows those jobs are most of a run. ``read_local`` loads the file
with the in-process loader (``engine.events.load_events``: the same rules, report and
events by definition) and hands the events to Spark as a local DataFrame of canonical
rows, which ``build_events`` turns back into equal ``Event`` objects on the workers:

- every attribute travels in ``__cep_json`` (JSON keeps int, float, text and booleans
  apart; NaN and infinities as ``NaN``/``Infinity``), so ``attr_columns`` is empty and
  ``json_attrs`` lists every attribute (partition keys read them with
  ``get_json_object``, as for JSON Lines);
- ``__cep_id`` is a long column when every id is an ``int``, else JSON text (``id_json``).

Inputs whose values JSON cannot carry (none the loaders produce today) fall back to the
Spark reader. ``LOCAL_BYTES`` is the file size up to which the app reads on the driver.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa

from engine.events import (ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UPPER_COL, ColumnMapping,
                      Event)
from engine.spark.io import JSON_COL, SEQ_COL, SparkEvents, read_events

__all__ = ["read_local", "events_frame", "LOCAL_BYTES"]

LOCAL_BYTES = 8 * 1024 * 1024


def events_frame(events: list[Event], rows: list[int], interval: bool) -> pa.Table | None:
    """The canonical rows of ``events`` (in stream order) as an Arrow table; None when a
    value cannot travel as JSON."""
    n = len(events)
    ints = all(type(e.id) is int for e in events)
    dumps = json.dumps
    try:
        attrs = [dumps(e.attrs) if e.attrs else None for e in events]
        ids = [e.id for e in events] if ints else [dumps(e.id) for e in events]
    except (TypeError, ValueError):
        return None
    cols: dict[str, pa.Array] = {
        ROW_COL: pa.array(rows[:n] if len(rows) >= n else list(range(n)), pa.int64()),
        SEQ_COL: pa.array([e.seq for e in events], pa.int64()),
        TYPE_COL: pa.array([e.type for e in events], pa.string()),
        TS_COL: pa.array([float(e.ts) for e in events], pa.float64()),
        ID_COL: pa.array(ids, pa.int64() if ints else pa.string()),
    }
    if interval:
        cols[LOWER_COL] = pa.array([e.lower for e in events], pa.float64())
        cols[UPPER_COL] = pa.array([e.upper for e in events], pa.float64())
    cols[JSON_COL] = pa.array(attrs, pa.string())
    return pa.table(cols)


def read_local(source: str | os.PathLike[str], mapping: ColumnMapping | dict | None = None,
               fmt: str | None = None, spark: Any = None) -> SparkEvents:
    """Read ``source`` with the in-process loader and give its events to Spark (see the
    module docstring). Same ``SparkEvents`` contract as ``io.read_events``."""
    from engine.events import load_events
    from engine.spark.session import get_spark

    spark = spark or get_spark()
    if isinstance(mapping, dict):
        mapping = ColumnMapping(**{k: v for k, v in mapping.items() if v is not None or k != "ts_col"})
    path = Path(source)
    loaded = load_events(path, mapping, fmt)
    interval = loaded.mapping.is_interval
    table = events_frame(loaded.events, loaded.rows, interval)
    if table is None:  # a value JSON cannot carry: Spark's own reader
        return read_events(source, mapping, fmt, spark)
    df = spark.createDataFrame(table)
    attrs: dict[str, None] = {}
    for by_type in loaded.schema.values():
        for a in by_type:
            attrs.setdefault(a, None)
    id_json = table.schema.field(ID_COL).type == pa.string()
    return SparkEvents(df=df, report=loaded.report, schema=loaded.schema, mapping=loaded.mapping,
                       time_is_datetime=loaded.time_is_datetime, attr_columns=[], json_attrs=list(attrs),
                       id_json=id_json, ids_are_rows=loaded.ids_are_rows, promote=[],
                       count=len(loaded.events), source=str(path), lines=loaded.lines,
                       ts_range=(float(loaded.events[0].ts), float(loaded.events[-1].ts)) if loaded.events else None)
