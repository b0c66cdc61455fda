"""Named markers compared by identity (``x is POISONED``), kept one object through copies.

``copy.deepcopy`` of a plain ``object()`` makes a new object, so a matcher's snapshot
(engine/checkpoints.py) would hold a marker that is no longer *the* marker: a group keyed by
it is then never found again. A :class:`Sentinel` is its own copy and pickles by name.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Sentinel"]


class Sentinel:
    """One marker per name (asking twice for a name gives the same object)."""

    __slots__ = ("name",)
    _known: dict[str, "Sentinel"] = {}

    def __new__(cls, name: str) -> "Sentinel":
        found = cls._known.get(name)
        if found is None:
            found = super().__new__(cls)
            object.__setattr__(found, "name", name)
            cls._known[name] = found
        return found

    def __repr__(self) -> str:
        return self.name

    def __copy__(self) -> "Sentinel":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "Sentinel":
        return self

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Sentinel, (self.name,))
