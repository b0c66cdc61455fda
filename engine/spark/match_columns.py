"""Typed match rows for ``engine.spark.match``: the output schema and the worker's sink.

A match row holds the partition key columns (their own names and the data's types; keyed
plans only), ``match_id`` (16 hex digits of a BLAKE2b hash of the match's JSON text
``{var: [ids]}``: the same match always gets the same id), ``start`` and ``end`` (the first and
last event's ts, as in-process), one column per positive variable holding its events' ids
(an array for a Kleene variable; long when the data's ids are integers, else string; null
for a variable that bound nothing), and with ``with_events`` an ``events`` struct with a field
per variable: the event (or, for a Kleene variable, the array of events) as a struct of
``id``, ``type``, ``ts``, the data's typed attribute columns and ``attrs_json`` (the JSON
text of the attributes that have no single type).

Example::

    shape = match_shape(pattern, ev, key_columns=[("user", "bigint")], with_events=False)
    shape.schema            # StructType(user, match_id, start, end, a, b)
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Iterable

import pyarrow as pa

from engine.match import Match
from engine.model import Pattern
from engine.spark.match_rows import match_json

__all__ = ["MatchShape", "match_shape", "TypedMatchSink", "FIXED_COLUMNS", "stable_id"]

FIXED_COLUMNS = ("match_id", "start", "end")
_SCALARS = {"long", "bigint", "int", "integer", "double", "float", "boolean", "string", "short", "byte"}


@dataclass(frozen=True)
class MatchShape:
    """What a match row holds (pickled to the workers with ``schema``, a Spark StructType)."""

    key_names: tuple[str, ...]
    variables: tuple[tuple[str, bool], ...]       # (var, kleene)
    id_type: str                                  # long | string
    id_json: bool                                 # ids are JSON values that are not ints/strings
    with_events: bool
    attr_fields: tuple[tuple[str, str], ...]      # (attribute, Spark type) in the event structs
    has_attrs_json: bool
    schema: Any

    def arrow_schema(self) -> pa.Schema:
        from pyspark.sql.pandas.types import to_arrow_schema

        return to_arrow_schema(self.schema)


def _simple(dt: Any) -> str:
    name = dt.simpleString()
    return name if name in _SCALARS else "string"


def match_shape(pattern: Pattern, ev: Any, key_columns: list[tuple[str, Any]], with_events: bool) -> MatchShape:
    """The row shape of ``pattern``'s matches over ``ev`` (a ``SparkEvents``); ``key_columns``:
    (name, Spark type) of each key column. Refuses a variable whose name is a key or fixed
    column (Spark column names ignore case)."""
    from pyspark.sql import types as T

    variables = tuple((c.var, bool(c.kleene)) for c in pattern.positive)
    taken = {n: f"the column {n!r} every match row has" for n in FIXED_COLUMNS}
    if with_events:
        taken["events"] = "the column 'events' (with_events)"
    for n, _ in key_columns:
        if n.lower() in taken:
            raise ValueError(f"the partition key attribute {n!r} would be a column of the same name as "
                             f"{taken[n.lower()]}; rename the attribute in the data and the pattern")
        taken[n.lower()] = f"the partition key column {n!r}"
    for var, _ in variables:
        if var.lower() in taken:
            raise ValueError(f"the variable {var!r} would be a column of the same name as {taken[var.lower()]}; "
                             f"rename the variable")
    id_type = "long" if not ev.id_json and ev.df.schema["__cep_id"].dataType == T.LongType() else "string"
    id_spark = T.LongType() if id_type == "long" else T.StringType()
    fields = [T.StructField(n, t, True) for n, t in key_columns]
    fields += [T.StructField("match_id", T.StringType(), False), T.StructField("start", T.DoubleType(), True),
               T.StructField("end", T.DoubleType(), True)]
    for var, kleene in variables:
        fields.append(T.StructField(var, T.ArrayType(id_spark, True) if kleene else id_spark, True))
    attr_fields: list[tuple[str, str]] = []
    if with_events:
        attr_fields = [(a, _simple(ev.df.schema[a].dataType)) for a in ev.attr_columns]
        event_fields = [T.StructField("id", id_spark, True), T.StructField("type", T.StringType(), True),
                        T.StructField("ts", T.DoubleType(), True)]
        event_fields += [T.StructField(a, T._parse_datatype_string(t), True) for a, t in attr_fields]
        if ev.json_attrs:
            event_fields.append(T.StructField("attrs_json", T.StringType(), True))
        event = T.StructType(event_fields)
        per_var = [T.StructField(var, T.ArrayType(event, True) if kleene else event, True) for var, kleene in variables]
        fields.append(T.StructField("events", T.StructType(per_var), True))
    return MatchShape(key_names=tuple(n for n, _ in key_columns), variables=variables, id_type=id_type,
                      id_json=bool(ev.id_json), with_events=with_events, attr_fields=tuple(attr_fields),
                      has_attrs_json=bool(ev.json_attrs), schema=T.StructType(fields))


def stable_id(text: str) -> str:
    """``match_id``: 16 hex digits of BLAKE2b over the match's JSON text."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _id_value(shape: MatchShape, i: Any) -> Any:
    if shape.id_type == "long":
        return i
    return i if isinstance(i, str) and not shape.id_json else json.dumps(i, default=str)


