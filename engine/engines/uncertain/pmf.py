"""Interval events as the uncertain engines see them (imprecise-timestamps notes §1.3).

An event occurred at one unknown integer instant of its uncertainty interval
``[lower, upper]``; its probability mass function is uniform unless the data gives one.
Probabilities are kept exact: an event's pmf is a tuple of non-negative **integer
weights**, one per instant of the interval, and ``p(t) = weight(t) / total``. Every
probability the engines compute is then an integer numerator over a product of totals,
turned into one ``fractions.Fraction`` at the end.

A pmf column holds the weights as text: ``"1 2 1"`` (or ``"1,2,1"``, ``"0.25;0.5;0.25"``):
one weight per instant from ``lower`` to ``upper``, normalised to sum 1. Weights and bounds
are read exactly (``engine.events.numbers.exact_number``): integers of any size, decimal and
ratio text as exact fractions, at most ``MAX_NUMBER_DIGITS`` digits (beyond: a PmfError).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from engine.events.numbers import NumberLimit, exact_number  # noqa: F401
from engine.events.pmf_column import MAX_PMF_BITS, PmfError, as_instant, parse_pmf  # noqa: F401  (the pmf column's reading)

__all__ = ["IEvent", "PmfError", "parse_pmf", "as_instant", "interval_of", "MAX_PMF_BITS", "show_instant",
           "derived_u_max"]


def show_instant(v: Any) -> str:
    """An instant (an int of any size, or ±inf / a float for frontiers) as text for messages
    (``format(v, "g")`` would turn a large int into a float, or fail)."""
    return str(v) if isinstance(v, int) else f"{v:g}"


def interval_of(ev: Any) -> tuple[int, int]:
    """``(lower, upper)`` of an engine ``Event`` as integer instants (a point event: ``[ts, ts]``)."""
    lo = ev.lower if ev.lower is not None else ev.ts
    hi = ev.upper if ev.upper is not None else ev.ts
    lo_i, hi_i = as_instant(lo, "lower bound"), as_instant(hi, "upper bound")
    if lo_i > hi_i:
        raise PmfError(f"event {ev.id!r}: lower bound {lo_i} is after upper bound {hi_i}")
    return lo_i, hi_i


@dataclass(eq=False, slots=True)
class IEvent:
    """One interval event: the engine ``Event`` (``ev``), its arrival number ``idx``, the
    interval ``[lo, hi]`` and the pmf as integer ``weights`` (None: uniform) summing to ``total``."""

    ev: Any
    idx: int
    lo: int
    hi: int
    weights: tuple[int, ...] | None
    total: int
    _cum: tuple[int, ...] | None = None

    @classmethod
    def of(cls, ev: Any, idx: int, pmf_attr: str | None = None) -> "IEvent":
        lo, hi = interval_of(ev)
        w = parse_pmf(ev.attrs.get(pmf_attr), lo, hi) if pmf_attr else None
        if w is not None and len(set(w)) == 1:
            w = None  # equal weights: uniform
        total = sum(w) if w is not None else hi - lo + 1
        return cls(ev, idx, lo, hi, w, total)

    @property
    def id(self) -> Any:
        return self.ev.id

    @property
    def type(self) -> str:
        return self.ev.type

    @property
    def size(self) -> int:
        """Number of instants ``U`` of the interval."""
        return self.hi - self.lo + 1

    def w(self, t: int) -> int:
        """Integer weight of instant ``t`` (0 outside the interval)."""
        if t < self.lo or t > self.hi:
            return 0
        return 1 if self.weights is None else self.weights[t - self.lo]

    def p(self, t: int) -> Fraction:
        """``p(t)`` exactly."""
        return Fraction(self.w(t), self.total)

    def mass(self, a: int, b: int) -> int:
        """Integer weight of the instants in the closed range ``[a, b]``."""
        a, b = max(a, self.lo), min(b, self.hi)
        if a > b:
            return 0
        if self.weights is None:
            return b - a + 1
        if self._cum is None:
            acc, cum = 0, [0]
            for x in self.weights:
                acc += x
                cum.append(acc)
            self._cum = tuple(cum)
        return self._cum[b - self.lo + 1] - self._cum[a - self.lo]

    def support(self) -> tuple[int, int]:
        """First and last instant of positive weight."""
        if self.weights is None:
            return self.lo, self.hi
        pos = [i for i, x in enumerate(self.weights) if x > 0]
        return self.lo + pos[0], self.lo + pos[-1]

    def __repr__(self) -> str:
        return f"{self.type}#{self.id}[{self.lo},{self.hi}]"


def derived_u_max(events: Sequence[Any]) -> int:
    """The largest ``upper - lower`` of the events (0 for none)."""
    best = 0
    for e in events:
        lo, hi = interval_of(e)
        best = max(best, hi - lo)
    return best
