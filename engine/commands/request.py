"""What every ``cep run`` path shares: the request (the pattern parsed once, the data resolved
and mapped once), the run flags (``--max-memory``, ``--read``, ``--time-limit``) and their check,
the run's guard, and the events of the data (whole, or in batches taken as they come).

engine/commands/run.py builds the request and dispatches it; the paths (run_matches,
run_aggregate, run_intervals, run_spark) take it from here.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.commands.arguments import CommandError, load_data, load_pattern, mapping_from_args, resolve_data
from engine.memory import MemoryGuard, current_guard, default_limit, parse_size

if TYPE_CHECKING:  # pragma: no cover
    from engine.events import ColumnMapping
    from engine.model import Pattern

__all__ = ["READ_MODES", "RunRequest", "add_run_args", "build_request", "run_pattern", "check_run_args", "memory_limit",
           "read_events", "run_guard"]

READ_MODES = ("auto", "whole", "batches")


@dataclass
class RunRequest:
    """One ``cep run``: the arguments, the parsed pattern (None for a workload: its queries are
    read by the aggregate path) and its text, and the data resolved once: ``data`` the file to
    read, ``hint`` a sample's own mapping, ``mapping`` the column mapping of the flags over it
    (``mapping_error``: why the flags make none; the loader reports it where the data is read)."""

    args: argparse.Namespace
    pattern: Pattern | None
    text: str
    data: str
    hint: dict[str, Any] | None
    mapping: ColumnMapping | None = None
    mapping_error: Exception | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        """The data as the user named it (``sample:NAME`` or the path): messages begin with it."""
        return str(self.args.data)

    @property
    def workload(self) -> bool:
        return self.pattern is None

    @property
    def interval(self) -> bool:
        """The data maps uncertainty intervals (``--lower-col/--upper-col`` or a sample's own)."""
        return self.mapping is not None and self.mapping.is_interval

    def reads_in_batches(self, force: bool = False) -> bool:
        """Whether the data is read in batches: ``--read batches`` (or ``force``), or ``auto`` for
        a big file; a file that cannot be batched (a JSON array) is read whole under ``auto``
        and refused under ``batches``. A file that cannot be sized is read whole (the loader says
        what is wrong)."""
        from engine.events import DataError, can_batch, wants_batches

        mode = "batches" if force else (getattr(self.args, "read", "auto") or "auto")
        try:
            batched = mode == "batches" or (mode == "auto" and (wants_batches(self.data) or self._streams_sorted()))
        except (DataError, OSError):
            batched = False
        if batched and not can_batch(self.data):
            if mode == "batches":
                raise CommandError(f"{self.label}: cannot be read in batches (a JSON array is read whole; "
                                   f"use JSON Lines, CSV or Parquet)")
            batched = False
        return batched

    def _streams_sorted(self) -> bool:
        """A plain CSV/TSV file above ``STREAM_ABOVE_BYTES`` whose times are sorted numbers: read in
        batches by default too (the events of a whole read, in bounded memory)."""
        from pathlib import Path

        from engine.events.arrow_batches import STREAM_ABOVE_BYTES, sorted_csv

        path = Path(self.data)
        if path.suffix.lower() not in (".csv", ".tsv") or not path.is_file() or self.mapping is None:
            return False
        return path.stat().st_size > STREAM_ABOVE_BYTES and sorted_csv(path, self.mapping)

    def column_mapping(self) -> ColumnMapping:
        """The column mapping (the flags' problem raised as it was found)."""
        if self.mapping is None:
            raise self.mapping_error or CommandError("no column mapping")
        return self.mapping


def run_pattern(args: argparse.Namespace) -> tuple[Pattern | None, str]:
    """``cep run``'s pattern argument read and parsed once: (the pattern, its text), or (None,
    the text) for a workload (several patterns, or a file of ``QUERY`` blocks, which the
    aggregate path reads query by query)."""
    from engine.commands.arguments import read_pattern
    from engine.engines.aseq.workload import is_workload

    text, _origin = read_pattern(args.pattern)
    if getattr(args, "more", None) or is_workload(text):
        return None, text
    return load_pattern(args.pattern, text)


def build_request(args: argparse.Namespace) -> RunRequest:
    """The request of ``args`` (see the module): flags checked, the pattern parsed once, the
    data resolved once. A workload (several patterns, or a file of ``QUERY`` blocks) has no
    single pattern: ``pattern`` None."""
    from engine.commands.output_paths import check_out

    check_run_args(args)
    check_out(args)
    pattern, text = run_pattern(args)
    data, hint = resolve_data(args.data)
    request = RunRequest(args, pattern, text, data, hint)
    try:
        request.mapping = mapping_from_args(args, hint)
    except (ValueError, KeyError) as err:
        request.mapping_error = err
    return request


def add_run_args(p: argparse.ArgumentParser) -> None:
    """``--max-memory`` and ``--read`` of ``cep run``."""
    p.add_argument("--max-memory", default=None, metavar="SIZE",
                   help="stop when resident memory passes SIZE (e.g. 2GB, 800MB, 50%%, off; "
                        "default 2GB or half the machine's memory)")
    p.add_argument("--read", default="auto", choices=READ_MODES,
                   help="read the data whole (sorted in memory) or in batches (bounded memory; the "
                        "file must be sorted by ts); auto: batches for files over 32 MB")
    p.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                   help="stop the run (exit 1, what was found so far kept) after SECONDS (default: none)")


