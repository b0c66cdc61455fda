"""Compile an expression of the query (sqlglot's tree) into a function of a
:class:`~engine.engines.sql.frame.Frame`, checking every name against the table, the pattern
variables and the subsets (errors name the place and suggest the close names). Nothing is
evaluated as Python text.

Column references: ``v.col`` is the last row labelled ``v`` (or by a member of the subset ``v``)
that the semantics sees; a bare ``col`` is the current row (the universal variable). ``FIRST`` /
``LAST`` count among those rows; ``PREV`` / ``NEXT`` move physically in the partition from the row
their argument designates. Aggregates run over the rows of one variable. ``RUNNING`` sees the
match up to the current row, ``FINAL`` the whole match (MEASURES only). The compiler records in
:class:`Needs` which part of the label history a DEFINE can look at, so that the matcher may merge
threads that no DEFINE can tell apart."""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlglot import exp

from engine.engines.sql import values as V
from engine.engines.sql.errors import SqlError, error_at
from engine.engines.sql.frame import Frame
from engine.engines.sql.functions import SCALAR_CLASSES, SCALARS, aggregate_function
from engine.engines.sql.query import Expression

Compiled = Callable[[Frame], Any]
Members = frozenset[str] | None  # None: the universal variable (every row of the match)

AGGREGATES = {"COUNT", "SUM", "AVG", "MIN", "MAX", "COUNT_IF", "ARRAY_AGG", "BOOL_AND", "BOOL_OR", "EVERY",
              "ARBITRARY", "ANY_VALUE", "MAX_BY", "MIN_BY", "STDDEV", "STDDEV_SAMP", "STDDEV_POP", "VARIANCE",
              "VAR_SAMP", "VAR_POP", "LISTAGG", "STRING_AGG"}
_AGG_CLASSES = {exp.Count: "COUNT", exp.Sum: "SUM", exp.Avg: "AVG", exp.Min: "MIN", exp.Max: "MAX",
                exp.CountIf: "COUNT_IF", exp.ArrayAgg: "ARRAY_AGG", exp.LogicalAnd: "BOOL_AND",
                exp.LogicalOr: "BOOL_OR", exp.AnyValue: "ANY_VALUE", exp.ArgMax: "MAX_BY", exp.ArgMin: "MIN_BY",
                exp.Stddev: "STDDEV", exp.StddevSamp: "STDDEV_SAMP", exp.StddevPop: "STDDEV_POP",
                exp.Variance: "VARIANCE", exp.VariancePop: "VAR_POP", exp.GroupConcat: "STRING_AGG"}


@dataclass
class Needs:
    """What of the label history an expression reads: ``("last", members, k)`` the last k rows of
    the members, ``("first", members, k)``, ``("all", members)``, ``("labels",)`` every label."""

    items: set[tuple[Any, ...]] = field(default_factory=set)


@dataclass
class Scope:
    """Names an expression may use and how it is evaluated."""

    source: str
    columns: list[str]
    variables: list[str]
    subsets: dict[str, tuple[str, ...]]
    mode: str                      # "define", "measure", "select", "constant"
    defining: str | None = None    # the variable a DEFINE is for
    running: bool = True           # the default semantics (RUNNING; FINAL in ONE ROW PER MATCH)
    needs: Needs = field(default_factory=Needs)
    qualifiers: tuple[str, ...] = ()  # SELECT: the names that may qualify an output column (upper-cased)

    def column(self, ident: exp.Identifier, offset: int) -> str:
        name = ident.name
        if ident.args.get("quoted"):
            if name in self.columns:
                return name
        else:
            for c in self.columns:
                if c.upper() == name.upper():
                    return c
        close = difflib.get_close_matches(name, self.columns, n=1)
        hint = f"did you mean {close[0]}?" if close else "the columns are " + ", ".join(self.columns[:12])
        raise error_at(self.source, offset, f"no column {name!r} in the input", hint, max(1, len(name)))

    def members(self, ident: exp.Identifier, offset: int) -> frozenset[str]:
        name = ident.name if ident.args.get("quoted") else ident.name.upper()
        if name in self.variables:
            return frozenset({name})
        if name in self.subsets:
            return frozenset(self.subsets[name])
        names = self.variables + list(self.subsets)
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {close[0]}?" if close else "the pattern variables are " + ", ".join(names)
        raise error_at(self.source, offset, f"{ident.name} is not a pattern variable or a subset", hint,
                       max(1, len(ident.name)))


