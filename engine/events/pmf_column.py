"""The pmf column of interval data, read exactly: integer weights (one per instant of an
event's uncertainty interval ``[lower, upper]``) from text such as ``"1 2 1"``, ``"1,2,1"``,
``"0.25;0.5;0.25"``, normalised to the smallest integers with the same ratios; interval bounds
as integer instants. Weights and bounds are read exactly (``engine.events.numbers``); what
cannot be used is a :class:`PmfError` naming why. The loader checks the column with these, and
the uncertain engines (engine/engines/uncertain/pmf.py) weigh their instants with them.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from engine.events.numbers import NumberLimit, exact_number

#: The most bits the common denominator of one pmf cell may have (about 100,000 digits):
#: the weights ``1/p`` for thousands of distinct primes fit, a runaway cell is refused.
MAX_PMF_BITS = 332_200

__all__ = ["MAX_PMF_BITS", "PmfError", "as_instant", "parse_pmf"]

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


def _shown(p: Any) -> str:
    text = str(p)
    return repr(text if len(text) <= 40 else text[:37] + "...")
