"""Run a MATCH_RECOGNIZE query over a table: :func:`run_query` binds the query to the table's
columns, matches every partition with the chosen matcher (the thread matcher, or the oracle)
and returns the output rows with the counters."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Iterator

from engine.engines.sql.binding import BoundQuery, bind, partitions
from engine.engines.sql.matcher import ThreadMatcher
from engine.engines.sql.oracle import OracleMatcher
from engine.engines.sql.output import match_rows, project
from engine.engines.sql.rows import RowList, RowView
from engine.engines.sql.query import Query
from engine.engines.sql.search import RowMatch, match_partition
from engine.engines.sql.vector import plan_query
from engine.engines.sql.vector_kleene import TooLong, plan_kleene
from engine.engines.sql.vector_output import OneRowOutput, plan_measures
from engine.memory import current_guard


@dataclass
class Table:
    """The input: column names in order and the rows (dicts by column), in file order; ``arrow``
    the same table as pyarrow columns when it was read from a file (the columnar matcher reads it)."""

    columns: list[str]
    rows: Sequence[dict[str, Any]]
    arrow: Any = None


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
    columnar = _columnar_partitions(bound, table) if engine == "sql" else None
    plan: Any = None
    if columnar is not None and not options:
        plan = plan_query(bound, table.arrow) or plan_kleene(bound, table.arrow)
    matcher: Any = None if plan is not None else make_matcher(bound, engine, **options)
    one_row = _one_row_output(bound, table) if plan is not None else None
    out: list[dict[str, Any]] = []
    found: list[tuple[tuple[Any, ...], RowMatch]] = []
    n_parts = 0
    evaluations = 0
    guard = current_guard()  # the columnar search is linear per partition: the guard is read between them
    for key, rows, index in columnar if columnar is not None else _row_partitions(bound, table):
        n_parts += 1
        if guard is not None:
            guard.check()
        where = f" in partition {_key_text(bound, key)}" if bound.partition_by else ""
        matches = None
        if plan is not None:
            try:
                matches, unmatched, work = plan.matches(index)
                evaluations += work
            except TooLong:  # runs too long for the columnar search: the thread matcher takes the partition
                matcher = matcher or make_matcher(bound, engine)
        if matches is None:
            if isinstance(rows, RowView):
                rows = rows[:]  # dicts, once: the matcher reads every row
            matcher.bind_partition(rows, where)
            matches, unmatched = match_partition(len(rows), matcher.find, query.after_match, bound.members, where)
        found.extend((key, m) for m in matches)
        if one_row is not None:
            out.extend(one_row.rows(key, index, matches))
        else:
            out.extend(match_rows(bound, key, rows, matches, unmatched, where))
    columns, rows_out = project(bound, out)
    stats = {"rows": len(table.rows), "partitions": n_parts, "matches": len(found), "output_rows": len(rows_out),
             "engine": engine, "seconds": round(time.perf_counter() - t0, 6)}
    if plan is not None:
        stats.update(define_evaluations=evaluations, threads_peak=1, matcher="columnar")
        if isinstance(matcher, ThreadMatcher):
            stats["define_evaluations"] += matcher.work
    elif isinstance(matcher, ThreadMatcher):
        stats.update(define_evaluations=matcher.work, threads_peak=matcher.threads_peak)
    return SqlResult(columns, rows_out, found, stats)


def _row_partitions(bound: BoundQuery, table: Table) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    for key, rows in partitions(bound, list(table.rows)):
        yield key, rows, None


def _values_of(table: Table) -> Any:
    rows = table.rows
    if isinstance(rows, RowList):
        return lambda c: rows.column_list(c)
    return lambda c: table.arrow.column(c).to_pylist()


def _one_row_output(bound: BoundQuery, table: Table) -> OneRowOutput | None:
    measures = plan_measures(bound)
    return None if measures is None else OneRowOutput(bound, measures, table.arrow, _values_of(table))


def _columnar_partitions(bound: BoundQuery, table: Table) -> list[tuple[tuple[Any, ...], Any, Any]] | None:
    """[(key, the partition's rows as a RowView, their row numbers)] from the table's columns, or None."""
    if table.arrow is None:
        return None
    from engine.engines.sql.columnar import partition_indices

    found = partition_indices(bound, table.arrow, _values_of(table))
    if found is None:
        return None
    return [(key, RowView(table.rows, index.tolist()), index) for key, index in found]


def _key_text(bound: BoundQuery, key: tuple[Any, ...]) -> str:
    return ", ".join(f"{c}={v!r}" for c, v in zip(bound.partition_by, key))
