"""A MATCH_RECOGNIZE query through :func:`engine.api.runner`: ``cep run QUERY.sql``'s engine choice,
table reading and messages; the data is a path, a pandas DataFrame, a pyarrow Table or
records (or none, for a query with its own VALUES). ``spark=`` runs it as ``cep run --spark``
does (a path only)."""
from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from engine.commands.arguments import CommandError

if TYPE_CHECKING:  # pragma: no cover
    from engine.api.parsing import ParsedQuery
    from engine.api.result import Result

__all__ = ["run_query", "query_table"]


def query_table(parsed: ParsedQuery, data: Any, args: argparse.Namespace) -> tuple[Any, str]:
    """(the ``engine.engines.sql.run.Table`` the query reads, its label), as ``cep run`` reads
    ``--data``; data in memory as the same table (pyarrow's values, exact integers)."""
    from engine.engines.sql.run import Table, inline_table
    from engine.engines.sql.table_io import TableError, read_table

    query = parsed.query
    wanted = getattr(args, "table", None)
    if data is None:
        table = inline_table(query)
        if table is None:
            raise CommandError(f"the query reads the table {query.table}: give it as data")
        return table, "<VALUES>"
    if query.values is not None:
        raise CommandError("the query has its own (VALUES ...) table; leave out data")
    if wanted and (query.table or "").upper() != wanted.upper():
        raise CommandError(f"table={wanted}: the query reads {query.table}")
    import os

    if isinstance(data, (str, os.PathLike)):
        from engine.commands.arguments import resolve_data

        path, _hint = resolve_data(str(data))
        try:
            return read_table(path), str(data)
        except TableError as err:
            raise CommandError(str(err)) from None
    arrow, label = _as_arrow(data)
    columns = list(arrow.column_names)
    if len({c.upper() for c in columns}) != len(columns):
        raise CommandError(f"{label}: two columns have the same name (names are case-insensitive in SQL)")
    lists = {c: arrow.column(c).to_pylist() for c in columns}
    for c, values in lists.items():
        for i, v in enumerate(values):
            if isinstance(v, float) and not math.isfinite(v):
                raise CommandError(f"{label}: row {i + 1}, column {c}: {v!r} is not a finite number")
            if isinstance(v, (dict, list, bytes)):
                raise CommandError(f"{label}: column {c} holds nested or binary values; the studio reads scalars only")
    return Table(columns, [dict(zip(columns, vals)) for vals in zip(*(lists[c] for c in columns))]), label


def _as_arrow(data: Any) -> tuple[Any, str]:
    import pyarrow as pa

    if isinstance(data, (pa.Table, pa.RecordBatch)):
        return pa.table(data) if isinstance(data, pa.RecordBatch) else data, "<pyarrow Table>"
    try:
        if type(data).__module__.split(".")[0] == "pandas":
            return pa.Table.from_pandas(data, preserve_index=False), "<DataFrame>"
        return pa.Table.from_pylist([dict(r) for r in data]), "<records>"
    except (pa.ArrowException, TypeError, ValueError) as err:
        raise CommandError(f"cannot read the data as a table: {err}") from None


def run_query(parsed: ParsedQuery, data: Any, args: argparse.Namespace) -> Result:
    """The query's output rows (``cep run QUERY.sql --format jsonl``)."""
    from engine.api.result import Result
    from engine.commands.run_sql import engine_and_query
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.run import run_query as run_sql_query
    from engine.match import StateExplosion

    engine, query = engine_and_query(args.engine, parsed.text, "the query", flag="engine")
    if args.spark:
        return _on_spark(parsed, data, args, engine)
    table, label = query_table(parsed, data, args)
    try:
        result = run_sql_query(query, table, engine)
    except SqlError as err:
        raise CommandError(f"the query: {err}") from None
    except (SqlRunError, StateExplosion) as err:
        raise CommandError(f"stopped: {label}: {err}", status=1) from None
    return Result("sql", parsed, list(result.rows), engine, [], request=args, columns=list(result.columns),
                  table=table, stats=dict(result.stats))


def _on_spark(parsed: ParsedQuery, data: Any, args: argparse.Namespace, engine: str) -> Result:
    import os

    from engine.api.result import Result
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.table_io import TableError

    if engine != "sql":
        raise CommandError(f"spark runs the `sql` engine; `{engine}` runs in process only")
    if not isinstance(data, (str, os.PathLike)) or parsed.query.values is not None:
        raise CommandError("spark reads the table from a file (a query's own VALUES, or data in memory, runs in "
                           "process)")
    from engine.commands.arguments import resolve_data
    from engine.spark.sql_query import run_query_on_spark

    path, _hint = resolve_data(str(data))
    try:
        result = run_query_on_spark(parsed.query, path, master=args.master)
    except SqlError as err:
        raise CommandError(f"the query: {err}") from None
    except TableError as err:
        raise CommandError(str(err)) from None
    except SqlRunError as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    return Result("sql", parsed, list(result.rows), "sql", [], request=args, columns=list(result.columns),
                  stats=dict(result.stats))
