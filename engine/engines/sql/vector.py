"""The columnar matcher: a query whose pattern can label a match in one way only (variables and
``{n}`` quantifiers in a row: ``A B{3} C``) has every variable at a fixed offset from the match's
start, so each DEFINE reads fixed offsets too, and the search of every start row of a partition
is one numpy expression per label over the partition's columns.

It inlines, for that case: the thread matcher's search at a row (matcher.py ``find``: the one
thread, its DEFINEs in label order; no DEFINE in this subset can raise), the expression compiler's
column references, ``PREV`` / ``NEXT`` / ``FIRST`` / ``LAST`` over one column, comparisons,
``AND`` / ``OR`` / ``NOT`` / ``IS [NOT] NULL`` with SQL's three-valued logic (values.py
``compare``, ``sql_and``, ``sql_or``, ``sql_not``), and search.py ``match_partition``'s walk over
the starts. Anything else (another expression, a string or date column, a comparison of an
integer with a float beyond 2**53, WITHIN, an anchor, an exclusion, a quantifier that can take
more than one length, a SKIP TO that would resume at the match's own first row) gives no plan
and the thread matcher runs. The parity tests: tests/engines/sql/test_vector.py (hypothesis,
against the thread matcher and the oracle)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from sqlglot import exp

from engine.engines.sql.binding import BoundQuery
from engine.engines.sql.columnar import numpy_column
from engine.engines.sql.expressions import Scope, _arguments, _function_name
from engine.engines.sql.row_pattern import Concat, Empty, Node, Quantified, Var
from engine.engines.sql.search import RowMatch

MAX_LABELS = 1_000   # the longest fixed pattern taken (its conditions are one expression per label)
EXACT = 2 ** 53      # integers compared with floats exactly, as Python does, up to this size


class Declined(Exception):
    """The expression or the query is outside what the columnar matcher does."""


@dataclass
class Vec:
    """A column of values over the starts: ``values``; ``null`` marks NULLs (None: none). ``kind``
    is int, float or bool; ``bound`` the largest absolute integer (int only)."""

    values: Any
    null: Any
    kind: str
    bound: int = 0


Compiled = Callable[["Partition"], Vec]


class Partition:
    """One partition's columns (numpy, in ORDER BY order) and its number of starts."""

    def __init__(self, columns: dict[str, tuple[Any, Any, str, int]], index: Any, starts: int):
        self._source = columns
        self._index = index
        self._cache: dict[str, tuple[Any, Any]] = {}
        self.n = len(index)
        self.starts = starts
        self.start_rows: Any = None   # the starts' rows (None: 0, 1, ..., starts - 1)
        self.current: Any = None      # the rows under test, one per start (a variable-length match)

    def column(self, name: str) -> tuple[Any, Any, str, int]:
        values, null, kind, bound = self._source[name]
        got = self._cache.get(name)
        if got is None:
            got = (values[self._index], None if null is None else null[self._index])
            self._cache[name] = got
        return got[0], got[1], kind, bound


def fixed_labels(node: Node | None) -> list[str] | None:
    """The one label sequence ``node`` can match, or None."""
    if node is None:
        return None
    if isinstance(node, Var):
        return [node.name]
    if isinstance(node, Empty):
        return []
    if isinstance(node, Concat):
        out: list[str] = []
        for part in node.parts:
            got = fixed_labels(part)
            if got is None:
                return None
            out.extend(got)
            if len(out) > MAX_LABELS:
                return None
        return out
    if isinstance(node, Quantified) and node.max == node.min:
        got = fixed_labels(node.body)
        if got is None or len(got) * node.min > MAX_LABELS:
            return None
        return got * node.min
    return None


