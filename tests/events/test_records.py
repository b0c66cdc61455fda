"""Tests of engine/events/records.py: the in-memory ``Event`` and plain-dict streams.

- ``Event.get``: attributes first, then the built-in fields, else None; the compact repr;
- ``make_stream``: stable sort by ts, ``seq`` after sorting, ids from the id key or the row number,
  other keys, numpy scalars made Python values, interval bounds;
- ``value_kind``, ``infer_schema`` (mixed kinds, missing values ignored);
- ``assemble_events`` (None left out of attrs, ``seq_start``, bounds) and ``columns_schema`` (the
  column's kind or each value's, types in order of first appearance) against ``infer_schema``.
"""
from __future__ import annotations

import gc
import random

import numpy as np

from engine.events.records import (BUILTIN_FIELDS, Event, assemble_events, columns_schema, infer_schema,
                                   make_stream, value_kind)


def test_event_get_and_repr() -> None:
    e = Event(id=7, type="A", ts=1.5, seq=3, attrs={"x": 1, "ts": "shadow"}, lower=1, upper=2)
    assert e.get("x") == 1 and e.get("ts") == "shadow"  # an attribute wins over the field
    assert (e.get("id"), e.get("type"), e.get("seq"), e.get("lower"), e.get("upper")) == (7, "A", 3, 1, 2)
    assert e.get("nothing") is None
    assert repr(e) == "A#7@1.5"
    assert BUILTIN_FIELDS == ("ts", "id", "type", "seq", "lower", "upper")


def test_make_stream_sorts_stably() -> None:
    rows = [{"type": "A", "ts": 3, "id": "x"}, {"type": "B", "ts": 1, "id": "y", "v": 2},
            {"type": "C", "ts": 3, "id": "z"}, {"type": 5, "ts": 0}]
    ev = make_stream(rows)
    assert [(e.id, e.type, e.ts, e.seq) for e in ev] == [(3, "5", 0, 0), ("y", "B", 1, 1), ("x", "A", 3, 2),
                                                          ("z", "C", 3, 3)]
    assert ev[1].attrs == {"v": 2} and ev[0].lower is None


def test_make_stream_keys_numpy_and_bounds() -> None:
    rows = [{"kind": "A", "time": np.float64(2.5), "n": np.int64(4), "b": np.bool_(True), "arr": np.array([1]),
             "lower": np.int64(2), "upper": 3}]
    (e,) = make_stream(rows, type_key="kind", ts_key="time", id_key=None)
    assert e.id == 0 and e.type == "A" and type(e.ts) is float
    assert type(e.attrs["n"]) is int and type(e.attrs["b"]) is bool and isinstance(e.attrs["arr"], np.ndarray)
    assert (e.lower, e.upper) == (2, 3) and type(e.lower) is int
    assert e.attrs["lower"] == 2  # the bounds stay attributes too


def test_value_kind() -> None:
    assert [value_kind(v) for v in (None, True, False, 1, 2.5, "s", "")] == [
        None, "bool", "bool", "number", "number", "string", "string"]


def test_infer_schema() -> None:
    ev = make_stream([{"type": "A", "ts": 0, "x": 1, "y": None}, {"type": "A", "ts": 1, "x": "a"},
                      {"type": "B", "ts": 2, "z": True}])
    assert infer_schema(ev) == {"A": {"x": "mixed"}, "B": {"z": "bool"}}


def test_assemble_events() -> None:
    gc_was = gc.isenabled()
    ev = assemble_events(["a", "b"], ["A", "B"], [1.0, 2.0], ["x", "y"], [[1, None], ["s", "t"]], seq_start=5)
    assert gc.isenabled() == gc_was
    assert [(e.id, e.type, e.ts, e.seq, e.attrs, e.lower) for e in ev] == [
        ("a", "A", 1.0, 5, {"x": 1, "y": "s"}, None), ("b", "B", 2.0, 6, {"y": "t"}, None)]
    bounded = assemble_events([1], ["A"], [3], [], [], lower=[3], upper=[9])
    assert (bounded[0].lower, bounded[0].upper, bounded[0].attrs) == (3, 9, {})
    assert assemble_events([], [], [], ["x"], [[]]) == []


def test_columns_schema() -> None:
    types = ["B", "A", "B"]
    schema = columns_schema(types, ["n", "m", "s"], [([1, None, 2], "number"), ([1, "x", None], None),
                                                    ([None, None, None], "string")])
    assert list(schema) == ["B", "A"]
    assert schema == {"B": {"n": "number", "m": "number"}, "A": {"m": "string"}}
    assert columns_schema(["A"], ["b"], [([True], "bool")]) == {"A": {"b": "bool"}}


def test_columns_schema_agrees_with_infer_schema() -> None:
    rng = random.Random(3)
    for _ in range(30):
        n = rng.randint(1, 12)
        types = [rng.choice("ABC") for _ in range(n)]
        names = ["p", "q", "r"]
        columns = [[rng.choice([None, 1, 2.5, "s", True]) for _ in range(n)] for _ in names]
        events = assemble_events(list(range(n)), types, [float(i) for i in range(n)], names, columns)
        assert columns_schema(types, names, [(c, None) for c in columns]) == {
            t: s for t, s in infer_schema(events).items()} | {t: {} for t in types if t not in infer_schema(events)}
