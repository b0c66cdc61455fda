"""The text DSL: a tokenizer, a recursive-descent parser and a printer.

``parse(text) -> Pattern`` and ``to_text(pattern) -> str`` are each other's inverse on
models: ``parse(to_text(m)) == m`` (a hypothesis test). Errors are :class:`DslError`
with line, column, the offending line and a caret under it, and a suggestion when a
name is close to a known one. Keywords are case-insensitive; attribute names may be
words (`from`, `to`, `type`, `value`).

Grammar (DESIGN.md, "The pattern language"):

    query     := PATTERN item clause*
    clause    := WHERE conj (AND conj)* | WITHIN number [unit] | OUTPUT (ALL|NON_OVERLAP)
               | AGG func ['(' v.attr ')'] | GROUP BY attr (',' attr)* | RETURN ritem (',' ritem)*
    item      := (SEQ|AND|OR) '(' item (',' item)* ')' | ['!'|'~'|'¬'] ['('] Type [+|*|?] [var ['[' ']']] [')']
    conj      := strategy ['(' vars ')'] ['{' conj (AND conj)* '}'] | '[' attr (',' attr)* ']' | expr

Limits (issue 16; the constants are in ``expr`` and ``model``), each a DslError at the place
it is exceeded: the text is at most MAX_PATTERN_LENGTH characters; groups, parentheses,
NOT, unary minus and the height of an expression tree nest at most MAX_NESTING levels; at
most MAX_COMPONENTS components; a number literal has at most MAX_NUMBER_LENGTH characters
and a magnitude of at most MAX_NUMBER (so it is a finite float; a literal that rounds to 0
is refused too), and so does a window after its unit factor. The parser recurses only
once per nesting level, so these limits keep it far from Python's recursion limit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .. import expr as X
from ..model import (
    MAX_COMPONENTS,
    MAX_PATTERN_LENGTH,
    QUANT_SUFFIX,
    Aggregate,
    Component,
    Group,
    Pattern,
    PatternError,
    ReturnItem,
    Selection,
    Strategy,
    Window,
    check_group_depth,
    suggest,
)

# --------------------------------------------------------------------------- tokens

_STRATEGY_RE = r"(?:strict[-_]contiguity|partition[-_]contiguity|skip[-_]till[-_]next[-_]match|skip[-_]till[-_]any[-_]match)\b"
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<comment>(?:--|\#|//)[^\n]*)
  | (?P<strategy>(?i:""" + _STRATEGY_RE + r"""))
  | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\.\.|==|!=|<>|<=|>=|[-+*/%<>=(),.\[\]{}!~¬?:;])
    """,
    re.VERBOSE,
)


@dataclass(slots=True)
class Tok:
    kind: str  # name, number, string, strategy, op, eof
    text: str
    line: int
    col: int
    pos: int

    @property
    def span(self) -> X.Span:
        return (self.line, self.col, max(1, len(self.text)))

    def is_kw(self, *words: str) -> bool:
        return self.kind == "name" and self.text.upper() in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops


class DslError(PatternError):
    """A parse or validation error, rendered with line, column and a caret."""

    def __init__(self, message: str, span: X.Span | None, source: str, hint: str | None = None):
        super().__init__(message, span, hint)
        self.source = source
        self.line = span[0] if span else None
        self.column = span[1] if span else None

    def __str__(self) -> str:
        return render_error(self.message, self.span, self.source, self.hint)


