"""``cep convert INPUT --to dsl | sql | flink-sql | flink-java``: a studio pattern (text starting
with PATTERN, a ``.cep`` or ``.json`` file) or a MATCH_RECOGNIZE query (text starting with SELECT,
a ``.sql`` file) in another language, where the meaning is exactly equal; anything without an
exact form is refused with the construct named (exit 2). ``flink-sql`` and ``flink-java`` print a
WARNING line on stderr, and a comment at the top of the output, for each construct where Flink's
result differs from the studio's."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.commands.arguments import CommandError

TARGETS = ("dsl", "sql", "flink-sql", "flink-java")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("convert", help="convert between the studio's patterns, MATCH_RECOGNIZE, Flink SQL and "
                       "FlinkCEP Java, where the meaning is exactly equal")
    p.add_argument("input", help="a .cep/.json/.sql file, preset:SAMPLE/PRESET, or the text itself "
                   "(a pattern starts with PATTERN, a query with SELECT)")
    p.add_argument("--to", required=True, choices=TARGETS, help="the language to write")
    p.add_argument("--out", help="write to this file instead of stdout")
    p.add_argument("--table", default="events", help="the table a converted pattern reads (default: events)")
    return p


def run(args: argparse.Namespace) -> int:
    from engine.commands.arguments import read_pattern
    from engine.engines.sql.conversion.refusals import ConversionError
    from engine.engines.sql.detect import is_sql, is_sql_file

    text, origin = read_pattern(args.input)
    sql_input = is_sql_file(origin) or is_sql(text)
    try:
        output, warnings = convert(text, origin, sql_input, args.to, args.table)
    except ConversionError as err:
        raise CommandError(f"{origin}: cannot convert to {args.to}: {err}") from None
    for w in warnings:
        print(f"WARNING: {w}", file=sys.stderr)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(output)
    else:
        sys.stdout.write(output)
    return 0


def convert(text: str, origin: str, sql_input: bool, target: str, table: str = "events") -> tuple[str, list[str]]:
    """The text in ``target`` and the warnings (Flink's deviations)."""
    from engine.dsl import to_text
    from engine.engines.sql.conversion.to_dsl import query_to_pattern
    from engine.engines.sql.conversion.to_sql import pattern_to_sql

    if sql_input:
        query = _parse_query(text, origin)
        if target == "dsl":
            return to_text(query_to_pattern(query)), []
        if target == "sql":
            from engine.engines.sql.conversion.query_text import query_text

            return query_text(query), []
    else:
        from engine.commands.arguments import load_pattern

        pattern, _ = load_pattern(origin if origin != "<inline>" else text, text)
        if target == "dsl":
            return to_text(pattern), []
        sql = pattern_to_sql(pattern, table)
        if target == "sql":
            return sql, []
        query = _parse_query(sql, "the converted query")
    if target == "flink-sql":
        from engine.engines.sql.conversion.flink_sql import to_flink_sql

        flink = to_flink_sql(query)
        return flink.text, flink.warnings
    from engine.engines.sql.conversion.flink_java import java_comment, to_flink_java

    program, warnings = to_flink_java(query)
    return "".join(f"// WARNING: {java_comment(w)}\n" for w in warnings) + program, warnings


def _parse_query(text: str, origin: str) -> Any:
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.parser import parse_query

    try:
        return parse_query(text)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