def memory_limit(args: argparse.Namespace) -> int | None:
    raw = getattr(args, "max_memory", None)
    if raw is None:
        return default_limit()
    try:
        return parse_size(raw)
    except ValueError as err:
        raise CommandError(f"--max-memory: {err}") from None


def _seconds(text: str) -> float:
    """``--time-limit``: a positive finite number of seconds."""
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return v


def read_events(request: RunRequest, first: Any, first_text: str, state: dict[str, Any],
                force_batches: bool = False) -> tuple[Any, list[str], Any]:
    """The events of ``--data`` for a run that takes them one at a time (AGG patterns,
    interval data): the whole file (``load_data``), or batches (``--read batches``, or
    ``auto`` for a big file) taken as they come, with the same rules and messages; returns
    (events, warnings, the batch reader or None). ``state["events"]`` counts the events read
    from batches, ``state["loaded"]`` those loaded whole."""
    from engine.events import BatchReader, DataError

    args, data = request.args, request.data
    if not request.reads_in_batches(force_batches):
        events, warnings = load_data(args, first, first_text, request)
        state["loaded"] = len(events)
        return events, warnings, None
    try:
        reader = BatchReader(data, request.column_mapping())
    except DataError as err:
        raise CommandError(f"{args.data}: {err}") from None
    numeric = first.numeric_attrs()

    def events() -> Any:
        try:
            for batch in reader:
                errors = batch.errors + [i for i in reader.numeric_issues(batch, numeric) if i.severity == "error"]
                if errors and not getattr(args, "skip_bad_rows", False):
                    raise CommandError(f"{args.data}: the data has problems:\n{reader.report().format()}\n"
                                       "(fix the file, or pass --skip-bad-rows to run without the rejected rows)")
                for e in batch.events:
                    state["events"] += 1
                    yield e
        except DataError as err:
            raise CommandError(f"{args.data}: {err}") from None

    return events(), [], reader


def check_run_args(args: argparse.Namespace) -> None:
    """The flag values of ``cep run`` checked before any work (every path: matches, AGG,
    interval data, Spark): ``--max-memory`` read, numeric flags in range."""
    from engine.commands.arguments import check_flag_values

    check_flag_values(args)
    memory_limit(args)


def run_guard(args: argparse.Namespace, *, holds: Any = None, where: Any = None,
              limit: int | None | bool = False) -> MemoryGuard:
    """The guard of a run: the caller's current guard (``engine.memory.guarding``) when there
    is one (its ``holds``/``where`` filled in where it has none), else a new ``MemoryGuard``
    of ``--max-memory`` (``limit`` when given) and, where ``args`` has them, ``time_limit``
    (seconds) and ``cancel`` (a ``threading.Event``)."""
    outer = current_guard()
    if isinstance(outer, MemoryGuard):
        if outer.holds is None:
            outer.holds = holds
        if outer.where is None:
            outer.where = where
        return outer
    return MemoryGuard(memory_limit(args) if limit is False else limit, holds=holds, where=where,  # type: ignore[arg-type]
                       time_limit=getattr(args, "time_limit", None), cancel=getattr(args, "cancel", None))
