"""The ``cep`` command: a thin shell over the engine.

Exit status: 0 success, 1 the run was stopped (state explosion, oracle too large),
2 bad input (pattern, data, arguments). Diagnostics go to stderr so that
``--format jsonl`` on stdout stays parseable.

Subcommands
-----------
Every subcommand is an object with two functions (a module is such an object)::

    def add_parser(subparsers) -> argparse.ArgumentParser   # subparsers.add_parser("NAME", help=...)
    def run(args: argparse.Namespace) -> int                  # the exit status

``COMMANDS`` maps each name to its subcommand, in ``cep --help`` order: the built-in ones
below and the dotted names of subcommand modules. To add ``cep explain``:

1. in a module, say ``engine/explain_command.py``, define ``add_parser`` and ``run`` as
   above. Keep the module's imports light and import the engine inside ``run`` (and
   inside ``add_parser`` what it needs, e.g. ``planner.engine_names`` for ``--engine``);
2. add ``"explain": "engine.explain_command"`` to ``COMMANDS`` below.

``cep NAME ...`` builds only NAME's parser and imports only its module, so one command's
imports never slow another one down.

What commands share lives in ``engine.commands.arguments`` (``CommandError``, ``load_pattern``,
``load_data``, ``add_mapping_args``, ``mapping_from_args``) and ``engine.commands.output``
(``FORMATS``, ``format_matches``). ``run`` reports a user error by raising
``CommandError(message, status)``; ``main`` prints ``cep: message`` to stderr.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from engine.commands.arguments import CommandError, add_mapping_args, load_data, load_pattern
from engine.commands.output import FORMATS

CliError = CommandError  # the former name


class Command(Protocol):
    def add_parser(self, subparsers: Any) -> argparse.ArgumentParser: ...
    def run(self, args: argparse.Namespace) -> int: ...


@dataclass(frozen=True)
class Builtin:
    add_parser: Callable[[Any], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]


PATTERN_HELP = "a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text"


# --------------------------------------------------------------------------- check

def _check_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("check", help="parse and validate a pattern; print its normalised DSL")
    p.add_argument("pattern", help=PATTERN_HELP)
    return p


def cmd_check(args: argparse.Namespace) -> int:
    from engine.dsl import to_text

    pattern, _ = load_pattern(args.pattern)
    sys.stdout.write(to_text(pattern))
    return 0


# --------------------------------------------------------------------------- run

def _run_parser(sub: Any) -> argparse.ArgumentParser:
    from engine.planner import engine_names

    p = sub.add_parser("run", help="run a pattern over a data file")
    p.add_argument("pattern", help=PATTERN_HELP + "; or a workload file of `QUERY name` blocks (AGG patterns)")
    p.add_argument("more", nargs="*", help="more AGG patterns: run them all as one workload (shared counters)")
    p.add_argument("--data", required=True, help="CSV, JSON Lines or Parquet file, or sample:NAME")
    p.add_argument("--engine", default="auto", choices=engine_names())
    p.add_argument("--emit", default="trig", choices=("trig", "changes"),
                   help="AGG patterns: a row at every TRIG event (trig), or also when expiry changes a value")
    p.add_argument("--format", default="table", choices=FORMATS)
    p.add_argument("--out", help="write the matches here instead of stdout")
    p.add_argument("--stats", action="store_true", help="print engine statistics to stderr")
    p.add_argument("--max-runs", type=int, default=None, help="state guard: live runs + buffer entries limit")
    p.add_argument("--skip-bad-rows", action="store_true", help="run without rows the validation rejected")
    p.add_argument("--spark", action="store_true", help="run on Spark")
    p.add_argument("--master", default=None, help="Spark master URL (default CEP_SPARK_MASTER or local[*])")
    p.add_argument("--with-events", action="store_true", help="(Spark) add the events' attributes")
    from engine.commands.run import add_run_args

    add_run_args(p)  # --max-memory, --read
    p.add_argument("--min-confidence", type=float, default=None, metavar="X",
                   help="(interval data; an extension, not in the paper) only signatures with confidence >= X")
    p.add_argument("--match-windows", choices=("auto", "on", "off"), default="auto",
                   help="match windows (Algorithm 1, match-windows paper) around --engine: on = wherever sound; "
                        "auto (default) = on for event-set patterns (AND groups, earliest/maximal) where sound")
    add_mapping_args(p)
    return p


def cmd_run(args: argparse.Namespace) -> int:
    """``cep run``: the pattern is read and parsed once, and the run dispatched on the model
    (a workload or an AGG pattern: aggregate rows; interval data: the interval engines;
    else matches), never on the raw text."""
    from engine.commands.arguments import read_pattern
    from engine.engines.aseq.workload import is_workload
    from engine.commands.output_paths import check_out
    from engine.commands.run import check_run_args

    check_run_args(args)
    check_out(args)
    text, _origin = read_pattern(args.pattern)
    if getattr(args, "more", None) or is_workload(text):  # several AGG queries sharing counters
        from engine.commands.run_aggregate import run_aggregate

        return run_aggregate(args)
    pattern, text = load_pattern(args.pattern, text)
    if pattern.aggregate is not None:  # AGG: aggregate rows (A-Seq)
        from engine.commands.run_aggregate import run_aggregate

        return run_aggregate(args, pattern, text)
    if args.spark:
        try:
            from engine.spark import pipeline
        except ImportError as err:
            raise CommandError(f"Spark is not available: {err}") from None
        return pipeline.run_cli(pattern=pattern, text=text, args=args)
    from engine.commands.run import handles, run_in_process

    if handles(args, pattern):  # point data: matches written as produced, big files in batches
        return run_in_process(args, pattern, text)
    from engine.commands.run_intervals import interval_data, run_interval

    if interval_data(args) and getattr(args, "read", "auto") == "batches":
        return run_interval(args, pattern, None, text)  # read in batches as it goes
    events, warnings = load_data(args, pattern, text)
    for w in warnings:
        print(w, file=sys.stderr)

    if interval_data(args):  # uncertainty intervals: possible-worlds engines only, never as points
        return run_interval(args, pattern, events)
    if getattr(args, "min_confidence", None) is not None:
        raise CommandError("--min-confidence applies to interval data (--lower-col/--upper-col) only")
    return run_in_process(args, pattern, text)


# --------------------------------------------------------------------------- samples (serve: engine.commands.serve)

def _samples_parser(sub: Any) -> argparse.ArgumentParser:
    return sub.add_parser("samples", help="list the sample streams and presets")


def cmd_samples(args: argparse.Namespace) -> int:
    import sample_streams

    for name in sample_streams.names():
        s = sample_streams.load(name)
        print(f"{name}: {s.description}")
        print(f"    data: {s.path}")
        for preset in s.presets:
            print(f"    preset:{name}/{preset}")
    return 0


# --------------------------------------------------------------------------- stream

def _stream_parser(sub: Any) -> argparse.ArgumentParser:
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


def cmd_stream(args: argparse.Namespace) -> int:
    try:
        from engine.spark import streaming
    except ImportError as err:
        raise CommandError(f"Spark streaming is not available: {err}") from None
    pattern, _ = load_pattern(args.pattern)
    return streaming.stream_cli(pattern=pattern, args=args)


# --------------------------------------------------------------------------- the shell

CHECK = Builtin(_check_parser, cmd_check)
RUN = Builtin(_run_parser, cmd_run)
SAMPLES = Builtin(_samples_parser, cmd_samples)
SERVE = "engine.commands.serve"  # loopback by default, --data-dir, run limits
STREAM = Builtin(_stream_parser, cmd_stream)

#: name -> subcommand (a built-in or a module's dotted name), in ``cep --help`` order.
COMMANDS: dict[str, Command | str] = {
    "check": CHECK,
    "run": RUN,
    "trace": "engine.commands.trace",
    "explain": "engine.commands.explain",
    "samples": SAMPLES,
    "serve": SERVE,
    "stream": STREAM,
}


def _command(entry: Command | str) -> Command:
    return importlib.import_module(entry) if isinstance(entry, str) else entry  # type: ignore[return-value]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``cep`` parser with every subcommand, or with ``only`` that one."""
    ap = argparse.ArgumentParser(prog="cep", description="CEP Studio: check and run event patterns.")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, entry in COMMANDS.items():
        if only is not None and name != only:
            continue
        cmd = _command(entry)
        cmd.add_parser(sub).set_defaults(func=cmd.run)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = ap.parse_args(argv)
    from engine.memory import RunStopped

    try:
        from engine.commands.arguments import check_flag_values

        check_flag_values(args)
        return int(args.func(args) or 0)
    except CommandError as err:
        print(f"cep: {err}", file=sys.stderr)
        return err.status
    except BrokenPipeError:
        return 0
    except RunStopped as err:  # a guard that stopped outside a command's own handling
        print(f"cep: stopped: {err}", file=sys.stderr)
        return 1
    except MemoryError:
        print("cep: stopped: out of memory (lower the input size or --max-memory)", file=sys.stderr)
        return 1
    except Exception as err:  # no traceback reaches a person; CEP_DEBUG=1 shows it
        if os.environ.get("CEP_DEBUG"):
            raise
        print(f"cep: unexpected error ({type(err).__name__}: {err}); this is a bug in cep, please report it "
              "(CEP_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
