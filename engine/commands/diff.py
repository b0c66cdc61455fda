"""``cep diff P1 [P2] --data F [--engine-a E --engine-b E] [--strategy-a S --strategy-b S]
[--format jsonl|table|count] [--out F]``: the matches only in A, only in B and in both
(engine/diff.py; docs/diff.md).

Side A runs P1, side B runs P2 (P1 when P2 is left out), each exactly as ``cep run`` would run
it with that side's ``--engine-*`` (default ``auto``) and the shared ``--match-windows``
(default ``auto``). ``--strategy-a/--strategy-b`` replace the pattern's selection strategy on
one side (the pattern model's ``strategy``; ``cep run`` has no such flag). Two MATCH_RECOGNIZE
queries compare their output rows as whole JSON objects; AGG patterns are refused.

Exit status: 0 the comparison was printed, 1 an engine was stopped, 2 bad input.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from engine.commands.arguments import CommandError, add_mapping_args

FORMATS = ("jsonl", "table", "count")
#: rows the ``table`` format lists (the counts cover all of them)
TABLE_ROWS = 200


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from engine.commands.request import _seconds
    from engine.diff import DEFAULT_WHY_NOT_LIMIT
    from engine.engines.planner import engine_names
    from engine.model import Strategy
    from engine.run_choice import MATCH_WINDOW_MODES

    p = sub.add_parser("diff", help="compare two patterns, strategies or engines on the same data")
    p.add_argument("pattern", help="side A: a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text; or a "
                   "MATCH_RECOGNIZE query")
    p.add_argument("pattern_b", nargs="?", default=None,
                   help="side B (default: the same as A; then the sides must differ by engine or strategy)")
    p.add_argument("--data", required=True, help="CSV, JSON Lines or Parquet file, or sample:NAME")
    p.add_argument("--engine-a", default="auto", choices=engine_names(), help="side A's --engine (default auto)")
    p.add_argument("--engine-b", default="auto", choices=engine_names(), help="side B's --engine (default auto)")
    strategies = [s.value for s in Strategy]
    p.add_argument("--strategy-a", choices=strategies, default=None, help="replace side A's selection strategy")
    p.add_argument("--strategy-b", choices=strategies, default=None, help="replace side B's selection strategy")
    p.add_argument("--match-windows", choices=MATCH_WINDOW_MODES, default="auto",
                   help="as `cep run --match-windows`, for both sides (default auto)")
    p.add_argument("--format", default="table", choices=FORMATS,
                   help="jsonl: one line per match {side, match, start, end[, why_not]}; table; count")
    p.add_argument("--out", help="write the comparison here instead of stdout")
    p.add_argument("--why-not-limit", type=int, default=DEFAULT_WHY_NOT_LIMIT, metavar="N",
                   help=f"one-sided matches that get a why-not (default {DEFAULT_WHY_NOT_LIMIT}); later ones get null")
    p.add_argument("--max-runs", type=int, default=None, help="state guard: live runs + buffer entries limit")
    p.add_argument("--max-memory", default=None, metavar="SIZE",
                   help="stop when resident memory passes SIZE (e.g. 2GB, 800MB, 50%%, off; default as `cep run`)")
    p.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                   help="stop (exit 1) after SECONDS (default: none)")
    p.add_argument("--skip-bad-rows", action="store_true", help="run without rows the validation rejected")
    p.add_argument("--table", help="MATCH_RECOGNIZE: the table name the queries must read (as `cep run`)")
    add_mapping_args(p)
    return p


def run(args: argparse.Namespace) -> int:
    from engine.commands.arguments import read_pattern
    from engine.commands.output_paths import check_out
    from engine.engines.sql.detect import is_sql, is_sql_file

    if args.why_not_limit is not None and args.why_not_limit < 0:
        raise CommandError(f"--why-not-limit must be a non-negative whole number, not {args.why_not_limit}")
    arg_b = args.pattern_b if args.pattern_b is not None else args.pattern
    text_a, origin_a = read_pattern(args.pattern)
    text_b, origin_b = read_pattern(arg_b)
    inputs = [Path(x) for x in (args.pattern, arg_b, args.data) if Path(x).is_file()]
    check_out(args, inputs=inputs)
    sql_a, sql_b = is_sql_file(origin_a) or is_sql(text_a), is_sql_file(origin_b) or is_sql(text_b)
    if sql_a != sql_b:
        raise CommandError("cep diff compares two patterns or two MATCH_RECOGNIZE queries, not one of each: "
                           f"side A is {'a query' if sql_a else 'a pattern'}, side B is "
                           f"{'a query' if sql_b else 'a pattern'} (their outputs have different shapes)")
    if sql_a:
        return _diff_sql(args, (text_a, origin_a), (text_b, origin_b))
    return _diff_patterns(args, (text_a, origin_a), (text_b, origin_b), arg_b)


# --------------------------------------------------------------------------- patterns

def _pattern(arg: str, text: str, strategy: str | None, side: str) -> Any:
    from engine.commands.arguments import load_pattern
    from engine.model import PatternError, Strategy

    pattern, _ = load_pattern(arg, text)
    if pattern.aggregate is not None:
        raise CommandError(f"side {side.upper()} has an AGG clause: `cep run` prints aggregate rows for it, not matches, "
                           "and cep diff compares matches; compare the patterns without AGG, or run both with `cep run`")
    if strategy is not None:
        try:
            pattern = pattern.model_copy(update={"strategy": Strategy(strategy)}).check()
        except PatternError as err:
            raise CommandError(f"--strategy-{side} {strategy}: {err}") from None
    return pattern


def _diff_patterns(args: argparse.Namespace, a: tuple[str, str], b: tuple[str, str], arg_b: str) -> int:
    from engine.commands.arguments import interval_data, load_data
    from engine.diff import diff_matches, run_side
    from engine.match import EngineUnsupported
    from engine.memory import RunStopped, guarding
    from engine.commands.request import run_guard

    if interval_data(args):
        raise CommandError("cep diff compares point matches; this data has uncertainty intervals "
                           "(--lower-col/--upper-col), whose runs print signatures: run both with `cep run`")
    pattern_a = _pattern(args.pattern, a[0], args.strategy_a, "a")
    pattern_b = _pattern(arg_b, b[0], args.strategy_b, "b")
    if (a[0] == b[0] and args.engine_a == args.engine_b and pattern_a.strategy == pattern_b.strategy):
        print("note: both sides run the same pattern with the same engine and strategy; every match is in both "
              "(give P2, --engine-a/--engine-b or --strategy-a/--strategy-b)", file=sys.stderr)
    events, warnings = load_data(args, pattern_a, a[0])
    if b[0] != a[0] or args.strategy_a != args.strategy_b:
        warnings += [w for w in load_data(args, pattern_b, b[0])[1] if w not in warnings]
    for w in warnings:
        print(w, file=sys.stderr)
    guard = run_guard(args, where=lambda: "comparing")
    try:
        with guarding(guard):
            sides = []
            for name, pattern, engine in (("a", pattern_a, args.engine_a), ("b", pattern_b, args.engine_b)):
                try:
                    side = run_side(pattern, events, engine, args.match_windows, args.max_runs, guard)
                except EngineUnsupported as err:
                    raise CommandError(f"side {name.upper()}: {err}") from None
                if side.error:
                    raise CommandError(f"side {name.upper()} ({side.run.name}): {side.error}", status=1)
                sides.append(side)
            result = diff_matches(sides[0], sides[1], events, why_not=args.format == "jsonl",
                                  why_not_limit=args.why_not_limit)
    except RunStopped as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    if result.why_not_skipped:
        print(f"note: {result.why_not_skipped:,} one-sided matches past the first {args.why_not_limit:,} have "
              "\"why_not\": null (--why-not-limit N raises the cap)", file=sys.stderr)
    _write(args, result, f"A: {sides[0].run.name}" + (f" ({pattern_a.strategy.value})" if args.strategy_a else ""),
           f"B: {sides[1].run.name}" + (f" ({pattern_b.strategy.value})" if args.strategy_b else ""))
    return 0


# --------------------------------------------------------------------------- MATCH_RECOGNIZE

def _diff_sql(args: argparse.Namespace, a: tuple[str, str], b: tuple[str, str]) -> int:
    from engine.commands.run_sql import _table, engine_and_query
    from engine.diff import diff_rows
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.output import json_row
    from engine.engines.sql.run import run_query
    from engine.match import StateExplosion

    if args.strategy_a or args.strategy_b:
        raise CommandError("--strategy-a/--strategy-b replace a pattern's selection strategy; a MATCH_RECOGNIZE query "
                           "has none (its AFTER MATCH SKIP clause decides)")
    if args.match_windows == "on":
        raise CommandError("--match-windows on: MATCH_RECOGNIZE queries have no match windows")
    rows = []
    names = []
    for side, (text, origin), engine in (("a", a, args.engine_a), ("b", b, args.engine_b)):
        name, query = engine_and_query(engine, text, origin, flag=f"--engine-{side}")
        table = _table(args, query)
        try:
            result = run_query(query, table, name)
        except SqlError as err:
            raise CommandError(f"{origin}: {err}") from None
        except (SqlRunError, StateExplosion) as err:
            raise CommandError(f"side {side.upper()} stopped: {err}", status=1) from None
        rows.append([json_row(r) for r in result.rows])
        names.append(f"{side.upper()}: {name}")
    _write(args, diff_rows(rows[0], rows[1]), *names)
    return 0


# --------------------------------------------------------------------------- output

def _write(args: argparse.Namespace, result: Any, name_a: str, name_b: str) -> None:
    from engine.diff import line_text

    try:
        out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    except OSError as err:
        raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    c = result.counts
    try:
        if args.format == "jsonl":
            for line in result.lines:
                out.write(line_text(line) + "\n")
        elif args.format == "count":
            out.write(f"only_a\t{c['a']}\nonly_b\t{c['b']}\nboth\t{c['both']}\n")
        else:
            out.write(f"{name_a}   {name_b}\n")
            out.write(f"only in A: {c['a']:,}   only in B: {c['b']:,}   in both: {c['both']:,}\n")
            for line in result.lines[:TABLE_ROWS]:
                out.write(_table_line(line) + "\n")
            if len(result.lines) > TABLE_ROWS:
                out.write(f"… {len(result.lines) - TABLE_ROWS:,} more (--format jsonl lists them all)\n")
    finally:
        if args.out:
            out.close()


def _table_line(line: Any) -> str:
    from engine.json_text import json_text

    side = {"a": "only A", "b": "only B", "both": "both"}[line.side]
    if line.row:
        return f"{side:7} {json_text(line.match, 'a diff row')}"
    binds = " ".join(f"{v}={','.join(map(str, ids))}" for v, ids in line.match.items())
    return f"{side:7} {binds}  [{line.start} .. {line.end}]"
