"""MATCH_RECOGNIZE -> studio pattern, where the meaning is exactly equal, refusing the rest by the
construct's name. The inverse of to_sql.py: a query of the shape it writes reads back to the
pattern it came from, and so do the forms below.

- ``PARTITION BY attrs`` is partition_contiguity with ``[attrs]``; none is strict_contiguity;
  ORDER BY is the studio's stream order, so it must be ``ORDER BY ts``.
- The pattern is a concatenation of variables, each plain, ``+``, ``*``, ``?`` (greedy) or
  ``{n}`` (n singletons ``V_1 .. V_n``); alternation, groups, PERMUTE, exclusion, anchors,
  reluctant quantifiers and ``{n,m}`` are refused.
- A DEFINE conjunct ``V.type = 'T'`` is the component's event type; the others are WHERE
  conjuncts, read as to_sql.py writes them (the guards ``COUNT(V.*) = 1 OR ...`` and
  ``COUNT(U.*) = 0 OR ...`` included). The result must itself be convertible (every match fixed
  by its first row), else the studio would report matches the query does not."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from engine.expr import Agg, BinOp, Bool, BoolOp, Cmp, Len, Neg, Node, Not, Num, Ref, Str, to_text, variables
from engine.model import ANY_TYPE, Component, Group, Pattern, PatternError, ReturnItem, Strategy, Window
from engine.engines.sql.conversion.refusals import STUDIO, ConversionError, at_offset, placed, refuse
from engine.engines.sql.conversion.sql_text import literal_value
from engine.engines.sql.query import Query
from engine.engines.sql.row_pattern import Alt, Anchor, Concat, Empty, Exclusion, Node as RowNode, Permute, \
    Quantified, Var

COMPARISONS = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
ARITHMETIC = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*"}
AGGREGATES = {exp.Avg: "avg", exp.Sum: "sum", exp.Min: "min", exp.Max: "max"}
UNITS = {"MILLISECOND": "ms", "SECOND": "s", "MINUTE": "min", "HOUR": "hour", "DAY": "day"}
QUANTIFIERS = {(1, None): "plus", (0, None): "star", (0, 1): "opt"}


@dataclass
class Slot:
    """A variable of the query: its studio components (one, or n for ``V{n}``) and quantifier."""

    sql_name: str
    names: list[str]
    quant: str


def query_to_pattern(query: Query) -> Pattern:
    """The studio pattern equal to ``query`` (a ConversionError naming what has no studio form)."""
    _check_clauses(query)
    try:
        slots = _slots(query)
    except ConversionError as err:
        raise placed(err, at_offset(query.source, _pattern_offset(query))) from None
    by_sql = {s.sql_name: s for s in slots}
    order = [s.sql_name for s in slots]
    comps: list[Component] = []
    where: list[Node] = []
    for slot in slots:
        definition = query.defines.get(slot.sql_name)
        conjuncts = _conjuncts(definition.tree) if definition is not None else []
        event_type, rest = _event_type(conjuncts, slot.sql_name)
        for k, name in enumerate(slot.names):
            comps.append(Component(type=event_type, var=name, quant=slot.quant))  # type: ignore[arg-type]
            reader = Reader(by_sql, order, slot.sql_name, k)
            for c in rest:
                try:
                    e = reader.conjunct(c)
                except ConversionError as err:
                    raise placed(err, at_offset(query.source, definition.offset)) from None  # type: ignore[union-attr]
                if slot.quant in ("opt", "star") and name not in variables(e):
                    raise refuse(f"a condition of optional {slot.sql_name} that does not read {slot.sql_name}",
                                 STUDIO, "it binds only when the row is taken; a studio predicate binds always",
                                 f"DEFINE {slot.sql_name}")
                where.append(e)
    returns = _returns(query, slots, by_sql, order)
    pattern = Pattern(root=Group(op="SEQ", items=comps), where=where,
                      equivalence=[k.column for k in query.partition_by],
                      strategy=Strategy.PARTITION if query.partition_by else Strategy.STRICT,
                      window=_window(query), output="NON_OVERLAP" if query.after_match[0] == "past_last" else "ALL",
                      returns=returns)
    try:
        pattern.check()
    except PatternError as err:
        raise refuse("this query", STUDIO, str(err)) from None
    from engine.engines.sql.conversion.studio_shape import analyse

    try:
        analyse(pattern)
    except ConversionError as err:
        raise refuse(err.construct, STUDIO, err.why, err.where, err.hint) from None
    return pattern


def _pattern_offset(q: Query) -> int:
    """Where PATTERN's first variable stands (the pattern's parts keep their variables' offsets)."""
    names = [v for v in _walk_variables(q.pattern)]
    return names[0] if names else 0


