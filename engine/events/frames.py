"""Frames to events: sort a validated frame stably by ts, then build ``Event`` objects
column-wise (and the attribute schema) without per-row pandas access.
"""
from __future__ import annotations

import gc
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .mapping import ID_COL, LOWER_COL, TS_COL, TYPE_COL, UPPER_COL
from .records import Event, value_kind
from .values import column_values

__all__ = ["sort_frame", "build_events", "events_from_frame"]


def sort_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """Sort a validated frame stably by ts (ties keep input order).

    Returns the frame and whether it was already sorted (then it is returned as is).
    """
    ts = frame[TS_COL].to_numpy()
    if len(ts) < 2 or not np.any(ts[1:] < ts[:-1]):
        return frame, True
    order = np.argsort(ts, kind="stable")
    return frame.take(order).reset_index(drop=True), False


def build_events(frame: pd.DataFrame, attr_columns: list[str], seq_start: int = 0,
                  with_schema: bool = True) -> tuple[list[Event], dict[str, dict[str, str]]]:
    """Events (and the schema) from a validated frame, column-wise and without per-row
    pandas access; the garbage collector is paused while a million small objects appear."""
    n = len(frame)
    type_arr = frame[TYPE_COL].to_numpy(dtype=object)
    types = type_arr.tolist()
    ts = frame[TS_COL].tolist()
    ids = frame[ID_COL].tolist()
    names = tuple(attr_columns)
    columns: list[list[Any]] = []
    schema_kinds: dict[str, dict[str, set[str]]] = {}
    for c in attr_columns:
        values, kind = column_values(frame[c])
        columns.append(values)
        if not with_schema:
            continue
        if kind is not None:
            present = ~pd.isna(np.asarray(values, dtype=object)) if n else np.zeros(0, bool)
            pairs = {(t, kind) for t in pd.unique(type_arr[present])}
        else:
            pairs = {(t, k) for t, k in set(zip(types, map(value_kind, values))) if k is not None}
        for t, k in pairs:
            schema_kinds.setdefault(t, {}).setdefault(c, set()).add(k)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        if names:
            make = partial(zip, names)
            attr_dicts = [dict(make(vals)) if None not in vals else
                          {k: v for k, v in zip(names, vals) if v is not None}
                          for vals in zip(*columns)]
        else:
            attr_dicts = [{} for _ in range(n)]
        seqs = range(seq_start, seq_start + n)
        if LOWER_COL in frame.columns:
            events = list(map(Event, ids, types, ts, seqs, attr_dicts,
                              frame[LOWER_COL].tolist(), frame[UPPER_COL].tolist()))
        else:
            events = list(map(Event, ids, types, ts, seqs, attr_dicts))
    finally:
        if gc_was_enabled:
            gc.enable()
    schema: dict[str, dict[str, str]] = {}
    if with_schema:
        for t in pd.unique(type_arr):
            kinds = schema_kinds.get(t, {})
            schema[t] = {c: (next(iter(kinds[c])) if len(kinds[c]) == 1 else "mixed")
                         for c in attr_columns if c in kinds}
    return events, schema


def events_from_frame(frame: pd.DataFrame, attr_columns: list[str],
                      seq_start: int = 0) -> list[Event]:
    """Build events from a validated (and sorted) frame; ``seq`` counts from ``seq_start``.

    Column-wise: each attribute column is converted to plain Python values once (numpy
    scalars -> int/float/str/bool, NaN/None/NA -> absent from ``attrs``).
    """
    return build_events(frame, attr_columns, seq_start, with_schema=False)[0]

