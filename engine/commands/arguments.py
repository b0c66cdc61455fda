"""What every command shares to turn its arguments into engine objects: the error a
command reports (``CommandError``), the column-mapping flags (``add_mapping_args`` /
``mapping_from_args``), the pattern argument (``load_pattern``) and the data argument
(``resolve_data`` / ``load_data``).

Used by ``engine.commands.cli``, by subcommand modules and by ``engine.spark`` (which must not
import ``engine.commands.cli``). Module-level imports are the standard library only; the engine
modules are imported where they are needed, so ``cep --help`` stays fast.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from engine.events import ColumnMapping, Event
    from engine.model import Pattern

PATTERN_HELP = "a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text"

__all__ = ["PATTERN_HELP", "CommandError", "MAPPING_FLAGS", "add_mapping_args", "mapping_from_args", "read_pattern", "load_sample",
           "check_flag_values", "NUMERIC_FLAGS",
           "load_pattern", "resolve_data", "load_data", "interval_data"]

#: ``ColumnMapping`` field -> command-line flag.
MAPPING_FLAGS = {"type_col": "--type-col", "ts_col": "--ts-col", "id_col": "--id-col",
                 "lower_col": "--lower-col", "upper_col": "--upper-col",
                 "pmf_col": "--pmf-col", "u_max": "--u-max"}  # the last two: interval data only

_OPTIONAL_COLUMNS = ("id_col", "lower_col", "upper_col")


class CommandError(Exception):
    """A command failed with a message for the user; ``status`` is the exit status
    (2 bad input, 1 the run was stopped)."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


#: numeric flag (its ``dest``) -> (flag, the least value it takes), checked by ``check_flag_values``
NUMERIC_FLAGS = {"max_runs": ("--max-runs", 1), "u_max": ("--u-max", 0), "limit": ("--limit", 1),
                 "match": ("--match", 1), "port": ("--port", 1)}


def check_flag_values(args: Any) -> None:
    """Refuse a numeric flag value out of range (negative, zero where it needs one, NaN,
    infinite) with a message naming the flag: a ``CommandError`` before any work."""
    import math

    for dest, (flag, least) in NUMERIC_FLAGS.items():
        v = getattr(args, dest, None)
        if v is None or isinstance(v, bool) or not isinstance(v, int):
            continue
        if v < least:
            raise CommandError(f"{flag} must be {'a positive' if least else 'a non-negative'} whole number, not {v}")
    x = getattr(args, "min_confidence", None)
    if x is not None and not (isinstance(x, (int, float)) and math.isfinite(x) and 0 <= x <= 1):
        raise CommandError(f"--min-confidence must be a number between 0 and 1, not {x}")


def add_mapping_args(parser: argparse.ArgumentParser) -> None:
    """The column-mapping flags (``--type-col`` ... ``--upper-col``)."""
    for field, flag in MAPPING_FLAGS.items():
        parser.add_argument(flag, dest=field, type=int if field == "u_max" else None)


def mapping_from_args(args: Any, columns_hint: Mapping[str, Any] | None = None) -> ColumnMapping:
    """A ``ColumnMapping`` from the mapping flags of ``args`` (an argparse namespace or a
    dict) over ``columns_hint`` (e.g. a sample's own mapping); a flag that is not given
    keeps the hint, a field in neither keeps ``ColumnMapping``'s default."""
    from engine.events import ColumnMapping

    get = args.get if isinstance(args, Mapping) else (lambda k, d=None: getattr(args, k, d))
    base = dict(columns_hint or {})
    for field in MAPPING_FLAGS:
        v = get(field, None)
        if v is not None:
            base[field] = v
    base = {k: v for k, v in base.items() if v is not None or k in _OPTIONAL_COLUMNS}
    return ColumnMapping(**base)


def load_sample(name: str) -> Any:
    """``sample_streams.load(name)``; an unknown name is a ``CommandError`` listing the
    samples and suggesting the nearest."""
    import sample_streams

    try:
        return sample_streams.load(name)
    except ValueError as err:
        raise CommandError(str(err)) from None


def _looks_inline(arg: str) -> bool:
    """Pattern text rather than a file name: several lines, or PATTERN / SELECT first."""
    from engine.engines.sql.detect import is_sql

    return "\n" in arg or arg.lstrip().upper().startswith("PATTERN") or is_sql(arg)


def _origin(arg: str) -> str:
    """Where ``read_pattern(arg)`` reads from (a file name, ``preset:...`` or ``<inline>``)."""
    if _looks_inline(arg):
        return "<inline>"
    return arg