def column_data(arrow: Any, name: str) -> tuple[Any, Any, str, int] | None:
    """(numpy values, NULL mask or None, int / float, largest absolute integer) of a number column."""
    import pyarrow as pa

    data = arrow.column(name)
    kind = data.type
    if not (pa.types.is_integer(kind) or pa.types.is_float32(kind) or pa.types.is_float64(kind)):
        return None
    got = numpy_column(data)
    if got is None:
        return None
    values, null = got
    if null is not None:
        values = np.where(null, 0, values)
    if values.dtype.kind == "f":
        return values.astype(np.float64), null, "float", 0
    if values.dtype.kind == "u" and len(values) and int(values.max()) >= 2 ** 63:
        return None
    values = values.astype(np.int64)
    bound = max(int(values.max()), -int(values.min())) if len(values) else 0
    return values, null, "int", bound


@dataclass
class Plan:
    labels: tuple[str, ...]
    conditions: list[Compiled]            # one per label with a DEFINE, over the starts
    step: int                             # where the next match may start, from this one's start
    columns: dict[str, tuple[Any, Any, str, int]]

    def matches(self, index: Any) -> tuple[list[RowMatch], list[int], int]:
        """(matches, unmatched rows, DEFINE evaluations) of the partition whose rows are ``index``."""
        m = len(self.labels)
        n = len(index)
        if n < m:
            return [], list(range(n)), 0
        part = Partition(self.columns, index, n - m + 1)
        ok = np.ones(part.starts, dtype=bool)
        evaluations = 0
        for cond in self.conditions:
            got = cond(part)
            evaluations += part.starts
            ok &= got.values if got.null is None else got.values & ~got.null
        starts = np.flatnonzero(ok).tolist()
        if self.step > 1:
            chosen = []
            free = 0
            step = self.step
            for s in starts:
                if s >= free:
                    chosen.append(s)
                    free = s + step
            starts = chosen
        labels = self.labels
        excluded = (False,) * m
        found = [RowMatch(s, labels, excluded, i + 1) for i, s in enumerate(starts)]
        covered = np.zeros(n + 1, dtype=np.int64)
        if starts:
            at = np.asarray(starts, dtype=np.int64)
            np.add.at(covered, at, 1)
            np.add.at(covered, at + m, -1)
        unmatched = np.flatnonzero(np.cumsum(covered[:n]) == 0).tolist()
        return found, unmatched, evaluations


def plan_query(bound: BoundQuery, arrow: Any) -> Plan | None:
    """The columnar plan of ``bound`` over the table ``arrow``, or None (the thread matcher runs)."""
    q = bound.query
    labels = fixed_labels(q.pattern)
    if not labels or q.within is not None:
        return None
    kind, target = q.after_match
    if kind == "past_last":
        step = len(labels)
    elif kind == "next_row":
        step = 1
    else:
        wanted = bound.members[target]  # type: ignore[index]
        places = [i for i, v in enumerate(labels) if v in wanted]
        if not places:
            return None
        step = places[0] if kind == "first" else places[-1]
        if step == 0:
            return None
    columns: dict[str, tuple[Any, Any, str, int]] = {}
    conditions = []
    try:
        for position, var in enumerate(labels):
            e = q.defines.get(var)
            if e is None:
                continue
            scope = Scope(q.source, bound.columns, bound.variables, q.subsets, "define", defining=var)
            compiler = _Compiler(scope, e.offset, labels, position, arrow, columns)
            conditions.append(compiler.condition(e.tree))
    except Declined:
        return None
    return Plan(tuple(labels), conditions, step, columns)


_COMPARE = {exp.EQ: np.equal, exp.NEQ: np.not_equal, exp.LT: np.less, exp.LTE: np.less_equal,
            exp.GT: np.greater, exp.GTE: np.greater_equal}


