"""Record types: the in-memory ``Event`` and plain-dict streams.

An event has a type, a timestamp ``ts`` (seconds for date-times, else the unit of the
time column), an ``id`` and attributes. ``seq`` is the 0-based position in the stream
after sorting by ``ts`` (ties keep input order); count windows (``WITHIN n events``) and
the SEQ order use it. Interval events (imprecise timestamps) carry ``lower`` and
``upper`` and have ``ts == lower``. Standard library only: matchers import this module.
"""
from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import compress, repeat
from operator import is_not
from typing import Any

__all__ = ["BUILTIN_FIELDS", "Event", "make_stream", "infer_schema", "value_kind", "assemble_events",
           "columns_schema"]

# Names that resolve to built-in event fields when the event has no attribute of that name.
BUILTIN_FIELDS = ("ts", "id", "type", "seq", "lower", "upper")


@dataclass(slots=True, eq=False)
class Event:
    id: Any
    type: str
    ts: float
    seq: int
    attrs: dict[str, Any] = field(default_factory=dict)
    lower: float | None = None
    upper: float | None = None

    def get(self, name: str) -> Any:
        """Attribute value; falls back to the built-in fields (ts, id, type, ...)."""
        attrs = self.attrs
        if name in attrs:
            return attrs[name]
        if name in BUILTIN_FIELDS:
            return getattr(self, name)
        return None

    def __repr__(self) -> str:  # compact, for traces and test failures
        return f"{self.type}#{self.id}@{self.ts}"


def make_stream(rows: list[dict[str, Any]], type_key: str = "type", ts_key: str = "ts",
                id_key: str | None = "id") -> list[Event]:
    """Build a sorted event stream from plain dicts (tests, samples, generators).

    Sorting is stable by ``ts``; ``seq`` is the position after sorting; the id is the
    ``id_key`` value when present, else the input row number. NumPy scalars become Python
    values, as the loader's are (a NumPy comparison gives ``numpy.bool_``, not ``True``).
    """
    order = sorted(range(len(rows)), key=lambda i: rows[i][ts_key])
    out: list[Event] = []
    for seq, i in enumerate(order):
        r = rows[i]
        attrs = {k: _native(v) for k, v in r.items() if k not in (type_key, ts_key, id_key)}
        eid = _native(r[id_key]) if id_key and id_key in r else i
        lower = r.get("lower")
        upper = r.get("upper")
        out.append(Event(id=eid, type=str(r[type_key]), ts=_native(r[ts_key]), seq=seq, attrs=attrs,
                         lower=_native(lower), upper=_native(upper)))
    return out


def _native(v: Any) -> Any:
    """A NumPy scalar as the Python value it holds; anything else unchanged."""
    item = getattr(v, "item", None)
    return item() if item is not None and getattr(v, "shape", None) == () else v


def value_kind(v: Any) -> str | None:
    """Schema kind of a plain value: "bool", "number", "string", or None for missing."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return "string"


def infer_schema(events: Iterable[Event]) -> dict[str, dict[str, str]]:
    """Event type -> attribute -> "number" | "string" | "bool" | "mixed", from events."""
    kinds: dict[str, dict[str, set[str]]] = {}
    for ev in events:
        per_type = kinds.setdefault(ev.type, {})
        for k, v in ev.attrs.items():
            kd = value_kind(v)
            if kd is not None:
                per_type.setdefault(k, set()).add(kd)
    return {t: {a: (next(iter(s)) if len(s) == 1 else "mixed") for a, s in attrs.items()}
            for t, attrs in kinds.items()}


def assemble_events(ids: Sequence[Any], types: Sequence[str], ts: Sequence[float], names: Sequence[str],
                    columns: Sequence[Sequence[Any]], seq_start: int = 0,
                    lower: Sequence[float] | None = None, upper: Sequence[float] | None = None,
                    seqs: Sequence[int] | None = None) -> list[Event]:
    """Events from columns of plain values (attribute ``names[k]`` in ``columns[k]``; None
    = absent from ``attrs``); ``seq`` counts from ``seq_start``, or is ``seqs[k]`` (the
    stream positions of events picked from a longer stream). The garbage collector is
    paused while a million small objects appear."""
    n = len(ids)
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
        if seqs is None:
            seqs = range(seq_start, seq_start + n)
        if lower is not None and upper is not None:
            return list(map(Event, ids, types, ts, seqs, attr_dicts, lower, upper))
        return list(map(Event, ids, types, ts, seqs, attr_dicts))
    finally:
        if gc_was_enabled:
            gc.enable()


def columns_schema(types: Sequence[str], names: Sequence[str],
                   columns: Sequence[tuple[Sequence[Any], str | None]]) -> dict[str, dict[str, str]]:
    """Event type -> attribute -> "number" | "string" | "bool" | "mixed" from columns of
    plain values and the kind each column's type decides (None: the kind of each value).
    Types in order of first appearance; attributes in column order."""
    kinds: dict[str, dict[str, set[str]]] = {}
    for name, (values, kind) in zip(names, columns):
        if kind is not None:
            present = types if None not in values else compress(types, map(is_not, values, repeat(None)))
            pairs = {(t, kind) for t in set(present)}
        else:
            pairs = {(t, k) for t, k in set(zip(types, map(value_kind, values))) if k is not None}
        for t, k in pairs:
            kinds.setdefault(t, {}).setdefault(name, set()).add(k)
    schema: dict[str, dict[str, str]] = {}
    for t in dict.fromkeys(types):
        found = kinds.get(t, {})
        schema[t] = {c: (next(iter(found[c])) if len(found[c]) == 1 else "mixed") for c in names if c in found}
    return schema