def read_pattern(arg: str) -> tuple[str, str]:
    """PATTERN is a file (``.cep``/``.json``), ``preset:SAMPLE/PRESET`` or inline text;
    returns (text, origin)."""
    if not _looks_inline(arg):
        p = Path(arg)
        if p.is_file():
            return p.read_text(encoding="utf-8"), str(p)
        if arg.startswith("preset:"):
            import sample_streams

            _, _, rest = arg.partition(":")
            sample, _, preset = rest.partition("/")
            s = load_sample(sample)
            if preset not in s.presets:
                known = list(s.presets)
                raise CommandError(f"unknown preset {preset!r} of sample {sample!r}; its presets are "
                                   f"{', '.join(known) or 'none'}{sample_streams.suggest(preset, known)}")
            return s.presets[preset], arg
        raise CommandError(f"pattern file not found: {arg} (or give the pattern text, starting with PATTERN, or a "
                           "MATCH_RECOGNIZE query, starting with SELECT)")
    return arg, "<inline>"


def load_pattern(arg: str, text: str | None = None) -> tuple[Pattern, str]:
    """The checked pattern of a PATTERN argument and its source text (``text``: the text
    ``read_pattern(arg)`` already gave, so that the argument is read once)."""
    from engine.model import PatternError

    if text is None:
        text, origin = read_pattern(arg)
    else:
        origin = _origin(arg)
    if origin.endswith(".json"):
        from engine.model import Pattern

        try:
            return Pattern.model_validate_json(text).check(), text
        except (ValueError, PatternError) as err:
            raise CommandError(f"{origin}: invalid pattern JSON: {err}") from None
    from engine.dsl import DslError, parse

    try:
        return parse(text), text
    except DslError as err:
        raise CommandError(f"{origin}: {err}") from None


def resolve_data(data: str) -> tuple[str, dict[str, Any] | None]:
    """``sample:NAME`` -> (the sample's file, its column mapping); a path -> (path, None)."""
    if str(data).startswith("sample:"):
        s = load_sample(str(data).split(":", 1)[1])
        return str(s.path), dict(s.mapping)
    return str(data), None


def load_data(args: argparse.Namespace, pattern: Pattern, source_text: str,
              request: Any = None, types: frozenset[str] | None = None,
              lazy: bool = False) -> tuple[list[Event], list[str]]:
    """Load and validate ``args.data`` for ``pattern``; returns events and warnings (the
    validation report, schema warnings). Errors raise ``CommandError``; rows with errors
    are refused unless ``args.skip_bad_rows``. ``request``: a ``cep run`` request, whose data
    and column mapping are already resolved (``engine.commands.run.RunRequest``). ``types``:
    build only events of these types (``engine.type_filter.bindable_types``); every row is
    still validated. ``lazy``: the events may come as columns (``load_events(lazy=True)``)."""
    from engine.dsl import DslError, check_schema
    from engine.events import DataError, load_events

    if request is not None:
        data, mapping = request.data, request.column_mapping()
    else:
        data, hint = resolve_data(args.data)
        mapping = mapping_from_args(args, hint)
    try:
        res = load_events(data, mapping, types=types, lazy=lazy)
    except DataError as err:
        raise CommandError(f"{args.data}: {err}") from None
    warnings: list[str] = []
    report = res.report
    issues = list(report.issues)
    # Only attributes whose loaded column is not all numbers can hold a non-number.
    suspect: dict[str, set[str]] = {}
    for t, attrs in pattern.numeric_attrs().items():
        types = res.schema if t == "ANY" else {t: res.schema.get(t, {})}
        for tt, kinds in types.items():
            bad = {a for a in attrs if kinds.get(a, "number") != "number"}
            if bad:
                suspect.setdefault(tt, set()).update(bad)
    if suspect:
        issues.extend(res.numeric_issues(suspect))
    errors = [i for i in issues if i.severity == "error"]
    if errors and not args.skip_bad_rows:
        report.issues = issues
        raise CommandError(f"{args.data}: the data has problems:\n{report.format()}\n"
                           "(fix the file, or pass --skip-bad-rows to run without the rejected rows)")
    if issues:
        report.issues = issues
        warnings.append(report.format())
    # With --skip-bad-rows, events whose values are not numbers stay in the stream: a
    # comparison with a non-number is false (docs/semantics.md), and the report lists them.
    try:
        warnings += check_schema(pattern, res.schema, source_text)
    except DslError as err:
        raise CommandError(str(err)) from None
    return res.events, warnings


def interval_data(args: argparse.Namespace) -> bool:
    """True when the data argument maps interval columns (``--lower-col/--upper-col`` or the
    sample's own mapping); False also when the flags make no mapping (the loader says why)."""
    try:
        return mapping_from_args(args, resolve_data(args.data)[1]).is_interval
    except (ValueError, KeyError):
        return False