_NUMBERS = {"long", "bigint", "int", "integer", "short", "byte"}


def _attr_value(t: str, v: Any) -> Any:
    """An attribute value for a struct field of Spark type ``t`` (None when it cannot be one)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if t in _NUMBERS:
        return v if type(v) is int else (int(v) if isinstance(v, float) and v.is_integer() else None)
    if t in ("double", "float"):
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    if t == "boolean":
        return v if isinstance(v, bool) else None
    return v if isinstance(v, str) else json.dumps(v, default=str)


class TypedMatchSink:
    """The matches of one task as typed rows (``MatchShape``): a time chunk keeps the
    matches whose first event it owns (``chunk``: origin, size, count window); ``keys`` maps a
    group's key text to its typed key values; ``memory``: the events by id (with_events)."""

    def __init__(self, shape: MatchShape, chunk: tuple[float, float, bool] | None, keys: dict[Any, tuple] | None,
                 memory: Any = None):
        self.shape = shape
        self.chunk = chunk
        self.keys = keys
        self.memory = memory
        self.rows: list[tuple[Match, tuple, Any]] = []

    def add(self, ms: Iterable[Match], group: Any) -> None:
        if self.chunk is not None:
            origin, size, count = self.chunk
            floor = math.floor
            ms = [m for m in ms if floor(((m.start_seq if count else m.start) - origin) / size) == group]
        key = self.keys.get(group, ()) if self.keys is not None else ()
        events = None
        for m in ms:
            if self.memory is not None:
                events = self._events(m)
            self.rows.append((m, key, events))

    def _events(self, m: Match) -> dict[str, Any]:
        index = self.memory.index
        shape = self.shape
        kleene = dict(shape.variables)
        out: dict[str, Any] = {}
        for var, ids in m.bindings:
            structs = [self._event(index.get(i), i) for i in ids]
            out[var] = structs if kleene.get(var) else (structs[0] if structs else None)
        return out

    def _event(self, e: Any, i: Any) -> dict[str, Any]:
        shape = self.shape
        d: dict[str, Any] = {"id": _id_value(shape, i)}
        if e is None:
            return d
        d["type"], d["ts"] = e.type, float(e.ts)
        attrs = e.attrs
        plain = set()
        for a, t in shape.attr_fields:
            d[a] = _attr_value(t, attrs.get(a))
            plain.add(a)
        if shape.has_attrs_json:
            rest = {k: v for k, v in attrs.items() if k not in plain}
            d["attrs_json"] = json.dumps(rest, default=str) if rest else None
        return d

    def __len__(self) -> int:
        return len(self.rows)

    def columns(self) -> list[list[Any]]:
        """The collected matches as one list of values per column of ``shape.schema``; then empty."""
        rows, self.rows = self.rows, []
        shape = self.shape
        columns: list[list[Any]] = [[] for _ in shape.schema.fields]
        nkeys = len(shape.key_names)
        for m, key, events in rows:
            values: list[Any] = list(key) + [None] * (nkeys - len(key))
            values += [stable_id(match_json(m.bindings)), float(m.start), float(m.end)]
            bound = dict(m.bindings)
            for (var, is_kleene) in shape.variables:
                ids = [_id_value(shape, i) for i in bound.get(var, ())]
                values.append(ids if is_kleene else (ids[0] if ids else None))
            if shape.with_events:
                values.append(events)
            for col, v in zip(columns, values):
                col.append(v)
        return columns

    def batch(self) -> pa.RecordBatch:
        """The collected matches as one Arrow batch; then empty."""
        schema = self.shape.arrow_schema()
        arrays = [pa.array(col, type=field.type) for col, field in zip(self.columns(), schema)]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)
