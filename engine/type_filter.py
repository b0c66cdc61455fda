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


def rows_that_can_bind(b: Bindable, table: Any, positions: Any, types: Any,
                       codes: tuple[Any, list[str]] | None = None) -> Any:
    """A bool per row of ``positions`` (rows of ``table``, a ``small_csv.TextTable``) whose type
    is ``types[k]``: can the row bind some component (its type, and every element-wise filter
    of that component)? Rows are kept where a filter cannot be evaluated here.

    A filter on one attribute is evaluated once per distinct value of the attribute's column
    (``_distinct``); the filters of one type that read the same attribute are combined over those
    distinct values (AND within a component, OR across components) before one gather per row.
    ``codes``: the rows' types as codes into names, -1 for a type not bound (the loader's
    ``_type_codes``), to compare numbers instead of strings."""
    import numpy as np

    if codes is not None:
        type_codes, names = codes
        keep = type_codes >= 0
    else:
        keep = np.isin(types, np.array(sorted(b.types), dtype=object))
    distinct: dict[str, Any] = {}  # attribute -> its column's distinct values (``_distinct``), read once
    for t, per in b.local.items():
        if not per or any(not conj for conj in per):
            continue  # a component of this type without filters takes every row of it
        if codes is not None:
            rows = np.flatnonzero(type_codes == names.index(t)) if t in names else np.zeros(0, dtype=np.intp)
        else:
            rows = np.flatnonzero(keep & (types == t))
        if not rows.size:
            continue
        keep[rows[~_some_component(per, t, table, positions[rows], distinct)]] = False
    return keep


def _some_component(per: tuple[tuple[Any, ...], ...], event_type: str, table: Any, pos: Any,
                    distinct: dict[str, Any]) -> Any:
    """Per row of ``pos`` (all of ``event_type``): some component's conjunction ``per[k]`` holds.
    A conjunction of filters on one attribute is evaluated over the column's distinct values
    (``_truth``), and those of one attribute are OR-ed there; the rest per row (``_holds``)."""
    import numpy as np

    can = np.zeros(len(pos), dtype=bool)
    by_attr: dict[str, Any] = {}  # attribute -> per distinct value (and missing, last): some conjunction holds
    cache: dict[Any, Any] = {}  # per attribute: one event per distinct value, then one without it (``_truth``)
    for conj in per:
        attr = _one_attribute(conj, table)
        truth = None
        if attr is not None:
            if attr not in distinct:
                distinct[attr] = _distinct(table, attr)
            if distinct[attr] is not None:
                truth = _truth(conj, event_type, attr, distinct[attr][1], cache)
        if truth is not None:
            by_attr[attr] = truth if attr not in by_attr else by_attr[attr] | truth  # type: ignore[index]
            continue
        ok = np.ones(len(pos), dtype=bool)
        for e in conj:
            ok &= _holds(e, event_type, table, pos, distinct)
        can |= ok
    for attr, truth in by_attr.items():
        can |= truth[distinct[attr][0][pos]]  # (code -1, a missing value: the last entry)
    return can


def _one_attribute(conj: tuple[Any, ...], table: Any) -> str | None:
    """The one attribute column every filter of ``conj`` reads (None: several, a built-in field,
    or no such column), and no filter ``_number_comparison`` takes (numbers stay vectorised)."""
    from engine.events.records import BUILTIN_FIELDS
    from engine.expr import Ref

    attrs = {n.attr for e in conj for n in e.walk() if isinstance(n, Ref)}
    if len(attrs) != 1:
        return None
    (attr,) = attrs
    if attr in BUILTIN_FIELDS or attr not in table.columns:
        return None
    if getattr(table.column(attr), "numbers", None) is not None:
        return None
    return attr


def _truth(conj: tuple[Any, ...], event_type: str, attr: str, uniques: list[Any], cache: dict[Any, Any]) -> Any:
    """Per distinct value of ``attr`` (``uniques``) and, last, for an event without it: the
    conjunction ``conj`` holds, by the engines' compiled closure (``compile_local``) on an event
    holding just that value (the events are made once per attribute and kept in ``cache``), or
    for ``v.attr = 'text'`` by a dictionary of the text values (``_text_equality``)."""
    import numpy as np

    from engine.engines.lazy.conditions import compile_local
    from engine.events.records import Event

    if len(conj) == 1:
        fast = _text_equality(conj[0], attr, uniques, cache)
        if fast is not None:
            return fast
    f = compile_local(list(conj))
    assert f is not None
    evs = cache.get(attr)
    if evs is None:
        evs = cache[attr] = [Event(id=0, type=event_type, ts=0.0, seq=0, attrs={} if v is None else {attr: v})
                             for v in uniques] + [Event(id=0, type=event_type, ts=0.0, seq=0)]
    return np.fromiter((bool(f(ev)) for ev in evs), dtype=bool, count=len(evs))


def _text_equality(e: Any, attr: str, uniques: list[Any], cache: dict[Any, Any]) -> Any:
    """``v.attr = 'text'`` (either side) over the distinct values and, last, an event without the
    attribute: True at the values equal to the text. Inlines the compiled comparison
    (``expr.compile``: ``operator.eq(value, text) is True``), which for a text constant holds only
    for a ``str`` value equal to it (a number, bool or None never equals a ``str``; an event
    without the attribute reads None, ``attr`` being no built-in field: ``_one_attribute``); the values are
    looked up in a dictionary of the ``str`` ones, made once per attribute (in ``cache``). None for
    another filter, or where some value is a subclass of ``str`` (its own equality).
    Parity: tests/events/test_picked_rows.py::test_text_equality_is_the_closure."""
    import numpy as np

    from engine.expr import Cmp, Ref, Str

    if not isinstance(e, Cmp) or e.op != "=":
        return None
    if isinstance(e.left, Ref) and isinstance(e.right, Str):
        text = e.right.value
    elif isinstance(e.right, Ref) and isinstance(e.left, Str):
        text = e.left.value
    else:
        return None
    key = ("text positions", attr)
    positions = cache.get(key)
    if positions is None:
        positions = {}
        for k, v in enumerate(uniques):
            if type(v) is str:
                positions.setdefault(v, []).append(k)
            elif isinstance(v, str):
                positions = False  # a str subclass: left to the closure
                break
        cache[key] = positions
    if positions is False:
        return None
    truth = np.zeros(len(uniques) + 1, dtype=bool)
    truth[positions.get(text, [])] = True
    return truth


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
    return _truth((e,), event_type, attr, uniques, {})[codes]  # (code -1: the last entry, no attribute)


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
    column = table.column(attr)
    if type(column).__name__ == "ArrowColumn" and column.kind in ("string", "category"):
        return codes, list(uniques)  # an Arrow text column's value of code k is the k-th distinct text
    # the first row of each code: one unbuffered minimum per code (no sort of the column)
    present = codes >= 0
    first = np.full(len(uniques), len(codes), dtype=np.intp)
    np.minimum.at(first, codes[present], np.flatnonzero(present))
    if len(uniques) and int(first.max()) == len(codes):
        return None  # a distinct value no row holds
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