def _walk_variables(node: Any) -> list[int]:
    if isinstance(node, Var):
        return [node.offset]
    out: list[int] = []
    for child in getattr(node, "parts", ()) + getattr(node, "options", ()) + getattr(node, "items", ()):
        out += _walk_variables(child)
    body = getattr(node, "body", None)
    if body is not None:
        out += _walk_variables(body)
    return out


def _check_clauses(q: Query) -> None:
    if q.select is not None:
        raise refuse("a SELECT list", STUDIO, "the studio's RETURN names the measures", hint="write SELECT *")
    if q.final_order:
        raise refuse("ORDER BY after MATCH_RECOGNIZE", STUDIO, "the studio reports matches in stream order")
    if q.rows_per_match == "all":
        raise refuse("ALL ROWS PER MATCH", STUDIO, "the studio reports one result per match")
    kind, var = q.after_match
    if kind in ("first", "last"):
        raise refuse(f"AFTER MATCH SKIP TO {kind.upper()} {var}", STUDIO,
                     "the studio reports every match (SKIP TO NEXT ROW) or the non-overlapping ones (PAST LAST ROW)")
    if q.subsets:
        raise refuse("SUBSET", STUDIO, "a studio predicate names its variables one by one")
    if len(q.order_by) != 1 or q.order_by[0].column.lower() != "ts" or q.order_by[0].descending:
        written = ", ".join(k.column + (" DESC" if k.descending else "") for k in q.order_by)
        raise refuse(f"ORDER BY {written}", STUDIO, "the studio's stream is ordered by ts", hint="ORDER BY ts")


def _slots(q: Query) -> list[Slot]:
    node = q.pattern
    parts: tuple[RowNode, ...] = node.parts if isinstance(node, Concat) else (node,)  # type: ignore[union-attr]
    slots: list[Slot] = []
    seen: set[str] = set()
    names_taken = set(q.variables)
    for part in parts:
        name, quant, count = _term(part)
        if name in seen:
            raise refuse(f"variable {name} used twice", STUDIO, "each studio component has its own variable")
        seen.add(name)
        if count == 1:
            slots.append(Slot(name, [name], quant))
            continue
        names = [f"{name}_{k}" for k in range(1, count + 1)]
        clash = names_taken.intersection(names)
        if clash:
            raise refuse(f"{name}{{{count}}}", STUDIO, f"its components would be named {sorted(clash)[0]}, "
                         "which the query already uses")
        slots.append(Slot(name, names, "one"))
    for s in slots:
        for n in s.names:
            if not n.isidentifier() or n.upper() in {"PATTERN", "SEQ", "AND", "OR", "NOT", "WHERE", "WITHIN",
                                                     "OUTPUT", "AGG", "GROUP", "BY", "RETURN", "AS", "ANY"}:
                raise refuse(f'variable "{n}"', STUDIO, "a studio variable is a word that is not a keyword")
    return slots


def _term(part: RowNode) -> tuple[str, str, int]:
    if isinstance(part, Var):
        return part.name, "one", 1
    if isinstance(part, Quantified):
        if not isinstance(part.body, Var):
            raise refuse("a quantified group", STUDIO, "a studio component repeats one event, not a sequence")
        if not part.greedy:
            raise refuse("a reluctant quantifier", STUDIO, "the studio reports every length, not the shortest")
        bounds = (part.min, part.max)
        if bounds in QUANTIFIERS:
            return part.body.name, QUANTIFIERS[bounds], 1
        if part.min == part.max:
            return part.body.name, "one", part.min
        raise refuse(f"{{{part.min},{'' if part.max is None else part.max}}}", STUDIO,
                     "the studio has one or more (+), zero or more (*), optional (?) and fixed counts",
                     f"variable {part.body.name}")
    names = {Alt: "alternation |", Permute: "PERMUTE", Exclusion: "exclusion {- -}", Empty: "the empty pattern ()"}
    if isinstance(part, Anchor):
        raise refuse(f"the anchor {part.kind}", STUDIO, "a studio match may start and end anywhere")
    raise refuse(names.get(type(part), type(part).__name__), STUDIO,
                 "a studio pattern is a sequence of components, each reported in every way it matches")


