"""Helpers of the SQL tests: a query over a list of rows, with either engine."""
from __future__ import annotations

from typing import Any

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
