"""Studio pattern -> MATCH_RECOGNIZE, where the meaning is exactly equal (studio_shape.py says
where), refusing the rest by name.

The query reads the studio's own event table (columns ``id``, ``type``, ``ts`` and the
attributes), ordered by ``ts`` (ties in input order, as the studio's stream). A component
``Type v`` is the variable ``v`` (quoted unless upper-case, so it reads back exactly) whose DEFINE
holds ``v.type = 'Type'`` and every WHERE conjunct whose latest variable is ``v``:

- ``v.x`` of the row being labelled, ``v[i].x`` too; ``v[i-1].x`` = ``LAST(v.x, 1)``; a conjunct
  with ``v[i]`` holds vacuously on the first element, hence ``(COUNT(v.*) = 1 OR ...)``;
- of an earlier variable ``u``: ``u.x`` (a singleton), ``u[1].x`` = ``FIRST(u.x)``,
  ``u[last].x`` = ``LAST(u.x)``, ``u.len`` = ``COUNT(u.*)``, ``avg(u[].x)`` = ``AVG(u.x)``; a
  conjunct about an optional ``u`` that took no row holds, hence ``(COUNT(u.*) = 0 OR ...)``;
- ``NOT e`` is ``NOT COALESCE(e, FALSE)``: the studio's comparison with a missing value is false,
  so its negation is true, where SQL's is NULL;
- ``x / k`` divides exactly (``CAST(x AS DOUBLE) / k``) and only by a non-zero number, since
  the studio's division by zero makes the comparison false where SQL stops with an error.

partition_contiguity with ``[attr]`` is ``PARTITION BY attr``; WITHIN is ``WITHIN INTERVAL``
(a unitless window in seconds, the SQL side's unit of a numeric ts); OUTPUT ALL is AFTER MATCH
SKIP TO NEXT ROW and NON_OVERLAP is SKIP PAST LAST ROW. MEASURES: RETURN's items, or for each
variable its row id (``v``), or the first and last ids (``v_first``, ``v_last``) of a Kleene."""
from __future__ import annotations

from engine.expr import Agg, BinOp, Bool, BoolOp, Cmp, Len, Neg, Node, Not, Num, Ref, Str, to_text, variables
from engine.model import ANY_TYPE, Component, Pattern, Strategy, Window
from engine.engines.sql.conversion.refusals import MATCH_RECOGNIZE, ConversionError, at_span, placed, refuse
from engine.engines.sql.conversion.sql_text import column_name, number_literal, string_literal, variable_name
from engine.engines.sql.conversion.studio_shape import Shape, analyse, own_conjuncts

DEFAULT_TABLE = "events"
TYPE_COLUMN, TIME_COLUMN, ID_COLUMN = "type", "ts", "id"
UNIT_WORDS = {None: "SECOND", "s": "SECOND", "ms": "MILLISECOND", "min": "MINUTE", "hour": "HOUR", "day": "DAY"}
SQL_AGGREGATES = {"avg": "AVG", "sum": "SUM", "min": "MIN", "max": "MAX", "count": "COUNT"}


def pattern_to_sql(pattern: Pattern, table: str = DEFAULT_TABLE) -> str:
    """The MATCH_RECOGNIZE query of ``pattern`` (a ConversionError when it has no exact form)."""
    shape = analyse(pattern)
    comps = shape.components
    lines = [f"SELECT * FROM {column_name(table)} MATCH_RECOGNIZE ("]
    if pattern.strategy is Strategy.PARTITION and pattern.equivalence:
        lines.append("  PARTITION BY " + ", ".join(column_name(a) for a in pattern.equivalence))
    lines.append(f"  ORDER BY {TIME_COLUMN}")
    lines.append("  MEASURES " + ",\n           ".join(measures(pattern, comps)))
    lines.append("  ONE ROW PER MATCH")
    skip = "PAST LAST ROW" if pattern.output == "NON_OVERLAP" else "TO NEXT ROW"
    lines.append(f"  AFTER MATCH SKIP {skip}")
    lines.append("  PATTERN (" + " ".join(_pattern_term(c) for c in comps) + ")")
    if pattern.window is not None:
        lines.append("  " + within_text(pattern.window))
    defines = [d for d in (define_text(shape, c) for c in comps) if d is not None]
    if not defines:
        defines = [f"{variable_name(comps[0].var)} AS TRUE"]
    lines.append("  DEFINE " + ",\n         ".join(defines))
    lines.append(")")
    return "\n".join(lines) + "\n"


