"""NFA^b's runs (SASE+ §5.2): computation states evaluated in lock-step, cloned on
non-determinism.

A run is (version, state, entry, start, values): ``entry`` is its latest entry in the
shared buffer (engine.engines.nfab.shared_buffer) and ``values`` the value vector V its
future edges need (``a[1].symbol``, running sum/count of ``a[..i-1].price``,
``a[a.len].volume``...), a :class:`ValueVector`.
"""
from __future__ import annotations

from typing import Any

from engine.engines.nfab.paths import NO_PATH, PathIds
from engine.engines.nfab.shared_buffer import Entry, Member
from engine.sentinel import Sentinel

__all__ = ["POISONED", "Run", "ValueVector"]

# The value of a column of V whose aggregate went over values that do not add up or order.
POISONED = Sentinel("<poisoned>")


class ValueVector:
    """A run's value vector V (``attrs``, indexed by column), in the place of an event in
    the predicate context ``(V, event)``: ``expr.slot_attr(0, column)`` reads it like an
    event attribute, so that comparing a column with the event's attribute compiles to
    one closure (engine.expr.fast_compare). ``get`` reads a poisoned column as None."""

    __slots__ = ("attrs",)

    def __init__(self, values: list[Any]):
        self.attrs = values

    def get(self, i: int) -> Any:
        v = self.attrs[i]
        return None if v is POISONED else v

    def copy(self) -> "ValueVector":
        return ValueVector(self.attrs.copy())


class Run:
    """One run: its chain (SEQ alternative) and state, value vector, start (coordinate and
    seq), Dewey version, number of clones made of it (``children``: the next clone's last
    version digit), latest buffer entry, members when merged, partition, trail and memo."""

    __slots__ = ("chain", "state", "values", "start", "start_seq", "version", "children", "entry", "members",
                 "partition", "trail", "depth", "memo")

    def __init__(self, chain: int, state: int, values: ValueVector, start: float, start_seq: int,
                 version: tuple[int, ...], entry: Entry | None, partition: Any):
        self.chain = chain
        self.state = state
        self.values = values
        self.start = start
        self.start_seq = start_seq
        self.version = version
        self.children = 0
        self.entry = entry
        self.members: list[Member] | None = None
        self.partition = partition
        # the entries this run (and its ancestors) wrote, newest first, as a cons list
        # (entry, rest): the path §4.9 reads back by following version-labelled pointers,
        # kept so that match construction walks it without choosing among pointers
        self.trail: tuple[Any, Any] | None = None
        self.depth = 0  # entries on the trail
        # the ids of the latest path prefix read back in this run's lineage (shared with
        # its clones), so that the next match extends it (PathIds)
        self.memo: list[PathIds] = [NO_PATH]

    def clone(self) -> "Run":
        self.children += 1
        r = Run(self.chain, self.state, self.values.copy(), self.start, self.start_seq,
                self.version + (self.children,), self.entry, self.partition)
        r.members = self.members
        r.trail = self.trail
        r.depth = self.depth
        r.memo = self.memo
        return r
