"""Run a MATCH_RECOGNIZE query over a table: :func:`run_query` binds the query to the table's
columns, matches every partition with the chosen matcher (the thread matcher, or the oracle)
and returns the output rows with the counters."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from engine.engines.sql.binding import BoundQuery, bind, partitions
from engine.engines.sql.matcher import ThreadMatcher
from engine.engines.sql.oracle import OracleMatcher
from engine.engines.sql.output import match_rows, project
from engine.engines.sql.query import Query
from engine.engines.sql.search import RowMatch, match_partition


@dataclass
class Table:
    """The input: column names in order and the rows (dicts by column), in file order."""

    columns: list[str]
    rows: list[dict[str, Any]]


@dataclass
class SqlResult:
    columns: list[str]
    rows: list[dict[str, Any]]
    matches: list[tuple[tuple[Any, ...], RowMatch]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


def inline_table(query: Query) -> Table | None:
    """The query's own (VALUES ...) table, or None."""
    if query.values is None:
        return None
    cols = list(query.value_columns or [])
    return Table(cols, [dict(zip(cols, row)) for row in query.values])


def make_matcher(bound: BoundQuery, engine: str = "sql", **options: Any) -> Any:
    if engine == "sql-oracle":
        return OracleMatcher(bound, **{k: v for k, v in options.items() if k == "max_steps"})
    return ThreadMatcher(bound, **{k: v for k, v in options.items() if k in ("max_threads", "max_work")})


def run_query(query: Query, table: Table, engine: str = "sql", **options: Any) -> SqlResult:
    t0 = time.perf_counter()
    bound = bind(query, table.columns)
    matcher = make_matcher(bound, engine, **options)
    out: list[dict[str, Any]] = []
    found: list[tuple[tuple[Any, ...], RowMatch]] = []
    n_parts = 0
    for key, rows in partitions(bound, table.rows):
        n_parts += 1
        where = f" in partition {_key_text(bound, key)}" if bound.partition_by else ""
        matcher.bind_partition(rows, where)
        matches, unmatched = match_partition(len(rows), matcher.find, query.after_match, bound.members, where)
        found.extend((key, m) for m in matches)
        out.extend(match_rows(bound, key, rows, matches, unmatched, where))
    columns, rows_out = project(bound, out)
    stats = {"rows": len(table.rows), "partitions": n_parts, "matches": len(found), "output_rows": len(rows_out),
             "engine": engine, "seconds": round(time.perf_counter() - t0, 6)}
    if isinstance(matcher, ThreadMatcher):
        stats.update(define_evaluations=matcher.work, threads_peak=matcher.threads_peak)
    return SqlResult(columns, rows_out, found, stats)


def _key_text(bound: BoundQuery, key: tuple[Any, ...]) -> str:
    return ", ".join(f"{c}={v!r}" for c, v in zip(bound.partition_by, key))
