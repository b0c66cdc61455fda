"""SQL spelling shared by the conversions: identifiers (quoted when they must be), string and
number literals, and the canonical text of a sqlglot expression tree."""
from __future__ import annotations

import math
import re
from typing import Any

from sqlglot import exp

from engine.engines.sql.row_pattern import Var, render

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# words a column may not be called without quotes (SQL keywords a reader would trip on)
RESERVED = {
    "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "CASE", "CAST", "DEFINE", "DESC", "ELSE", "END", "FALSE", "FIRST",
    "FROM", "IN", "INTERVAL", "IS", "LAST", "MATCH_RECOGNIZE", "MEASURES", "NEXT", "NOT", "NULL", "ON", "OR", "ORDER",
    "PARTITION", "PATTERN", "PERMUTE", "PREV", "ROW", "ROWS", "SELECT", "SKIP", "SUBSET", "THEN", "TO", "TRUE",
    "WHEN", "WHERE", "WITH", "WITHIN", "VALUES", "FINAL", "RUNNING", "ONE", "PER", "MATCH", "AFTER", "PAST",
}


def column_name(name: str, quote: bool = False) -> str:
    """A column as SQL text: bare when plain and not a keyword (and not ``quote``), else double-quoted."""
    if not quote and _PLAIN.match(name) and name.upper() not in RESERVED:
        return name
    return '"' + name.replace('"', '""') + '"'


def variable_name(name: str) -> str:
    """A pattern variable as SQL text: bare when upper-case and plain (SQL upper-cases bare
    names), else double-quoted, so that the name reads back exactly."""
    if name.upper() in RESERVED:
        return '"' + name.replace('"', '""') + '"'
    return render(Var(name))


def string_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def number_literal(value: int | float) -> str:
    """An exact number: integers as written, floats by ``repr`` (the shortest exact spelling)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    text = repr(value)
    if "e" in text or "E" in text:
        mantissa, exponent = text.lower().split("e")
        return f"{mantissa}E{int(exponent)}"
    return text


def expression_text(tree: Any, quote: bool = False) -> str:
    """The canonical SQL text of a sqlglot tree of the query (``RUNNING f`` / ``FINAL f`` as the
    standard writes them; the parser joins them to ``RUNNING_F`` to keep offsets)."""
    copy = tree.copy()
    for node in list(copy.find_all(exp.Anonymous)):
        name = str(node.this)
        for word in ("RUNNING_", "FINAL_"):
            if name.upper().startswith(word):
                node.set("this", word[:-1] + " " + name[len(word):].upper())
    return copy.sql(identify=quote)


def literal_value(node: Any) -> Any:
    """The Python value of a sqlglot literal (exact: integers stay int), or raise ValueError."""
    if isinstance(node, exp.Literal):
        if node.is_string:
            return str(node.this)
        text = str(node.this)
        if re.fullmatch(r"[0-9]+", text):
            return int(text)
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    raise ValueError(type(node).__name__)
