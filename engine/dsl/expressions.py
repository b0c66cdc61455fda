"""The token cursor and the predicate grammar: :class:`ExpressionParser` walks the tokens
(``tok``, ``peek``, ``advance``, ``expect_*``, errors at a token), keeps the nesting limits
(``enter`` / ``leave`` for groups, parentheses, NOT and unary signs; ``node`` for the height
of an expression tree; ``number`` for literals), and parses predicate expressions: OR, AND,
NOT, comparisons, arithmetic, values, ``v[i].attr`` references, aggregate calls and
``prev(v.attr)``. The pattern grammar (:class:`engine.dsl.parser.Parser`) builds on it."""
from __future__ import annotations

import re
from typing import Any

from engine import expr as X
from engine.model import suggest
from engine.dsl.errors import DslError
from engine.dsl.tokens import Tok, tokenize
from engine.dsl.vocabulary import AGG_FUNCS, KEYWORDS, SELECTION_NAMES, STRATEGY_NAMES


class ExpressionParser:
    def __init__(self, text: str):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.prev_refs: set[int] = set()  # ids of Ref nodes written as prev(v.x)
        self.depth = 0  # current nesting (groups, parentheses, NOT, unary signs)
        # id(node) -> (height, node) for the composite expression nodes built so far (the
        # node is kept so that its id is not reused); leaves have height 1.
        self.heights: dict[int, tuple[int, Any]] = {}

    # -- helpers
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def advance(self) -> Tok:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def error(self, message: str, tok: Tok | None = None, hint: str | None = None,
              span: X.Span | None = None) -> DslError:
        t = tok or self.tok
        return DslError(message, span or t.span, self.text, hint)

    def describe(self, t: Tok) -> str:
        return "end of input" if t.kind == "eof" else f"`{t.text}`"

    def expect_op(self, op: str, what: str | None = None) -> Tok:
        if not self.tok.is_op(op):
            raise self.error(f"expected `{op}`{' ' + what if what else ''}, found {self.describe(self.tok)}")
        return self.advance()

    def expect_name(self, what: str) -> Tok:
        if self.tok.kind != "name":
            raise self.error(f"expected {what}, found {self.describe(self.tok)}")
        return self.advance()

    # -- limits
    def enter(self, t: Tok) -> None:
        """One more nesting level (a group, `(`, NOT or a unary sign) at token ``t``."""
        self.depth += 1
        if self.depth > X.MAX_NESTING:
            raise self.error(f"nesting deeper than {X.MAX_NESTING} levels", t,
                             hint="groups, parentheses, NOT and unary minus may nest at most that deep")

    def leave(self) -> None:
        self.depth -= 1

    def node(self, n: Any, at: Tok, *kids: Any) -> Any:
        """Register a composite expression node built at token ``at`` over ``kids``; refuse
        a tree higher than MAX_NESTING (a long chain `a + b + c ...` is a deep tree)."""
        h = 1 + max(self.heights.get(id(k), (1, None))[0] for k in kids)
        if h > X.MAX_NESTING:
            raise self.error(f"nesting deeper than {X.MAX_NESTING} levels", at,
                             hint="each operator of a chain like `a + b + c` is a level; "
                                  "split the predicate into conjuncts, or group with parentheses")
        self.heights[id(n)] = (h, n)
        return n

    def number(self, t: Tok) -> int | float:
        """The value of a number token: an int, or a float when it has `.` or an exponent;
        refused when it is out of range or rounds to zero."""
        text = t.text
        value: int | float = float(text) if any(c in text for c in ".eE") else int(text)
        why = X.number_problem(value, _short(text))
        if why:
            raise self.error(why, t)
        if value == 0 and any(c in "123456789" for c in text.split("e")[0].split("E")[0]):
            raise self.error(f"number `{_short(text)}` is too small: it rounds to 0", t)
        return value

    def span_from(self, start: Tok) -> X.Span:
        last = self.toks[max(self.i - 1, 0)]
        if last.line != start.line:
            return start.span
        return (start.line, start.col, last.col + len(last.text) - start.col)

    # -- expressions
    def parse_or(self) -> Any:
        start = self.tok
        items = [self.parse_and()]
        while self.tok.is_kw("OR"):
            self.advance()
            items.append(self.parse_and())
        if len(items) == 1:
            return items[0]
        return self.node(X.BoolOp(op="OR", items=items, span=self.span_from(start)), start, *items)

    def parse_and(self) -> Any:
        start = self.tok
        items = [self.parse_not()]
        while self.tok.is_kw("AND") and self._and_continues_expr():
            self.advance()
            items.append(self.parse_not())
        if len(items) == 1:
            return items[0]
        return self.node(X.BoolOp(op="AND", items=items, span=self.span_from(start)), start, *items)

    def _and_continues_expr(self) -> bool:
        """In WHERE, `AND` may be followed by a strategy or `[attr]`; those end the expression."""
        nxt = self.peek()
        if nxt.kind == "strategy" or (nxt.kind == "name" and nxt.text.lower() in STRATEGY_NAMES):
            return False
        if nxt.is_op("[") or self._is_selection(nxt, self.peek(2)):
            return False
        return True

    @staticmethod
    def _is_selection(t: Tok, nxt: Tok) -> bool:
        """``earliest`` / ``maximal`` / ``earliest_maximal`` as a WHERE conjunct (not a
        variable of that name, which is followed by `.` or `[`)."""
        return t.kind == "name" and t.text.lower() in SELECTION_NAMES and not nxt.is_op(".", "[")

    def parse_not(self) -> Any:
        if self.tok.is_kw("NOT"):
            self.enter(self.tok)
            t = self.advance()
            item = self.parse_not()
            self.leave()
            return self.node(X.Not(item=item, span=self.span_from(t)), t, item)
        return self.parse_cmp()

    def parse_cmp(self) -> Any:
        start = self.tok
        left = self.parse_add()
        cmps = []
        while self.tok.is_op("=", "==", "!=", "<>", "<", "<=", ">", ">="):
            ot = self.advance()
            op = {"==": "=", "<>": "!="}.get(ot.text, ot.text)
            right = self.parse_add()
            cmps.append(self.node(X.Cmp(op=op, left=left, right=right, span=self.span_from(start)), ot,
                                  left, right))
            left = right
        if not cmps:
            return left
        if len(cmps) == 1:
            return cmps[0]
        return self.node(X.BoolOp(op="AND", items=cmps, span=self.span_from(start)), start, *cmps)  # a = b = c

    def parse_add(self) -> Any:
        start = self.tok
        left = self.parse_mul()
        while self.tok.is_op("+", "-"):
            ot = self.advance()
            right = self.parse_mul()
            left = self.node(X.BinOp(op=ot.text, left=left, right=right, span=self.span_from(start)), ot,
                             left, right)
        return left

    def parse_mul(self) -> Any:
        start = self.tok
        left = self.parse_unary()
        while self.tok.is_op("*", "/", "%"):
            ot = self.advance()
            right = self.parse_unary()
            left = self.node(X.BinOp(op=ot.text, left=left, right=right, span=self.span_from(start)), ot,
                             left, right)
        return left

    def parse_unary(self) -> Any:
        if self.tok.is_op("-"):
            t = self.advance()
            if self.tok.kind == "number":  # a negative literal: `-3`, `-80%` (a percent keeps its sign)
                n = self.parse_primary()
                return X.Num(value=-n.value, percent=n.percent, span=self.span_from(t))
            self.enter(t)
            item = self.parse_unary()
            self.leave()
            return self.node(X.Neg(item=item, span=self.span_from(t)), t, item)
        if self.tok.is_op("+"):
            self.enter(self.advance())
            item = self.parse_unary()
            self.leave()
            return item
        return self.parse_primary()

    def _starts_operand(self, t: Tok) -> bool:
        if t.kind in ("number", "string"):
            return True
        if t.kind == "name":
            return t.text.upper() not in KEYWORDS
        return t.is_op("(")

    def parse_primary(self) -> Any:
        t = self.tok
        if t.kind == "number":
            self.advance()
            value = self.number(t)
            nxt = self.tok
            if nxt.is_op("%") and nxt.pos == t.pos + len(t.text) and not self._starts_operand(self.peek()):
                self.advance()
                return X.Num(value=value, percent=True, span=self.span_from(t))
            return X.Num(value=value, span=t.span)
        if t.kind == "string":
            self.advance()
            return X.Str(value=_unquote(t.text), span=t.span)
        if t.is_op("("):
            self.enter(t)
            self.advance()
            e = self.parse_or()
            self.expect_op(")", "to close `(`")
            self.leave()
            return e
        if t.kind == "strategy" or (t.kind == "name" and t.text.lower() in STRATEGY_NAMES):
            raise self.error("the selection strategy must be a top-level conjunct of WHERE", t)
        if t.is_op("["):
            raise self.error("an equivalence test `[attr]` must be a top-level conjunct of WHERE", t)
        if t.kind != "name":
            raise self.error(f"expected a value, found {self.describe(t)}")
        low = t.text.lower()
        if low in ("true", "false"):
            self.advance()
            return X.Bool(value=low == "true", span=t.span)
        if self.peek().is_op("("):
            if low in AGG_FUNCS:
                return self.parse_agg_call()
            if low == "prev":
                return self.parse_prev()
            hint = suggest(low, list(AGG_FUNCS) + ["prev"] + STRATEGY_NAMES)
            raise self.error(f"unknown function `{t.text}`", t, hint=hint)
        if t.text.upper() in KEYWORDS:
            raise self.error(f"expected a value, found keyword `{t.text}`", t)
        return self.parse_ref()

    def parse_ref(self) -> Any:
        vt = self.advance()
        var = vt.text
        index: str | None = None
        if self.tok.is_op("["):
            self.advance()
            index = self.parse_index(var)
            self.expect_op("]", f"to close `{var}[`")
        if not self.tok.is_op("."):
            if vt.text.lower() in STRATEGY_NAMES or suggest(vt.text.lower(), STRATEGY_NAMES):
                raise self.error(f"unknown strategy `{vt.text}`", vt, hint=suggest(vt.text.lower(), STRATEGY_NAMES))
            raise self.error(f"expected `.attribute` after `{var}`, found {self.describe(self.tok)}",
                             hint=f"write `{var}.attr`")
        self.advance()
        at = self.expect_name("an attribute name")
        span = self.span_from(vt)
        if at.text.lower() == "len" and index is None:
            return X.Len(var=var, span=span)
        return X.Ref(var=var, index=index, attr=at.text, span=span)

    def parse_index(self, var: str) -> str:
        t = self.tok
        if t.kind == "name" and self.peek().is_op(".") and self.peek(2).kind == "name" \
                and self.peek(2).text.lower() == "len":
            if t.text != var:
                raise self.error(f"`{var}[{t.text}.len]`: the length must be of `{var}` itself", t)
            self.advance()
            self.advance()
            self.advance()
            return "last"
        if t.kind == "number" and t.text == "1":
            self.advance()
            return "1"
        if t.kind == "name" and t.text.lower() == "i":
            self.advance()
            if self.tok.is_op("-"):
                self.advance()
                one = self.tok
                if not (one.kind == "number" and one.text == "1"):
                    raise self.error("only `[i-1]` is supported after `i-`", one)
                self.advance()
                return "i-1"
            return "i"
        if t.kind == "name" and t.text.lower() == "last":
            self.advance()
            return "last"
        raise self.error(f"unsupported index in `{var}[...]`", t,
                         hint=f"use {var}[1], {var}[i], {var}[i-1] or {var}[{var}.len]")

    def parse_agg_call(self) -> Any:
        ft = self.advance()
        self.expect_op("(")
        vt = self.expect_name("a Kleene variable")
        scope = "all"
        if self.tok.is_op("["):
            self.advance()
            if self.tok.is_op(".."):
                self.advance()
                it = self.tok
                if not (it.kind == "name" and it.text.lower() == "i"):
                    raise self.error("expected `..i-1`", it)
                self.advance()
                self.expect_op("-")
                one = self.tok
                if not (one.kind == "number" and one.text == "1"):
                    raise self.error("expected `..i-1`", one)
                self.advance()
                scope = "prefix"
            self.expect_op("]")
        self.expect_op(".", f"and an attribute after `{vt.text}`")
        at = self.expect_name("an attribute name")
        self.expect_op(")", f"to close `{ft.text}(`")
        return X.Agg(func=ft.text.lower(), var=vt.text, attr=at.text, scope=scope, span=self.span_from(ft))

    def parse_prev(self) -> Any:
        """``prev(p.V)`` (match-windows paper) is ``p[i-1].V``; the unindexed ``p.V`` in the
        same conjunct then means ``p[i].V`` (see :func:`_desugar_prev`)."""
        pt = self.advance()
        self.expect_op("(")
        vt = self.expect_name("a Kleene variable")
        self.expect_op(".")
        at = self.expect_name("an attribute name")
        self.expect_op(")")
        ref = X.Ref(var=vt.text, index="i-1", attr=at.text, span=self.span_from(pt))
        self.prev_refs.add(id(ref))
        return ref


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def _short(text: str, n: int = 24) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
