"""``cep verify QUERY --data FILE --against flink``: the studio's rows against Apache Flink 2.3's for
the same MATCH_RECOGNIZE query (engine/engines/sql/flink/verify.py). Exit 0 when every mode gives
the same rows or every difference is a named Flink behaviour, 1 on a disagreement, 2 when the query
or the data cannot be verified (Flink refuses the export, or is not installed: `make flink`)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.commands.arguments import CommandError


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("verify", help="run a MATCH_RECOGNIZE query in the studio and in Flink and diff the rows")
    p.add_argument("query", help="a .sql file or the query text (SELECT ...)")
    p.add_argument("--data", help="CSV, TSV, JSON Lines or Parquet file (the query's table)")
    p.add_argument("--against", choices=("flink",), default="flink", help="the engine to compare with")
    p.add_argument("--modes", default="batch,streaming", help="Flink modes, comma-separated (batch, streaming)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds for the whole Flink run")
    return p


def run(args: argparse.Namespace) -> int:
    from engine.commands.arguments import read_pattern
    from engine.commands.run_sql import _table
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.flink.runner import FlinkUnavailable
    from engine.engines.sql.flink.verify import MODES, verify
    from engine.engines.sql.parser import parse_query

    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise CommandError(f"--modes: {', '.join(bad) or 'none given'}; choose from {', '.join(MODES)}")
    text, origin = read_pattern(args.query)
    try:
        query = parse_query(text)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    args.table = None
    table = _table(args, query)
    try:
        report = verify(query, table, modes, timeout=args.timeout)
    except (ValueError, SqlError) as err:  # the exporter's refusals are ValueErrors (ConversionError)
        raise CommandError(f"{origin}: cannot verify against Flink: {err}") from None
    except FlinkUnavailable as err:
        raise CommandError(f"Flink is not available: {err}") from None
    except SqlRunError as err:
        print(f"cep: {origin}: {err}", file=sys.stderr)
        return 1
    if args.format == "json":
        from engine.json_text import json_text
        print(json_text(report.to_json()))
    else:
        print(_text(report))
    return 1 if report.disagreement else 0


def _text(report: Any) -> str:
    lines = ["Flink SQL:", *("  " + ln for ln in report.flink_sql.splitlines()), ""]
    for m in report.modes:
        head = f"{m.mode}: {m.verdict}"
        if m.refused is None:
            head += f" (studio {m.studio_rows:,} rows, Flink {m.flink_rows:,} rows, Flink query {m.query_seconds:.2f} s)"
        lines.append(head)
        if m.refused:
            lines.append(f"  Flink refused it: {m.refused}")
        for r in m.only_studio[:10]:
            lines.append(f"  only in the studio: {json.dumps(r)}")
        for r in m.only_flink[:10]:
            lines.append(f"  only in Flink:      {json.dumps(r)}")
        for w in m.explained_by:
            lines.append(f"  explained by: {w}")
        if m.verdict == "disagreement":
            lines.append("  no Flink behaviour the studio knows explains this difference: a disagreement")
    return "\n".join(lines)
