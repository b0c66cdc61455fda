"""``cep stream``: Spark Structured Streaming over the files that arrive in a directory."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.commands.arguments import CommandError, add_mapping_args, load_pattern, mapping_from_args


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
    """``cep stream PATTERN --source DIR --out DIR [--format csv|json|parquet] [--once]``."""
    from engine.commands.output_paths import check_out_dir
    from engine.events import DataError

    try:
        from engine.spark import streaming
        from engine.spark.session import SparkUnavailable, get_spark
        from engine.spark.stream_files import WRITE_THEN_RENAME
    except ImportError as err:
        raise CommandError(f"Spark streaming is not available: {err}") from None
    pattern, _ = load_pattern(args.pattern)
    try:
        spark = get_spark(args.master)
    except SparkUnavailable as err:
        raise CommandError(str(err)) from None
    check_out_dir(str(args.out), str(args.source))
    if args.checkpoint:
        check_out_dir(str(args.checkpoint), str(args.source), flag="--checkpoint")
    mapping = mapping_from_args(args)
    fmt = args.source_format or "csv"
    trigger = {"availableNow": True} if args.once else {"processingTime": "1 second"}
    try:
        query = streaming.start_stream(pattern, args.source, args.out, mapping=mapping, fmt=fmt,
                                       checkpoint=args.checkpoint, engine=getattr(args, "engine", None) or "auto",
                                       spark=spark, trigger=trigger)
    except (DataError, ValueError) as err:
        raise CommandError(str(err)) from None
    print(f"cep stream: watching {args.source} -> {args.out} (Ctrl-C to stop); {WRITE_THEN_RENAME}",
          file=sys.stderr)
    failed = streaming.watch(spark, query, args.source, fmt, args.once)
    if failed is not None:
        raise CommandError(f"stream stopped: {failed}", status=1)
    return 0
