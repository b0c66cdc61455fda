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

1. in a module, say ``engine/commands/explain.py``, define ``add_parser`` and ``run`` as
   above. Keep the module's imports light and import the engine inside ``run`` (and
   inside ``add_parser`` what it needs, e.g. ``planner.engine_names`` for ``--engine``);
2. add ``"explain": "engine.commands.explain"`` to ``COMMANDS`` below.

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

from engine.commands.arguments import CommandError

CliError = CommandError  # the former name


class Command(Protocol):
    def add_parser(self, subparsers: Any) -> argparse.ArgumentParser: ...
    def run(self, args: argparse.Namespace) -> int: ...


@dataclass(frozen=True)
class Builtin:
    add_parser: Callable[[Any], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace], int]




# --------------------------------------------------------------------------- the shell

#: name -> subcommand (a module's dotted name, or an object with ``add_parser`` and ``run``),
#: in ``cep --help`` order: one module of engine/commands/ per subcommand.
COMMANDS: dict[str, Command | str] = {
    "check": "engine.commands.check",
    "run": "engine.commands.run",
    "trace": "engine.commands.trace",
    "explain": "engine.commands.explain",
    "diff": "engine.commands.diff",
    "samples": "engine.commands.samples",
    "serve": "engine.commands.serve",  # loopback by default, --data-dir, run limits
    "stream": "engine.commands.stream",
    "convert": "engine.commands.convert",
    "verify": "engine.commands.verify",
    "lesson": "engine.commands.lesson",
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