def check_shape(tree: Any, source: str, start: int, what: str) -> None:
    """Refuse what no MATCH_RECOGNIZE expression holds (subqueries, window functions)."""
    for node in tree.walk():
        if isinstance(node, (exp.Select, exp.Subquery)):
            raise error_at(source, start, f"a subquery in a {what} is not supported", "use navigation or aggregates")
        if isinstance(node, exp.Window):
            raise error_at(source, start, f"a window function in a {what} is not supported",
                           "MATCH_RECOGNIZE's own aggregates run over a variable's rows: sum(A.x)")


def constant_value(e: Expression) -> Any:
    """The value of a constant expression (a VALUES item)."""
    scope = Scope(e.text, [], [], {}, "constant")
    fn = Compiler(scope, e.offset).compile(e.tree)
    try:
        return fn(Frame([], 0, []))
    except V.SqlValueError as err:
        raise error_at(e.text, 0, f"cannot compute this value: {err}") from None


def compile_expression(e: Expression, scope: Scope) -> Compiled:
    fn = Compiler(scope, e.offset).compile(e.tree)
    text = e.text.strip()

    def run(f: Frame) -> Any:
        try:
            return fn(f)
        except V.SqlValueError as err:
            raise V.SqlValueError(f"`{text}`: {err}") from None
    run.__doc__ = text
    return run


def _offset(node: Any, default: int) -> int:
    for n in node.walk():
        meta = getattr(n, "meta", None) or {}
        if "start" in meta:
            return default + meta["start"] if isinstance(n, (exp.Identifier, exp.Anonymous)) else default
    return default


