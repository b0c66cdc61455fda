"""Aggregate values and result rows (papers/aseq-aggregation.md §3.6).

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
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["AggRow", "Val", "ZERO", "valid_value", "finish", "value_kind", "aggregate_matches", "group_json"]


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
        return isinstance(v, (int, float)) and not isinstance(v, bool)
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
        return Val(self.c + o.c, self.s + o.s, self.n + o.n, _max(self.mx, o.mx), _min(self.mn, o.mn))

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


def _max(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a if a >= b else b


def _min(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a if a <= b else b


def finish(func: str, kind: str, v: Val) -> Any:
    """The aggregate's value: COUNT an int, SUM a number (0 of nothing), AVG/MIN/MAX a
    number or None (of nothing)."""
    if func == "COUNT":
        return v.n if kind == "present" else v.c
    if func == "SUM":
        return v.s
    if func == "AVG":
        return v.s / v.n if v.n else None
    if func == "MAX":
        return v.mx
    if func == "MIN":
        return v.mn
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
    """One output row (DESIGN.md "Engine contracts"): at ``ts``, after ``event`` (the TRIG
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
                    s += x
                    mx, mn = _max(mx, x), _min(mn, x)
        v = v.plus(Val(1, s, n, mx, mn))
    return finish(func, kind, v)
