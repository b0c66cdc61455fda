"""``cep run``, top to bottom: its arguments, the request (the pattern parsed once, the data
resolved once), and the dispatch to the one path that runs it.

1. **Arguments** (:func:`add_parser`): the pattern, ``--data``, ``--engine`` (the planner's
   names), the output, the guards and the column mapping.
2. **The request** (:func:`build_request`): the flags checked before any work, ``--out``
   checked against the inputs, the pattern read and parsed once (a workload of several AGG
   queries is read by its own path), ``--data`` resolved once (``sample:NAME`` to its file and
   mapping) and its column mapping built once; whether the data has uncertainty intervals
   follows from that mapping.
3. **The dispatch** (:func:`run`), on the parsed model, never on the raw text:

   ====================================  =============================================
   a workload or an AGG pattern          aggregate rows (``run_aggregate``; on Spark too)
   ``--spark``                           matches on Spark (``run_spark``)
   interval data                         signatures of the interval engines (``run_intervals``)
   point data                            matches in process (``run_matches``)
   ====================================  =============================================

Every path reports problems through ``engine.commands.errors`` (exit 2 for bad input, 1 for a
stopped run) and ``--stats`` through ``engine.commands.stats``.
"""
from __future__ import annotations

import argparse
from typing import Any

from engine.commands.arguments import PATTERN_HELP, CommandError, add_mapping_args
from engine.commands.output import FORMATS
from engine.commands.request import RunRequest, add_run_args, build_request, run_pattern

__all__ = ["RunRequest", "add_parser", "build_request", "run", "wants_aggregate"]



def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``cep run`` parser."""
    from engine.engines.planner import engine_names

    p = sub.add_parser("run", help="run a pattern over a data file")
    p.add_argument("pattern", help=PATTERN_HELP + "; or a workload file of `QUERY name` blocks (AGG patterns)")
    p.add_argument("more", nargs="*", help="more AGG patterns: run them all as one workload (shared counters)")
    p.add_argument("--data", help="CSV, JSON Lines or Parquet file, or sample:NAME (a MATCH_RECOGNIZE query with "
                                  "its own VALUES needs none)")
    p.add_argument("--table", help="(MATCH_RECOGNIZE) insist that the query reads this table")
    p.add_argument("--engine", default="auto", choices=engine_names())
    p.add_argument("--emit", default="trig", choices=("trig", "changes"),
                   help="AGG patterns: a row at every TRIG event (trig), or also when expiry changes a value")
    p.add_argument("--format", default="table", choices=FORMATS + ("parquet",),
                   help="parquet: MATCH_RECOGNIZE rows only, with --out")
    p.add_argument("--out", help="write the matches here instead of stdout")
    p.add_argument("--stats", action="store_true", help="print engine statistics to stderr")
    p.add_argument("--max-runs", type=int, default=None, help="state guard: live runs + buffer entries limit")
    p.add_argument("--skip-bad-rows", action="store_true", help="run without rows the validation rejected")
    p.add_argument("--spark", action="store_true", help="run on Spark")
    p.add_argument("--master", default=None,
                   help="Spark master URL: local[N], spark://HOST:PORT, yarn, k8s://... (implies --spark; "
                        "default CEP_SPARK_MASTER or local[*])")
    p.add_argument("--remote", default=None, metavar="sc://HOST:PORT",
                   help="run on a Spark Connect server (implies --spark)")
    p.add_argument("--with-events", action="store_true", help="(Spark) add the events' attributes")
    add_run_args(p)  # --max-memory, --read, --time-limit
    p.add_argument("--min-confidence", type=float, default=None, metavar="X",
                   help="(interval data; an extension, not in the paper) only signatures with confidence >= X")
    p.add_argument("--match-windows", choices=("auto", "on", "off"), default="auto",
                   help="match windows (Algorithm 1, match-windows paper) around --engine: on = wherever sound; "
                        "auto (default) = on for event-set patterns (AND groups, earliest/maximal) where sound")
    add_mapping_args(p)
    return p


def wants_aggregate(args: argparse.Namespace) -> bool:
    """Is this ``cep run`` for aggregate rows (a workload, several patterns, or a pattern whose
    parsed model has an AGG clause)? Decided on the parsed pattern, never on the raw text;
    False when the pattern cannot be read (the run reports why)."""
    if getattr(args, "more", None):
        return True
    try:
        pattern, _ = run_pattern(args)
    except CommandError:
        return False
    return pattern is None or pattern.aggregate is not None


def spark_target(args: argparse.Namespace) -> None:
    """``--master`` / ``--remote``: checked before any work; either implies ``--spark`` and
    ends up in ``args.master`` (an ``sc://`` address is a Spark Connect server)."""
    master, remote = getattr(args, "master", None), getattr(args, "remote", None)
    if master is not None and remote is not None:
        raise CommandError("give --master or --remote, not both")
    if remote is not None:
        if not remote.strip().lower().startswith("sc://"):
            raise CommandError(f"--remote takes a Spark Connect address sc://HOST:PORT, not {remote!r}")
        args.master = remote.strip()
    if args.master is not None:
        if not args.master.strip():
            raise CommandError("--master is empty")
        args.spark = True


def run(args: argparse.Namespace) -> int:
    """``cep run``: build the request, then run it on its one path (see the module)."""
    from engine.commands.arguments import read_pattern
    from engine.engines.sql.detect import is_sql, is_sql_file

    spark_target(args)

    if not getattr(args, "more", None):
        text, origin = read_pattern(args.pattern)
        if is_sql_file(origin) or is_sql(text):
            from engine.commands.run_sql import run_sql

            return run_sql(args, text, origin)
    if args.data is None:
        raise CommandError("--data FILE is required (the events to match)")
    if args.format == "parquet":
        raise CommandError("--format parquet is for MATCH_RECOGNIZE rows; write matches as jsonl or csv")
    request = build_request(args)
    pattern = request.pattern
    if pattern is not None:
        from engine.risk import explosion_risk

        risk = explosion_risk(pattern)
        if risk is not None:  # a warning only: the state guard still stops a run that explodes
            import sys

            print(f"warning: {risk}", file=sys.stderr)
    if pattern is None or pattern.aggregate is not None:  # a workload, or AGG: aggregate rows (A-Seq)
        from engine.commands.run_aggregate import run_aggregate

        return run_aggregate(request)
    if args.spark:
        from engine.commands.run_spark import run_matches_on_spark

        return run_matches_on_spark(request)
    if request.interval:  # uncertainty intervals: the possible-worlds engines only, never as points
        from engine.commands.run_intervals import run_interval

        return run_interval(request)
    if getattr(args, "min_confidence", None) is not None:  # the data's own problems are reported first
        from engine.commands.arguments import load_data

        load_data(args, pattern, request.text, request)
        raise CommandError("--min-confidence applies to interval data (--lower-col/--upper-col) only")
    from engine.commands.run_matches import run_in_process

    return run_in_process(request)
