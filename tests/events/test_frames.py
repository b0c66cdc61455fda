"""Tests of engine/events/frames.py: validated frames to events.

- ``sort_frame``: a sorted frame is returned as is; an unsorted one sorted stably by ts (ties keep
  input order) with a fresh index;
- ``build_events`` / ``events_from_frame``: ids, types, ts and attributes column-wise (missing values
  left out of ``attrs``, numpy values as Python values), ``seq_start``, interval bounds, the schema.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.events.frames import build_events, events_from_frame, sort_frame
from engine.events.mapping import ID_COL, LOWER_COL, TS_COL, TYPE_COL, UPPER_COL


def frame(ts: list, **more: list) -> pd.DataFrame:
    n = len(ts)
    data = {TYPE_COL: [f"T{i % 2}" for i in range(n)], TS_COL: ts, ID_COL: [f"e{i}" for i in range(n)]}
    data.update(more)
    return pd.DataFrame(data)


def test_sorted_frame_is_returned_as_is() -> None:
    f = frame([1.0, 1.0, 2.0])
    out, was_sorted = sort_frame(f)
    assert out is f and was_sorted
    single, ok = sort_frame(frame([5.0]))
    assert ok and len(single) == 1


def test_unsorted_frame_is_sorted_stably() -> None:
    f = frame([3.0, 1.0, 3.0, 1.0, 2.0])
    out, was_sorted = sort_frame(f)
    assert not was_sorted
    assert out[ID_COL].tolist() == ["e1", "e3", "e4", "e0", "e2"]
    assert list(out.index) == [0, 1, 2, 3, 4]
    assert f[ID_COL].tolist() == ["e0", "e1", "e2", "e3", "e4"]  # the input is left alone


def test_build_events_column_wise() -> None:
    f = frame([1.0, 2.0, 3.0], price=[1.5, np.nan, 3.0], n=pd.array([1, None, 3], dtype="Int64"),
              name=["a", None, "c"])
    events, schema = build_events(f, ["price", "n", "name"], seq_start=10)
    assert [(e.id, e.type, e.ts, e.seq) for e in events] == [("e0", "T0", 1.0, 10), ("e1", "T1", 2.0, 11),
                                                             ("e2", "T0", 3.0, 12)]
    assert [e.attrs for e in events] == [{"price": 1.5, "n": 1, "name": "a"}, {}, {"price": 3.0, "n": 3, "name": "c"}]
    assert type(events[0].attrs["n"]) is int and type(events[0].ts) is float
    assert schema == {"T0": {"price": "number", "n": "number", "name": "string"}, "T1": {}}
    assert events[0].lower is None


def test_build_events_without_schema_and_with_bounds() -> None:
    f = frame([2, 5], **{LOWER_COL: [2, 5], UPPER_COL: [4, 10 ** 20]})
    events, schema = build_events(f, [], with_schema=False)
    assert schema == {}
    assert [(e.lower, e.upper, e.attrs) for e in events] == [(2, 4, {}), (5, 10 ** 20, {})]
    assert [e.seq for e in events_from_frame(f, [], seq_start=3)] == [3, 4]
    assert [e.id for e in events_from_frame(f, [])] == ["e0", "e1"]
