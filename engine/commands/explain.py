"""``cep explain PATTERN --data FILE (--match K | --why-not SPEC) [--engine E] [--format text|json]``.

``--match K`` explains the K-th match ``cep run`` prints (1-based) step by step;
``--why-not 1,2,3,6`` (or ``"a=1,2,3;b=6"`` to fix variables) says whether those events
form a match that ``cep run`` reports and, if not, the furthest partial run and the first
condition that fails (docs/trace.md, "cep explain"). The matcher is chosen as ``cep run``
chooses it (``engine.run_choice``: ``--engine`` and ``--match-windows auto|on|off``, the same
default), so match K is the K-th match ``cep run`` prints. Exit status: 0 an answer, 1 the engine was stopped, 2 bad input.

A MATCH_RECOGNIZE query (``QUERY.sql`` or text starting with SELECT) is explained from the SQL
trace: ``--match K`` row by row with the DEFINEs and the labellings it was preferred over,
``--why-not 3-5`` for each row what the search from it did (engine/explain/sql_match.py,
engine/explain/sql_whynot.py).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.commands.arguments import CommandError, add_mapping_args, load_data, load_pattern


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from engine.engines.planner import engine_names
    from engine.commands.trace import add_match_windows_arg

    p = sub.add_parser("explain", help="why did match K fire / why didn't these events match")
    p.add_argument("pattern", help="a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text; or a "
                   "MATCH_RECOGNIZE query (a .sql file or text starting with SELECT)")
    p.add_argument("--data", required=True, help="CSV, JSON Lines or Parquet file, or sample:NAME")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--match", type=int, metavar="K", help="explain the K-th match of `cep run` (1-based)")
    what.add_argument("--why-not", metavar="SPEC",
                      help="event ids `1,2,3,6`, or with variables fixed `a=1,2,3;b=6`; for a MATCH_RECOGNIZE "
                           "query, input rows `3-5` or `3,4,5`")
    p.add_argument("--engine", default="auto", choices=engine_names())
    p.add_argument("--format", default="text", choices=("text", "json"))
    p.add_argument("--skip-bad-rows", action="store_true", help="run without rows the validation rejected")
    p.add_argument("--table", help="MATCH_RECOGNIZE: the table name the query must read (as `cep run`)")
    add_match_windows_arg(p)
    add_mapping_args(p)
    return p


def run(args: argparse.Namespace) -> int:
    from engine.explain import format_text
    from engine.memory import RunStopped, guarding
    from engine.commands.request import run_guard
    from engine.commands.arguments import interval_data
    from engine.commands.trace import sql_text

    sql = sql_text(args)
    if sql is not None:
        return _explain_sql(args, *sql)
    pattern, text = load_pattern(args.pattern)
    events, warnings = load_data(args, pattern, text)
    for w in warnings:
        print(w, file=sys.stderr)
    guard = run_guard(args, where=lambda: "explaining")
    try:
        with guarding(guard):
            if interval_data(args):  # signatures of the interval engines, never point matches
                return _explain_interval(args, pattern, events)
            if pattern.aggregate is not None:
                print("note: `cep run` prints aggregate rows for an AGG pattern; this explains the matches they "
                      "aggregate (the pattern without its AGG clause)", file=sys.stderr)
            result = _explain_points(args, pattern, events)
    except RunStopped as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    if args.format == "json":
        from engine.json_text import json_text

        sys.stdout.write(json_text(result, "the explanation") + "\n")
    else:
        sys.stdout.write(format_text(result))
    return 0


def _explain_sql(args: argparse.Namespace, text: str, origin: str) -> int:
    """A MATCH_RECOGNIZE query: match K or why not these rows (engine/explain/sql_match.py,
    engine/explain/sql_whynot.py). The query runs untraced once (``index_query``: every search,
    its rows and its match), then only the searches the answer reads are traced: match K's, or
    for --why-not the search from each row, the matches covering it and the AFTER MATCH SKIP
    that passed it (engine/engines/sql/trace_window.py). The answer is the whole trace's."""
    from engine.commands.trace import load_sql
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.trace_window import index_query, searches_near, trace_searches
    from engine.explain import ExplainError
    from engine.explain.sql_match import explain_sql_match, format_sql_match
    from engine.explain.sql_whynot import explain_sql_why_not, format_sql_why_not, parse_rows
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    query, table, engine = load_sql(args, text, origin)
    try:
        index = index_query(query, table, engine)
        if args.match is not None:
            k = args.match
            total = len(index.matches)
            if total and 1 <= k <= total:
                wanted = [index.match_search[k - 1]]
            else:
                wanted = []  # explain_sql_match names the error
        else:
            rows = parse_rows(args.why_not)
            wanted = searches_near(index, [r for r in rows if r <= len(table.rows)])
        trace = trace_searches(index, wanted, max_steps=50 * DEFAULT_STEPS)
        if args.match is not None:
            result = explain_sql_match(trace, args.match)
        else:
            result = explain_sql_why_not(trace, args.why_not, len(table.rows))
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    except TraceLimit as err:
        raise CommandError(f"{err} (cep explain traces the searches the answer reads)", status=1) from None
    except (SqlRunError, StateExplosion) as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    except ExplainError as err:
        raise CommandError(str(err), status=err.status) from None
    if args.format == "json":
        from engine.json_text import json_text

        sys.stdout.write(json_text(result, "the explanation") + "\n")
    elif args.match is not None:
        sys.stdout.write(format_sql_match(result))
    else:
        sys.stdout.write(format_sql_why_not(result))
    return 0


DEFAULT_STEPS = 5_000  # x 50: the steps the searches of one explanation may make


def _explain_interval(args: argparse.Namespace, pattern: Any, events: Any) -> int:
    from engine.commands.arguments import mapping_from_args, resolve_data
    from engine.explain import ExplainError
    from engine.explain.intervals import explain_interval_match, explain_interval_why_not, format_interval_text

    mapping = mapping_from_args(args, resolve_data(args.data)[1])
    opts = {"engine": args.engine, "u_max": mapping.u_max, "pmf": mapping.pmf_col}
    try:
        if args.match is not None:
            result = explain_interval_match(pattern, events, args.match, **opts)
        else:
            result = explain_interval_why_not(pattern, events, args.why_not, **opts)
    except ExplainError as err:
        raise CommandError(str(err), status=err.status) from None
    if args.format == "json":
        from engine.json_text import json_text

        sys.stdout.write(json_text(result, "the explanation") + "\n")
    else:
        sys.stdout.write(format_interval_text(result))
    return 0


def _explain_points(args: argparse.Namespace, pattern: Any, events: Any) -> dict[str, Any]:
    from engine.explain import ExplainError, explain_match, explain_why_not
    from engine.model import PatternError

    try:
        if args.match is not None:
            result = explain_match(pattern, events, args.match, engine=args.engine,
                                   match_windows=args.match_windows)
        else:
            result = explain_why_not(pattern, events, args.why_not, engine=args.engine,
                                     match_windows=args.match_windows)
    except ExplainError as err:
        raise CommandError(str(err), status=err.status) from None
    except PatternError as err:
        raise CommandError(str(err)) from None
    return result
