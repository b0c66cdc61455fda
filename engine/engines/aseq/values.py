"""Aggregate values and result rows (A-Seq §5; docs/papers.md, "A-Seq", A12).

An aggregate over a set of matches is kept as a :class:`Val`: the number of matches
``c``, and for the aggregated attribute the sum ``s`` and number ``n`` of the values that
count, and their maximum ``mx`` / minimum ``mn`` (``None`` when there is none). Every
aggregate function is read off a Val (:func:`finish`), and Vals combine with two
operations that make prefix counting exact:

- ``plus`` (⊕): the union of two disjoint sets of matches;
- ``times`` (⊗): every match of one set joined with every match of another (Chop-Connect,
  §4.2, and Lemma 1's ``cnt[m] += cnt[m-1]``), where at most one side holds the
  aggregated position.

Which values count (A12, §3.6 and docs/semantics.md "Aggregation"): ``COUNT`` counts
matches; ``COUNT(v.x)`` counts the matches whose ``v.x`` is present (not missing);
``SUM``/``AVG``/``MIN``/``MAX`` use the values of ``v.x`` that are numbers (missing values
and non-numbers are skipped, as SQL skips NULL). ``SUM`` of nothing is 0, ``AVG``/``MIN``/
``MAX`` of nothing are null.

Exactness (docs/semantics.md "Aggregation"): sums are kept exactly. An int value stays an
int (the fast path); a float value enters as its exact binary value, an
:class:`ExactFloat` (:func:`exact_term`), so that a sum of floats is the exact real sum and
expiry subtracts exactly, whatever the order. :func:`finish` prints a sum of ints as an int
and a sum with a float in it as the float nearest the exact value (AVG: the float nearest
the exact quotient, as int / int gives; MIN/MAX: the value as it was). A value that is not a finite number (inf) is
refused (:class:`NonFiniteValue`); a result beyond the float range is a :class:`TooLarge`
that the writers print as null with a warning (never ``Infinity``/``NaN``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

__all__ = ["AggRow", "Val", "ZERO", "max_of", "min_of", "valid_value", "finish", "value_kind", "aggregate_matches", "group_json",
           "exact_term", "ExactFloat", "NonFiniteValue", "TooLarge", "plain_number", "shown_values"]


class NonFiniteValue(ValueError):
    """A value aggregated by SUM/AVG/MIN/MAX that is not a finite number (inf, -inf)."""


class TooLarge:
    """An aggregate whose exact value is beyond the float range (about ±1.8e308): written
    as null, with a warning naming its row. ``exact`` is the exact value (int or Fraction)."""

    __slots__ = ("exact",)

    def __init__(self, exact: Any) -> None:
        self.exact = exact

    def __eq__(self, o: object) -> bool:
        return isinstance(o, TooLarge) and o.exact == self.exact

    def __hash__(self) -> int:
        return hash(("TooLarge", self.exact))

    def __repr__(self) -> str:
        return f"TooLarge({'-' if self.exact < 0 else ''}>1.8e308)"

    def item(self) -> None:
        """JSON encoders that call ``item()`` on unknown values (``json_default``) write null."""
        return None


#: Every finite float is an integer multiple of 2**-1074 (the smallest subnormal), so an
#: exact sum of floats (and ints) is an int ``scaled`` times that unit: integer additions,
#: much faster than ``Fraction`` arithmetic.
SCALE_BITS = 1074


class ExactFloat:
    """A float value, or a sum with float values in it, kept exactly: the exact value is
    ``scaled * 2**-1074`` and ``floats`` says how many float values it counts (with their
    multiplicity, as ``Val.n`` counts values). Adding, subtracting and multiplying by an int
    stay exact, so expiry subtracts exactly whatever the order; when every float has been
    subtracted again (``floats == 0``) the value is a sum of ints and prints as an int
    (:func:`plain_number`), as the baseline's sum of the same ints does."""

    __slots__ = ("scaled", "floats")

    def __init__(self, scaled: int, floats: int) -> None:
        self.scaled, self.floats = scaled, floats

    @classmethod
    def of(cls, v: float) -> "ExactFloat":
        num, den = v.as_integer_ratio()  # den is a power of two, at most 2**1074
        return cls(num << (SCALE_BITS + 1 - den.bit_length()), 1)

    def __add__(self, o: Any) -> "ExactFloat":
        if type(o) is ExactFloat:
            return ExactFloat(self.scaled + o.scaled, self.floats + o.floats)
        if not o:  # 0: the value itself (immutable)
            return self
        return ExactFloat(self.scaled + (o << SCALE_BITS), self.floats)

    __radd__ = __add__

    def __sub__(self, o: Any) -> "ExactFloat":
        if type(o) is ExactFloat:
            return ExactFloat(self.scaled - o.scaled, self.floats - o.floats)
        return ExactFloat(self.scaled - (o << SCALE_BITS), self.floats)

    def __rsub__(self, o: Any) -> "ExactFloat":
        return ExactFloat((o << SCALE_BITS) - self.scaled, -self.floats)

    def __neg__(self) -> "ExactFloat":
        return ExactFloat(-self.scaled, -self.floats)

    def __mul__(self, k: Any) -> "ExactFloat":  # k: a count of matches (an int)
        if k == 1:
            return self
        return ExactFloat(self.scaled * k, self.floats * k)

    __rmul__ = __mul__

    @property
    def value(self) -> Fraction:
        """The exact value."""
        return Fraction(self.scaled, 1 << SCALE_BITS)

    @staticmethod
    def _other(o: Any) -> int:
        return o.scaled if type(o) is ExactFloat else o << SCALE_BITS

    def __lt__(self, o: Any) -> bool:
        return self.scaled < self._other(o)

    def __le__(self, o: Any) -> bool:
        return self.scaled <= self._other(o)

    def __gt__(self, o: Any) -> bool:
        return self.scaled > self._other(o)

    def __ge__(self, o: Any) -> bool:
        return self.scaled >= self._other(o)

    def __eq__(self, o: object) -> bool:
        if type(o) is ExactFloat:
            return self.scaled == o.scaled and self.floats == o.floats
        return type(o) is int and self.scaled == o << SCALE_BITS

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return repr(self.item())

    def item(self) -> Any:
        """The value as printed (JSON encoders call ``item()``)."""
        return plain_number(self)

    def quotient(self, n: int) -> Any:
        """The float nearest ``value / n`` (int true division rounds correctly), or ``TooLarge``."""
        try:
            return self.scaled / (n << SCALE_BITS)
        except OverflowError:
            return TooLarge(self.value / n)


