"""Which rows a pattern can ever look at: the event types its components bind, and their
element-wise filters.

Under ``skip_till_any_match`` and ``skip_till_next_match`` an event that no component can bind is
skipped by every run (it binds no variable, breaks no contiguity, and a NOT component names its
own type and filters), so such rows may be left out before they become ``Event`` objects at all:
the loader builds only rows of these types (``load_events(types=...)``) whose values pass some
component's element-wise filters (the conjuncts of ``WHERE`` on that variable alone, the lazy
engines' and the oracle's candidate filters: ``v.ticker = 'X'``, ``a.volume > 1000``), and Spark
filters its rows by type; ``seq`` keeps each event's position in the whole stream, so count
windows (``WITHIN n events``) count every event as before. A component of type ``ANY``, strict
contiguity, or a pattern without components keeps every event.

``rows_that_can_bind`` evaluates the filters with the engines' own compiled closure
(``compile_local``) once per distinct value of the attribute, or vectorised for a comparison of
a number column with a number; where it cannot (more than one attribute, a built-in field, too
many distinct values) it keeps the rows, which is always correct.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.model import ANY_TYPE, Pattern, Strategy

__all__ = ["TYPE_FILTERABLE", "Bindable", "bindable", "bindable_types", "rows_that_can_bind"]

#: strategies under which an event no component can bind is skipped by every run
TYPE_FILTERABLE = frozenset({Strategy.ANY, Strategy.NEXT})

#: distinct values of an attribute evaluated one by one in a batch (more: the rows are kept)
MAX_DISTINCT = 4096


@dataclass(frozen=True)
class Bindable:
    """The event types a pattern binds and, per type, each component's element-wise filters (an
    empty tuple: every row of that type can bind it)."""

    types: frozenset[str]
    local: dict[str, tuple[tuple[Any, ...], ...]] = field(default_factory=dict, hash=False, compare=False)

    def __iter__(self) -> Any:  # a ``frozenset`` of types where one is expected
        return iter(self.types)

    def __contains__(self, t: object) -> bool:
        return t in self.types

    @property
    def filters_rows(self) -> bool:
        return any(all(conj for conj in per) for per in self.local.values())


def bindable(pattern: Pattern) -> Bindable | None:
    """What ``pattern``'s runs can ever read, or None when every event matters."""
    if pattern.strategy not in TYPE_FILTERABLE:
        return None
    comps = pattern.components()
    types = frozenset(c.type for c in comps)
    if not types or ANY_TYPE in types:
        return None
    from engine.engines.lazy.chain_compiler import _is_local
    from engine.expr import variables

    local: dict[str, list[tuple[Any, ...]]] = {}
    for c in comps:
        conj = tuple(e for e in pattern.where if variables(e) == {c.var} and _is_local(e, c.var))
        local.setdefault(c.type, []).append(conj)
    return Bindable(types, {t: tuple(v) for t, v in local.items()})


def bindable_types(pattern: Pattern) -> Bindable | None:
    """``bindable`` (named for what most callers use it for: the types)."""
    return bindable(pattern)


def rows_that_can_bind(b: Bindable, table: Any, positions: Any, types: Any) -> Any:
    """A bool per row of ``positions`` (rows of ``table``, a ``small_csv.TextTable``) whose type
    is ``types[k]``: can the row bind some component (its type, and every element-wise filter
    of that component)? Rows are kept where a filter cannot be evaluated here."""
    import numpy as np

    keep = np.isin(types, np.array(sorted(b.types), dtype=object))
    distinct: dict[str, Any] = {}  # attribute -> its column's distinct values (``_distinct``), read once
    for t, per in b.local.items():
        if not per or any(not conj for conj in per):
            continue  # a component of this type without filters takes every row of it
        rows = np.flatnonzero(keep & (types == t))
        if not rows.size:
            continue
        can = np.zeros(rows.size, dtype=bool)
        for conj in per:
            ok = np.ones(rows.size, dtype=bool)
            for e in conj:
                ok &= _holds(e, t, table, positions[rows], distinct)
            can |= ok
        keep[rows[~can]] = False
    return keep