class _Compiler:
    """A DEFINE of the label at ``position`` as a function of a :class:`Partition`."""

    def __init__(self, scope: Scope, base: int, labels: list[str], position: int, arrow: Any,
                 columns: dict[str, tuple[Any, Any, str, int]]):
        self.scope, self.base, self.labels, self.position = scope, base, labels, position
        self.arrow, self.columns = arrow, columns

    def condition(self, node: Any) -> Compiled:
        fn, kind = self.compile(node)
        if kind not in ("bool", "null"):
            raise Declined
        return fn

    # every function below returns (compiled, kind): kind int / float / bool / null
    def compile(self, node: Any) -> tuple[Compiled, str]:
        if isinstance(node, exp.Paren):
            return self.compile(node.this)
        if isinstance(node, exp.Boolean):
            v = bool(node.this)
            return (lambda p: Vec(np.full(p.starts, v), None, "bool")), "bool"
        if isinstance(node, exp.Null):
            return _null, "null"
        if isinstance(node, (exp.Literal, exp.Neg)):
            return self.constant(node)
        if type(node) in _COMPARE:
            return self.comparison(node, _COMPARE[type(node)])
        if isinstance(node, (exp.And, exp.Or)):
            return self.logic(node, isinstance(node, exp.And))
        if isinstance(node, exp.Not):
            a, kind = self.compile(node.this)
            if kind not in ("bool", "null"):
                raise Declined

            def negate(p: Partition) -> Vec:
                x = a(p)
                return Vec(~x.values, x.null, "bool")
            return negate, "bool"
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            a, _kind = self.compile(node.this)

            def is_null(p: Partition) -> Vec:
                x = a(p)
                return Vec(np.zeros(p.starts, dtype=bool) if x.null is None else x.null.copy(), None, "bool")
            return is_null, "bool"
        if isinstance(node, exp.Column):
            return self.reference(node, None, 0)
        name = _function_name(node)
        if name in ("PREV", "NEXT", "FIRST", "LAST"):
            args = _arguments(node)
            if not args or len(args) > 2 or not isinstance(args[0], exp.Column):
                raise Declined
            offset = 0 if name in ("FIRST", "LAST") else 1
            if len(args) == 2:
                o = args[1]
                if not (isinstance(o, exp.Literal) and not o.is_string and o.this.isdigit()):
                    raise Declined
                offset = int(o.this)
            return self.reference(args[0], name, offset)
        raise Declined

    def bounds(self, node: Any) -> int:
        """The largest absolute integer an int operand can hold (its column's or its literal's)."""
        while isinstance(node, (exp.Paren, exp.Neg)):
            node = node.this
        if isinstance(node, exp.Literal):
            return abs(int(node.this)) if node.this.isdigit() else 0
        if not isinstance(node, exp.Column):
            node = _arguments(node)[0]
        return self.columns[self.scope.column(node.this, self.base)][3]

    def constant(self, node: Any) -> tuple[Compiled, str]:
        sign = 1
        while isinstance(node, exp.Neg):
            sign, node = -sign, node.this
        if not isinstance(node, exp.Literal) or node.is_string:
            raise Declined
        text = node.this
        try:
            v: Any = int(text) if text.isdigit() else float(text)
        except ValueError:
            raise Declined from None
        if isinstance(v, float):
            if not np.isfinite(v):
                raise Declined
            v = v * sign  # c_Neg: -1.0 * v
            return (lambda p: Vec(np.float64(v), None, "float")), "float"
        v = sign * v if sign < 0 else v
        if abs(v) >= 2 ** 63:
            raise Declined
        bound = abs(v)
        return (lambda p: Vec(np.int64(v), None, "int", bound)), "int"

    def comparison(self, node: Any, op: Any) -> tuple[Compiled, str]:
        a, ka = self.compile(node.this)
        b, kb = self.compile(node.expression)
        if "null" in (ka, kb):
            return _null, "null"
        if ka not in ("int", "float") or kb not in ("int", "float"):
            raise Declined

        if ka != kb and max(self.bounds(node.this), self.bounds(node.expression)) > EXACT:
            raise Declined  # numpy would compare an integer with a float through float64, Python exactly

        def compare(p: Partition) -> Vec:
            x, y = a(p), b(p)
            null = x.null if y.null is None else (y.null if x.null is None else x.null | y.null)
            values = op(x.values, y.values)
            if np.ndim(values) == 0:
                values = np.full(p.starts, bool(values))
            return Vec(values, null, "bool")
        return compare, "bool"

    def logic(self, node: Any, conjunction: bool) -> tuple[Compiled, str]:
        a, ka = self.compile(node.this)
        b, kb = self.compile(node.expression)
        if ka not in ("bool", "null") or kb not in ("bool", "null"):
            raise Declined

        def combine(p: Partition) -> Vec:
            x, y = a(p), b(p)
            if x.null is None and y.null is None:
                return Vec(x.values & y.values if conjunction else x.values | y.values, None, "bool")
            xn = np.zeros(p.starts, dtype=bool) if x.null is None else x.null
            yn = np.zeros(p.starts, dtype=bool) if y.null is None else y.null
            if conjunction:  # FALSE if either is a known FALSE, else NULL if either is NULL
                decided = (~x.values & ~xn) | (~y.values & ~yn)
                null = ~decided & (xn | yn)
                return Vec(~decided & ~null, null, "bool")
            decided = (x.values & ~xn) | (y.values & ~yn)
            return Vec(decided, ~decided & (xn | yn), "bool")
        return combine, "bool"

    def reference(self, node: exp.Column, navigation: str | None, offset: int) -> tuple[Compiled, str]:
        """A column of the row a reference designates: a fixed offset from the start or the current row."""
        sc = self.scope
        if isinstance(node.this, exp.Star):
            raise Declined
        column = sc.column(node.this, self.base)
        table = node.args.get("table")
        members = sc.members(table, self.base) if table is not None else None
        if column not in self.columns:
            got = column_data(self.arrow, column)
            if got is None:
                raise Declined
            self.columns[column] = got
        kind = self.columns[column][2]
        place = self.resolve(members, navigation, offset)
        if place is None:
            return _null, "null"
        base, shift = place

        def value(p: Partition) -> Vec:
            values, null, kind, bound = p.column(column)
            n, count = p.n, p.starts
            rows = p.start_rows if base == "start" else p.current
            if rows is not None:  # a subset of the starts: gather
                at = rows + shift
                inside = (at >= 0) & (at < n)
                at = np.clip(at, 0, max(n - 1, 0))
                missing = ~inside if null is None else ~inside | null[at]
                return Vec(values[at], missing if missing.any() else None, kind, bound)
            if shift >= 0 and shift + count <= n:
                return Vec(values[shift:shift + count], None if null is None else null[shift:shift + count],
                           kind, bound)
            out = np.zeros(count, dtype=values.dtype)
            missing = np.ones(count, dtype=bool)
            lo, hi = max(shift, 0), min(shift + count, n)
            if hi > lo:
                out[lo - shift:hi - shift] = values[lo:hi]
                missing[lo - shift:hi - shift] = False if null is None else null[lo:hi]
            return Vec(out, missing, kind, bound)
        return value, kind

    def resolve(self, members: frozenset[str] | None, navigation: str | None, offset: int) -> tuple[str, int] | None:
        """("start", offset from the match's start) of the row a reference reads, or None (no such row)."""
        seen = range(self.position + 1)  # RUNNING: the rows so far and the current one
        places = [i for i in seen if members is None or self.labels[i] in members]
        if navigation == "FIRST":
            row = places[offset] if offset < len(places) else None
        elif navigation in ("LAST", None):
            row = places[-1 - offset] if offset < len(places) else None
        else:
            row = places[-1] if places else None
            if row is not None:
                row += -offset if navigation == "PREV" else offset
        return None if row is None else ("start", row)


def _null(p: Partition) -> Vec:
    return Vec(np.zeros(p.starts, dtype=bool), np.ones(p.starts, dtype=bool), "null")