def exact_term(v: Any, where: Any = None) -> Any:
    """A number as it enters an exact aggregate: an int as is, a float as an
    :class:`ExactFloat` (its exact value, counted as one float); raises ``NonFiniteValue``
    for inf (``where()`` names the value)."""
    if type(v) is float:
        if v - v != 0.0:
            shown = where() if where is not None else "a value"
            raise NonFiniteValue(f"{shown} is {v!r}, not a finite number: SUM/AVG/MIN/MAX aggregate finite "
                                 "numbers exactly (fix or remove the value)")
        return ExactFloat.of(v)
    return v


def plain_number(x: Any) -> Any:
    """An exact aggregate as it is printed: an int as is; an :class:`ExactFloat` as the float
    nearest its exact value, or as an int when it counts no float (every float subtracted
    again); a ``TooLarge`` beyond the float range."""
    if type(x) is ExactFloat:
        if x.floats == 0:
            return x.scaled >> SCALE_BITS  # a sum of ints: an int (exact: no float left in it)
        return x.quotient(1)
    return x


def shown_values(values: list[Any]) -> list[Any]:
    """Exact values as printed (:func:`plain_number`; None beyond the float range)."""
    out = []
    for v in values:
        p = plain_number(v)
        out.append(None if isinstance(p, TooLarge) else p)
    return out


def value_kind(func: str, has_attr: bool) -> str:
    """``count`` (COUNT), ``present`` (COUNT(v.x)) or ``number`` (SUM/AVG/MIN/MAX)."""
    if func == "COUNT":
        return "present" if has_attr else "count"
    return "number"


def valid_value(v: Any, kind: str) -> bool:
    """Does value ``v`` take part in an aggregate of this kind?"""
    if v is None or (isinstance(v, float) and v != v):
        return False
    if kind == "number":
        return (isinstance(v, (int, float)) and not isinstance(v, bool)) or type(v) is ExactFloat
    return True


