"""``cep run QUERY.sql``: a MATCH_RECOGNIZE query over ``--data FILE`` (or its own VALUES), its
output rows in ``--format`` (jsonl: one JSON object per row, keys = the output columns in order;
table, csv and parquet show the same rows). ``--engine`` is ``auto`` / ``sql`` (the thread
matcher) or ``sql-oracle`` (the backtracking reference, small inputs)."""
from __future__ import annotations

import argparse
import csv
import sys
import time
from typing import Any, TextIO

from engine.commands.arguments import CommandError


def run_sql(args: argparse.Namespace, text: str, origin: str) -> int:
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.output import json_row
    from engine.engines.sql.run import inline_table, run_query
    from engine.match import StateExplosion

    engine, query = engine_and_query(args.engine, text, origin)
    if getattr(args, "spark", False):
        return _run_on_spark(args, query, origin, engine)
    table = _table(args, query)
    t0 = time.perf_counter()
    try:
        result = run_query(query, table, engine)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    except (SqlRunError, StateExplosion) as err:
        print(f"cep: {origin}: {err}", file=sys.stderr)
        return 1
    seconds = time.perf_counter() - t0
    rows = [json_row(r) for r in result.rows]
    _write(args, result.columns, rows)
    from engine.commands.stats import print_stats
    counters = {k: v for k, v in result.stats.items() if k not in ("engine", "seconds", "rows")}
    print_stats(args, [("engine", engine), ("rows", len(table.rows))], seconds, counters, events=len(table.rows))
    return 0


def _run_on_spark(args: argparse.Namespace, query: Any, origin: str, engine: str) -> int:
    """``--spark``: each PARTITION BY key's rows matched in one task; the rows equal in-process's."""
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.output import json_row
    from engine.engines.sql.table_io import TableError

    if engine != "sql":
        raise CommandError(f"--spark runs the `sql` engine; `{engine}` runs in process only")
    if args.data is None or query.values is not None:
        raise CommandError("--spark reads the table from --data FILE (a query's own VALUES runs in process)")
    from engine.commands.arguments import resolve_data
    path, _hint = resolve_data(args.data)
    if args.master and args.master.strip().lower().startswith("sc://"):
        raise CommandError("MATCH_RECOGNIZE queries do not run on Spark Connect yet (their plan uses "
                           "Spark's RDD interface, which Connect has not got): use --master")
    from engine.spark.sql_query import run_query_on_spark

    t0 = time.perf_counter()
    try:
        result = run_query_on_spark(query, path, master=args.master)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    except TableError as err:
        raise CommandError(str(err)) from None
    except SqlRunError as err:
        print(f"cep: {origin}: {err}", file=sys.stderr)
        return 1
    _write(args, result.columns, [json_row(r) for r in result.rows])
    from engine.commands.stats import print_stats
    print_stats(args, [("engine", "sql"), ("spark", "yes")], time.perf_counter() - t0, result.stats)
    return 0


def _table(args: argparse.Namespace, query: Any) -> Any:
    from engine.engines.sql.run import inline_table
    from engine.engines.sql.table_io import TableError, read_table

    wanted = getattr(args, "table", None)
    if args.data is None:
        t = inline_table(query)
        if t is None:
            raise CommandError(f"the query reads the table {query.table}: give it with --data FILE")
        return t
    if query.values is not None:
        raise CommandError("the query has its own (VALUES ...) table; leave out --data")
    if wanted and (query.table or "").upper() != wanted.upper():
        raise CommandError(f"--table {wanted}: the query reads {query.table}")
    from engine.commands.arguments import resolve_data
    path, _hint = resolve_data(args.data)
    try:
        return read_table(path)
    except TableError as err:
        raise CommandError(str(err)) from None


def _write(args: argparse.Namespace, columns: list[str], rows: list[dict[str, Any]]) -> None:
    fmt = args.format
    if fmt == "parquet":
        if not args.out:
            raise CommandError("--format parquet writes a file: give --out FILE.parquet")
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            data = pa.Table.from_pylist(rows, schema=None) if rows else pa.table({c: pa.array([], pa.null())
                                                                                  for c in columns})
        except (pa.ArrowInvalid, pa.ArrowTypeError) as err:
            raise CommandError(f"cannot write these rows as Parquet: {err}") from None
        pq.write_table(data.select(columns) if rows else data, args.out)
        return
    out: TextIO = open(args.out, "w", encoding="utf-8", newline="") if args.out else sys.stdout
    try:
        if fmt == "jsonl":
            from engine.json_text import json_text

            for r in rows:
                out.write(json_text(r) + "\n")
        elif fmt == "csv":
            w = csv.writer(out)
            w.writerow(columns)
            for r in rows:
                w.writerow([_cell(r[c]) for c in columns])
        elif fmt == "count":
            out.write(f"{len(rows)}\n")
        else:
            _write_table(out, columns, rows)
    finally:
        if args.out:
            out.close()


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        from engine.json_text import json_text
        return json_text(v)
    return str(v)


def _write_table(out: TextIO, columns: list[str], rows: list[dict[str, Any]]) -> None:
    body = [[_cell(r[c]) if r[c] is not None else "NULL" for c in columns] for r in rows]
    widths = [max([len(c)] + [len(b[i]) for b in body]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip() + "\n")
    for b in body:
        out.write("  ".join(v.ljust(w) for v, w in zip(b, widths)).rstrip() + "\n")
    out.write(f"({len(rows)} row{'s' if len(rows) != 1 else ''})\n")


def engine_and_query(engine: str, text: str, origin: str, flag: str = "--engine") -> tuple[str, Any]:
    """The SQL engine ``engine`` names (``auto``: the planner's) and the parsed query; a
    CommandError naming ``flag`` or the query's origin (a file, ``the query``) and where."""
    from engine.engines.planner import choose_query
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.parser import parse_query
    from engine.match import EngineUnsupported

    try:
        name = choose_query(engine).name
    except EngineUnsupported as err:
        raise CommandError(f"{flag}: {err}") from None
    try:
        return name, parse_query(text)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
