"""``cep run`` for AGG patterns and workloads: aggregate rows instead of matches.

``engine/commands/run.py`` hands a request over for an AGG pattern, a workload file with ``QUERY``
blocks, or several patterns. Output, in every ``--format``:

- ``jsonl``: ``{"ts", "event", "group", "value"}`` per row (docs/design.md, "Engine contracts"),
  ``"query"`` first for a workload;
- ``table`` / ``csv``: the same columns; ``count``: the number of rows;
- ``--out FILE.parquet``: the same columns as Parquet.

``--emit changes`` adds the rows where expiry changes a value (docs/semantics.md);
``--stats`` prints the engine, counter updates, peak prefix counters (and for a workload the
counter updates of the same queries unshared); a fallback to the baseline is noted on
stderr with its reason.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from pathlib import Path
from typing import TYPE_CHECKING

from engine.commands.arguments import load_pattern, read_pattern
from engine.engines.aseq.workload import Query, WorkloadError, is_workload, parse_workload

from engine.commands.stats import print_stats
from engine.engines.aseq.output import ROW_COLUMNS, write_rows

if TYPE_CHECKING:  # pragma: no cover
    from engine.commands.request import RunRequest

__all__ = ["run_aggregate", "write_rows", "ROW_COLUMNS"]



def run_aggregate(request: RunRequest) -> int:
    """``cep run`` for an AGG pattern (the request's parsed pattern) or a workload (the
    request has no single pattern: its queries are read here); see the module docstring."""
    from engine.commands.arguments import CommandError
    from engine.commands.errors import preparing, running
    from engine.memory import guarding
    from engine.commands.request import run_guard
    from engine.engines.aseq.workload import WorkloadError

    args, pattern, text = request.args, request.pattern, request.text
    patterns = [args.pattern, *(getattr(args, "more", None) or [])]
    workload = request.workload
    emit = getattr(args, "emit", None) or "trig"
    if workload:
        try:
            queries = load_workload(patterns)
        except WorkloadError as err:
            raise CommandError(str(err)) from None
        first, first_text = queries[0].pattern, queries[0].text
    else:
        assert pattern is not None
        first, first_text = pattern, text or ""
        queries = []
    if getattr(args, "spark", False):
        if workload:
            raise CommandError("a workload runs in-process (Spark runs one AGG pattern at a time)")
        from engine.commands.run_spark import run_aggregate_on_spark

        return run_aggregate_on_spark(request)
    state: dict[str, Any] = {"events": 0, "loaded": None}
    from engine.commands.request import read_events

    events, warnings, reader = read_events(request, first, first_text, state)
    if reader is None and any(e.lower is not None for e in events[:1000]):
        raise CommandError("AGG patterns are aggregated over point timestamps; this data has uncertainty intervals "
                           "(map a point time column with --ts-col)")
    if workload and len(queries) > 1 and reader is None:
        from engine.dsl import DslError, check_schema
        from engine.events import infer_schema

        schema = infer_schema(events)
        for q in queries[1:]:
            try:
                warnings += [f"query `{q.name}`: {w}" for w in check_schema(q.pattern, schema, q.text or None)]
            except DslError as err:
                raise CommandError(f"query `{q.name}`: {err}") from None
    for w in warnings:
        print(w, file=sys.stderr)
    options: dict[str, Any] = {"emit": emit}
    if args.max_runs is not None:
        options["max_runs"] = args.max_runs
    engine = getattr(args, "engine", "auto") or "auto"
    with preparing(request.label):
        if workload:
            if engine not in ("auto", "aseq"):
                raise CommandError("a workload runs on A-Seq (--engine auto or aseq)")
            from engine.engines.aseq.workload import WorkloadMatcher

            matcher: Any = WorkloadMatcher(queries, **options)
            name = "aseq-workload"
        else:
            from engine.engines.planner import choose
            from engine.engines.aseq.engine import make_aggregator

            info = choose(first, engine)  # the planner's refusals (and an engine's own) apply
            matcher = make_aggregator(first, info.name, **options)
            name = info.name if info.aggregate else f"{info.name}+aggregate"
    fb = getattr(matcher, "fallback", None)
    if fb:
        if isinstance(fb, dict):
            for qn, why in fb.items():
                print(f"note: query `{qn}` runs on the baseline (A-Seq cannot aggregate it without its "
                      f"matches: {why})", file=sys.stderr)
        else:
            print(f"note: A-Seq cannot aggregate this pattern without its matches ({fb}); the baseline built "
                  "them and aggregated", file=sys.stderr)
    from engine.engines.aseq.row_sink import RowSink

    try:
        rows = RowSink(args, workload, stream=reader is not None)
    except OSError as err:
        raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None

    def holds() -> str:
        st = matcher.stats
        text = (f"the engine holds {st.runs_alive:,} live {getattr(matcher, 'unit', 'objects')} "
                f"(peak {st.runs_peak:,}) and {len(rows):,} rows")
        if state["loaded"] is not None:
            text += (f", and the whole file is loaded ({state['loaded']:,} events): read it in batches with "
                     "--read batches (the file must be sorted by ts)")
        return text

    guard = run_guard(args, holds=holds, where=lambda: f"after {matcher.stats.events:,} events")
    t0 = time.perf_counter()
    try:
        with running(request.label, rows.written):  # an infinite or NaN value: bad input (exit 2)
            guard.check()
            with guarding(guard):
                tick = guard.tick
                for e in events:
                    if reader is not None and e.lower is not None:
                        raise CommandError("AGG patterns are aggregated over point timestamps; this data has "
                                           "uncertainty intervals (map a point time column with --ts-col)")
                    rows.extend(matcher.feed(e))
                    tick()
                rows.extend(matcher.close())
    except BaseException:
        rows.abort()
        raise
    elapsed = time.perf_counter() - t0
    n_events = state["loaded"] if state["loaded"] is not None else state["events"]
    if reader is not None:
        report = reader.report()
        if report.issues or report.omitted:
            print(report.format(), file=sys.stderr)
    try:
        rows.finish()
    except OSError as err:
        raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    if getattr(args, "stats", False):
        extra = ""
        if workload and reader is None:
            from engine.engines.aseq.workload import WorkloadMatcher

            alone = WorkloadMatcher(queries, share=False, **options)
            with guarding(guard):
                for e in events:
                    alone.feed(e)
                alone.close()
            extra = f" unshared_counter_updates={alone.stats.extra.get('counter_updates', 0)}"
        print_stats(args, [("engine", name), ("events", n_events), ("rows", len(rows))], elapsed,
                    matcher.stats.as_dict(), events=n_events, skip=("phase_seconds", "rows", "events"), tail=extra)
    return 0


def load_workload(args: list[str]) -> list[Query]:
    """Queries from pattern arguments: one workload file (or text), or several patterns
    (files, ``preset:...`` or text; named by file stem, or q1, q2, ...)."""
    if len(args) == 1:
        text, origin = read_pattern(args[0])
        return parse_workload(text, origin)
    out: list[Query] = []
    for k, a in enumerate(args, 1):
        text, origin = read_pattern(a)
        if is_workload(text):
            out += parse_workload(text, origin)
            continue
        p, _ = load_pattern(a)
        name = Path(origin).stem if origin not in ("<inline>",) and not origin.startswith("preset:") else (
            origin.split("/")[-1] if origin.startswith("preset:") else f"q{k}")
        if p.aggregate is None:
            raise WorkloadError(f"{origin}: the pattern has no AGG clause; a workload runs AGG patterns")
        out.append(Query(name, p, text))
    names = [q.name for q in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise WorkloadError(f"two queries are named {', '.join(sorted(dup))}")
    return out
