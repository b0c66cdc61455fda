"""Input buffers of the lazy engines (Kolchinsky & Schuster, arXiv 1612.05110, §3 "store";
docs/papers.md, "Lazy chain / tree NFA").

One chronological buffer per variable (type + unary filter; notes §1.3), shared by every
partial match and every DNF clause (notes §3.7/§3.8: a chain instance's own input buffer
always equals "every event of its remaining variables inside the window"). A take searches
it by **time range**: bisection on the stream position for the ordering filters
(``prec``/``succ``) and on the timestamp for the window; events older than the window are
pruned from the front.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from engine.events import Event

INF = float("inf")


class EventBuffer:
    """A chronological buffer: events with parallel lists of seq, coordinate and
    ``[attr]`` key; ``head`` is the first live entry (the front is pruned by the window)."""

    __slots__ = ("ev", "seq", "co", "key", "head")

    def __init__(self) -> None:
        self.ev: list[Event] = []
        self.seq: list[int] = []
        self.co: list[float] = []
        self.key: list[Any] = []
        self.head = 0

    def add(self, e: Event, coord: float, key: Any) -> None:
        self.ev.append(e)
        self.seq.append(e.seq)
        self.co.append(coord)
        self.key.append(key)

    def live(self) -> int:
        return len(self.seq) - self.head

    def prune(self, now: float, W: float) -> int:
        co = self.co
        h = self.head
        n = len(co)
        while h < n and now - co[h] >= W:
            h += 1
        removed = h - self.head
        if h > 256 and 2 * h > n:
            del self.ev[:h], self.seq[:h], self.co[:h], self.key[:h]
            h = 0
        self.head = h
        return removed

    def range(self, lo: int | None, hi: int | None, cmin: float, cmax: float, W: float | None) -> tuple[int, int]:
        """Indices [i, j) of the live events with ``lo < seq < hi`` whose coordinate keeps the
        span with [cmin, cmax] under W (exact float comparisons at the edges)."""
        seq = self.seq
        n = len(seq)
        i = self.head if lo is None else bisect_right(seq, lo, self.head, n)
        j = n if hi is None else bisect_left(seq, hi, i, n)
        if W is not None and i < j and cmin != INF:
            co = self.co
            k = bisect_left(co, cmax - W, i, j)
            while k > i and cmax - co[k - 1] < W:
                k -= 1
            while k < j and not (cmax - co[k] < W):
                k += 1
            i = k
            k = bisect_right(co, cmin + W, i, j)
            while k < j and co[k] - cmin < W:
                k += 1
            while k > i and not (co[k - 1] - cmin < W):
                k -= 1
            j = k
        return i, j


__all__ = ["INF", "EventBuffer"]
