"""The pattern grammar (text -> model): :class:`Parser` reads PATTERN, its items and the
clauses (WHERE, WITHIN, OUTPUT, AGG, GROUP BY, RETURN) on top of the predicate grammar of
:class:`~engine.dsl.expressions.ExpressionParser`; :func:`parse` and :func:`parse_expr` are
the entry points and :func:`name_spans` says where names the model keeps without a span
are written. ``prev(p.x)`` in a conjunct makes its unindexed ``p.y`` mean ``p[i].y``
(:func:`_desugar_prev`)."""
from __future__ import annotations

from typing import Any

from engine import expr as X
from engine.model import (
    MAX_COMPONENTS,
    MAX_PATTERN_LENGTH,
    Aggregate,
    Component,
    Group,
    Pattern,
    PatternError,
    ReturnItem,
    Selection,
    Window,
    suggest,
)
from engine.dsl.errors import DslError
from engine.dsl.expressions import ExpressionParser
from engine.dsl.vocabulary import CLAUSES, KEYWORDS, STRATEGY_NAMES, UNITS, _strategy_of


class Parser(ExpressionParser):
    def __init__(self, text: str):
        super().__init__(text)
        self.n_components = 0
        # where names are written (the model keeps no span of its own for them):
        # "type" var -> its event type's token; "equivalence" / "group_by" attr -> first token
        self.name_spans: dict[str, dict[str, X.Span]] = {"type": {}, "equivalence": {}, "group_by": {}}

    # -- query
    def parse_query(self) -> Pattern:
        t = self.tok
        if not t.is_kw("PATTERN"):
            hint = suggest(t.text.upper(), ["PATTERN"]) if t.kind == "name" else None
            raise self.error(f"a pattern starts with PATTERN, found {self.describe(t)}", hint=hint)
        self.advance()
        start = self.tok
        item = self.parse_item(top=True)
        root = item if isinstance(item, Group) else Group(op="SEQ", items=[item], span=self.span_from(start))
        fields: dict[str, Any] = {"root": root}
        where: list[Any] = []
        equivalence: list[str] = []
        seen: set[str] = set()
        while self.tok.kind != "eof":
            t = self.tok
            if t.is_op(";"):
                self.advance()
                if self.tok.kind != "eof":
                    raise self.error("`;` ends the pattern; nothing may follow it")
                break
            kw = t.text.upper() if t.kind == "name" else ""
            if kw not in CLAUSES:
                hint = suggest(kw, list(CLAUSES)) if kw else None
                raise self.error(f"expected a clause ({', '.join(CLAUSES)}), found {self.describe(t)}", hint=hint)
            if kw in seen:
                raise self.error(f"{kw} clause given twice")
            seen.add(kw)
            self.advance()
            if kw == "WHERE":
                self.parse_where(where, equivalence, fields)
            elif kw == "WITHIN":
                fields["window"] = self.parse_window()
            elif kw == "OUTPUT":
                fields["output"] = self.parse_output()
            elif kw == "AGG":
                agg = self.parse_agg()
                gb = fields.get("aggregate")
                if gb is not None:  # GROUP BY came first
                    agg = agg.model_copy(update={"group_by": gb.group_by})
                fields["aggregate"] = agg
            elif kw == "GROUP":
                if not self.tok.is_kw("BY"):
                    raise self.error(f"expected BY after GROUP, found {self.describe(self.tok)}")
                self.advance()
                attrs = self.parse_name_list("an attribute name", record="group_by")
                agg = fields.get("aggregate")
                if agg is None:
                    agg = Aggregate(func="COUNT", span=t.span)
                    fields["_group_only"] = t
                fields["aggregate"] = agg.model_copy(update={"group_by": attrs})
            elif kw == "RETURN":
                fields["returns"] = self.parse_returns()
        if "_group_only" in fields and "AGG" not in seen:
            raise self.error("GROUP BY needs an AGG clause (e.g. `AGG COUNT`)", fields.pop("_group_only"))
        fields.pop("_group_only", None)
        fields["where"] = where
        fields["equivalence"] = equivalence
        return Pattern(span=(1, 1, 1), **fields)

    # -- PATTERN structure
    def parse_item(self, top: bool = False) -> Component | Group:
        t = self.tok
        if t.kind == "name" and t.text.upper() in ("SEQ", "AND", "OR") and self.peek().is_op("("):
            self.enter(t)
            self.advance()
            self.advance()
            items = [self.parse_item()]
            while self.tok.is_op(","):
                self.advance()
                items.append(self.parse_item())
            self.expect_op(")", f"to close {t.text.upper()}(")
            self.leave()
            return Group(op=t.text.upper(), items=items, span=self.span_from(t))
        return self.parse_component()

    def parse_component(self) -> Component:
        start = self.tok
        self.n_components += 1
        if self.n_components > MAX_COMPONENTS:
            raise self.error(f"more than {MAX_COMPONENTS} components", start,
                             hint="split the pattern, or use a Kleene component `Type+ v[]`")
        negated = False
        if self.tok.is_op("!", "~", "¬") or (self.tok.is_kw("NOT") and self.peek().kind in ("name", "op")):
            negated = True
            self.advance()
        paren = False
        if self.tok.is_op("("):
            paren = True
            self.advance()
        t = self.tok
        if t.kind != "name":
            raise self.error(f"expected an event type, found {self.describe(t)}")
        if t.text.upper() in ("SEQ", "AND", "OR") and self.peek().is_op("("):
            raise self.error(f"negating a group `{t.text.upper()}(...)` is not supported", t)
        self.advance()
        quant = "one"
        if self.tok.is_op("+", "*", "?"):
            quant = {"+": "plus", "*": "star", "?": "opt"}[self.advance().text]
        var = t.text
        if self.tok.kind == "name" and self.tok.text.upper() not in CLAUSES:
            vt = self.advance()
            var = vt.text
            if vt.text.upper() in KEYWORDS:
                raise self.error(f"`{vt.text}` is a keyword and cannot name a variable", vt)
        if self.tok.is_op("["):
            bt = self.advance()
            self.expect_op("]", "after `[` in a Kleene variable declaration")
            if quant not in ("plus", "star"):
                raise self.error(f"`{var}[]` declares a Kleene variable; write `{t.text}+ {var}[]`", bt)
        if paren:
            self.expect_op(")", "to close the component")
        self.name_spans["type"][var] = t.span
        return Component(type=t.text, var=var, quant=quant, negated=negated, span=self.span_from(start))

    # -- WHERE
    def parse_where(self, where: list[Any], equivalence: list[str], fields: dict[str, Any]) -> None:
        while True:
            self.parse_conjunct(where, equivalence, fields)
            if self.tok.is_kw("AND"):
                self.advance()
                continue
            break

    def parse_conjunct(self, where: list[Any], equivalence: list[str], fields: dict[str, Any]) -> None:
        t = self.tok
        if t.kind == "strategy" or (t.kind == "name" and t.text.lower() in STRATEGY_NAMES):
            self.advance()
            if "strategy" in fields:
                raise self.error("the selection strategy is given twice", t)
            fields["strategy"] = _strategy_of(t.text)
            if self.tok.is_op("("):  # SASE form: strategy(a[], b) { ... }
                self.advance()
                while not self.tok.is_op(")"):
                    if self.tok.kind == "eof":
                        raise self.error("unclosed `(` after the strategy")
                    self.advance()
                self.advance()
            if self.tok.is_op("{"):
                self.advance()
                self.parse_where(where, equivalence, fields)
                self.expect_op("}", "to close the predicate block")
            return
        if self._is_selection(t, self.peek()):
            self.advance()
            if "selection" in fields:
                raise self.error("the selection (earliest / maximal) is given twice", t)
            fields["selection"] = Selection(t.text.lower())
            return
        if t.is_op("["):
            self.advance()
            attrs = self.parse_name_list("an attribute name", attr=True, record="equivalence")
            self.expect_op("]", "to close the equivalence test")
            for a in attrs:
                if a not in equivalence:
                    equivalence.append(a)
            return
        e = self.parse_or()
        for c in _split_and(e):
            where.append(_desugar_prev(c, self.prev_refs))

    def parse_name_list(self, what: str, attr: bool = False, record: str | None = None) -> list[str]:
        toks = [self.expect_name(what)]
        while self.tok.is_op(","):
            self.advance()
            toks.append(self.expect_name(what))
        if record is not None:
            for t in toks:
                self.name_spans[record].setdefault(t.text, t.span)
        return [t.text for t in toks]

    # -- other clauses
    def parse_window(self) -> Window:
        t = self.tok
        if t.kind != "number":
            raise self.error(f"expected a number after WITHIN, found {self.describe(t)}")
        self.advance()
        value = self.number(t)
        unit: str | None = None
        if self.tok.kind == "name" and self.tok.text.upper() not in CLAUSES:
            ut = self.advance()
            key = ut.text.lower()
            if key not in UNITS:
                raise self.error(f"unknown time unit `{ut.text}`", ut,
                                 hint=suggest(key, list(UNITS)) or "use ms, s, min, hour, day or events")
            unit, factor = UNITS[key]
            if factor != 1:
                value = value * factor  # an int stays exact; a float is multiplied once
                if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
                    value = int(value)
                if abs(value) > X.MAX_NUMBER:
                    raise self.error(f"the window is out of range (at most {X.MAX_NUMBER_TEXT} {unit}s)",
                                     span=self.span_from(t))
        if value <= 0:
            raise self.error("the window must be positive", t)
        return Window(value=value, unit=unit, span=self.span_from(t))

    def parse_output(self) -> str:
        t = self.tok
        if t.is_kw("ALL"):
            self.advance()
            return "ALL"
        if t.kind == "name" and t.text.upper() in ("NON_OVERLAP", "NONOVERLAP"):
            self.advance()
            return "NON_OVERLAP"
        if t.is_kw("NON") and self.peek().is_op("-") and self.peek(2).is_kw("OVERLAP"):
            self.advance(), self.advance(), self.advance()
            return "NON_OVERLAP"
        raise self.error(f"expected ALL or NON_OVERLAP after OUTPUT, found {self.describe(t)}",
                         hint=suggest(t.text.upper(), ["ALL", "NON_OVERLAP"]) if t.kind == "name" else None)

    def parse_agg(self) -> Aggregate:
        t = self.tok
        funcs = ("COUNT", "SUM", "AVG", "MIN", "MAX")
        if not (t.kind == "name" and t.text.upper() in funcs):
            raise self.error(f"expected COUNT, SUM, AVG, MIN or MAX after AGG, found {self.describe(t)}",
                             hint=suggest(t.text.upper(), list(funcs)) if t.kind == "name" else None)
        self.advance()
        func = t.text.upper()
        var = attr = None
        if self.tok.is_op("("):
            self.advance()
            if self.tok.is_op("*"):
                self.advance()
            elif not self.tok.is_op(")"):
                var = self.expect_name("a variable").text
                if self.tok.is_op("["):
                    self.advance()
                    self.expect_op("]")
                self.expect_op(".", f"and an attribute after `{var}`")
                attr = self.expect_name("an attribute name").text
            self.expect_op(")")
        if func != "COUNT" and var is None:
            raise self.error(f"{func} needs an argument, e.g. `{func}(b.price)`", t)
        return Aggregate(func=func, var=var, attr=attr, span=self.span_from(t))

    def parse_returns(self) -> list[ReturnItem]:
        items = [self.parse_return_item()]
        while self.tok.is_op(","):
            self.advance()
            items.append(self.parse_return_item())
        return items

    def parse_return_item(self) -> ReturnItem:
        t = self.tok
        nxt = self.peek()
        if t.kind == "name" and t.text.upper() not in KEYWORDS and not nxt.is_op(".", "[", "("):
            self.advance()
            item = ReturnItem(var=t.text, span=t.span)
        else:
            item = ReturnItem(expr=self.parse_or(), span=t.span)
        if self.tok.is_kw("AS"):
            self.advance()
            alias = self.expect_name("a column name").text
            item = item.model_copy(update={"alias": alias})
        return item



