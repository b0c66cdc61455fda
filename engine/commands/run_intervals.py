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
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from engine.commands.arguments import CommandError
from engine.commands.output import format_matches
from engine.commands.stats import print_stats

if TYPE_CHECKING:  # pragma: no cover
    from engine.commands.request import RunRequest

__all__ = ["run_interval", "apply_min_confidence"]


def apply_min_confidence(matches: list[Any], x: float | None) -> list[Any]:
    """Keep the signatures with ``confidence >= x`` (compared exactly with the decimal ``x``)."""
    if x is None:
        return matches
    if not 0.0 <= x <= 1.0:
        raise CommandError(f"--min-confidence must be between 0 and 1, not {x:g}")
    bound = Fraction(str(x))
    return [m for m in matches if m.confidence >= bound]


def run_interval(request: RunRequest) -> int:
    """The body of ``cep run`` for interval data; returns the exit status. ``--read batches``
    reads ``--data`` in batches as the run goes (it needs ``--u-max``, which is otherwise
    derived from the whole file); otherwise the file is loaded whole first."""
    from engine.commands.arguments import load_data
    from engine.commands.errors import preparing, running
    from engine.engines.planner import choose, make_matcher
    from engine.engines.uncertain.pmf import derived_u_max
    from engine.engines.uncertain.result import sort_uncertain

    args, pattern, text = request.args, request.pattern, request.text
    assert pattern is not None
    events: list[Any] | None = None
    if getattr(args, "read", "auto") != "batches":
        events, warnings = load_data(args, pattern, text, request)
        for w in warnings:
            print(w, file=sys.stderr)
    mapping = request.column_mapping()
    with preparing(request.label):
        info = choose(pattern, args.engine, interval=True)
    state: dict[str, Any] = {"events": 0, "loaded": None}
    reader = None
    if events is None:
        if mapping.u_max is None:
            raise CommandError("--read batches on interval data needs --u-max (the widest interval allowed): "
                               "without it U_max is derived from the whole file")
        from engine.commands.request import read_events

        events, warnings, reader = read_events(request, pattern, text, state, force_batches=True)
        for w in warnings:
            print(w, file=sys.stderr)
    try:
        u_max = mapping.u_max if mapping.u_max is not None else derived_u_max(events)
    except ValueError as err:
        raise CommandError(f"{args.data}: {err}") from None
    options: dict[str, Any] = {"u_max": u_max, "pmf": mapping.pmf_col}
    if args.max_runs is not None:
        options["max_runs"] = args.max_runs
    from engine.memory import RunStopped, guarding
    from engine.commands.output_paths import check_out

    check_out(args)
    matcher = make_matcher(pattern, info.name, interval=True, **options)
    t0 = time.perf_counter()
    matches: list[Any] = []

    def holds() -> str:
        st = matcher.stats
        return (f"the matcher holds {st.runs_alive:,} live runs (peak {st.runs_peak:,}) and "
                f"{len(matches):,} signatures found so far")

    from engine.commands.request import run_guard

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
            print(report.format(), file=sys.stderr)
    n_events = state["events"]
    found = len(matches)
    matches = apply_min_confidence(sort_uncertain(matches), getattr(args, "min_confidence", None))
    variables = [c.var for c in pattern.positive]
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8", newline="") as fh:
                format_matches(matches, args.format, fh, variables, uncertain=True)
        except OSError as err:
            raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    else:
        format_matches(matches, args.format, sys.stdout, variables, uncertain=True)
    print_stats(args, [("engine", info.name), ("events", n_events), ("signatures", found), ("shown", len(matches)),
                       ("u_max", u_max)], elapsed, matcher.stats.as_dict(), events=n_events)
    return 0