def within_text(window: Window) -> str:
    value = window.value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"WITHIN INTERVAL '{number_literal(value)}' {UNIT_WORDS[window.unit]}"


def _pattern_term(c: Component) -> str:
    return variable_name(c.var) + {"one": "", "plus": "+", "star": "*", "opt": "?"}[c.quant]


def default_measures(comps: list[Component]) -> list[str]:
    """Each variable's row id, or a Kleene's first and last ids (contiguous rows, so they fix it)."""
    out = []
    for c in comps:
        v = variable_name(c.var)
        if c.kleene:
            out.append(f"FIRST({v}.{ID_COLUMN}) AS {column_name(c.var + '_first')}")
            out.append(f"LAST({v}.{ID_COLUMN}) AS {column_name(c.var + '_last')}")
        else:
            out.append(f"{v}.{ID_COLUMN} AS {column_name(c.var)}")
    return out


def measures(pattern: Pattern, comps: list[Component]) -> list[str]:
    if not pattern.returns:
        return default_measures(comps)
    by_var = {c.var: c for c in comps}
    out: list[str] = []
    for item in pattern.returns:
        if item.var is not None:
            out.extend(default_measures([by_var[item.var]]))
            continue
        assert item.expr is not None
        name = item.alias or to_text(item.expr)
        try:
            out.append(f"{Translator(by_var, None).sql(item.expr)} AS {column_name(name)}")
        except ConversionError as err:
            raise placed(err, at_span(item.expr.span)) from None
    return out


def define_text(shape: Shape, comp: Component) -> str | None:
    by_var = {c.var: c for c in shape.components}
    parts: list[str] = []
    if comp.type != ANY_TYPE:
        parts.append(f"{variable_name(comp.var)}.{TYPE_COLUMN} = {string_literal(comp.type)}")
    for e in own_conjuncts(shape, comp.var):
        try:
            parts.append(Translator(by_var, comp.var).conjunct(e))
        except ConversionError as err:
            raise placed(err, at_span(e.span)) from None
    if not parts:
        return None
    return f"{variable_name(comp.var)} AS " + " AND ".join(parts)


