"""The row pattern of PATTERN ( ... ): its tree and its parser.

Grammar (SQL:2016, as Trino documents it)::

    pattern    := concat ('|' concat)*
    concat     := term*                      -- an empty concat is the empty pattern ()
    term       := primary quantifier?
    primary    := VAR | '(' pattern ')' | '{-' pattern '-}' | PERMUTE '(' pattern (',' pattern)* ')'
                | '^' | '$'
    quantifier := ('*' | '+' | '?' | '{' n '}' | '{' n ',' '}' | '{' ',' m '}' | '{' n ',' m '}') '?'?

A variable is upper-cased unless quoted (``"b"`` stays ``b``). A trailing ``?`` makes a quantifier
reluctant. Anchors cannot be quantified."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from engine.engines.sql.errors import error_at
from engine.engines.sql.lexer import Token

#: words that end a pattern written without its closing parenthesis (quote a variable so named)
STOP_WORDS = ("DEFINE", "SUBSET", "WITHIN", "MEASURES", "PATTERN", "AFTER", "PARTITION", "ORDER")
MAX_BOUND = 10_000  # the largest {n,m} bound accepted (the compiled program unrolls bounds)


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Empty:
    pass


@dataclass(frozen=True, slots=True)
class Anchor:
    kind: str  # "^" partition start, "$" partition end


@dataclass(frozen=True, slots=True)
class Concat:
    parts: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Alt:
    options: tuple["Node", ...]


@dataclass(frozen=True, slots=True)
class Quantified:
    body: "Node"
    min: int
    max: int | None  # None: unbounded
    greedy: bool = True


@dataclass(frozen=True, slots=True)
class Exclusion:
    body: "Node"


@dataclass(frozen=True, slots=True)
class Permute:
    items: tuple["Node", ...]


Node = Union[Var, Empty, Anchor, Concat, Alt, Quantified, Exclusion, Permute]


def variables(node: Node) -> list[str]:
    """The variables of ``node`` in order of first appearance."""
    out: list[str] = []

    def walk(n: Node) -> None:
        if isinstance(n, Var):
            if n.name not in out:
                out.append(n.name)
        elif isinstance(n, (Concat,)):
            for p in n.parts:
                walk(p)
        elif isinstance(n, (Alt,)):
            for p in n.options:
                walk(p)
        elif isinstance(n, Permute):
            for p in n.items:
                walk(p)
        elif isinstance(n, (Quantified, Exclusion)):
            walk(n.body)

    walk(node)
    return out


def can_be_empty(node: Node) -> bool:
    """The pattern can match zero rows."""
    if isinstance(node, Var):
        return False
    if isinstance(node, (Empty, Anchor)):
        return True
    if isinstance(node, Concat):
        return all(can_be_empty(p) for p in node.parts)
    if isinstance(node, Permute):
        return all(can_be_empty(p) for p in node.items)
    if isinstance(node, Alt):
        return any(can_be_empty(p) for p in node.options)
    if isinstance(node, Quantified):
        return node.min == 0 or can_be_empty(node.body)
    return can_be_empty(node.body)


def has(node: Node, kind: type) -> bool:
    """``node`` contains a node of ``kind``."""
    if isinstance(node, kind):
        return True
    if isinstance(node, Concat):
        return any(has(p, kind) for p in node.parts)
    if isinstance(node, Alt):
        return any(has(p, kind) for p in node.options)
    if isinstance(node, Permute):
        return any(has(p, kind) for p in node.items)
    if isinstance(node, (Quantified, Exclusion)):
        return has(node.body, kind)
    return False


def variable_name(token: Token) -> str:
    """A pattern variable as the query names it: upper-cased unless quoted."""
    return token.text if token.kind == "quoted" else token.text.upper()


class PatternParser:
    """Parses the tokens between PATTERN's parentheses (``tokens[pos]`` is the first)."""

    def __init__(self, source: str, tokens: list[Token], pos: int):
        self.source, self.tokens, self.pos = source, tokens, pos

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def found(self) -> str:
        return "the end of the query" if self.tok.kind == "end" else repr(self.tok.text)

    def fail(self, message: str, hint: str | None = None, token: Token | None = None) -> Exception:
        t = token or self.tok
        return error_at(self.source, t.start, message, hint, max(1, t.end - t.start))

    def parse(self) -> Node:
        node = self.alternation()
        if self.tok.is_word(*STOP_WORDS) or self.tok.kind == "end":
            raise self.fail(f"expected ')' to close PATTERN ( before {self.found()}",
                            "close every parenthesis of the row pattern")
        if not self.tok.is_symbol(")"):
            raise self.fail(f"unexpected {self.tok.text or 'end of query'!r} in PATTERN",
                            "a row pattern holds variables, ( ), |, {- -}, PERMUTE(...), ^, $ and quantifiers")
        return node

    def alternation(self) -> Node:
        options = [self.concat()]
        while self.tok.is_symbol("|"):
            self.pos += 1
            options.append(self.concat())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def concat(self) -> Node:
        parts: list[Node] = []
        while True:
            t = self.tok
            if t.is_word(*STOP_WORDS):
                break
            if t.kind in ("word", "quoted") and not t.is_word("PERMUTE"):
                self.pos += 1
                parts.append(self.quantifier(Var(variable_name(t), t.start), t))
            elif t.is_word("PERMUTE"):
                parts.append(self.quantifier(self.permute(), t))
            elif t.is_symbol("("):
                self.pos += 1
                inner = self.alternation()
                self.expect(")", t)
                parts.append(self.quantifier(inner if not isinstance(inner, Concat) or inner.parts
                                             else Empty(), t))
            elif t.is_symbol("{-"):
                self.pos += 1
                inner = self.alternation()
                self.expect("-}", t)
                parts.append(self.quantifier(Exclusion(inner), t))
            elif t.is_symbol("^", "$"):
                self.pos += 1
                if self.tok.is_symbol("*", "+", "?", "{"):
                    raise self.fail(f"the anchor {t.text} cannot be quantified", "remove the quantifier")
                parts.append(Anchor(t.text))
            elif t.is_symbol("*", "+", "?") or (t.is_symbol("{") and not parts):
                raise self.fail(f"the quantifier {t.text} has nothing to repeat",
                                "put it after a variable or a parenthesised group")
            else:
                break
        if not parts:
            return Concat(())
        return parts[0] if len(parts) == 1 else Concat(tuple(parts))

    def permute(self) -> Node:
        start = self.tok
        self.pos += 1
        self.expect("(", start, "PERMUTE takes its arguments in parentheses: PERMUTE(A, B, C)")
        items = [self.alternation()]
        while self.tok.is_symbol(","):
            self.pos += 1
            items.append(self.alternation())
        self.expect(")", start)
        if len(items) > 7:
            raise self.fail(f"PERMUTE with {len(items)} arguments has {_factorial(len(items)):,} orders",
                            "at most 7 arguments", start)
        return Permute(tuple(items))

    def quantifier(self, body: Node, at: Token) -> Node:
        t = self.tok
        if t.is_symbol("*"):
            lo, hi = 0, None
            self.pos += 1
        elif t.is_symbol("+"):
            lo, hi = 1, None
            self.pos += 1
        elif t.is_symbol("?"):
            lo, hi = 0, 1
            self.pos += 1
        elif t.is_symbol("{"):
            lo, hi = self.bounds()
        else:
            return body
        greedy = True
        if self.tok.is_symbol("?"):
            greedy = False
            self.pos += 1
        if self.tok.is_symbol("*", "+", "{") or (self.tok.is_symbol("?") and not greedy):
            raise self.fail("a quantifier cannot follow another quantifier",
                            "group the quantified part in parentheses: (A+)*")
        return Quantified(body, lo, hi, greedy)

    def bounds(self) -> tuple[int, int | None]:
        start = self.tok
        self.pos += 1
        lo: int | None = None
        hi: int | None = None
        if self.tok.kind == "number":
            lo = self.number()
        if self.tok.is_symbol(","):
            self.pos += 1
            if self.tok.kind == "number":
                hi = self.number()
            if lo is None and hi is None:
                raise self.fail("{,} needs a bound", "write {n,}, {,m} or {n,m}", start)
            lo = lo or 0
        else:
            if lo is None:
                raise self.fail("a bounded quantifier needs a number", "write {n}, {n,}, {,m} or {n,m}", start)
            hi = lo
        self.expect("}", start)
        if hi is not None and hi < lo:
            raise self.fail(f"{{{lo},{hi}}}: the upper bound is below the lower one", "write {n,m} with n <= m",
                            start)
        if hi == 0:
            raise self.fail("{0} and {,0} repeat nothing", "remove the element or use ?", start)
        if max(lo, hi or 0) > MAX_BOUND:
            raise self.fail(f"a bound above {MAX_BOUND:,}", "use + or {n,} for long repetitions", start)
        return lo, hi

    def number(self) -> int:
        t = self.tok
        if not t.text.isdigit():
            raise self.fail(f"{t.text} is not a whole number", "bounds are whole numbers")
        self.pos += 1
        return int(t.text)

    def expect(self, symbol: str, opened: Token, hint: str | None = None) -> None:
        if not self.tok.is_symbol(symbol):
            raise self.fail(f"expected {symbol!r} to close {opened.text!r} opened at column "
                            f"{_column(self.source, opened.start)}, found {self.tok.text or 'the end'!r}",
                            hint)
        self.pos += 1