def render_error(message: str, span: X.Span | None, source: str, hint: str | None = None) -> str:
    head = f"line {span[0]}, column {span[1]}: {message}" if span else message
    if hint:
        head += f"; {hint}" if hint.startswith("did you mean") else f" ({hint})"
    if not span:
        return head
    lines = source.splitlines() or [""]
    ln = lines[span[0] - 1] if 0 < span[0] <= len(lines) else ""
    width = max(1, min(span[2], max(1, len(ln) - span[1] + 1)))
    col = span[1] - 1  # 0-based
    if len(ln) > SHOWN_LINE:  # a long line is shown as a window around the caret
        start = max(0, min(col - SHOWN_LINE // 3, len(ln) - SHOWN_LINE))
        pre = "..." if start > 0 else ""
        post = "..." if start + SHOWN_LINE < len(ln) else ""
        ln = pre + ln[start:start + SHOWN_LINE] + post
        col = col - start + len(pre)
        width = max(1, min(width, SHOWN_LINE + len(pre) - col))
    return f"{head}\n  {ln}\n  {' ' * col}{'^' * width}"


SHOWN_LINE = 100  # characters of the offending line shown under an error


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            col = pos - line_start + 1
            raise DslError(f"unexpected character {text[pos]!r}", (line, col, 1), text)
        kind = m.lastgroup or ""
        s = m.group()
        if kind == "number" and len(s) > X.MAX_NUMBER_LENGTH:
            raise DslError(f"number literal longer than {X.MAX_NUMBER_LENGTH} characters",
                           (line, pos - line_start + 1, len(s)), text)
        if kind not in ("ws", "comment"):
            toks.append(Tok(kind, s, line, pos - line_start + 1, pos))
        nl = s.count("\n")
        if nl:
            line += nl
            line_start = pos + s.rindex("\n") + 1
        pos = m.end()
    toks.append(Tok("eof", "", line, pos - line_start + 1, pos))
    return toks


# --------------------------------------------------------------------------- vocabulary

CLAUSES = ("WHERE", "WITHIN", "OUTPUT", "AGG", "GROUP", "RETURN")
KEYWORDS = {"PATTERN", "SEQ", "AND", "OR", "NOT", "WHERE", "WITHIN", "OUTPUT", "AGG", "GROUP", "BY", "RETURN", "AS"}
STRATEGY_NAMES = [s.value for s in Strategy]
SELECTION_NAMES = [s.value for s in Selection if s is not Selection.ALL]  # match-windows §3.5
AGG_FUNCS = ("avg", "sum", "min", "max", "count")
UNITS: dict[str, tuple[str, float]] = {}
for _words, _unit in (
    (("ms", "msec", "msecs", "millisecond", "milliseconds"), "ms"),
    (("s", "sec", "secs", "second", "seconds"), "s"),
    (("min", "mins", "minute", "minutes"), "min"),
    (("h", "hr", "hrs", "hour", "hours"), "hour"),
    (("d", "day", "days"), "day"),
    (("event", "events"), "events"),
):
    for _w in _words:
        UNITS[_w] = (_unit, 1.0)
UNITS["week"] = UNITS["weeks"] = ("day", 7)


def _strategy_of(text: str) -> Strategy:
    return Strategy(text.lower().replace("-", "_"))


# --------------------------------------------------------------------------- parser

class Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.prev_refs: set[int] = set()  # ids of Ref nodes written as prev(v.x)
        self.depth = 0  # current nesting (groups, parentheses, NOT, unary signs)
        self.n_components = 0
        # id(node) -> (height, node) for the composite expression nodes built so far (the
        # node is kept so that its id is not reused); leaves have height 1.
        self.heights: dict[int, tuple[int, Any]] = {}
        # where names are written (the model keeps no span of its own for them):
        # "type" var -> its event type's token; "equivalence" / "group_by" attr -> first token
        self.name_spans: dict[str, dict[str, X.Span]] = {"type": {}, "equivalence": {}, "group_by": {}}

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


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def _short(text: str, n: int = 24) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


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


def check_schema(pattern: Pattern, schema: dict[str, dict[str, str]], source: str | None = None) -> list[str]:
    """:meth:`Pattern.check_schema`, with errors and warnings rendered against ``source``
    (the text ``pattern`` was parsed from) when given: line, column and a caret under the
    name, also for an unknown event type (a warning) and an unknown ``[attr]`` or
    ``GROUP BY`` attribute, which the model reports without a place of their own."""
    spans = name_spans(source) if source is not None else None
    try:
        warnings = pattern.check_schema(schema)
    except PatternError as err:
        if source is None or isinstance(err, DslError):
            raise
        span = err.span
        if spans is not None and (span is None or span == pattern.span):
            span = _list_name_span(pattern, err.message, spans) or span
        raise DslError(err.message, span, source, err.hint) from None
    if spans is None:
        return warnings
    used: set[str] = set()
    return [_located_warning(w, pattern, spans, source, used) for w in warnings]


def _list_name_span(pattern: Pattern, message: str, spans: dict[str, dict[str, X.Span]]) -> X.Span | None:
    """The span of the ``[attr]`` / ``GROUP BY`` name an ``unknown attribute `x``` error is
    about (checked in the model's order: equivalence, then GROUP BY)."""
    names = [("equivalence", a) for a in pattern.equivalence]
    names += [("group_by", a) for a in (pattern.aggregate.group_by if pattern.aggregate else [])]
    for where, attr in names:
        if message == f"unknown attribute `{attr}`":
            return spans[where].get(attr)
    return None


def _located_warning(warning: str, pattern: Pattern, spans: dict[str, dict[str, X.Span]], source: str,
                     used: set[str]) -> str:
    """An ``event type `T` does not occur in the data`` warning (one per component, in
    order) with the place of the next component of type T not placed yet (``used``: the
    variables placed), its caret and the suggestion."""
    for c in pattern.components():
        msg = f"event type `{c.type}` does not occur in the data"
        if c.var not in used and (warning == msg or warning.startswith(msg + "; ")):
            used.add(c.var)
            span = spans["type"].get(c.var)
            if span is None:
                return warning
            hint = warning[len(msg) + 2:] or None
            return render_error(msg, span, source, hint)
    return warning


def component_text(c: Component) -> str:
    if c.var == c.type and not c.kleene:
        body = f"{c.type}{QUANT_SUFFIX[c.quant]}"
    else:
        body = f"{c.type}{QUANT_SUFFIX[c.quant]} {c.var}{'[]' if c.kleene else ''}"
    return f"!{body}" if c.negated else body


def item_text(item: Component | Group) -> str:
    if isinstance(item, Component):
        return component_text(item)
    return f"{item.op}(" + ", ".join(item_text(i) for i in item.items) + ")"


def _window_text(w: Window) -> str:
    v = X._fmt_number(w.value)
    if w.unit is None:
        return v
    plural = w.unit in ("hour", "day") and w.value != 1
    return f"{v} {w.unit}{'s' if plural else ''}"


def _conjunct_text(e: Any) -> str:
    s = X.to_text(e)
    return f"({s})" if isinstance(e, X.BoolOp) else s


def to_text(p: Pattern) -> str:
    """Canonical DSL text of a pattern (a PatternError, never a RecursionError, for groups
    nested deeper than MAX_NESTING; expressions and numbers are guarded by ``expr``)."""
    check_group_depth(p.root)
    lines = [f"PATTERN {item_text(p.root)}"]
    conj = [p.strategy.value]
    if p.selection is not Selection.ALL:
        conj.append(p.selection.value)
    if p.equivalence:
        conj.append("[" + ", ".join(p.equivalence) + "]")
    conj += [_conjunct_text(e) for e in p.where]
    lines.append("WHERE " + conj[0])
    lines += [f"  AND {c}" for c in conj[1:]]
    if p.window is not None:
        lines.append(f"WITHIN {_window_text(p.window)}")
    if p.output != "ALL":
        lines.append(f"OUTPUT {p.output}")
    if p.aggregate is not None:
        a = p.aggregate
        arg = f"({a.var}.{a.attr})" if a.var is not None else ""
        lines.append(f"AGG {a.func}{arg}")
        if a.group_by:
            lines.append("GROUP BY " + ", ".join(a.group_by))
    if p.returns:
        items = []
        for r in p.returns:
            s = r.var if r.var is not None else X.to_text(r.expr)  # type: ignore[arg-type]
            if r.alias:
                s += f" AS {r.alias}"
            items.append(s)
        lines.append("RETURN " + ", ".join(items))
    return "\n".join(lines) + "\n"


__all__ = ["DslError", "parse", "parse_expr", "to_text", "tokenize", "check_schema", "render_error", "item_text"]
