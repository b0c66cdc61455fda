"""Events: the in-memory event record, and loading/validating event data.

An event has a type, a timestamp ``ts`` (seconds for date-times, else the unit of the
time column), an ``id`` and attributes. ``seq`` is the 0-based position in the stream
after sorting by ``ts`` (ties keep input order); count windows (``WITHIN n events``)
and the SEQ order use it. Interval events (imprecise timestamps) carry ``lower`` and
``upper`` and have ``ts == lower``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    ``id_key`` value when present, else the input row number.
    """
    order = sorted(range(len(rows)), key=lambda i: rows[i][ts_key])
    out: list[Event] = []
    for seq, i in enumerate(order):
        r = rows[i]
        attrs = {k: v for k, v in r.items() if k not in (type_key, ts_key, id_key)}
        eid = r[id_key] if id_key and id_key in r else i
        lower = r.get("lower")
        upper = r.get("upper")
        out.append(Event(id=eid, type=str(r[type_key]), ts=r[ts_key], seq=seq, attrs=attrs,
                         lower=lower, upper=upper))
    return out