class Compiler:
    def __init__(self, scope: Scope, base: int):
        self.scope = scope
        self.base = base

    def fail(self, node: Any, message: str, hint: str | None = None) -> SqlError:
        return error_at(self.scope.source, _offset(node, self.base), message, hint)

    # ------------------------------------------------------------------ entry
    def compile(self, node: Any, running: bool | None = None) -> Compiled:
        running = self.scope.running if running is None else running
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is not None:
            return method(node, running)
        name = _function_name(node)
        if name is not None:
            return self.function(node, name, running)
        raise self.fail(node, f"{type(node).__name__.lower()} is not supported in MATCH_RECOGNIZE expressions: "
                              f"{node.sql()[:60]}")

    # ------------------------------------------------------------------ literals
    def c_Literal(self, node: exp.Literal, running: bool) -> Compiled:
        if node.is_string:
            v: Any = node.this
        else:
            text = node.this
            try:
                v = int(text) if text.isdigit() else float(text)
            except ValueError:
                raise self.fail(node, f"{text!r} is not a number") from None
            if isinstance(v, float) and not math.isfinite(v):
                raise self.fail(node, f"{text} is not a finite number")
        return lambda f: v

    def c_Boolean(self, node: exp.Boolean, running: bool) -> Compiled:
        v = bool(node.this)
        return lambda f: v

    def c_Null(self, node: exp.Null, running: bool) -> Compiled:
        return lambda f: None

    def c_Paren(self, node: exp.Paren, running: bool) -> Compiled:
        return self.compile(node.this, running)

    def c_Tuple(self, node: exp.Tuple, running: bool) -> Compiled:
        raise self.fail(node, "a row value (a, b) is not supported here")

    # ------------------------------------------------------------------ columns
    def c_Column(self, node: exp.Column, running: bool) -> Compiled:
        sc = self.scope
        if isinstance(node.this, exp.Star):
            raise self.fail(node, "* is only allowed in count(*) / count(A.*)")
        table = node.args.get("table")
        off = _offset(node, self.base)
        if sc.mode == "constant":
            raise self.fail(node, f"{node.sql()} names a column where a constant value is needed")
        if sc.mode == "select":
            if table is not None and table.name.upper() not in sc.qualifiers:
                raise self.fail(node, f"{table.name} names no table here", "qualify with the MATCH_RECOGNIZE alias")
            col = sc.column(node.this, off)
            return lambda f: f.rows[f.at if f.at is not None else f.start][col]
        col = sc.column(node.this, off)
        if isinstance(node.this, exp.Identifier) and table is None and col.upper() in sc.variables \
                and col.upper() not in (c.upper() for c in sc.columns):
            raise self.fail(node, f"{col} is a pattern variable, not a column")
        members = sc.members(table, off) if table is not None else None
        self._need_last(members, 1)
        final = not running

        def value(f: Frame) -> Any:
            r = f.at
            if r is None:
                r = f.last_of(members, final)
                if r is None:
                    return None
            return f.rows[r][col]
        return value

    def _need_last(self, members: Members, k: int) -> None:
        sc = self.scope
        if sc.mode != "define" or members is None:
            return
        if sc.defining in members and k == 1:
            return
        sc.needs.items.add(("last", members, k))

    # ------------------------------------------------------------------ operators
    def _binary(self, node: Any, running: bool, fn: Callable[[Any, Any], Any]) -> Compiled:
        a = self.compile(node.this, running)
        b = self.compile(node.expression, running)
        return lambda f: fn(a(f), b(f))

    def c_Add(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.arithmetic("+", x, y))

    def c_Sub(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.arithmetic("-", x, y))

    def c_Mul(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.arithmetic("*", x, y))

    def c_Div(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.arithmetic("/", x, y))

    def c_IntDiv(self, node: Any, running: bool) -> Compiled:
        return self.c_Div(node, running)

    def c_Mod(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.arithmetic("%", x, y))

    def c_Neg(self, node: Any, running: bool) -> Compiled:
        a = self.compile(node.this, running)

        def negate(f: Frame) -> Any:
            v = a(f)
            return V.arithmetic("*", -1.0, v) if isinstance(v, float) else V.arithmetic("-", 0, v)
        return negate

    def c_EQ(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.compare("=", x, y))

    def c_NEQ(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.compare("<>", x, y))

    def c_LT(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.compare("<", x, y))

    def c_LTE(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.compare("<=", x, y))

    def c_GT(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.compare(">", x, y))

    def c_GTE(self, node: Any, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: V.compare(">=", x, y))

    def c_And(self, node: Any, running: bool) -> Compiled:
        a = self.compile(node.this, running)
        b = self.compile(node.expression, running)

        def both(f: Frame) -> Any:
            x = V.truth(a(f))
            if x is False:
                return False
            return V.sql_and(x, b(f))
        return both

    def c_Or(self, node: Any, running: bool) -> Compiled:
        a = self.compile(node.this, running)
        b = self.compile(node.expression, running)

        def either(f: Frame) -> Any:
            x = V.truth(a(f))
            if x is True:
                return True
            return V.sql_or(x, b(f))
        return either

    def c_Not(self, node: Any, running: bool) -> Compiled:
        a = self.compile(node.this, running)
        return lambda f: V.sql_not(a(f))

    def c_Is(self, node: exp.Is, running: bool) -> Compiled:
        a = self.compile(node.this, running)
        target = node.expression
        if isinstance(target, exp.Null):
            return lambda f: a(f) is None
        if isinstance(target, exp.Boolean):
            want = bool(target.this)
            return lambda f: V.truth(a(f)) is want
        raise self.fail(node, "IS takes NULL, TRUE or FALSE")

    def c_In(self, node: exp.In, running: bool) -> Compiled:
        if node.args.get("query") is not None:
            raise self.fail(node, "IN (subquery) is not supported")
        a = self.compile(node.this, running)
        items = [self.compile(x, running) for x in node.expressions]

        def member(f: Frame) -> Any:
            v = a(f)
            if v is None:
                return None
            unknown = False
            for it in items:
                r = V.compare("=", v, it(f))
                if r:
                    return True
                if r is None:
                    unknown = True
            return None if unknown else False
        return member

    def c_Between(self, node: exp.Between, running: bool) -> Compiled:
        a = self.compile(node.this, running)
        lo = self.compile(node.args["low"], running)
        hi = self.compile(node.args["high"], running)
        def between(f: Frame) -> Any:
            v = a(f)
            return V.sql_and(V.compare(">=", v, lo(f)), V.compare("<=", v, hi(f)))
        return between

    def c_Like(self, node: exp.Like, running: bool) -> Compiled:
        return self._binary(node, running, V.like)

    def c_DPipe(self, node: exp.DPipe, running: bool) -> Compiled:
        return self._binary(node, running, lambda x, y: None if x is None or y is None else _text(x) + _text(y))

    def c_Case(self, node: exp.Case, running: bool) -> Compiled:
        subject = self.compile(node.this, running) if node.this is not None else None
        ifs = [(self.compile(i.this, running), self.compile(i.args["true"], running)) for i in node.args["ifs"]]
        default = self.compile(node.args["default"], running) if node.args.get("default") is not None else None

        def case(f: Frame) -> Any:
            s = subject(f) if subject is not None else None
            for cond, then in ifs:
                ok = V.compare("=", s, cond(f)) if subject is not None else V.truth(cond(f))
                if ok:
                    return then(f)
            return default(f) if default is not None else None
        return case

    def c_If(self, node: exp.If, running: bool) -> Compiled:
        cond = self.compile(node.this, running)
        then = self.compile(node.args["true"], running)
        other = self.compile(node.args["false"], running) if node.args.get("false") is not None else None
        return lambda f: then(f) if V.truth(cond(f)) else (other(f) if other is not None else None)

    def c_Cast(self, node: exp.Cast, running: bool, safe: bool = False) -> Compiled:
        to = node.args["to"]
        tname = to.this.name if hasattr(to.this, "name") else str(to.this)
        target = V.CAST_TYPES.get(tname.upper())
        if target is None:
            raise self.fail(node, f"CAST to {to.sql()} is not supported",
                            "BIGINT, INTEGER, DOUBLE, DECIMAL, VARCHAR, BOOLEAN, DATE or TIMESTAMP")
        a = self.compile(node.this, running)
        if isinstance(node.this, exp.Literal) and node.this.is_string and target in ("date", "timestamp"):
            try:
                v = V.cast(node.this.this, target)
            except V.SqlValueError as err:
                raise self.fail(node, str(err)) from None
            return lambda f: v
        return lambda f: V.cast(a(f), target, safe)

    def c_TryCast(self, node: exp.TryCast, running: bool) -> Compiled:
        return self.c_Cast(node, running, safe=True)

    def c_Coalesce(self, node: exp.Coalesce, running: bool) -> Compiled:
        items = [self.compile(node.this, running)] + [self.compile(x, running) for x in node.expressions]

        def coalesce(f: Frame) -> Any:
            for it in items:
                v = it(f)
                if v is not None:
                    return v
            return None
        return coalesce

    def c_Interval(self, node: Any, running: bool) -> Compiled:
        raise self.fail(node, "INTERVAL values are only supported in WITHIN", "compare numbers of seconds instead")

    # ------------------------------------------------------------------ functions
    def function(self, node: Any, name: str, running: bool) -> Compiled:
        sc = self.scope
        if name.startswith(("RUNNING_", "FINAL_")):
            word, _, rest = name.partition("_")
            inner = rest.lstrip("_")
            if sc.mode != "measure":
                raise self.fail(node, f"{word} is only allowed in MEASURES", "DEFINE is always running")
            if inner not in ("FIRST", "LAST", "CLASSIFIER") and inner not in AGGREGATES:
                raise self.fail(node, f"{word} applies to FIRST, LAST, CLASSIFIER and aggregates, not {inner}")
            return self.function(node, inner, word == "RUNNING")
        args = _arguments(node)
        if name in ("PREV", "NEXT", "FIRST", "LAST"):
            return self.navigation(node, name, args, running)
        if name == "CLASSIFIER":
            return self.classifier(node, args, running)
        if name == "MATCH_NUMBER":
            if args:
                raise self.fail(node, "MATCH_NUMBER() takes no argument")
            if sc.mode not in ("measure", "define"):
                raise self.fail(node, "MATCH_NUMBER() is only available inside MATCH_RECOGNIZE")
            return lambda f: f.match_number
        if name in AGGREGATES:
            return self.aggregate(node, name, args, running)
        return self.scalar(node, name, args, running)

    def classifier(self, node: Any, args: list[Any], running: bool) -> Compiled:
        sc = self.scope
        if sc.mode not in ("measure", "define"):
            raise self.fail(node, "CLASSIFIER() is only available inside MATCH_RECOGNIZE")
        members: Members = None
        if args:
            if len(args) != 1 or not isinstance(args[0], exp.Column):
                raise self.fail(node, "CLASSIFIER takes no argument or one pattern variable / subset")
            ident = args[0].this if args[0].args.get("table") is None else args[0].args["table"]
            members = sc.members(ident, _offset(node, self.base))
        final = not running
        if sc.mode == "define" and members is not None and sc.defining not in members:
            sc.needs.items.add(("last", members, 1))
        if sc.mode == "define" and members is None:
            sc.needs.items.add(("labels",))  # under a navigation it reads another row's label

        def classify(f: Frame) -> Any:
            if f.at is not None:
                return f.label_at(f.at, final)
            return f.label_at(f.last_of(members, final), final)
        return classify

    def navigation(self, node: Any, name: str, args: list[Any], running: bool) -> Compiled:
        if not args or len(args) > 2:
            raise self.fail(node, f"{name} takes an expression and an optional offset: {name}(A.price, 1)")
        offset = 0 if name in ("FIRST", "LAST") else 1
        if len(args) == 2:
            o = args[1]
            if not (isinstance(o, exp.Literal) and not o.is_string and o.this.isdigit()):
                raise self.fail(node, f"the offset of {name} must be a whole number literal, not {o.sql()}")
            offset = int(o.this)
        target = self.designator(node, name, args[0], offset, running)
        value = self.compile(_strip_logical(args[0]) if name in ("PREV", "NEXT") else args[0], running)

        def navigate(f: Frame) -> Any:
            row = target(f)
            if row is None:
                return None
            saved = f.at
            f.at = row
            try:
                return value(f)
            finally:
                f.at = saved
        return navigate

    def designator(self, node: Any, name: str, arg: Any, offset: int, running: bool) -> Callable[[Frame], int | None]:
        """The row ``name(arg, offset)`` reads."""
        sc = self.scope
        final = not running
        if name in ("PREV", "NEXT"):
            inner_name = _function_name(arg)
            if inner_name in ("PREV", "NEXT"):
                raise self.fail(node, f"{name} cannot wrap {inner_name}", "nest a logical FIRST/LAST inside PREV/NEXT")
            if inner_name is not None and _bare(inner_name) in ("FIRST", "LAST"):
                inner_args = _arguments(arg)
                inner_off = 0
                if len(inner_args) == 2:
                    inner_off = int(inner_args[1].this)
                inner_running = running if _bare(inner_name) == inner_name else inner_name.startswith("RUNNING")
                base = self.designator(arg, _bare(inner_name), inner_args[0], inner_off, inner_running)
            else:
                members = self._members_of(node, arg)
                if sc.mode == "define" and members is not None and sc.defining not in members:
                    sc.needs.items.add(("last", members, 1))

                def base(f: Frame) -> int | None:
                    return f.at if f.at is not None else f.last_of(members, final)
            step = -offset if name == "PREV" else offset

            def physical(f: Frame) -> int | None:
                r = base(f)
                if r is None:
                    return None
                r += step
                return r if 0 <= r < len(f.rows) else None
            return physical
        if any(_function_name(n) in ("PREV", "NEXT", "FIRST", "LAST") for n in arg.walk() if n is not arg):
            raise self.fail(node, f"{name} cannot wrap another navigation", "FIRST/LAST go inside PREV/NEXT")
        members = self._members_of(node, arg)
        if sc.mode == "define" and members is not None:
            if name == "FIRST":
                sc.needs.items.add(("first", members, offset + 1))
            elif not (sc.defining in members and offset == 0):
                sc.needs.items.add(("last", members, offset + 1))
        if name == "FIRST":
            return lambda f: f.first_of(members, final, offset)
        return lambda f: f.last_of(members, final, offset)

    def _members_of(self, node: Any, arg: Any) -> Members:
        """The one variable (or subset, or the universal one) the column references of a navigation's
        or an aggregate's argument name."""
        sc = self.scope
        found: set[Any] = set()
        for n in arg.walk():
            if isinstance(n, exp.Column):
                t = n.args.get("table")
                found.add(sc.members(t, _offset(n, self.base)) if t is not None else None)
        if len(found) > 1:
            raise self.fail(node, "the column references inside one navigation or aggregate must name the same "
                                  "variable", "write FIRST(A.x) + FIRST(B.y), not FIRST(A.x + B.y)")
        if not found:
            if any(_function_name(n) == "CLASSIFIER" for n in arg.walk()):
                return None
            raise self.fail(node, "a navigation needs a column reference: PREV(A.price)")
        return next(iter(found))

    def aggregate(self, node: Any, name: str, args: list[Any], running: bool) -> Compiled:
        sc = self.scope
        if sc.mode not in ("measure", "define"):
            raise self.fail(node, f"{name.lower()} is only available in MEASURES and DEFINE")
        if node.find(exp.Distinct) is not None:
            raise self.fail(node, f"{name.lower()}(DISTINCT ...) is not supported")
        star = isinstance(node.this, exp.Star) or (args and isinstance(args[0], exp.Star))
        members: Members
        if star:
            members = None
            arg_fns: list[Compiled] = []
        elif args and isinstance(args[0], exp.Column) and isinstance(args[0].this, exp.Star):
            members = sc.members(args[0].args["table"], _offset(node, self.base))
            arg_fns = []
            star = True
        else:
            if not args:
                raise self.fail(node, f"{name.lower()} needs an argument")
            for a in args:
                for n in a.walk():
                    if _function_name(n) in AGGREGATES or isinstance(n, tuple(_AGG_CLASSES)):
                        raise self.fail(node, "an aggregate cannot hold another aggregate")
            members = self._members_of(node, args[0])
            value_args = args if name not in ("LISTAGG", "STRING_AGG") else args[:1]
            arg_fns = [self.compile(a, running) for a in value_args]
        separator = ","
        if name in ("LISTAGG", "STRING_AGG") and len(args) > 1:
            sep = args[1]
            if not (isinstance(sep, exp.Literal) and sep.is_string):
                raise self.fail(node, f"{name.lower()}'s separator must be a string literal")
            separator = sep.this
        if sc.mode == "define" and members is not None:
            sc.needs.items.add(("all", members))
        final = not running
        combine = aggregate_function(name, star, separator)
        if combine is None:
            raise self.fail(node, f"{name.lower()} is not supported")

        def aggregate(f: Frame) -> Any:
            rows = f.rows_of(members, final)
            if not arg_fns:
                return combine(rows, [])
            saved = f.at
            try:
                cols = []
                for fn in arg_fns:
                    col = []
                    for r in rows:
                        f.at = r
                        col.append(fn(f))
                    cols.append(col)
            finally:
                f.at = saved
            return combine(rows, cols)
        return aggregate

    def scalar(self, node: Any, name: str, args: list[Any], running: bool) -> Compiled:
        fn = SCALARS.get(name)
        if fn is None:
            close = difflib.get_close_matches(name.lower(), [n.lower() for n in (*SCALARS, *AGGREGATES)], n=1)
            raise self.fail(node, f"unknown function {name.lower()}",
                            f"did you mean {close[0]}?" if close else "see docs/sql.md for the functions")
        arity, impl = fn
        if not (arity[0] <= len(args) <= arity[1]):
            raise self.fail(node, f"{name.lower()} takes {arity[0]}" + (f" to {arity[1]}" if arity[1] != arity[0]
                                                                      else "") + f" arguments, not {len(args)}")
        compiled = [self.compile(a, running) for a in args]
        return lambda f: impl(*[c(f) for c in compiled])


