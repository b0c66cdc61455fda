"""Partial matches of the lazy engines (*instances*) and the bound-position helpers that
read their value vectors.

An instance holds a value vector (one slot per variable: an event, a tuple of events for
``+``, or None), the span of their coordinates (``cmin``, ``cmax``) and the ``[attr]`` value
(``eq``). The chain records the step it waits in, the tree its bound variables and
per-variable consumption cursors.
"""
from __future__ import annotations

from typing import Any


class Instance:
    """A partial match. ``plan``/``step``: where it waits (chain); ``mask``/``cur``: bound
    tree variables and consumption cursors (tree). ``id`` (numbered in creation order) and
    ``path`` are kept traced or not, so that a trace can start from an untraced snapshot
    (engine/checkpoints.py) with the names a trace from the start gives."""

    __slots__ = ("vals", "cmin", "cmax", "eq", "plan", "step", "dead", "root", "mask", "cur", "id", "path")

    def __init__(self, vals: list[Any], cmin: float, cmax: float, eq: Any) -> None:
        self.vals = vals
        self.cmin = cmin
        self.cmax = cmax
        self.eq = eq
        self.plan: Any = None
        self.step = 0
        self.dead = False
        self.root = False
        self.mask = 0
        self.cur: list[int] | None = None
        self.id = 0
        self.path: tuple[str, ...] = ()  # the variables in the order they were bound (the trace's state)


def last_bound_seq(vals: list[Any], slots: tuple[tuple[int, bool], ...]) -> int:
    """The newest stream position bound in ``slots`` of ``vals`` (-1 for none): a variable
    that must follow them is searched after it. ``slots``: (slot, is Kleene) pairs."""
    m = -1
    for s, k in slots:
        x = vals[s]
        q = x[-1].seq if k else x.seq
        if q > m:
            m = q
    return m


def first_bound_seq(vals: list[Any], slots: tuple[tuple[int, bool], ...]) -> int:
    """The oldest stream position bound in ``slots`` of ``vals``: a variable that must
    precede them is searched before it."""
    m = None
    for s, k in slots:
        x = vals[s]
        q = x[0].seq if k else x.seq
        if m is None or q < m:
            m = q
    return m  # type: ignore[return-value]


def bound_seqs(vals: list[Any], slots: tuple[tuple[int, bool], ...]) -> set[int]:
    """The stream positions of every event bound in ``slots`` (distinctness: an event
    binds one variable at most)."""
    out: set[int] = set()
    for s, k in slots:
        x = vals[s]
        if k:
            out.update(e.seq for e in x)
        else:
            out.add(x.seq)
    return out


__all__ = ["Instance", "bound_seqs", "first_bound_seq", "last_bound_seq"]
