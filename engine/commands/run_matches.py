"""``cep run`` in-process: read the data (whole, or in batches for big files), feed the
matcher, write each match as it is produced, and guard the resident memory.

- **Reading.** ``--read auto`` (the default) loads small files whole (``load_data``: rows
  sorted by ts in memory, every problem reported before the run) and reads big ones in
  batches (``engine.events.BatchReader``: files over 32 MB, Parquet over 250,000 rows),
  which keeps only the current batch and the matcher's live window in memory and needs
  the file sorted by ts. ``--read whole`` / ``--read batches`` choose.
- **Bad rows in batches.** The same rules and messages as the whole-file loader. Without
  ``--skip-bad-rows`` the run stops before the first batch that holds an error; the rest of
  the file is still read (not matched) so that the report lists every problem. With it,
  the report is printed after the run.
- **Output.** ``jsonl`` / ``csv`` lines are written as matches are produced, ``count`` at
  the end, ``table`` shows its first rows (``output.TABLE_MAX_ROWS``). ``--out FILE`` is
  written as ``FILE.partial`` and renamed at the end; a run that stops leaves the
  ``.partial`` file with the matches found before it, and says so.
- **Memory.** ``--max-memory`` (default: 2 GB or half the machine's memory) stops the run
  with a message naming what holds the memory (``engine.memory``).
- **The guard.** The run's guard (``run_guard``: ``--max-memory``, and a time limit or a
  cancel event where the caller has them) is the current guard (``engine.memory.guarding``)
  for the whole run, so the engines tick it inside long steps and drains too. A caller that
  is already inside ``guarding(guard)`` (the app, with its time limit and Stop button) has
  its guard used instead of a new one.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TextIO

from engine.commands.arguments import CommandError, load_data
from engine.commands.request import memory_limit, run_guard
from engine.memory import MemoryGuard, RunStopped, guarding, loaded_objects_frozen
from engine.commands.output import MatchWriter

if TYPE_CHECKING:  # pragma: no cover
    from engine.commands.request import RunRequest
    from engine.run_choice import RunChoice
    from engine.events import BatchReader, Event
    from engine.match import Matcher
    from engine.model import Pattern

__all__ = ["CHUNK", "build_matcher", "close_matcher", "feed_events", "held_state", "refuse_batch", "run_in_process"]



def run_in_process(request: RunRequest) -> int:
    """The in-process part of ``cep run`` (see the module); returns the exit status."""
    args, pattern, text, data = request.args, request.pattern, request.text, request.data
    assert pattern is not None
    limit = memory_limit(args)
    if request.reads_in_batches():
        return _run_batches(args, pattern, text, data, request.column_mapping(), limit)
    return _run_whole(request, limit)


# --------------------------------------------------------------------------- whole file

def _run_whole(request: RunRequest, limit: int | None) -> int:
    args, pattern = request.args, request.pattern
    assert pattern is not None
    from engine.events.event_columns import type_counts
    from engine.type_filter import bindable_types

    # rows of types no component binds never become events (seq keeps their place in the stream), and
    # the rest come as columns: a matcher that reads columns (the lazy chain's columnar path) builds none
    events, warnings = load_data(args, pattern, request.text, request, types=bindable_types(pattern), lazy=True)
    for w in warnings:
        print(w, file=sys.stderr)
    rates = type_counts(events) if args.engine == "auto" else None
    matcher, choice = build_matcher(args, pattern, rates)
    name = choice.engine
    guard = run_guard(args, holds=lambda: held_state(matcher, pattern, len(events)),
                      where=lambda: f"after {matcher.stats.events:,} events", limit=limit)
    try:
        guard.check()
    except RunStopped as err:
        raise CommandError(f"stopped after loading the data: {err}", status=1) from None
    with _output(args, pattern) as writer, guarding(guard), loaded_objects_frozen():
        t0 = time.perf_counter()
        _run(matcher, events, writer, guard, choice)
        elapsed = time.perf_counter() - t0
    _print_stats(args, matcher, name, len(events), writer.count, elapsed)
    return 0


# --------------------------------------------------------------------------- batches

def _run_batches(args: argparse.Namespace, pattern: Pattern, text: str, data: str, mapping: Any,
                 limit: int | None) -> int:
    from engine.dsl import DslError, check_schema
    from engine.events import BatchReader, DataError
    from engine.events.event_columns import type_counts
    from engine.type_filter import bindable_types

    try:
        reader = BatchReader(data, mapping, types=bindable_types(pattern))
        batches = iter(reader)
        first = next(batches, None)
    except DataError as err:
        raise CommandError(f"{args.data}: {err}") from None
    if first is None:
        raise CommandError(f"{args.data}: no rows")
    # names checked against the columns now (CSV and Parquet rows have every column; JSON
    # Lines records may gain keys later, so there a problem waits for the whole schema)
    column_schema = {t: {c: "mixed" for c in reader.columns} for t in first.schema}
    try:
        check_schema(pattern, column_schema, text)
    except DslError as err:
        if reader.kind != "jsonl":
            raise CommandError(str(err)) from None
    rates = type_counts(first.events) if args.engine == "auto" else None
    matcher, choice = build_matcher(args, pattern, rates)
    name = choice.engine
    numeric = pattern.numeric_attrs()
    state = {"events": 0}
    guard = run_guard(args, holds=lambda: held_state(matcher, pattern, None),
                      where=lambda: f"after {state['events']:,} events of {args.data}", limit=limit)
    with _output(args, pattern) as writer, guarding(guard):
        t0 = time.perf_counter()
        try:
            for batch in chain([first], batches):
                errors = batch.errors + [i for i in reader.numeric_issues(batch, numeric) if i.severity == "error"]
                if errors and not args.skip_bad_rows:
                    refuse_batch(args, reader, batches, numeric, errors, writer)
                feed_events(matcher, batch.events, writer, guard, choice)
                state["events"] += len(batch.events)
            close_matcher(matcher, writer, choice)
        except DataError as err:  # e.g. Unsorted, a ragged line
            raise CommandError(f"{args.data}: {err}{_written(writer)}") from None
        elapsed = time.perf_counter() - t0
    report = reader.report()
    if report.issues or report.omitted:
        print(report.format(), file=sys.stderr)
    try:
        for w in check_schema(pattern, reader.schema(), text):
            print(w, file=sys.stderr)
    except DslError as err:
        print(f"{err}\n(found after reading the whole file: comparisons with the missing attribute were "
              f"false)", file=sys.stderr)
    _print_stats(args, matcher, name, state["events"], writer.count, elapsed)
    return 0


def refuse_batch(args: argparse.Namespace, reader: BatchReader, rest: Iterator[Any], numeric: Any,
            errors: list[Any], writer: MatchWriter) -> None:
    """Stop before the batch with ``errors``; read the rest of the file for the report."""
    from engine.events import DataError

    first = min(errors, key=lambda i: i.row if i.row is not None else -1)
    also = ""
    try:
        for batch in rest:
            reader.numeric_issues(batch, numeric)
    except DataError as err:
        also = f"\n(reading on for the report stopped: {err})"
    report = reader.report()
    loc = next((i.location for i in report.issues if i.row == first.row and i.location), None)
    raise CommandError(
        f"{args.data}: the data has problems:\n{report.format()}{also}\n"
        f"(the run stopped before the batch holding {loc or 'the first of them'}"
        f"{_written(writer)}; fix the file, or pass --skip-bad-rows to run without the rejected rows)")


# --------------------------------------------------------------------------- shared

def build_matcher(args: argparse.Namespace, pattern: Pattern, rates: dict[str, int] | None) -> tuple[Matcher, RunChoice]:
    """The matcher of this run, chosen as ``cep trace`` and ``cep explain`` choose it
    (``engine.run_choice``): match windows around ``--engine`` when ``--match-windows`` says
    so, else the planner's engine; matches are only counted where the engine can."""
    from engine.match import EngineUnsupported
    from engine.run_choice import choose_run

    try:
        choice = choose_run(pattern, args.engine, getattr(args, "match_windows", "off"), rates=rates,
                            count_only=args.format == "count")
        return choice.build(pattern, max_runs=args.max_runs), choice
    except EngineUnsupported as err:
        raise CommandError(str(err)) from None