def _split_and(e: Any) -> list[Any]:
    if isinstance(e, X.BoolOp) and e.op == "AND":
        out: list[Any] = []
        for i in e.items:
            out.extend(_split_and(i))
        return out
    return [e]


def _desugar_prev(e: Any, prev_refs: set[int]) -> Any:
    """In a conjunct using ``prev(p.x)`` (= ``p[i-1].x``), unindexed ``p.y`` means ``p[i].y``
    (the match-windows paper's notation). An explicit ``p[i-1].x`` is left as written."""
    prev_vars = {n.var for n in e.walk() if isinstance(n, X.Ref) and id(n) in prev_refs}
    if not prev_vars or not any(isinstance(n, X.Ref) and n.index is None and n.var in prev_vars for n in e.walk()):
        return e

    def fix(n: Any) -> Any:
        if isinstance(n, X.Ref):
            if n.index is None and n.var in prev_vars:
                return n.model_copy(update={"index": "i"})
            return n
        upd: dict[str, Any] = {}
        for name in ("item", "left", "right"):
            if hasattr(n, name) and isinstance(getattr(n, name), X.Node):
                upd[name] = fix(getattr(n, name))
        if isinstance(n, X.BoolOp):
            upd["items"] = [fix(i) for i in n.items]
        return n.model_copy(update=upd) if upd else n

    return fix(e)


