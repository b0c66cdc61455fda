"""Helpers of the SQL tests: a query over a list of rows, with either engine."""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import Table, inline_table, run_query


def table(columns: list[str], *rows: tuple[Any, ...]) -> Table:
    return Table(columns, [dict(zip(columns, r)) for r in rows])


def prices(*values: Any) -> Table:
    """id, ts = 1, 2, ... and the prices."""
    return table(["id", "ts", "price"], *[(i + 1, i + 1, p) for i, p in enumerate(values)])


def rows(sql: str, data: Table | None = None, engine: str = "sql") -> list[dict[str, Any]]:
    q = parse_query(sql)
    t = data if data is not None else inline_table(q)
    assert t is not None
    return run_query(q, t, engine).rows


def both(sql: str, data: Table | None = None) -> list[dict[str, Any]]:
    """The rows, after checking that the engine and the oracle agree."""
    a = rows(sql, data, "sql")
    b = rows(sql, data, "sql-oracle")
    assert a == b, f"engine {a} != oracle {b}"
    return a


VARS = ["A", "B", "C"]


@st.composite
def patterns(draw: Any, depth: int = 0, names: tuple[str, ...] = tuple(VARS)) -> str:
    """Row-pattern text over every construct: variables, concatenation, |, groups, PERMUTE, {- -},
    anchors, (), and the quantifiers greedy and reluctant."""
    kind = draw(st.sampled_from(["var", "var", "var", "concat", "concat", "alt", "group", "permute", "excl",
                                 "anchor", "empty"] if depth < 2 else ["var"]))
    inner = patterns(depth + 1, names)
    if kind == "var":
        text = draw(st.sampled_from(list(names)))
    elif kind == "concat":
        text = " ".join(draw(st.lists(inner, min_size=2, max_size=3)))
    elif kind == "alt":
        text = "(" + " | ".join(draw(st.lists(inner, min_size=2, max_size=3))) + ")"
    elif kind == "group":
        text = "(" + draw(inner) + ")"
    elif kind == "permute":
        text = "PERMUTE(" + ", ".join(draw(st.lists(inner, min_size=2, max_size=3))) + ")"
    elif kind == "excl":
        text = "{- " + draw(inner) + " -}"
    elif kind == "anchor":
        return draw(st.sampled_from(["^", "$"]))
    else:
        return "()"
    q = draw(st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,}", "{,2}", "{1,2}", "{0,3}"]))
    if q and kind == "concat":
        text = f"({text})"
    if q:
        q += draw(st.sampled_from(["", "", "?"]))
    return text + q
