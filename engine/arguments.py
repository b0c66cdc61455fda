"""What every command shares to turn its arguments into engine objects: the error a
command reports (``CommandError``), the column-mapping flags (``add_mapping_args`` /
``mapping_from_args``), the pattern argument (``load_pattern``) and the data argument
(``resolve_data`` / ``load_data``).

Used by ``engine.cli``, by subcommand modules and by ``engine.spark`` (which must not
import ``engine.cli``). Module-level imports are the standard library only; the engine
modules are imported where they are needed, so ``cep --help`` stays fast.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from .events import ColumnMapping, Event
    from .model import Pattern

__all__ = ["CommandError", "MAPPING_FLAGS", "add_mapping_args", "mapping_from_args", "read_pattern",
           "load_pattern", "resolve_data", "load_data"]

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


def add_mapping_args(parser: argparse.ArgumentParser) -> None:
    """The column-mapping flags (``--type-col`` ... ``--upper-col``)."""
    for field, flag in MAPPING_FLAGS.items():
        parser.add_argument(flag, dest=field, type=int if field == "u_max" else None)


def mapping_from_args(args: Any, columns_hint: Mapping[str, Any] | None = None) -> ColumnMapping:
    """A ``ColumnMapping`` from the mapping flags of ``args`` (an argparse namespace or a
    dict) over ``columns_hint`` (e.g. a sample's own mapping); a flag that is not given
    keeps the hint, a field in neither keeps ``ColumnMapping``'s default."""
    from .events import ColumnMapping

    get = args.get if isinstance(args, Mapping) else (lambda k, d=None: getattr(args, k, d))
    base = dict(columns_hint or {})
    for field in MAPPING_FLAGS:
        v = get(field, None)
        if v is not None:
            base[field] = v
    base = {k: v for k, v in base.items() if v is not None or k in _OPTIONAL_COLUMNS}
    return ColumnMapping(**base)


def read_pattern(arg: str) -> tuple[str, str]:
    """PATTERN is a file (``.cep``/``.json``), ``preset:SAMPLE/PRESET`` or inline text;
    returns (text, origin)."""
    looks_inline = "\n" in arg or arg.lstrip().upper().startswith("PATTERN")
    if not looks_inline:
        p = Path(arg)
        if p.is_file():
            return p.read_text(encoding="utf-8"), str(p)
        if arg.startswith("preset:"):
            import sample_streams

            _, _, rest = arg.partition(":")
            sample, _, preset = rest.partition("/")
            s = sample_streams.load(sample)
            if preset not in s.presets:
                raise CommandError(f"unknown preset `{preset}` of sample `{sample}`; known: {', '.join(s.presets)}")
            return s.presets[preset], arg
        raise CommandError(f"pattern file not found: {arg} (or give the pattern text, starting with PATTERN)")
    return arg, "<inline>"


def load_pattern(arg: str) -> tuple[Pattern, str]:
    """The checked pattern of a PATTERN argument and its source text."""
    from .model import PatternError

    text, origin = read_pattern(arg)
    if origin.endswith(".json"):
        from .model import Pattern

        try:
            return Pattern.model_validate_json(text).check(), text
        except (ValueError, PatternError) as err:
            raise CommandError(f"{origin}: invalid pattern JSON: {err}") from None
    from .dsl import DslError, parse

    try:
        return parse(text), text
    except DslError as err:
        raise CommandError(f"{origin}: {err}") from None


def resolve_data(data: str) -> tuple[str, dict[str, Any] | None]:
    """``sample:NAME`` -> (the sample's file, its column mapping); a path -> (path, None)."""
    if str(data).startswith("sample:"):
        import sample_streams

        s = sample_streams.load(str(data).split(":", 1)[1])
        return str(s.path), dict(s.mapping)
    return str(data), None


def load_data(args: argparse.Namespace, pattern: Pattern, source_text: str) -> tuple[list[Event], list[str]]:
    """Load and validate ``args.data`` for ``pattern``; returns events and warnings (the
    validation report, schema warnings). Errors raise ``CommandError``; rows with errors
    are refused unless ``args.skip_bad_rows``."""
    from .dsl import DslError, check_schema
    from .events import DataError, load_events

    data, hint = resolve_data(args.data)
    mapping = mapping_from_args(args, hint)
    try:
        res = load_events(data, mapping)
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
