"""The result of a Spark read (``SparkEvents``) and the building of ``Event`` objects from
its canonical Arrow rows (``EventSpec``, ``build_events``; both run on the workers too)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from engine.events import ColumnMapping, Event, ValidationReport, arrow_to_pandas, events_from_frame
from engine.events.lines import LineIndex
from engine.spark.read.columns import JSON_COL, SEQ_COL

# --------------------------------------------------------------------------- result

@dataclass
class SparkEvents:
    """Validated events as a Spark DataFrame plus what the in-process ``LoadResult`` says.

    ``df`` columns: ``__cep_row`` (0-based input row), ``__cep_seq`` (stream position),
    ``__cep_type``, ``__cep_ts`` (float; seconds since the epoch for date-times),
    ``__cep_id``, ``__cep_lower``/``__cep_upper`` for interval events, the plain attribute
    columns under their own names, and ``__cep_json`` (a JSON object per row) when some
    attributes have mixed kinds. ``id_json``: ``__cep_id`` holds JSON text.
    """

    df: Any
    report: ValidationReport
    schema: dict[str, dict[str, str]]
    mapping: ColumnMapping
    time_is_datetime: bool
    attr_columns: list[str]           # plain (Spark-typed) attribute columns
    json_attrs: list[str]             # attributes carried in __cep_json
    id_json: bool = False
    ids_are_rows: bool = False
    promote: list[str] = field(default_factory=list)  # JSON attrs whose ints read as floats
    count: int = 0
    source: str = ""
    lines: LineIndex | None = None    # file line of each input row (a single CSV / JSON Lines file)
    ts_range: tuple[float, float] | None = None  # (min, max) ts when the validation pass knows them
    _cached: list[Any] = field(default_factory=list, repr=False)

    @property
    def has_json(self) -> bool:
        return JSON_COL in self.df.columns

    @property
    def is_interval(self) -> bool:
        return self.mapping.is_interval

    def seconds_to_ts(self, seconds: float) -> float:
        """A duration in seconds in the unit of ``ts`` (as ``LoadResult.seconds_to_ts``)."""
        if self.time_is_datetime:
            return float(seconds)
        return seconds / {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[self.mapping.ts_unit]

    def event_spec(self) -> "EventSpec":
        return EventSpec(attr_columns=list(self.attr_columns), has_json=self.has_json,
                         id_json=self.id_json, interval=self.is_interval,
                         promote=tuple(self.promote))

    def to_events(self) -> list[Event]:
        """All events, collected to the driver in stream order (small inputs: tests, the
        debugger's prefix)."""
        spec = self.event_spec()
        out: list[Event] = []
        for batch in _collect_batches(self.df.orderBy(SEQ_COL)):
            out.extend(build_events(batch, spec))
        return out

    def unpersist(self) -> None:
        for d in self._cached:
            try:
                d.unpersist()
            except Exception:  # noqa: BLE001 - session may be gone
                pass
        self._cached.clear()


@dataclass(frozen=True)
class EventSpec:
    """How to turn canonical Arrow rows into Events (shipped to the workers)."""

    attr_columns: list[str]
    has_json: bool
    id_json: bool
    interval: bool
    promote: tuple[str, ...] = ()


def _collect_batches(df: Any) -> list[pa.Table]:
    return [df.toArrow()]


def build_events(batch: pa.RecordBatch | pa.Table, spec: EventSpec,
                 frame: pd.DataFrame | None = None) -> list[Event]:
    """Events from a batch of canonical rows, with ``seq`` from ``__cep_seq``.

    Straight from the Arrow columns when every column is a number, boolean or string column
    (``arrow_events``); else through pandas with ``events_from_frame`` for the plain columns
    (the loader's own conversion). ``json.loads`` for ``__cep_json`` / JSON ids, so values
    equal the in-process ones.
    """
    if frame is None:
        fast = arrow_events(batch, spec)
        if fast is not None:
            return fast
        frame = arrow_to_pandas(batch)
    if len(frame) == 0:
        return []
    evs = events_from_frame(frame, spec.attr_columns)
    seqs = frame[SEQ_COL].tolist()
    for e, s in zip(evs, seqs):
        e.seq = s
    return _with_json(evs, spec, [None if j is pd.NA else j for j in frame[JSON_COL].tolist()]
                      if spec.has_json else None)


def _with_json(evs: list[Event], spec: EventSpec, json_cells: list[Any] | None) -> list[Event]:
    """The events finished as the loader makes them: the attributes held as JSON text
    (``json_cells``, the ``__cep_json`` column) added, ints of promoted attributes made floats,
    JSON ids read."""
    if spec.has_json and json_cells is not None:
        loads = json.loads
        for e, j in zip(evs, json_cells):
            if j is not None and j != "{}":
                e.attrs.update(loads(j))
        for a in spec.promote:
            for e in evs:
                v = e.attrs.get(a)
                if type(v) is int:
                    e.attrs[a] = float(v)
    if spec.id_json:
        loads = json.loads
        for e in evs:
            e.id = loads(e.id) if isinstance(e.id, str) else e.id
    return evs


def _plain_arrow(t: pa.DataType) -> bool:
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
            or pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t))


def _values(arr: Any) -> list[Any]:
    """An Arrow column as Python values, None where null or NaN: what ``column_values`` gives for
    the pandas column ``arrow_to_pandas`` makes of it (ints stay ints, NaN is missing)."""
    import numpy as np

    t = arr.type
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_floating(t):
        values = arr.to_numpy(zero_copy_only=False)
        out = values.tolist()
        for i in np.flatnonzero(np.isnan(values)).tolist():
            out[i] = None
        return out
    if pa.types.is_integer(t) and not arr.null_count:
        return arr.to_numpy().tolist()
    return arr.to_pylist()


def arrow_events(batch: pa.RecordBatch | pa.Table, spec: EventSpec) -> list[Event] | None:
    """``build_events`` without pandas: each canonical column turned into Python values once
    (``_values``), the events made by the loader's ``assemble_events``. None when some column is
    of another Arrow type (date-times, decimals, nested: the pandas path converts those).
    ``tests/spark/test_build_events.py`` compares it with the pandas path."""
    from engine.events import ID_COL, LOWER_COL, TS_COL, TYPE_COL, UPPER_COL
    from engine.events.records import assemble_events

    schema = batch.schema
    if not all(_plain_arrow(f.type) for f in schema):
        return None
    n = batch.num_rows
    if n == 0:
        return []
    names = list(spec.attr_columns)
    columns = [_values(batch.column(c)) for c in names]
    lower = upper = None
    if spec.interval:
        lower, upper = _values(batch.column(LOWER_COL)), _values(batch.column(UPPER_COL))
    evs = assemble_events(_values(batch.column(ID_COL)), _values(batch.column(TYPE_COL)),
                          _values(batch.column(TS_COL)), names, columns, 0, lower, upper,
                          seqs=_values(batch.column(SEQ_COL)))
    return _with_json(evs, spec, _values(batch.column(JSON_COL)) if spec.has_json else None)
