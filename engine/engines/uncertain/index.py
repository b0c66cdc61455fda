"""The index of the events seen so far, for NELT and the skip_till_next_match spoilers
(imprecise-timestamps notes §2.2 "Implementation of NELT", §2.3, §6 resolution 13).

Events are kept per type, sorted by lower bound. ``overlapping`` finds the events that can
fall inside a time range (spoiler candidates); ``nelt`` is the *Next Event's Latest Time*:
the smallest upper bound among the candidates of the next component that start after the
current event ends (``x.lower > e.upper``). An index that misses an event only makes NELT
larger, which prunes less and is still sound (NELT is a pruning, the exact confidence uses
every spoiler); the engines therefore may forget events that no live run can reach.
"""
from __future__ import annotations

import bisect
import math
from typing import Callable, Iterable, Iterator

from engine.engines.uncertain.pmf import IEvent

__all__ = ["EventIndex"]


class EventIndex:
    """Events per type, sorted by ``(lo, idx)``."""

    def __init__(self) -> None:
        self.keys: dict[str, list[tuple[int, int]]] = {}
        self.events: dict[str, list[IEvent]] = {}
        self.max_width = 0  # max (hi - lo) seen
        self.size = 0

    def add(self, x: IEvent) -> None:
        ks = self.keys.setdefault(x.type, [])
        es = self.events.setdefault(x.type, [])
        k = (x.lo, x.idx)
        if not ks or ks[-1] <= k:
            ks.append(k)
            es.append(x)
        else:
            i = bisect.bisect_right(ks, k)
            ks.insert(i, k)
            es.insert(i, x)
        self.max_width = max(self.max_width, x.hi - x.lo)
        self.size += 1

    def _types(self, types: Iterable[str] | None) -> list[str]:
        if types is None:
            return list(self.keys)
        return [t for t in types if t in self.keys]

    def overlapping(self, types: Iterable[str] | None, a: int, b: int) -> Iterator[IEvent]:
        """Events of ``types`` (None: all) whose interval meets ``[a, b]``."""
        if a > b:
            return
        for t in self._types(types):
            ks, es = self.keys[t], self.events[t]
            i = bisect.bisect_left(ks, (a - self.max_width, -1))
            j = bisect.bisect_right(ks, (b, math.inf))
            for x in es[i:j]:
                if x.hi >= a:
                    yield x

    def nelt(self, types: Iterable[str] | None, after: int, ok: Callable[[IEvent], bool]) -> float:
        """``min x.hi`` over the events with ``x.lo > after`` that satisfy ``ok`` (inf: none)."""
        best = math.inf
        for t in self._types(types):
            ks, es = self.keys[t], self.events[t]
            i = bisect.bisect_right(ks, (after, math.inf))
            for x in es[i:]:
                if x.lo > best:
                    break  # hi >= lo > best: no better candidate further on
                if x.hi < best and ok(x):
                    best = x.hi
        return best

    def forget_before(self, t: float) -> int:
        """Drop the events with ``hi < t``; returns how many were dropped."""
        dropped = 0
        for typ in list(self.keys):
            es = self.events[typ]
            keep = [x for x in es if x.hi >= t]
            if len(keep) != len(es):
                dropped += len(es) - len(keep)
                self.events[typ] = keep
                self.keys[typ] = [(x.lo, x.idx) for x in keep]
        self.size -= dropped
        return dropped
