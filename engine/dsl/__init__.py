"""The text DSL: a tokenizer, a recursive-descent parser, a printer and the schema check.

Modules, each importing only the ones above it:

- ``errors``: :class:`DslError` and :func:`render_error` (line, column, the line, a caret).
- ``tokens``: the lexer, :func:`tokenize` and the :class:`Tok` it yields.
- ``vocabulary``: clause keywords, reserved words, strategy / selection names, aggregate
  functions and time units.
- ``expressions``: :class:`ExpressionParser`, the token cursor, the nesting limits and the
  predicate grammar.
- ``parser``: :class:`Parser`, the pattern grammar (text -> model); :func:`parse`,
  :func:`parse_expr`, :func:`name_spans`.
- ``schema``: :func:`check_schema`, the model's schema check rendered against the text.
- ``printer``: the model -> text side; :func:`to_text`, :func:`item_text`,
  :func:`component_text`, ``_window_text``.

``parse(text) -> Pattern`` and ``to_text(pattern) -> str`` are each other's inverse on
models: ``parse(to_text(m)) == m`` (a hypothesis test). Errors are :class:`DslError`
with line, column, the offending line and a caret under it, and a suggestion when a
name is close to a known one. Keywords are case-insensitive; attribute names may be
words (`from`, `to`, `type`, `value`).

Grammar ("The pattern language"):

    query     := PATTERN item clause*
    clause    := WHERE conj (AND conj)* | WITHIN number [unit] | OUTPUT (ALL|NON_OVERLAP)
               | AGG func ['(' v.attr ')'] | GROUP BY attr (',' attr)* | RETURN ritem (',' ritem)*
    item      := (SEQ|AND|OR) '(' item (',' item)* ')' | ['!'|'~'|'¬'] ['('] Type [+|*|?] [var ['[' ']']] [')']
    conj      := strategy ['(' vars ')'] ['{' conj (AND conj)* '}'] | '[' attr (',' attr)* ']' | expr

Limits (the constants are in ``expr`` and ``model``), each a DslError at the place
it is exceeded: the text is at most MAX_PATTERN_LENGTH characters; groups, parentheses,
NOT, unary minus and the height of an expression tree nest at most MAX_NESTING levels; at
most MAX_COMPONENTS components; a number literal has at most MAX_NUMBER_LENGTH characters
and a magnitude of at most MAX_NUMBER (so it is a finite float; a literal that rounds to 0
is refused too), and so does a window after its unit factor. The parser recurses only
once per nesting level, so these limits keep it far from Python's recursion limit.
"""
from __future__ import annotations

from engine.dsl.errors import SHOWN_LINE, DslError, render_error
from engine.dsl.tokens import Tok, tokenize
from engine.dsl.vocabulary import AGG_FUNCS, CLAUSES, KEYWORDS, SELECTION_NAMES, STRATEGY_NAMES, UNITS
from engine.dsl.expressions import ExpressionParser
from engine.dsl.parser import Parser, name_spans, parse, parse_expr
from engine.dsl.schema import check_schema
from engine.dsl.printer import _window_text, component_text, item_text, to_text

__all__ = ["DslError", "parse", "parse_expr", "to_text", "tokenize", "check_schema", "render_error", "item_text"]