def _conjuncts(tree: Any) -> list[Any]:
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if isinstance(tree, exp.And):
        return _conjuncts(tree.this) + _conjuncts(tree.expression)
    if isinstance(tree, exp.Boolean) and tree.this:
        return []
    return [tree]


def _event_type(conjuncts: list[Any], var: str) -> tuple[str, list[Any]]:
    for k, c in enumerate(conjuncts):
        if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and c.this.name.lower() == "type" \
                and _qualifier(c.this) in (var, None) and isinstance(c.expression, exp.Literal) \
                and c.expression.is_string:
            name = str(c.expression.this)
            if name.isidentifier() and name.upper() != ANY_TYPE:
                return name, conjuncts[:k] + conjuncts[k + 1:]
    return ANY_TYPE, conjuncts


def _qualifier(column: Any) -> str | None:
    table = column.args.get("table")
    if table is None:
        return None
    return table.name if table.args.get("quoted") else table.name.upper()


def _window(q: Query) -> Window | None:
    if q.within is None:
        return None
    m = re.search(r"INTERVAL\s*'\s*([0-9.]+)\s*'\s*(\w+)", q.within[1], re.IGNORECASE)
    if m is None:
        raise refuse(q.within[1], STUDIO, "an interval is written WITHIN INTERVAL 'n' unit")
    word = m.group(2).upper()
    unit = UNITS.get(word.rstrip("S") if word != "MS" else "MILLISECOND")
    if unit is None:
        raise refuse(q.within[1], STUDIO, "the unit is one of MILLISECOND, SECOND, MINUTE, HOUR, DAY")
    text = m.group(1)
    value: int | float = int(text) if text.isdigit() else float(text)
    return Window(value=value, unit=unit)  # type: ignore[arg-type]


def _returns(q: Query, slots: list[Slot], by_sql: dict[str, Slot], order: list[str]) -> list[ReturnItem]:
    expected: list[tuple[str, str, str]] = []
    for s in slots:
        for n in s.names:
            if s.quant in ("plus", "star"):
                expected += [("first", n, n + "_first"), ("last", n, n + "_last")]
            else:
                expected.append(("row", n, n))
    found = [_id_measure(m.expression.tree, m.name, by_sql) for m in q.measures]
    if found == expected:
        return []
    out = []
    for m in q.measures:
        try:
            e = Reader(by_sql, order, None, 0).expression(m.expression.tree)
        except ConversionError as err:
            raise placed(err, at_offset(q.source, m.expression.offset)) from None
        out.append(ReturnItem(expr=e, alias=None if m.name == to_text(e) else m.name))
    return out


def _id_measure(tree: Any, name: str, by_sql: dict[str, Slot]) -> tuple[str, str, str] | None:
    kind = "row"
    if isinstance(tree, (exp.First, exp.Last)) and tree.args.get("expression") is None:
        kind, tree = ("first" if isinstance(tree, exp.First) else "last"), tree.this
    if not (isinstance(tree, exp.Column) and tree.name == "id"):
        return None
    slot = by_sql.get(_qualifier(tree) or "")
    if slot is None:
        return None
    if len(slot.names) > 1:  # V{n}: its first and last rows are the components V_1 and V_n
        return "row", slot.names[0] if kind == "first" else slot.names[-1], name
    return kind, slot.names[0], name


