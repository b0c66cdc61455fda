"""Loaded events held as columns until something reads them as ``Event`` objects.

``load_events(..., lazy=True)`` gives its events as an ``EventColumns``: a sequence of events
(``len``, iteration, indexing build them all once, with ``records.assemble_events``, exactly as
an eager load builds them) that also hands its columns to a matcher that reads columns (the lazy
chain's columnar path, ``engine/engines/lazy/columnar.py``), which then builds no event at all.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Iterator, overload

from engine.events.records import BUILTIN_FIELDS, Event, assemble_events

__all__ = ["EventColumns", "type_counts"]


class EventColumns(Sequence[Event]):
    """Events as columns: ids, types, times, stream positions (``seqs``) and the attribute
    columns (``names[k]`` in ``values[k]``, None where an event lacks the attribute)."""

    def __init__(self, ids: list[Any], types: list[str], ts: list[float], seqs: Sequence[int],
                 names: Sequence[str], values: Sequence[list[Any]]) -> None:
        self.ids, self.types, self.ts, self.seqs = ids, types, ts, seqs
        self.names = list(names)
        self.values = list(values)
        self._index = {n: k for k, n in enumerate(self.names)}
        self._events: list[Event] | None = None

    # ------------------------------------------------------------------ as events
    def events(self) -> list[Event]:
        """Every event, built on the first call (then kept)."""
        if self._events is None:
            self._events = assemble_events(self.ids, self.types, self.ts, self.names, self.values,
                                           seqs=self.seqs)
        return self._events

    @property
    def built(self) -> bool:
        """Whether the events have been built."""
        return self._events is not None

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, i: int) -> Event: ...

    @overload
    def __getitem__(self, i: slice) -> list[Event]: ...

    def __getitem__(self, i: int | slice) -> Event | list[Event]:
        return self.events()[i]

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventColumns):
            other = other.events()
        return self.events() == other if isinstance(other, list) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ as columns
    def event(self, k: int) -> Event:
        """The ``k``-th event alone (built now unless all were)."""
        if self._events is not None:
            return self._events[k]
        return assemble_events([self.ids[k]], [self.types[k]], [self.ts[k]], self.names,
                               [[v[k]] for v in self.values], seqs=[self.seqs[k]])[0]

    def attribute(self, name: str, start: int, stop: int) -> list[Any]:
        """``Event.get(name)`` of the events ``start:stop``: the attribute's values, a built-in
        field (ts, id, type, seq) where the event lacks an attribute of that name, else None."""
        k = self._index.get(name)
        if k is None:
            return self._builtin(name, start, stop) if name in BUILTIN_FIELDS else [None] * (stop - start)
        values = self.values[k][start:stop]
        if name in BUILTIN_FIELDS and None in values:
            builtin = self._builtin(name, start, stop)
            values = [b if v is None else v for v, b in zip(values, builtin)]
        return values

    def _builtin(self, name: str, start: int, stop: int) -> list[Any]:
        column = {"ts": self.ts, "id": self.ids, "type": self.types, "seq": self.seqs}.get(name)
        return list(column[start:stop]) if column is not None else [None] * (stop - start)

    def type_counts(self) -> dict[str, int]:
        """Events per type, in order of first appearance."""
        return dict(Counter(self.types))


def type_counts(events: Sequence[Event]) -> dict[str, int]:
    """Events per type (read from the type column where the events are columns)."""
    if isinstance(events, EventColumns):
        return events.type_counts()
    return dict(Counter(e.type for e in events))
