"""The paths of :func:`engine.api.runner`, each ``cep run``'s path with its matches, signatures or
rows collected instead of written: the same loader and its messages, the same engine choice
(``engine.run_choice`` / the planner), the same guard (``max_memory``, ``time_limit``,
``max_runs``) and the same stop messages."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from engine.commands.arguments import CommandError

if TYPE_CHECKING:  # pragma: no cover
    from engine.api.parsing import ParsedPattern
    from engine.api.result import Result
    from engine.commands.request import RunRequest

__all__ = ["run_matches", "run_signatures", "run_rows", "run_on_spark"]


class _Collector:
    """What ``cep run``'s match writer is to its run loop (``write``, ``count``, ``partial``),
    keeping the matches."""

    def __init__(self) -> None:
        self.matches: list[Any] = []
        self.count = 0
        self.partial: str | None = None

    def write(self, m: Any) -> None:
        self.matches.append(m)
        self.count += 1


def _events_loader(request: RunRequest) -> Any:
    """A function loading the request's events whole (for explain, trace and the timeline of a
    run that did not keep them: one read in batches, or on Spark)."""
    from engine.commands.arguments import load_data

    def load() -> list[Any]:
        events, _ = load_data(request.args, request.pattern, request.text, request)  # type: ignore[arg-type]
        return events

    return load


def run_matches(parsed: ParsedPattern, request: RunRequest, warnings: list[str]) -> Result:
    """Matches in process (``engine.commands.run_matches``): the file whole, or in batches
    for a big one (``read=``), every match kept."""
    from engine.api.result import Result
    from engine.commands.arguments import load_data
    from engine.commands.request import memory_limit, run_guard
    from engine.commands.run_matches import build_matcher, close_matcher, feed_events, held_state
    from engine.events import DataError
    from engine.memory import RunStopped, guarding

    args, pattern = request.args, parsed.model
    limit = memory_limit(args)
    collector = _Collector()
    events: list[Any] | None = None
    reader = None
    if request.reads_in_batches():
        source, rates, reader = _batches(request, parsed, collector)
    else:
        events, more = load_data(args, pattern, request.text, request)
        warnings += more
        from engine.events.event_columns import type_counts

        rates = type_counts(events)
        source = events
    matcher, choice = build_matcher(args, pattern, rates if args.engine == "auto" else None)
    guard = run_guard(args, holds=lambda: held_state(matcher, pattern, len(events) if events is not None else None),
                      where=lambda: f"after {matcher.stats.events:,} events", limit=limit)
    try:
        guard.check()
    except RunStopped as err:
        raise CommandError(f"stopped after loading the data: {err}", status=1) from None
    t0 = time.perf_counter()
    with guarding(guard):
        try:
            feed_events(matcher, source, collector, guard, choice)  # type: ignore[arg-type]
            close_matcher(matcher, collector, choice)  # type: ignore[arg-type]
        except DataError as err:  # e.g. Unsorted, a ragged line, met while reading on
            raise CommandError(f"{request.label}: {err}") from None
    if reader is not None:
        report = reader.report()
        if report.issues or report.omitted:
            warnings.append(report.format())
        warnings += _late_schema_warnings(parsed, reader)
    return Result("matches", parsed, collector.matches, choice.engine, warnings, request=request,
                  events=events, loader=_events_loader(request), seconds=time.perf_counter() - t0,
                  stats=matcher.stats.as_dict())


def _batches(request: RunRequest, parsed: ParsedPattern, collector: _Collector) -> tuple[Any, dict[str, int], Any]:
    """A big file in batches, as ``cep run`` reads it (``run_matches._run_batches``): the names
    checked against the columns first, the type rates of the first batch for the planner, a
    batch holding a rejected row stopping the run with the whole file's report (unless
    ``skip_bad_rows``). Returns (the events as they come, the rates, the reader)."""
    from itertools import chain

    from engine.commands.run_matches import refuse_batch
    from engine.dsl import DslError, check_schema
    from engine.events import BatchReader, DataError

    args, pattern = request.args, parsed.model
    try:
        reader = BatchReader(request.data, request.column_mapping())
        batches = iter(reader)
        first = next(batches, None)
    except DataError as err:
        raise CommandError(f"{request.label}: {err}") from None
    if first is None:
        raise CommandError(f"{request.label}: no rows")
    column_schema = {t: {c: "mixed" for c in reader.columns} for t in first.schema}
    try:
        check_schema(pattern, column_schema, request.text)
    except DslError as err:
        if reader.kind != "jsonl":  # JSON Lines records may gain keys later
            raise CommandError(str(err)) from None
    numeric = pattern.numeric_attrs()

    def events() -> Any:
        for batch in chain([first], batches):
            errors = batch.errors + [i for i in reader.numeric_issues(batch, numeric) if i.severity == "error"]
            if errors and not args.skip_bad_rows:
                refuse_batch(args, reader, batches, numeric, errors, collector)  # type: ignore[arg-type]
            yield from batch.events

    from engine.events.event_columns import type_counts

    return events(), type_counts(first.events), reader


def _late_schema_warnings(parsed: ParsedPattern, reader: Any) -> list[str]:
    """The schema warnings of a file read in batches, known after the whole file (``cep run``)."""
    from engine.dsl import DslError, check_schema

    try:
        return check_schema(parsed.model, reader.schema(), parsed.text)
    except DslError as err:
        return [f"{err}\n(found after reading the whole file: comparisons with the missing attribute were false)"]


def run_signatures(parsed: ParsedPattern, request: RunRequest, warnings: list[str]) -> Result:
    """Interval data (``engine.commands.run_intervals``): signatures with range and confidence,
    in the canonical order, ``min_confidence`` applied."""
    from engine.api.result import Result
    from engine.commands.run_intervals import interval_signatures

    run = interval_signatures(request, warnings.append)
    return Result("signatures", parsed, run.signatures, run.engine, warnings, request=request,
                  events=run.loaded, loader=_events_loader(request), seconds=run.seconds, stats=run.stats,
                  u_max=run.u_max)


def run_rows(parsed: ParsedPattern, request: RunRequest, warnings: list[str]) -> Result:
    """An AGG pattern (``engine.commands.run_aggregate``): rows ``ts, event, group, value``."""
    from engine.api.result import Result
    from engine.commands.errors import preparing, running
    from engine.commands.request import read_events, run_guard
    from engine.engines.aseq.engine import make_aggregator
    from engine.engines.planner import choose
    from engine.memory import guarding

    args, pattern = request.args, parsed.model
    if args.spark:
        return run_on_spark(parsed, request, warnings)
    state: dict[str, Any] = {"events": 0, "loaded": None}
    events, more, reader = read_events(request, pattern, request.text, state)
    interval_refusal = ("AGG patterns are aggregated over point timestamps; this data has uncertainty intervals "
                        "(map a point time column with --ts-col)")
    if reader is None and any(e.lower is not None for e in events[:1000]):
        raise CommandError(interval_refusal)
    warnings += more
    options: dict[str, Any] = {"emit": args.emit or "trig"}
    if args.max_runs is not None:
        options["max_runs"] = args.max_runs
    with preparing(request.label):
        info = choose(pattern, args.engine or "auto")
        matcher = make_aggregator(pattern, info.name, **options)
    name = info.name if info.aggregate else f"{info.name}+aggregate"
    fallback = getattr(matcher, "fallback", None)
    if fallback:
        warnings.append(f"note: A-Seq cannot aggregate this pattern without its matches ({fallback}); the baseline "
                        "built them and aggregated")
    rows: list[Any] = []
    guard = run_guard(args, holds=lambda: f"the engine holds {matcher.stats.runs_alive:,} live objects",
                      where=lambda: f"after {matcher.stats.events:,} events")
    t0 = time.perf_counter()
    with running(request.label):
        guard.check()
        with guarding(guard):
            for e in events:
                if reader is not None and e.lower is not None:
                    raise CommandError(interval_refusal)
                rows.extend(matcher.feed(e))
                guard.tick()
            rows.extend(matcher.close())
    return Result("rows", parsed, rows, name, warnings, request=request,
                  events=events if reader is None else None, loader=_events_loader(request),
                  seconds=time.perf_counter() - t0, stats=matcher.stats.as_dict())


def run_on_spark(parsed: ParsedPattern, request: RunRequest, warnings: list[str]) -> Result:
    """``spark=``: ``cep run --spark``'s path (``engine.spark``: the keyed and time-chunked
    plans; AGG rows by ``engine.spark.aseq``), the matches or rows collected to the driver.
    The session is ``engine.spark.session.get_spark(master)``."""
    from engine.api.result import Result
    from engine.commands.errors import preparing
    from engine.dsl import DslError, check_schema

    try:
        from engine.spark.errors import PipelineError
        from engine.commands.run_spark import read_for
        from engine.spark.pipeline import default_factory, numeric_issues
        from engine.spark.session import SparkUnavailable, get_spark
    except ImportError as err:
        raise CommandError(f"Spark is not available: {err}") from None
    args, pattern, text = request.args, parsed.model, request.text
    try:
        spark = get_spark(args.master)
    except SparkUnavailable as err:
        raise CommandError(str(err)) from None
    engine = args.engine or "auto"
    t0 = time.perf_counter()
    try:
        with preparing(request.label):
            ev = read_for(request.data, request.column_mapping(), spark)  # (a small file sent with the job off-machine)
            issues = list(ev.report.issues) + numeric_issues(ev, pattern)
            if any(i.severity == "error" for i in issues) and not args.skip_bad_rows:
                ev.report.issues = issues
                raise CommandError(f"{request.label}: the data has problems:\n{ev.report.format()}\n"
                                   "(fix the file, or pass --skip-bad-rows to run without the rejected rows)")
            if issues:
                ev.report.issues = issues
                warnings.append(ev.report.format())
            try:
                warnings += check_schema(pattern, ev.schema, text or None)
            except DslError as err:
                raise CommandError(str(err)) from None
            if pattern.aggregate is not None:
                from engine.spark.aseq import run as run_rows_on_spark

                agg = run_rows_on_spark(pattern, ev, engine, emit=args.emit or "trig", spark=spark,
                                        max_runs=args.max_runs)
                warnings += [f"warning: {w}" for w in agg.warnings]
                return Result("rows", parsed, list(agg.rows), engine, warnings, request=request,
                              loader=_events_loader(request), seconds=time.perf_counter() - t0,
                              stats={"spark mode": agg.mode})
            from engine.engines.windows.matcher import spark_factory
            from engine.run_choice import choose_run
            from engine.spark.pipeline import run as run_matches_on_spark

            options = {"max_runs": args.max_runs} if args.max_runs is not None else {}
            choice = choose_run(pattern, engine, args.match_windows or "auto", interval=ev.is_interval)
            factory = (spark_factory if choice.windows else default_factory)(engine, **options)
            res = run_matches_on_spark(pattern, ev, engine=engine, spark=spark, collect=True, factory=factory)
            warnings += [f"warning: {w}" for w in res.warnings]
            matches = res.to_matches()
            interval = bool(getattr(res, "interval", False))
            if interval:
                from engine.commands.run_intervals import apply_min_confidence

                matches = apply_min_confidence(matches, args.min_confidence)
            res.unpersist()
    except PipelineError as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    return Result("signatures" if interval else "matches", parsed, matches, choice.engine, warnings,
                  request=request, loader=_events_loader(request), seconds=time.perf_counter() - t0,
                  stats={"spark mode": res.mode})
