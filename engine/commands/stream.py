"""``cep stream``: Spark Structured Streaming over the files that arrive in a directory."""
from __future__ import annotations

import argparse
from typing import Any

from engine.commands.arguments import CommandError, add_mapping_args, load_pattern


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "stream", help="(Spark Structured Streaming) match files as they arrive in a directory",
        description="Match the files that arrive in --source as one stream. Each file is read once, when it is "
                    "first listed: write each file elsewhere (or as .NAME, _NAME or NAME.tmp, which the stream "
                    "ignores) and rename it into --source when it is complete. A file that changes after it was "
                    "read is named on stderr: its later rows are not matched.")
    p.add_argument("pattern")
    p.add_argument("--source", required=True, help="directory watched for new CSV/JSON/Parquet files")
    p.add_argument("--out", required=True, help="directory the matches are appended to")
    p.add_argument("--format", dest="source_format", default="csv", choices=("csv", "json", "parquet"))
    p.add_argument("--checkpoint", default=None)
    p.add_argument("--master", default=None)
    p.add_argument("--once", action="store_true", help="process what is there, then stop")
    add_mapping_args(p)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from engine.spark import streaming
    except ImportError as err:
        raise CommandError(f"Spark streaming is not available: {err}") from None
    pattern, _ = load_pattern(args.pattern)
    return streaming.stream_cli(pattern=pattern, args=args)