#: events per call of a matcher's ``feed_many`` in ``cep run`` (the batch path of match windows)
CHUNK = 1024


def feed_events(matcher: Matcher, events: Iterable[Event], writer: MatchWriter, guard: MemoryGuard,
                choice: RunChoice | None = None) -> None:
    """Feed ``events``; every match is written at once; the guard reads the memory now and then.

    A matcher with ``feed_many`` (match windows: the filter's condition for a whole chunk at
    C level; the lazy chain's columnar path) is fed chunks of ``CHUNK`` events (its ``feed_chunk``
    where it sets one; ``feed_columns`` over events still held as columns, ``_chunk_feeds``): the same matches in the same order as feeding
    one event at a time (``feed_many``'s contract), written when the chunk returns them. The
    memory is read as often (``guard.every`` steps: one per event and one per match); a
    matcher that stops inside a chunk has appended the matches found before it to the
    chunk's list, and they are written before the run stops."""
    from engine.match import StateExplosion

    write, tick = writer.write, guard.tick
    # ``feed_many(events, out)`` appending to ``out``, where the engine's spec declares it (match windows)
    many = matcher.feed_many if choice is not None and choice.spec.feeds_many else None  # type: ignore[attr-defined]
    try:
        if many is None:
            feed = matcher.feed
            for e in events:
                for m in feed(e):
                    write(m)
                    tick()
                tick()
            return
        every = max(1, int(getattr(guard, "every", 1)))
        steps = 0
        size = getattr(matcher, "feed_chunk", CHUNK)  # a columnar matcher takes bigger chunks
        for n, feed_chunk in _chunk_feeds(matcher, events, many, size):
            found: list[Any] = []
            try:
                feed_chunk(found)
            finally:
                for m in found:  # also those found before a StateExplosion inside the chunk
                    write(m)
            steps += n + len(found)
            if steps >= every:
                steps = 0
                guard.check()
    except (StateExplosion, RunStopped, ValueError) as err:  # ValueError: e.g. the oracle refusing a large input
        raise CommandError(f"stopped: {err}{_written(writer)}", status=1) from None