def _column(source: str, offset: int) -> int:
    return offset - (source.rfind("\n", 0, offset) + 1) + 1


def _factorial(n: int) -> int:
    out = 1
    for k in range(2, n + 1):
        out *= k
    return out


def render(node: Node) -> str:
    """The pattern as SQL text (a canonical spelling, used by conversions and messages)."""
    if isinstance(node, Var):
        plain = node.name == node.name.upper() and node.name.isidentifier() and node.name.isascii()
        return node.name if plain else '"' + node.name.replace('"', '""') + '"'
    if isinstance(node, Empty):
        return "()"
    if isinstance(node, Anchor):
        return node.kind
    if isinstance(node, Concat):
        return " ".join(_term(p) for p in node.parts) if node.parts else "()"
    if isinstance(node, Alt):
        return " | ".join(render(p) for p in node.options)
    if isinstance(node, Permute):
        return "PERMUTE(" + ", ".join(render(p) for p in node.items) + ")"
    if isinstance(node, Exclusion):
        return "{- " + render(node.body) + " -}"
    q = node
    body = render(q.body)
    if not isinstance(q.body, (Var, Exclusion, Permute, Empty)):
        body = f"({body})"
    if (q.min, q.max) == (0, None):
        suffix = "*"
    elif (q.min, q.max) == (1, None):
        suffix = "+"
    elif (q.min, q.max) == (0, 1):
        suffix = "?"
    elif q.max is None:
        suffix = f"{{{q.min},}}"
    elif q.min == q.max:
        suffix = f"{{{q.min}}}"
    elif q.min == 0:
        suffix = f"{{,{q.max}}}"
    else:
        suffix = f"{{{q.min},{q.max}}}"
    return body + suffix + ("" if q.greedy else "?")


def _term(node: Node) -> str:
    text = render(node)
    return f"({text})" if isinstance(node, Alt) else text