class Reader:
    """sqlglot trees of one DEFINE (``target`` the variable defined, ``copy`` which of its
    ``{n}`` components) or of MEASURES (``target`` None) as studio expressions."""

    def __init__(self, slots: dict[str, Slot], order: list[str], target: str | None, copy: int):
        self.slots, self.order, self.target, self.copy = slots, order, target, copy
        self.iterating = False
        self.guarded: set[str] = set()

    def fail(self, construct: str, why: str) -> ConversionError:
        where = f"DEFINE {self.target}" if self.target else "MEASURES"
        return refuse(construct, STUDIO, why, where)

    def conjunct(self, tree: Any) -> Node:
        """One DEFINE conjunct, with the guards to_sql.py writes read back."""
        while isinstance(tree, exp.Paren):
            tree = tree.this
        if isinstance(tree, exp.Or):
            guard, body = tree.this, tree.expression
            counted = self._count_guard(guard)
            if counted is not None:
                var, value = counted
                slot = self.slots[var]
                if value == 1 and var == self.target and slot.quant in ("plus", "star"):
                    self.iterating = True
                    try:
                        return self.conjunct(body)
                    finally:
                        self.iterating = False
                if value == 0 and var != self.target and slot.quant in ("star", "opt"):
                    self.guarded.add(var)
                    try:
                        return self.conjunct(body)
                    finally:
                        self.guarded.discard(var)
        return self.expression(tree)

    def _count_guard(self, tree: Any) -> tuple[str, int] | None:
        while isinstance(tree, exp.Paren):
            tree = tree.this
        if isinstance(tree, exp.EQ) and isinstance(tree.this, exp.Count) and isinstance(tree.expression, exp.Literal):
            column = tree.this.this
            if isinstance(column, exp.Column) and isinstance(column.this, exp.Star):
                var = _qualifier(column)
                if var in self.slots and str(tree.expression.this) in ("0", "1"):
                    return var, int(str(tree.expression.this))
        return None

    def expression(self, tree: Any) -> Node:
        if isinstance(tree, exp.Paren):
            return self.expression(tree.this)
        for kind, op in COMPARISONS.items():
            if type(tree) is kind:
                return Cmp(op=op, left=self.expression(tree.this), right=self.expression(tree.expression))
        for kind, op in ARITHMETIC.items():
            if type(tree) is kind:
                return BinOp(op=op, left=self.expression(tree.this), right=self.expression(tree.expression))
        if isinstance(tree, exp.Div):
            return self._division(tree)
        if isinstance(tree, (exp.And, exp.Or)):
            return BoolOp(op="AND" if isinstance(tree, exp.And) else "OR",
                          items=[self.expression(tree.this), self.expression(tree.expression)])
        if isinstance(tree, exp.Not):
            inner = tree.this
            while isinstance(inner, exp.Paren):
                inner = inner.this
            if isinstance(inner, exp.Coalesce) and len(inner.expressions) == 1 \
                    and isinstance(inner.expressions[0], exp.Boolean) and not inner.expressions[0].this:
                return Not(item=self.expression(inner.this))
            raise self.fail("NOT", "SQL's NOT of a NULL comparison is NULL, the studio's is true: write "
                            "NOT COALESCE(condition, FALSE)")
        if isinstance(tree, exp.Neg):
            return Neg(item=self.expression(tree.this))
        if isinstance(tree, exp.Literal):
            value = literal_value(tree)
            return Str(value=value) if isinstance(value, str) else Num(value=value)
        if isinstance(tree, exp.Boolean):
            return Bool(value=bool(tree.this))
        if isinstance(tree, exp.Column):
            return self.column(tree, "row")
        if isinstance(tree, (exp.First, exp.Last)):
            return self._navigation(tree)
        if isinstance(tree, exp.Count):
            return self._count(tree)
        for kind, func in AGGREGATES.items():
            if type(tree) is kind:
                return self._aggregate(tree.this, func)
        if isinstance(tree, exp.Anonymous) and str(tree.this).upper().startswith("FINAL_") and self.target is None:
            inner = exp.Anonymous(this=str(tree.this)[6:], expressions=tree.expressions)
            return self.expression(sqlglot_function(inner))
        raise self.fail(_construct_name(tree), "it has no studio counterpart")

    def _division(self, tree: Any) -> Node:
        left, right = tree.this, tree.expression
        while isinstance(left, exp.Paren):
            left = left.this
        exact = isinstance(left, exp.Cast) and left.to.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)
        value = literal_value(right) if isinstance(right, exp.Literal) and not right.is_string else None
        if not exact or not value:
            raise self.fail("`/`", "SQL divides integers with truncation and stops on division by zero; the "
                            "studio divides exactly and makes the comparison false: write "
                            "CAST(x AS DOUBLE) / n with a non-zero number n")
        return BinOp(op="/", left=self.expression(left.this), right=Num(value=value))

    def _navigation(self, tree: Any) -> Node:
        first = isinstance(tree, exp.First)
        offset = tree.args.get("expression")
        column = tree.this
        if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
            raise self.fail(_construct_name(tree), "the studio navigates to a variable's attribute")
        if offset is None:
            return self.column(column, "first" if first else "last")
        if not first and isinstance(offset, exp.Literal) and str(offset.this) == "1":
            return self.column(column, "previous")
        raise self.fail(f"{'FIRST' if first else 'LAST'} with an offset", "the studio has a[1], a[last] "
                        "and a[i-1] only")

    def _count(self, tree: Any) -> Node:
        column = tree.this
        if isinstance(column, exp.Column) and isinstance(column.this, exp.Star):
            var = self._variable(column)
            slot = self.slots[var]
            if var == self.target:
                raise self.fail(f"COUNT({var}.*) in its own DEFINE", "the studio's a.len is read after the fact")
            if len(slot.names) > 1:
                return Num(value=len(slot.names))
            if slot.quant not in ("plus", "star"):
                raise self.fail(f"COUNT({var}.*)", f"{var} is not a Kleene variable")
            return Len(var=slot.names[0])
        raise self.fail("COUNT of a column", "the studio counts a variable's events: COUNT(v.*)")

    def _aggregate(self, column: Any, func: str) -> Node:
        if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
            raise self.fail(f"{func.upper()} of an expression", "the studio aggregates one attribute")
        var = self._variable(column)
        slot = self.slots[var]
        if var == self.target or slot.quant not in ("plus", "star"):
            raise self.fail(f"{func.upper()}({var}.{column.name})", "the studio aggregates over an earlier Kleene "
                            "variable")
        return Agg(func=func, var=slot.names[0], attr=column.name, scope="all")  # type: ignore[arg-type]

    def _variable(self, column: Any) -> str:
        var = _qualifier(column)
        if var is None:
            if self.target is None:
                raise self.fail(f"unqualified column {column.name}", "qualify it with a variable")
            return self.target
        if var not in self.slots:
            raise self.fail(f"{var}.{column.name}", f"{var} is not a pattern variable")
        if self.target is not None and self.order.index(var) > self.order.index(self.target):
            raise self.fail(f"{var}.{column.name}", f"{var} comes later in the pattern: the row is not labelled yet")
        return var

    def column(self, column: Any, how: str) -> Node:
        """``how``: row (``V.x``), first, last, previous (``LAST(V.x, 1)``)."""
        var = self._variable(column)
        attr = column.name
        slot = self.slots[var]
        if var == self.target:
            name = slot.names[self.copy]
            if how == "row":
                return Ref(var=name, attr=attr, index="i" if self.iterating else None)
            if slot.quant in ("plus", "star") and how == "previous" and self.iterating:
                return Ref(var=name, attr=attr, index="i-1")
            if slot.quant in ("plus", "star") and how == "first":
                return Ref(var=name, attr=attr, index="1")
            if how == "first" and len(slot.names) > 1:
                return Ref(var=slot.names[0], attr=attr)
            if how in ("first", "last") and len(slot.names) == 1 and slot.quant not in ("plus", "star"):
                return Ref(var=name, attr=attr)
            raise self.fail(f"{how.upper() if how != 'previous' else 'LAST'}({var}.{attr}"
                            f"{', 1' if how == 'previous' else ''}) in its own DEFINE",
                            "the studio reads the element before the one being added as a[i-1] only under the "
                            f"guard COUNT({var}.*) = 1 OR ...")
        if how == "previous":
            raise self.fail(f"LAST({var}.{attr}, 1)", "the studio reads the element before the last of an "
                            "earlier variable nowhere")
        if slot.quant in ("star", "opt") and self.target is not None and var not in self.guarded:
            raise self.fail(f"{var}.{attr}", f"{var} may take no row, where SQL reads NULL and the studio's "
                            f"predicate holds: guard it with COUNT({var}.*) = 0 OR ...")
        if len(slot.names) > 1:
            return Ref(var=slot.names[0] if how == "first" else slot.names[-1], attr=attr)
        name = slot.names[0]
        if slot.quant in ("plus", "star"):
            return Ref(var=name, attr=attr, index="1" if how == "first" else "last")
        return Ref(var=name, attr=attr)


def sqlglot_function(node: Any) -> Any:
    """``FINAL_LAST(x)`` read as sqlglot's own FIRST/LAST/aggregate node."""
    import sqlglot

    return sqlglot.parse_one(node.sql())


def _construct_name(tree: Any) -> str:
    if isinstance(tree, exp.Anonymous):
        name = str(tree.this).upper()
        for word in ("RUNNING_", "FINAL_"):
            if name.startswith(word):
                return f"{word[:-1]} {name[len(word):]}"
        return f"{name}()"
    if isinstance(tree, exp.Func):
        return f"{tree.sql_name()}()"
    return tree.key.upper()
