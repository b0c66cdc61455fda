"""The options of :func:`engine.api.runner`, named as ``cep run``'s flags (``--max-runs`` is
``max_runs=``), checked by the same parser: a value ``cep run`` refuses is refused here with
its message, as a ``CommandError``.

>>> from engine.api.options import run_arguments
>>> args = run_arguments({"engine": "nfab", "max_runs": 100})
>>> args.engine, args.max_runs, args.match_windows
('nfab', 100, 'auto')
>>> run_arguments({"engine": "warp-drive"})
Traceback (most recent call last):
...
engine.commands.arguments.CommandError: argument --engine: invalid choice: 'warp-drive' (choose from ...)
>>> run_arguments({"max_run": 5})
Traceback (most recent call last):
...
TypeError: unknown option 'max_run' (did you mean 'max_runs'?); the options are ...
"""
from __future__ import annotations

import argparse
import difflib
from typing import Any, Mapping, NoReturn

from engine.commands.arguments import CommandError

__all__ = ["API_ONLY", "run_arguments", "option_names"]

#: flags of ``cep run`` that are about writing its output (the API returns a result instead; its
#: events are ``result.all_events()``)
_OUTPUT_FLAGS = frozenset({"pattern", "more", "data", "format", "out", "stats", "help", "with_events"})

#: options of the API that ``cep run`` has no flag for: ``strategy`` (the pattern's selection
#: strategy overridden, as the Automaton page does)
API_ONLY = ("strategy",)


class _Parser(argparse.ArgumentParser):
    """``cep run``'s parser whose refusals raise ``CommandError`` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise CommandError(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:  # pragma: no cover - --help only
        raise CommandError(message or "cannot read the options", status=2)


def _run_parser() -> argparse.ArgumentParser:
    from engine.commands.run import add_parser

    holder = argparse.ArgumentParser(prog="cep")
    sub = holder.add_subparsers(dest="command", parser_class=_Parser)
    return add_parser(sub)


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions if a.option_strings and a.dest not in _OUTPUT_FLAGS}


def option_names() -> list[str]:
    """Every option :func:`engine.api.runner` takes, in ``cep run --help`` order."""
    return [*_flags(_run_parser()), *API_ONLY]


def run_arguments(options: Mapping[str, Any]) -> argparse.Namespace:
    """The ``cep run`` arguments of ``options`` (defaults for the rest), parsed by its parser.

    ``spark=True`` is ``--spark``; ``spark="local[2]"`` (any master URL) is ``--spark --master
    URL``; a boolean flag is given when true. Output flags (``format``, ``out``, ``stats``) are
    not options: the result is returned. An unknown name is a ``TypeError`` naming the nearest."""
    parser = _run_parser()
    flags = _flags(parser)
    known = [*flags, *API_ONLY]
    argv = ["PATTERN"]
    opts = dict(options)
    spark = opts.pop("spark", None)
    if spark is not None and spark is not False:
        argv.append("--spark")
        if isinstance(spark, str):
            if opts.get("master") not in (None, spark):
                raise CommandError(f"spark={spark!r} and master={opts['master']!r} name two masters; give one")
            opts["master"] = spark
        elif spark is not True:
            raise CommandError(f"spark must be True or a master URL (local[2], spark://HOST:PORT, sc://HOST:PORT), "
                               f"not {spark!r}")
    for name, value in opts.items():
        if name in API_ONLY:
            continue
        action = flags.get(name)
        if action is None:
            near = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(f"unknown option {name!r}{hint}; the options are {', '.join(known)}")
        if value is None:
            continue
        flag = action.option_strings[-1]
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            if not isinstance(value, bool):
                raise CommandError(f"{flag} is true or false, not {value!r}")
            if value != action.default:
                argv.append(flag)
            continue
        if isinstance(value, bool):
            raise CommandError(f"argument {flag}: expected a value, not {value!r}")
        argv.append(f"{flag}={value}")
    args = parser.parse_args(argv)
    args.strategy = opts.get("strategy")
    args.data = None
    args.format = "jsonl"
    args.out = None
    args.stats = False
    args.more = []
    from engine.commands.arguments import check_flag_values

    check_flag_values(args)
    return args