class Val:
    """An aggregate over a set of matches (see the module docstring); treat as immutable."""

    __slots__ = ("c", "s", "n", "mx", "mn")

    def __init__(self, c: int = 0, s: Any = 0, n: int = 0, mx: Any = None, mn: Any = None) -> None:
        self.c, self.s, self.n, self.mx, self.mn = c, s, n, mx, mn

    def __eq__(self, o: object) -> bool:
        return isinstance(o, Val) and (self.c, self.s, self.n, self.mx, self.mn) == (o.c, o.s, o.n, o.mx, o.mn)

    def __hash__(self) -> int:
        return hash((self.c, self.s, self.n, self.mx, self.mn))

    def __repr__(self) -> str:
        return f"Val(c={self.c}, s={self.s}, n={self.n}, mx={self.mx}, mn={self.mn})"

    def plus(self, o: "Val") -> "Val":
        if not o.c:
            return self
        if not self.c:
            return o
        return Val(self.c + o.c, self.s + o.s, self.n + o.n, max_of(self.mx, o.mx), min_of(self.mn, o.mn))

    def times(self, o: "Val", carrier: str) -> "Val":
        """Join every match of ``self`` with every match of ``o``; ``carrier`` says which
        side holds the aggregated position: ``"left"``, ``"right"`` or ``"none"``."""
        c = self.c * o.c
        if carrier == "left":
            return Val(c, self.s * o.c, self.n * o.c, self.mx if o.c else None, self.mn if o.c else None)
        if carrier == "right":
            return Val(c, self.c * o.s, self.c * o.n, o.mx if self.c else None, o.mn if self.c else None)
        return Val(c)


ZERO = Val()


def max_of(a: Any, b: Any) -> Any:
    """The larger of two values, None standing for no value."""
    if a is None:
        return b
    if b is None:
        return a
    return a if a >= b else b


def min_of(a: Any, b: Any) -> Any:
    """The smaller of two values, None standing for no value."""
    if a is None:
        return b
    if b is None:
        return a
    return a if a <= b else b


def finish(func: str, kind: str, v: Val) -> Any:
    """The aggregate's value: COUNT an int, SUM a number (0 of nothing), AVG/MIN/MAX a
    number or None (of nothing). Sums are exact (see the module): a sum of ints is an int,
    else the float nearest the exact sum; AVG the float nearest the exact quotient."""
    if func == "COUNT":
        return v.n if kind == "present" else v.c
    if func == "SUM":
        return plain_number(v.s)
    if func == "AVG":
        if not v.n:
            return None
        if type(v.s) is ExactFloat:
            return v.s.quotient(v.n)
        try:
            return v.s / v.n  # int / int: the float nearest the exact quotient
        except OverflowError:
            return TooLarge(Fraction(v.s, v.n))
    if func == "MAX":
        return plain_number(v.mx)
    if func == "MIN":
        return plain_number(v.mn)
    raise ValueError(f"unknown aggregate {func}")


def group_json(values: tuple[Any, ...] | None) -> Any:
    """A GROUP BY value as it is printed: null without GROUP BY, the value for one
    attribute, a list for several."""
    if values is None:
        return None
    if len(values) == 1:
        return values[0]
    return list(values)


@dataclass(frozen=True, slots=True)
class AggRow:
    """One output row (docs/design.md, "Engine contracts"): at ``ts``, after ``event`` (the TRIG
    event's id; ``None`` for a row of ``--emit changes`` at the moment a START event left
    the window), the aggregate of ``group`` (the GROUP BY value; None without GROUP BY) is
    ``value``. ``query`` names the query of a workload (None for one pattern). ``seq`` is
    the stream position the row was emitted at (not printed)."""

    ts: Any
    event: Any
    group: Any
    value: Any
    query: str | None = None
    seq: int = -1

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.query is not None:
            d["query"] = self.query
        d.update({"ts": self.ts, "event": self.event, "group": self.group, "value": self.value})
        return d


def close(a: Any, b: Any, rel: float = 1e-9) -> bool:
    """Two aggregate values agree (floats up to rounding: sums are added in another order)."""
    if a is None or b is None:
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)
    return a == b


def aggregate_matches(func: str, kind: str, values_per_match: Iterable[list[Any]]) -> Any:
    """The aggregate over matches given, per match, the values of the aggregated variable
    (one for a single event; one per element for a Kleene variable; [] for COUNT)."""
    v = ZERO
    for vals in values_per_match:
        s, n, mx, mn = 0, 0, None, None
        for x in vals:
            if valid_value(x, kind):
                n += 1
                if kind == "number":
                    x = exact_term(x)
                    s += x
                    mx, mn = max_of(mx, x), min_of(mn, x)
        v = v.plus(Val(1, s, n, mx, mn))
    return finish(func, kind, v)
