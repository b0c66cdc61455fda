"""Frames to events: sort a validated frame stably by ts, then build ``Event`` objects
column-wise (and the attribute schema) without per-row pandas access.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.events.mapping import ID_COL, LOWER_COL, TS_COL, TYPE_COL, UPPER_COL
from engine.events.records import Event, assemble_events, columns_schema
from engine.events.values import column_values

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
    pandas access."""
    types = frame[TYPE_COL].to_numpy(dtype=object).tolist()
    columns = [column_values(frame[c]) for c in attr_columns]
    lower = upper = None
    if LOWER_COL in frame.columns:
        lower, upper = frame[LOWER_COL].tolist(), frame[UPPER_COL].tolist()
    events = assemble_events(frame[ID_COL].tolist(), types, frame[TS_COL].tolist(), attr_columns,
                             [values for values, _ in columns], seq_start, lower, upper)
    schema = columns_schema(types, attr_columns, columns) if with_schema else {}
    return events, schema


def events_from_frame(frame: pd.DataFrame, attr_columns: list[str],
                      seq_start: int = 0) -> list[Event]:
    """Build events from a validated (and sorted) frame; ``seq`` counts from ``seq_start``.

    Column-wise: each attribute column is converted to plain Python values once (numpy
    scalars -> int/float/str/bool, NaN/None/NA -> absent from ``attrs``).
    """
    return build_events(frame, attr_columns, seq_start, with_schema=False)[0]

