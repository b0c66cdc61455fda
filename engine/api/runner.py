"""``run(pattern, data, **options)``: ``cep run`` as a function. The same request (pattern
parsed once, data resolved and mapped once, flags checked by ``cep run``'s parser), the same
dispatch and the same engines, messages and exceptions; a :class:`engine.api.result.Result`
instead of lines on stdout.

====================================  =============================================
an AGG pattern                        aggregate rows (``run_aggregate``'s engines)
``spark=`` (True or a master URL)     matches or rows on Spark (``engine.spark``)
interval data                         signatures of the interval engines
point data                            matches in process
a MATCH_RECOGNIZE query               its output rows (``engine.engines.sql``)
====================================  =============================================

What ``cep run`` prints on stderr (the validation report, notes) is in ``result.warnings``.
Problems are ``CommandError`` (``.status``: 2 bad input, 1 a stopped run) with ``cep run``'s
message, which names an option by its flag (``--max-runs`` for ``max_runs=``); a pattern that
cannot be read raises ``DslError`` / ``SqlError`` with its line and column.

>>> import engine
>>> result = engine.run("PATTERN SEQ(A a, B b) WHERE a.x = b.x",
...                     [{"type": "A", "ts": 1, "x": 1}, {"type": "B", "ts": 2, "x": 1},
...                      {"type": "B", "ts": 3, "x": 2}])
>>> len(result), result.to_records()
(1, [{'match': {'a': [0], 'b': [1]}, 'start': 1.0, 'end': 2.0}])
>>> engine.run("PATTERN SEQ(A a, B b)", [{"type": "A", "ts": 1}], max_runs=0)
Traceback (most recent call last):
...
engine.commands.arguments.CommandError: --max-runs must be a positive whole number, not 0
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from engine.commands.arguments import CommandError

if TYPE_CHECKING:  # pragma: no cover
    from engine.api.parsing import ParsedPattern
    from engine.api.result import Result
    from engine.commands.request import RunRequest

__all__ = ["run", "build_api_request"]


def run(pattern: Any, data: Any = None, **options: Any) -> Result:
    """Run ``pattern`` (its text, :func:`engine.parse`'s result, an ``engine.model.Pattern``, a
    ``pathlib.Path`` to a pattern file or ``"preset:SAMPLE/NAME"``)
    over ``data`` (a path or ``sample:NAME``, a pandas DataFrame, a pyarrow Table, or an
    iterable of dicts) with ``cep run``'s options (``engine=``, ``match_windows=``, ``max_runs=``,
    ``skip_bad_rows=``, ``type_col=`` ... ``upper_col=``, ``u_max=``, ``min_confidence=``,
    ``emit=``, ``spark=``, and ``strategy=`` to override the pattern's strategy); see the module."""
    from engine.api.options import run_arguments
    from engine.api.parsing import as_parsed

    args = run_arguments(options)
    parsed = as_parsed(pattern)
    if parsed.kind == "sql":
        if args.strategy is not None:
            raise CommandError("strategy= overrides a pattern's strategy; a MATCH_RECOGNIZE query has none")
        from engine.api.run_sql import run_query

        return run_query(parsed, data, args)  # type: ignore[arg-type]
    if args.strategy is not None:
        parsed = parsed.with_strategy(args.strategy)  # type: ignore[union-attr]
    if getattr(args, "table", None):
        raise CommandError("table= is for MATCH_RECOGNIZE queries")
    if data is None:
        raise CommandError("data is required (the events to match)")
    request = build_api_request(parsed, data, args)  # type: ignore[arg-type]
    model = parsed.model  # type: ignore[union-attr]
    warnings: list[str] = []
    from engine.risk import explosion_risk

    risk = explosion_risk(model)
    if risk is not None:
        warnings.append(f"warning: {risk}")
    if model.aggregate is not None:
        from engine.api.run_paths import run_rows

        return run_rows(parsed, request, warnings)  # type: ignore[arg-type]
    if args.spark:
        from engine.api.run_paths import run_on_spark

        return run_on_spark(parsed, request, warnings)  # type: ignore[arg-type]
    if request.interval:
        from engine.api.run_paths import run_signatures

        return run_signatures(parsed, request, warnings)  # type: ignore[arg-type]
    if args.min_confidence is not None:
        from engine.commands.arguments import load_data

        load_data(args, model, request.text, request)  # the data's own problems are reported first
        raise CommandError("--min-confidence applies to interval data (--lower-col/--upper-col) only")
    from engine.api.run_paths import run_matches

    return run_matches(parsed, request, warnings)  # type: ignore[arg-type]


def build_api_request(parsed: ParsedPattern, data: Any, args: argparse.Namespace) -> RunRequest:
    """``cep run``'s request for ``parsed`` over ``data``: the flags checked, the data resolved
    once (``engine.api.data``), the column mapping of the options over a sample's own."""
    from engine.api.data import data_source
    from engine.commands.arguments import mapping_from_args
    from engine.commands.request import RunRequest, check_run_args

    check_run_args(args)
    source = data_source(data)
    args.data = source.label
    if source.in_memory:
        if args.read == "batches":
            raise CommandError(f"{source.label}: read='batches' reads a file; data in memory is read whole")
        args.read = "whole"
    request = RunRequest(args, parsed.model, parsed.text, source.data, source.hint)
    try:
        request.mapping = mapping_from_args(args, source.hint)
    except (ValueError, KeyError) as err:
        request.mapping_error = err
    return request

