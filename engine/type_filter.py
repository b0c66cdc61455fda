"""Which events a pattern can ever look at: the event types its components bind.

Under ``skip_till_any_match`` and ``skip_till_next_match`` an event of another type is skipped
by every run (it binds no variable, breaks no contiguity, and a NOT component names its own
type), so such events may be left out before they become ``Event`` objects at all: the loader
builds only the rows of these types (``load_events(types=...)``) and Spark filters its rows,
while ``seq`` keeps each event's position in the whole stream, so count windows
(``WITHIN n events``) count every event as before. A component of type ``ANY``, strict
contiguity, or a pattern without components keeps every event.
"""
from __future__ import annotations

from engine.model import ANY_TYPE, Pattern, Strategy

__all__ = ["TYPE_FILTERABLE", "bindable_types"]

#: strategies under which an event of a type no component names is skipped by every run
TYPE_FILTERABLE = frozenset({Strategy.ANY, Strategy.NEXT})


def bindable_types(pattern: Pattern) -> frozenset[str] | None:
    """The event types ``pattern``'s runs can ever read, or None when every event matters."""
    if pattern.strategy not in TYPE_FILTERABLE:
        return None
    types = frozenset(c.type for c in pattern.components())
    if not types or ANY_TYPE in types:
        return None
    return types