def _function_name(node: Any) -> str | None:
    if isinstance(node, exp.Anonymous):
        return str(node.this).upper()
    for cls, name in _AGG_CLASSES.items():
        if type(node) is cls:
            return name
    if isinstance(node, exp.First):
        return "FIRST"
    if isinstance(node, exp.Last):
        return "LAST"
    if isinstance(node, exp.Func):
        return type(node).__name__.upper() if type(node).__name__.upper() in SCALAR_CLASSES else None
    return None


def _arguments(node: Any) -> list[Any]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out = []
    for key in node.arg_types:
        v = node.args.get(key)
        if v is None or isinstance(v, (bool, str)):
            continue
        if isinstance(v, list):
            out.extend(v)
        else:
            out.append(v)
    return out


def _bare(name: str) -> str:
    """RUNNING___LAST -> LAST (the parser joins RUNNING / FINAL to the function's name)."""
    for word in ("RUNNING_", "FINAL_"):
        if name.startswith(word):
            return name[len(word):].lstrip("_")
    return name


def _strip_logical(arg: Any) -> Any:
    """PREV(LAST(A.x, 1), 2) evaluates A.x: the logical navigation only chooses the row."""
    name = _function_name(arg)
    if name is not None and _bare(name) in ("FIRST", "LAST"):
        return _arguments(arg)[0]
    return arg


def _text(v: Any) -> str:
    return V.cast(v, "str")