def _chunk_feeds(matcher: Matcher, events: Iterable[Event], many: Any,
                 size: int) -> Iterator[tuple[int, Callable[[list[Any]], None]]]:
    """The chunks of ``events`` (their sizes) and how each is fed: the matcher's ``feed_columns``
    over the columns where the events are still columns (``EventColumns``) and the matcher reads
    them, so that no event is built; else ``feed_many`` of the chunk's events."""
    from engine.events.event_columns import EventColumns

    columns = getattr(matcher, "feed_columns", None) if isinstance(events, EventColumns) else None
    if columns is not None:
        total = len(events)  # type: ignore[arg-type]
        for lo in range(0, total, size):
            hi = min(total, lo + size)
            yield hi - lo, partial(columns, events, lo, hi)
        return
    stream = iter(events)  # chunks taken as they come: a file read in batches stays streamed
    while chunk := list(islice(stream, size)):
        yield len(chunk), partial(many, chunk)


def _run(matcher: Matcher, events: list[Event], writer: MatchWriter, guard: MemoryGuard, choice: RunChoice) -> None:
    feed_events(matcher, events, writer, guard, choice)
    close_matcher(matcher, writer, choice)


def close_matcher(matcher: Matcher, writer: MatchWriter, choice: RunChoice) -> None:
    """End of the stream: what the matcher still reports, and what it only counted."""
    from engine.match import StateExplosion

    try:
        for m in matcher.close():
            writer.write(m)
    except (StateExplosion, RunStopped, ValueError) as err:
        raise CommandError(f"stopped: {err}{_written(writer)}", status=1) from None
    if choice.count_only:  # the engine counted these matches and never built them (its spec's counts_only)
        writer.count += matcher.counted  # type: ignore[attr-defined]


def held_state(matcher: Matcher, pattern: Pattern, loaded: int | None) -> str:
    from engine.match import explosion_cause

    st = matcher.stats
    text = f"the matcher holds {st.runs_alive:,} live {matcher.unit} (peak {st.runs_peak:,})"
    if loaded is not None:
        text += (f", and the whole file is loaded ({loaded:,} events): read it in batches with "
                 f"--read batches (the file must be sorted by ts)")
    if st.runs_alive > 10_000 or loaded is None:
        text += f"; likely cause: {explosion_cause(pattern, matcher.unit)}"
    return text


def _written(writer: MatchWriter) -> str:
    if writer.count == 0:
        return ""
    where = f" in {writer.partial}" if writer.partial else ""
    return f" ({writer.count:,} matches found before it were written{where})"


@contextmanager
def _output(args: argparse.Namespace, pattern: Pattern) -> Iterator[MatchWriter]:
    """A ``MatchWriter`` on stdout, or on ``--out`` via ``OUT.partial`` (renamed when the run
    ends; left, with what was written, when it stops)."""
    variables = [c.var for c in pattern.positive]
    if not args.out:
        writer = MatchWriter(args.format, sys.stdout, variables)
        yield writer
        writer.close()
        return
    final = Path(args.out)
    partial = final.with_name(final.name + ".partial")
    fh: TextIO
    try:
        fh = open(partial, "w", encoding="utf-8", newline="")
    except OSError as err:
        raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    writer = MatchWriter(args.format, fh, variables)
    writer.partial = str(partial)
    try:
        yield writer
        writer.close()
    except BaseException:
        fh.close()
        if writer.count == 0:
            partial.unlink(missing_ok=True)
        raise
    fh.close()
    os.replace(partial, final)


def _print_stats(args: argparse.Namespace, matcher: Matcher, name: str, events: int, matches: int,
                 elapsed: float) -> None:
    from engine.commands.stats import print_stats

    print_stats(args, [("engine", name), ("events", events), ("matches", matches)], elapsed,
                matcher.stats.as_dict(), events=events)