class Translator:
    """Studio expressions as SQL, in the DEFINE of ``target`` (or, target None, in MEASURES)."""

    def __init__(self, components: dict[str, Component], target: str | None):
        self.components, self.target = components, target

    def conjunct(self, e: Node) -> str:
        text = self.sql(e)
        names = variables(e)
        target = self.target
        iterating = any(isinstance(n, Ref) and n.var == target and n.index in ("i", "i-1") for n in e.walk())
        element_wise = any(isinstance(n, Ref) and n.var == target and n.index is None for n in e.walk())
        comp = self.components[target] if target else None
        if iterating and element_wise and comp is not None and comp.kleene:
            raise refuse(f"`{target}[i]` with unindexed `{target}.x` in one predicate", MATCH_RECOGNIZE,
                         "the studio reads the first with i >= 2 and the second for every element",
                         f"`{to_text(e)}`", "split it into two predicates")
        if iterating:
            text = f"(COUNT({variable_name(target)}.*) = 1 OR {text})"  # type: ignore[arg-type]
        for name in sorted(names - {target}):
            if self.components[name].optional:
                text = f"(COUNT({variable_name(name)}.*) = 0 OR {text})"
        return text

    def sql(self, e: Node) -> str:
        if isinstance(e, Num):
            value = e.number
            return number_literal(value) if value >= 0 else f"({number_literal(value)})"
        if isinstance(e, Str):
            return string_literal(e.value)
        if isinstance(e, Bool):
            return "TRUE" if e.value else "FALSE"
        if isinstance(e, Ref):
            return self.reference(e)
        if isinstance(e, Len):
            self.earlier(e.var, f"{e.var}.len")
            return f"COUNT({variable_name(e.var)}.*)"
        if isinstance(e, Agg):
            if e.scope == "prefix":
                raise refuse(f"`{e.func}({e.var}[..i-1].{e.attr})`", MATCH_RECOGNIZE,
                             "a running aggregate in DEFINE includes the row being labelled",
                             f"variable `{e.var}`")
            self.earlier(e.var, f"{e.func}({e.var}[].{e.attr})")
            return f"{SQL_AGGREGATES[e.func]}({variable_name(e.var)}.{column_name(e.attr)})"
        if isinstance(e, Neg):
            return f"-({self.sql(e.item)})"
        if isinstance(e, Not):  # the studio's NOT of a comparison with a missing value is true
            return f"NOT COALESCE({self.sql(e.item)}, FALSE)"
        if isinstance(e, BoolOp):
            return "(" + f" {e.op} ".join(self.sql(i) for i in e.items) + ")"
        if isinstance(e, Cmp):
            op = "<>" if e.op == "!=" else e.op
            return f"{self.sql(e.left)} {op} {self.sql(e.right)}"
        if isinstance(e, BinOp):
            if e.op == "%":
                raise refuse("`%`", MATCH_RECOGNIZE, "the studio's remainder takes the divisor's sign (floor), "
                             "SQL's the dividend's (truncation)", f"`{to_text(e)}`")
            if e.op == "/":
                if not isinstance(e.right, Num) or e.right.number == 0:
                    raise refuse("`/` by a column", MATCH_RECOGNIZE, "the studio's division by zero makes the "
                                 "comparison false where SQL stops with an error", f"`{to_text(e)}`",
                                 "divide by a non-zero number, or multiply instead")
                return f"(CAST({self.sql(e.left)} AS DOUBLE) / {self.sql(e.right)})"
            return f"({self.sql(e.left)} {e.op} {self.sql(e.right)})"
        raise refuse(type(e).__name__, MATCH_RECOGNIZE, "not a studio expression")

    def earlier(self, var: str, what: str) -> None:
        comp = self.components[var]
        if var == self.target:
            raise refuse(f"`{what}` in a predicate of `{var}` itself", MATCH_RECOGNIZE,
                         "the studio reads it over the elements before the one being added; SQL's running "
                         "aggregate includes it", f"variable `{var}`")
        if not comp.kleene:
            raise refuse(f"`{what}`", MATCH_RECOGNIZE, f"`{var}` is not a Kleene variable")

    def reference(self, e: Ref) -> str:
        var, comp = e.var, self.components[e.var]
        col = f"{variable_name(var)}.{column_name(e.attr)}"
        mine = var == self.target
        if e.index is None:
            if comp.kleene and not mine:
                raise refuse(f"unindexed `{var}.{e.attr}` of Kleene `{var}` with another variable", MATCH_RECOGNIZE,
                             "the studio requires it of every element, a DEFINE sees one row of the other variable",
                             f"variable `{var}`", f"use `{var}[1].{e.attr}` or `{var}[last].{e.attr}`")
            return col
        if e.index == "1":
            return f"FIRST({col})"
        if e.index in ("i", "i-1"):
            if not mine:
                raise refuse(f"`{var}[{e.index}]` in a predicate with a later variable", MATCH_RECOGNIZE,
                             f"the studio iterates over the elements of `{var}`; a DEFINE of the later variable "
                             "sees them after the fact", f"variable `{var}`")
            return col if e.index == "i" else f"LAST({col}, 1)"
        if mine:
            raise refuse(f"`{var}[last]` in a predicate of `{var}` itself", MATCH_RECOGNIZE,
                         f"write `{var}[i-1]` for the element before the one being added", f"variable `{var}`")
        return f"LAST({col})"
