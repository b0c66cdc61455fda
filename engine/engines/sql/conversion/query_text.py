"""A parsed query written back as canonical MATCH_RECOGNIZE text (``cep convert --to sql``): one
clause a line in the standard's order, expressions as sqlglot writes them, the row pattern as
row_pattern.render writes it. ``flink=True`` quotes identifiers with backticks (Flink's SQL)."""
from __future__ import annotations

import math
import re
from typing import Any

from engine.engines.sql.conversion.sql_text import column_name, expression_text, string_literal, variable_name
from engine.engines.sql.conversion.sql_text import column_name as sql_column_name
from engine.engines.sql.conversion.sql_text import expression_text as sql_expression_text
from engine.engines.sql.query import Query, SortKey
from engine.engines.sql.row_pattern import render

SKIPS = {"past_last": "PAST LAST ROW", "next_row": "TO NEXT ROW", "first": "TO FIRST", "last": "TO LAST"}
EMPTY = {"show": "SHOW EMPTY MATCHES", "omit": "OMIT EMPTY MATCHES", "unmatched": "WITH UNMATCHED ROWS"}
WITHIN_TEXT = re.compile(r"INTERVAL\s*'\s*([0-9.]+)\s*'\s*(\w+)", re.IGNORECASE)


def query_text(q: Query, order_by: list[str] | None = None, quote: bool = False) -> str:
    """The canonical text of ``q``; ``order_by`` replaces the ORDER BY keys' text; ``quote`` quotes
    every column (Flink's reserved words are many)."""
    def column_name(name: str) -> str:
        return sql_column_name(name, quote)

    def expression_text(tree: Any) -> str:
        return sql_expression_text(tree, quote)

    lines = [f"SELECT {_select(q, quote)} FROM {_source(q)} MATCH_RECOGNIZE ("]
    if q.partition_by:
        lines.append("  PARTITION BY " + ", ".join(column_name(k.column) for k in q.partition_by))
    lines.append("  ORDER BY " + ", ".join(order_by if order_by is not None else [_sort_key(k, quote) for k in q.order_by]))
    if q.measures:
        lines.append("  MEASURES " + ",\n           ".join(f"{expression_text(m.expression.tree)} AS "
                                                         f"{column_name(m.name)}" for m in q.measures))
    if q.rows_per_match == "all":
        lines.append("  ALL ROWS PER MATCH" + ("" if q.empty_matches == "show" else " " + EMPTY[q.empty_matches]))
    else:
        lines.append("  ONE ROW PER MATCH")
    kind, var = q.after_match
    lines.append(f"  AFTER MATCH SKIP {SKIPS[kind]}" + (f" {variable_name(var)}" if var else ""))
    assert q.pattern is not None
    lines.append(f"  PATTERN ({render(q.pattern)})")
    if q.within is not None:
        lines.append("  " + within_text(q.within))
    if q.subsets:
        lines.append("  SUBSET " + ", ".join(f"{variable_name(u)} = (" + ", ".join(variable_name(v) for v in vs) + ")"
                                             for u, vs in q.subsets.items()))
    defines = [f"{variable_name(v)} AS {expression_text(d.tree)}" for v, d in q.defines.items()]
    if defines:
        lines.append("  DEFINE " + ",\n         ".join(defines))
    lines.append(")" + (f" AS {column_name(q.alias)}" if q.alias else ""))
    if q.final_order:
        lines.append("ORDER BY " + ", ".join(_sort_key(k, quote) for k in q.final_order))
    return "\n".join(lines) + "\n"


def within_text(within: tuple[float, str]) -> str:
    m = WITHIN_TEXT.search(within[1])
    if m is None:
        return within[1]
    word = m.group(2).upper()
    unit = "MILLISECOND" if word == "MS" else word.rstrip("S") if word.endswith("S") else word
    return f"WITHIN INTERVAL '{m.group(1)}' {unit}"


def _sort_key(k: SortKey, quote: bool = False) -> str:
    text = sql_column_name(k.column, quote)
    if k.descending:
        text += " DESC"
    if k.nulls_first != k.descending:
        text += " NULLS FIRST" if k.nulls_first else " NULLS LAST"
    return text


def _select(q: Query, quote: bool) -> str:
    if q.select is None:
        return "*"
    items = []
    for item in q.select:
        if item.expression is None:
            items.append("*")
            continue
        text = sql_expression_text(item.expression.tree, quote)
        name = sql_column_name(item.name, quote)
        items.append(text if text == name else f"{text} AS {name}")
    return ", ".join(items)


def _source(q: Query) -> str:
    if q.values is None:
        return column_name(q.table or "events")
    rows = ", ".join("(" + ", ".join(_value(v) for v in row) + ")" for row in q.values)
    columns = ", ".join(column_name(c) for c in q.value_columns or [])
    return f"(VALUES {rows}) AS {column_name(q.table or 't')}({columns})"


def _value(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and math.isfinite(v):
        return repr(v)
    return string_literal(str(v))
