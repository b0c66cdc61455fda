"""The lexer: :func:`tokenize` turns DSL text into :class:`Tok` tokens (name, number, string,
strategy, op, eof) with line, column and offset; whitespace and comments (`--`, `#`, `//`)
are dropped. A character no token starts with, or a number literal longer than
MAX_NUMBER_LENGTH, is a :class:`DslError` at its place."""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine import expr as X
from engine.dsl.errors import DslError

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
