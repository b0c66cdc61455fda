"""``cep run`` on interval data (``--lower-col/--upper-col``): one row per signature with its
range and confidence (docs/semantics.md, "Imprecise timestamps").

The engine is chosen among the interval engines only (``auto``: ``uncertain-event``), so
interval data is never matched as point data. ``U_max`` is ``--u-max`` or derived from the
data (the largest ``upper - lower``); ``--pmf-col`` names the pmf weights; ``--min-confidence X``
keeps the signatures with confidence >= X (an extension: the paper has no threshold).
Signatures are printed in a canonical order (by range, then events), the same for every engine.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

from engine.commands.arguments import CommandError
from engine.commands.output import format_matches
from engine.commands.stats import print_stats

if TYPE_CHECKING:  # pragma: no cover
    from engine.commands.request import RunRequest

__all__ = ["IntervalRun", "apply_min_confidence", "interval_signatures", "run_interval"]


def apply_min_confidence(matches: list[Any], x: float | None) -> list[Any]:
    """Keep the signatures with ``confidence >= x`` (compared exactly with the decimal ``x``)."""
    if x is None:
        return matches
    if not 0.0 <= x <= 1.0:
        raise CommandError(f"--min-confidence must be between 0 and 1, not {x:g}")
    bound = Fraction(str(x))
    return [m for m in matches if m.confidence >= bound]


def _u_max_pass(request: RunRequest) -> int:
    """U_max of a file read in batches: the widest interval of its events, from a first pass over
    the batches (the events of each are built, measured and dropped: memory stays bounded), as a
    whole read derives it. A file the reader refuses is refused here with the same message."""
    from engine.engines.uncertain.pmf import derived_u_max
    from engine.events import BatchReader, DataError

    best = 0
    try:
        for batch in BatchReader(request.data, request.column_mapping()):
            best = max(best, derived_u_max(batch.events))
    except DataError as err:
        raise CommandError(f"{request.args.data}: {err}") from None
    except ValueError as err:
        raise CommandError(f"{request.args.data}: {err}") from None
    return best


@dataclass
class IntervalRun:
    """What an interval run found: the signatures (in the canonical order, ``--min-confidence``
    applied), how many were found before that filter, the engine, U_max, the events read, the
    matcher's statistics, the run's seconds, and the events when they were loaded whole."""

    signatures: list[Any]
    found: int
    engine: str
    u_max: int
    events: int
    stats: dict[str, Any]
    seconds: float
    loaded: list[Any] | None


def interval_signatures(request: RunRequest, warn: Callable[[str], None]) -> IntervalRun:
    """The signatures of ``cep run`` on interval data (its engine, U_max, guard and messages);
    ``warn`` takes each warning as it comes (the load's, then the batch reader's report). In
    batches (``--read batches``, or ``auto`` for a big file: ``RunRequest.reads_in_batches``)
    ``--data`` is read as the run goes, in bounded memory; without ``--u-max`` a first pass over
    the batches derives U_max (the widest interval) as a whole read derives it. Otherwise the
    file is loaded whole."""
    from engine.commands.arguments import load_data
    from engine.commands.errors import preparing, running
    from engine.commands.output_paths import check_out
    from engine.commands.request import read_events, run_guard
    from engine.engines.planner import choose, make_matcher
    from engine.engines.uncertain.pmf import derived_u_max
    from engine.engines.uncertain.result import sort_uncertain
    from engine.memory import guarding

    args, pattern, text = request.args, request.pattern, request.text
    assert pattern is not None
    events: Any = None
    if not request.reads_in_batches():
        events, warnings = load_data(args, pattern, text, request)
        for w in warnings:
            warn(w)
    loaded = events
    mapping = request.column_mapping()
    with preparing(request.label):
        info = choose(pattern, args.engine, interval=True)
    state: dict[str, Any] = {"events": 0, "loaded": None}
    reader = None
    u_max = mapping.u_max
    if events is None:
        if u_max is None:
            u_max = _u_max_pass(request)
        events, warnings, reader = read_events(request, pattern, text, state, force_batches=True)
        for w in warnings:
            warn(w)
    try:
        u_max = u_max if u_max is not None else derived_u_max(events)
    except ValueError as err:
        raise CommandError(f"{args.data}: {err}") from None
    options: dict[str, Any] = {"u_max": u_max, "pmf": mapping.pmf_col}
    if args.max_runs is not None:
        options["max_runs"] = args.max_runs
    check_out(args)
    matcher = make_matcher(pattern, info.name, interval=True, **options)
    t0 = time.perf_counter()
    matches: list[Any] = []

    def holds() -> str:
        st = matcher.stats
        return (f"the matcher holds {st.runs_alive:,} live runs (peak {st.runs_peak:,}) and "
                f"{len(matches):,} signatures found so far")

    guard = run_guard(args, holds=holds, where=lambda: f"after {state['events']:,} events")
    with running(request.label):  # the oracle refusing a large input, a bad pmf: stopped too
        guard.check()  # the loaded data may already pass --max-memory
        with guarding(guard):
            for e in events:
                matches.extend(matcher.feed(e))
                if reader is None:
                    state["events"] += 1
                guard.tick()
            matches.extend(matcher.close())
    elapsed = time.perf_counter() - t0
    if reader is not None:
        report = reader.report()
        if report.issues or report.omitted:
            warn(report.format())
    found = len(matches)
    shown = apply_min_confidence(sort_uncertain(matches), getattr(args, "min_confidence", None))
    return IntervalRun(shown, found, info.name, u_max, state["events"], matcher.stats.as_dict(), elapsed, loaded)


def run_interval(request: RunRequest) -> int:
    """The body of ``cep run`` for interval data (``interval_signatures``, written out); returns the
    exit status."""
    run = interval_signatures(request, lambda w: print(w, file=sys.stderr))
    args = request.args
    assert request.pattern is not None
    variables = [c.var for c in request.pattern.positive]
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8", newline="") as fh:
                format_matches(run.signatures, args.format, fh, variables, uncertain=True)
        except OSError as err:
            raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    else:
        format_matches(run.signatures, args.format, sys.stdout, variables, uncertain=True)
    print_stats(args, [("engine", run.engine), ("events", run.events), ("signatures", run.found),
                       ("shown", len(run.signatures)), ("u_max", run.u_max)], run.seconds, run.stats,
                events=run.events)
    return 0
