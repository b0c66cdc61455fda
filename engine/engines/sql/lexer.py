"""Tokens of a MATCH_RECOGNIZE query: words, quoted names, strings, numbers and the symbols the
clause and the row pattern use (``{-`` ``-}`` ``??`` are read as their single characters and
paired by the pattern parser). Comments (``--`` to the end of the line, ``/* ... */``) are skipped.
Every token keeps its character offset for the errors' line, column and caret."""
from __future__ import annotations

from dataclasses import dataclass

from engine.engines.sql.errors import error_at

SYMBOLS = ("<>", "!=", "<=", ">=", "||", "{-", "-}", "(", ")", ",", ".", "*", "+", "?", "{", "}", "|", "^",
           "$", "=", "<", ">", "-", "/", "%", ";", "[", "]", ":")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str          # "word", "quoted", "string", "number", "symbol", "end"
    text: str          # as written (a quoted name without its quotes, a string without its quotes)
    start: int         # character offset of the token
    end: int           # offset just past it

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words

    def is_symbol(self, *symbols: str) -> bool:
        return self.kind == "symbol" and self.text in symbols


def tokenize(source: str) -> list[Token]:
    """The tokens of ``source``, ending with an ``end`` token."""
    out: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
        elif source.startswith("--", i) and not source.startswith("-}", i + 1):
            j = source.find("\n", i)
            i = n if j < 0 else j + 1
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            if j < 0:
                raise error_at(source, i, "this comment is never closed", "end it with */", 2)
            i = j + 2
        elif c == "'":
            j, text = _quoted(source, i, "'", "string")
            out.append(Token("string", text, i, j))
            i = j
        elif c == '"' or c == "`":
            j, text = _quoted(source, i, c, "quoted name")
            if not text:
                raise error_at(source, i, "an empty quoted name", "write a name between the quotes", 2)
            out.append(Token("quoted", text, i, j))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and source[i + 1].isdigit()):
            j = i
            while j < n and source[j].isdigit():
                j += 1
            if j < n and source[j] == "." and not source.startswith("..", j):
                j += 1
                while j < n and source[j].isdigit():
                    j += 1
            if j < n and source[j] in "eE" and (j + 1 < n and (source[j + 1].isdigit() or
                                                              (source[j + 1] in "+-" and j + 2 < n and
                                                               source[j + 2].isdigit()))):
                j += 2
                while j < n and source[j].isdigit():
                    j += 1
            if j < n and (source[j].isalpha() or source[j] == "_"):
                raise error_at(source, i, f"a number runs into a name: {source[i:j + 1]!r}",
                               "put a space or an operator between them", j + 1 - i)
            out.append(Token("number", source[i:j], i, j))
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (source[j].isalnum() or source[j] == "_"):
                j += 1
            out.append(Token("word", source[i:j], i, j))
            i = j
        else:
            for s in SYMBOLS:
                if source.startswith(s, i):
                    out.append(Token("symbol", s, i, i + len(s)))
                    i += len(s)
                    break
            else:
                raise error_at(source, i, f"unexpected character {c!r}",
                               "MATCH_RECOGNIZE queries use SQL's symbols only")
    out.append(Token("end", "", n, n))
    return out


def _quoted(source: str, i: int, quote: str, what: str) -> tuple[int, str]:
    """(offset past the closing quote, the text with doubled quotes undone)."""
    j = i + 1
    parts = []
    while True:
        k = source.find(quote, j)
        if k < 0:
            raise error_at(source, i, f"this {what} is never closed", f"end it with {quote}")
        parts.append(source[j:k])
        if source.startswith(quote * 2, k):
            parts.append(quote)
            j = k + 2
            continue
        return k + 1, "".join(parts)
