"""ONE ROW PER MATCH of the columnar matcher, read from the columns: when every measure is a
column of a row the match's labels designate (``A.ts``, ``LAST(B.ts)``, ``FIRST(B.x, 1)``,
``PREV(A.x)``, a bare column: the match's last row) or ``MATCH_NUMBER()``, each measure is one
gather over the matches instead of a :class:`~engine.engines.sql.frame.Frame` per match.

Inlines output.py ``match_rows`` for ONE ROW PER MATCH (the partition columns, then the measures
in FINAL semantics) and expressions.py's column reference, ``FIRST`` / ``LAST`` / ``PREV`` /
``NEXT`` designators (frame.py ``first_of`` / ``last_of``); any other measure gives no plan and
``match_rows`` runs. Numbers are read from the column's buffers and made Python ints and floats
by ``tolist`` (the values ``to_pylist`` gives); other columns through their Python lists. The
parity test: tests/engines/sql/test_vector.py."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from sqlglot import exp

from engine.engines.sql.binding import BoundQuery
from engine.engines.sql.columnar import numpy_column
from engine.engines.sql.expressions import Scope, _arguments, _function_name
from engine.engines.sql.search import RowMatch


@dataclass(frozen=True)
class Measure:
    name: str
    column: str | None            # None: MATCH_NUMBER()
    members: frozenset[str] | None = None
    navigation: str | None = None  # FIRST, LAST, PREV, NEXT or None (the last row)
    offset: int = 0


def plan_measures(bound: BoundQuery) -> list[Measure] | None:
    q = bound.query
    if q.rows_per_match != "one" or q.empty_matches == "unmatched":
        return None
    out = []
    for name, m in zip((m.name for m in q.measures), q.measures):
        scope = Scope(q.source, bound.columns, bound.variables, q.subsets, "measure", running=False)
        got = _measure(name, m.expression.tree, scope, m.expression.offset)
        if got is None:
            return None
        out.append(got)
    return out


def _measure(name: str, node: Any, scope: Scope, base: int) -> Measure | None:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return _column(name, node, scope, base, None, 0)
    fn = _function_name(node)
    args = _arguments(node) if fn is not None else []
    if fn == "MATCH_NUMBER" and not args:
        return Measure(name, None)
    if fn in ("FIRST", "LAST", "PREV", "NEXT") and args and len(args) <= 2 and isinstance(args[0], exp.Column):
        offset = 0 if fn in ("FIRST", "LAST") else 1
        if len(args) == 2:
            o = args[1]
            if not (isinstance(o, exp.Literal) and not o.is_string and o.this.isdigit()):
                return None
            offset = int(o.this)
        return _column(name, args[0], scope, base, fn, offset)
    return None


def _column(name: str, node: exp.Column, scope: Scope, base: int, navigation: str | None,
            offset: int) -> Measure | None:
    if isinstance(node.this, exp.Star):
        return None
    table = node.args.get("table")
    return Measure(name, scope.column(node.this, base), scope.members(table, base) if table is not None else None,
                   navigation, offset)


def _place(labels: tuple[str, ...], m: Measure) -> int | None:
    """The index into ``labels`` the measure reads (it may leave the match for PREV / NEXT), or None."""
    places = [i for i, v in enumerate(labels) if m.members is None or v in m.members]
    if m.navigation == "FIRST":
        return places[m.offset] if m.offset < len(places) else None
    if m.navigation in ("LAST", None):
        return places[-1 - m.offset] if m.offset < len(places) else None
    if not places:
        return None
    return places[-1] + (-m.offset if m.navigation == "PREV" else m.offset)


class OneRowOutput:
    """The output rows of one query's matches, partition by partition."""

    def __init__(self, bound: BoundQuery, measures: list[Measure], arrow: Any,
                 values_of: Callable[[str], list[Any]]):
        self.bound, self.measures, self.arrow, self.values_of = bound, measures, arrow, values_of
        self._numbers: dict[str, tuple[Any, Any] | None] = {}

    def _numbers_of(self, column: str) -> tuple[Any, Any] | None:
        if column not in self._numbers:
            import pyarrow as pa

            data = self.arrow.column(column)
            kind = data.type
            numeric = pa.types.is_integer(kind) or pa.types.is_float32(kind) or pa.types.is_float64(kind)
            self._numbers[column] = numpy_column(data) if numeric else None
        return self._numbers[column]

    def rows(self, key: tuple[Any, ...], index: Any, matches: list[RowMatch]) -> list[dict[str, Any]]:
        if not matches:
            return []
        n = len(index)
        starts = np.fromiter((m.start for m in matches), dtype=np.int64, count=len(matches))
        shapes: dict[tuple[str, ...], list[int | None]] = {}
        shape_of = []
        for m in matches:
            places = shapes.get(m.labels)
            if places is None:
                places = shapes[m.labels] = [_place(m.labels, x) if x.column is not None else None
                                             for x in self.measures]
            shape_of.append(places)
        columns: list[list[Any]] = []
        for j, measure in enumerate(self.measures):
            if measure.column is None:
                columns.append([m.number for m in matches])
                continue
            if len(shapes) == 1:
                (places,) = shapes.values()
                off = places[j]
                rows = starts + (off if off is not None else 0)
                missing = None if off is not None else np.ones(len(matches), dtype=bool)
            else:
                offs = np.fromiter((p[j] if p[j] is not None else -(1 << 40) for p in shape_of), dtype=np.int64,
                                   count=len(matches))
                rows = starts + offs
                missing = offs == -(1 << 40)
            outside = (rows < 0) | (rows >= n)
            missing = outside if missing is None else missing | outside
            at = index[np.clip(rows, 0, max(n - 1, 0))]
            numbers = self._numbers_of(measure.column)
            if numbers is not None:
                values, null = numbers
                got = values[at].tolist()
                if null is not None:
                    missing = missing | null[at]
            else:
                source = self.values_of(measure.column)
                got = [source[i] for i in at.tolist()]
            if missing.any():
                for i in np.flatnonzero(missing).tolist():
                    got[i] = None
            columns.append(got)
        names = list(self.bound.partition_by) + [m.name for m in self.measures]
        return [dict(zip(names, key + values)) for values in zip(*columns)]
