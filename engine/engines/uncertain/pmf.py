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
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.events.numbers import NumberLimit, exact_number

#: The most bits the common denominator of one pmf cell may have (about 100,000 digits):
#: the weights ``1/p`` for thousands of distinct primes fit, a runaway cell is refused.
MAX_PMF_BITS = 332_200

__all__ = ["IEvent", "PmfError", "parse_pmf", "as_instant", "interval_of", "MAX_PMF_BITS", "show_instant"]

_SPLIT = re.compile(r"[\s,;]+")


class PmfError(ValueError):
    """A pmf or an interval bound that the uncertain engines cannot use (the message says why)."""


def as_instant(v: Any, what: str = "bound") -> int:
    """An integer instant, exactly: an int of any size, whole decimal text (``"3"``,
    ``"3.0"``, ``"1e3"``), a whole float below 2**53; anything else is a PmfError (a
    fraction, a float too large to be exact, more digits than ``MAX_NUMBER_DIGITS``)."""
    if type(v) is int:
        return v
    try:
        x = exact_number(v, what)
    except NumberLimit as err:
        raise PmfError(str(err)) from None
    except (TypeError, ValueError):
        raise PmfError(f"{what} {v!r} is not an integer instant") from None
    if not isinstance(x, int):
        raise PmfError(f"{what} {v!r} is not an integer instant (interval bounds are whole instants "
                       "of the time unit)")
    return x


def parse_pmf(value: Any, lower: int, upper: int) -> tuple[int, ...] | None:
    """Integer weights (one per instant of ``[lower, upper]``) from a pmf cell, or None for
    a missing cell (uniform). Raises PmfError: wrong count, negative, not a number, all zero."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        text = str(value).strip()
        if not text:
            return None
        parts = [p for p in _SPLIT.split(text.strip("[]")) if p]
    n = upper - lower + 1
    if len(parts) != n:
        raise PmfError(f"pmf has {len(parts)} weight{'s' if len(parts) != 1 else ''} but the interval "
                       f"[{lower}, {upper}] has {n} instant{'s' if n != 1 else ''}")
    fr: list[Fraction] = []
    for p in parts:
        try:
            f = Fraction(exact_number(p if isinstance(p, (int, float)) else str(p).strip(), "pmf weight"))
        except NumberLimit as err:
            raise PmfError(str(err)) from None
        except (TypeError, ValueError):
            raise PmfError(f"pmf weight {_shown(p)} is not a number") from None
        if f < 0:
            raise PmfError(f"pmf weight {_shown(p)} is negative")
        fr.append(f)
    if sum(fr) == 0:
        raise PmfError("pmf weights are all zero")
    den = 1
    for f in fr:
        den = math.lcm(den, f.denominator)
        if den.bit_length() > MAX_PMF_BITS:
            raise PmfError(f"pmf weights have a common denominator of more than {MAX_PMF_BITS * 3 // 10:,} digits")
    ints = [int(f * den) for f in fr]
    g = math.gcd(*ints)
    return tuple(i // g for i in ints)


def show_instant(v: Any) -> str:
    """An instant (an int of any size, or ±inf / a float for frontiers) as text for messages
    (``format(v, "g")`` would turn a large int into a float, or fail)."""
    return str(v) if isinstance(v, int) else f"{v:g}"


def _shown(p: Any) -> str:
    text = str(p)
    return repr(text if len(text) <= 40 else text[:37] + "...")


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