# --------------------------------------------------------------------------- API

def parse(text: str, check: bool = True) -> Pattern:
    """Parse DSL text into a checked :class:`Pattern` (raises :class:`DslError`)."""
    if not text or not text.strip():
        raise DslError("the pattern is empty", None, text or "", "start with `PATTERN SEQ(...)`")
    _check_length(text)
    p = Parser(text)
    pattern = p.parse_query()
    if check:
        try:
            pattern.check()
        except DslError:
            raise
        except PatternError as err:
            raise DslError(err.message, err.span, text, err.hint) from None
    return pattern


def parse_expr(text: str) -> Any:
    """Parse a single predicate expression (used by the designer's predicate form)."""
    _check_length(text)
    p = Parser(text)
    e = p.parse_or()
    if p.tok.kind != "eof":
        raise p.error(f"unexpected {p.describe(p.tok)} after the expression")
    return e


def _check_length(text: str) -> None:
    if len(text) > MAX_PATTERN_LENGTH:
        line = text.count("\n", 0, MAX_PATTERN_LENGTH) + 1
        col = MAX_PATTERN_LENGTH - (text.rfind("\n", 0, MAX_PATTERN_LENGTH) + 1) + 1
        raise DslError(f"the pattern is longer than {MAX_PATTERN_LENGTH:,} characters", (line, col, 1), text)


def name_spans(source: str) -> dict[str, dict[str, X.Span]]:
    """Where the names the model keeps without a span are written in ``source``: ``type``
    (variable -> its event type), ``equivalence`` and ``group_by`` (attribute -> its first
    occurrence in ``[...]`` / ``GROUP BY``). Empty when ``source`` does not parse."""
    try:
        _check_length(source)
        p = Parser(source)
        p.parse_query()
    except (DslError, PatternError, RecursionError):
        return {"type": {}, "equivalence": {}, "group_by": {}}
    return p.name_spans