def _holds(e: Any, event_type: str, table: Any, pos: Any, distinct_of: dict[str, Any] | None = None) -> Any:
    """Per row: the element-wise filter ``e`` holds (True where it cannot be told here).
    ``distinct_of``: a cache of each attribute column's distinct values (``_distinct``)."""
    import numpy as np

    from engine.events.records import BUILTIN_FIELDS
    from engine.expr import Ref

    attrs = {n.attr for n in e.walk() if isinstance(n, Ref)}
    if len(attrs) != 1:
        return np.ones(len(pos), dtype=bool)
    (attr,) = attrs
    if attr in BUILTIN_FIELDS or attr not in table.columns:
        return np.ones(len(pos), dtype=bool)
    fast = _number_comparison(e, table.column(attr), pos)
    if fast is not None:
        return fast
    cache = distinct_of if distinct_of is not None else {}
    if attr not in cache:
        cache[attr] = _distinct(table, attr)
    found = cache[attr]
    if found is not None:  # the column's codes, and the event value of each distinct cell
        all_codes, uniques = found
        codes = all_codes[pos]
    else:
        values, _ = table.attr_values(attr, pos.tolist())
        index: dict[Any, int] = {}
        try:
            codes = np.fromiter((index.setdefault((type(v), v), len(index)) for v in values),
                                dtype=np.intp, count=len(values))
        except TypeError:  # an unhashable value
            return np.ones(len(pos), dtype=bool)
        if len(index) > MAX_DISTINCT:
            return np.ones(len(pos), dtype=bool)
        uniques = [v for (_, v) in index]
    from engine.engines.lazy.conditions import compile_local
    from engine.events.records import Event

    f = compile_local([e])
    assert f is not None
    truth = np.array([bool(f(Event(id=0, type=event_type, ts=0.0, seq=0, attrs={} if v is None else {attr: v})))
                      for v in uniques] + [bool(f(Event(id=0, type=event_type, ts=0.0, seq=0)))], dtype=bool)
    return truth[codes]  # (code -1, a missing value: the last entry, an event without the attribute)


def _distinct(table: Any, attr: str) -> tuple[Any, list[Any]] | None:
    """The column's codes per row (-1: missing) and, per code, the value an event built from a
    row holding it has (``attr_values`` of the code's first row: the loader's own conversion); None
    where the column cannot say (more than ``MAX_DISTINCT`` distinct values, or a column without
    ``factorize``)."""
    import numpy as np

    from engine.events.small_csv import Unsure

    try:
        codes, uniques = table.column(attr).factorize()
    except (Unsure, TypeError, AttributeError):
        return None
    if len(uniques) > MAX_DISTINCT:
        return None
    codes = np.asarray(codes, dtype=np.intp)
    present, first = np.unique(codes, return_index=True)
    if present.size and present[0] == -1:
        present, first = present[1:], first[1:]
    if present.size != len(uniques):
        return None
    values, _ = table.attr_values(attr, first.tolist())
    if any(v is None for v in values):
        return None  # a cell the loader reads as missing (no value to test)
    return codes, values


def _number_comparison(e: Any, column: Any, pos: Any) -> Any:
    """``v.attr OP number`` over an int or float column as one numpy comparison (exact: integers
    below 2**53 on both sides, as Python compares them); None where it does not apply."""
    import numpy as np

    from engine.expr import Cmp, Num, Ref

    numbers = getattr(column, "numbers", None)
    if numbers is None or not isinstance(e, Cmp):
        return None
    if isinstance(e.left, Ref) and isinstance(e.right, Num):
        op, c = e.op, e.right.number
    elif isinstance(e.right, Ref) and isinstance(e.left, Num):
        op, c = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[e.op], e.left.number
    else:
        return None
    if isinstance(c, bool) or abs(c) >= 2 ** 53:
        return None
    x = numbers[pos]
    finite = x[~np.isnan(x)]
    if finite.size and float(np.abs(finite).max()) >= 2 ** 53:
        return None
    present = ~np.isnan(x)
    with np.errstate(invalid="ignore"):
        r = {"=": x == c, "!=": x != c, "<": x < c, "<=": x <= c, ">": x > c, ">=": x >= c}[op]
    # a missing value is None: None != c is True, every other comparison with it is false
    return np.where(present, r, op == "!=")
