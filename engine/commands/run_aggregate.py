"""``cep run`` for AGG patterns and workloads: aggregate rows instead of matches.

``engine/commands/cli.py``'s ``cmd_run`` hands over when :func:`wants_aggregate` (an AGG pattern, a
workload file with ``QUERY`` blocks, or several patterns). Output, in every ``--format``:

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

from engine.engines.aseq.output import ROW_COLUMNS, write_rows
from engine.engines.aseq.values import NonFiniteValue

__all__ = ["wants_aggregate", "run_aggregate", "write_rows", "ROW_COLUMNS"]



def wants_aggregate(args: Any) -> bool:
    """Is this ``cep run`` for aggregates (a workload, several patterns, or a pattern whose
    parsed model has an AGG clause)? Decided on the parsed pattern, never on the raw text."""
    from engine.commands.arguments import CommandError, load_pattern, read_pattern

    if getattr(args, "more", None):
        return True
    try:
        text, _origin = read_pattern(args.pattern)
    except CommandError:
        return False
    from engine.engines.aseq.workload import is_workload

    if is_workload(text):
        return True
    try:
        pattern, _ = load_pattern(args.pattern, text)
    except CommandError:
        return False
    return pattern.aggregate is not None


def run_aggregate(args: Any, pattern: Any = None, text: str | None = None) -> int:
    """``cep run`` for an AGG pattern (``pattern``, already parsed, and its ``text``) or a
    workload (``pattern`` None: read from the arguments); see the module docstring."""
    from engine.commands.arguments import CommandError, load_pattern, read_pattern
    from engine.match import EngineUnsupported, StateExplosion
    from engine.memory import RunStopped, guarding
    from engine.commands.output_paths import check_out
    from engine.commands.run import check_run_args, run_guard
    from engine.engines.aseq.workload import WorkloadError, is_workload, load_workload

    check_run_args(args)
    check_out(args)
    patterns = [args.pattern, *(getattr(args, "more", None) or [])]
    if pattern is None:
        text0, _ = read_pattern(args.pattern)
        workload = len(patterns) > 1 or is_workload(text0)
    else:
        workload = False
    emit = getattr(args, "emit", None) or "trig"
    if workload:
        try:
            queries = load_workload(patterns)
        except WorkloadError as err:
            raise CommandError(str(err)) from None
        first, first_text = queries[0].pattern, queries[0].text
    else:
        if pattern is None:
            pattern, text = load_pattern(args.pattern)
        first, first_text = pattern, text or ""
        queries = []
    if getattr(args, "spark", False):
        if workload:
            raise CommandError("a workload runs in-process (Spark runs one AGG pattern at a time)")
        try:
            from engine.spark import aseq as spark_aseq
        except ImportError as err:
            raise CommandError(f"Spark is not available: {err}") from None
        return spark_aseq.run_cli(first, first_text, args)
    state: dict[str, Any] = {"events": 0, "loaded": None}
    from engine.commands.run import read_events

    events, warnings, reader = read_events(args, first, first_text, state)
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
    try:
        if workload:
            if engine not in ("auto", "aseq"):
                raise CommandError("a workload runs on A-Seq (--engine auto or aseq)")
            from engine.engines.aseq.workload import WorkloadMatcher

            matcher: Any = WorkloadMatcher(queries, **options)
            name = "aseq-workload"
        else:
            from engine.planner import choose
            from engine.engines.aseq.engine import make_aggregator

            info = choose(first, engine)  # the planner's refusals (and an engine's own) apply
            matcher = make_aggregator(first, info.name, **options)
            name = info.name if info.name.startswith("aseq") else f"{info.name}+aggregate"
    except EngineUnsupported as err:
        raise CommandError(str(err)) from None
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
    except (StateExplosion, EngineUnsupported, RunStopped) as err:
        rows.abort()
        raise CommandError(f"stopped: {err}{rows.written()}", status=1) from None
    except NonFiniteValue as err:  # bad input: exit 2
        rows.abort()
        raise CommandError(str(err)) from None
    except ValueError as err:
        rows.abort()
        raise CommandError(f"stopped: {err}{rows.written()}", status=1) from None
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
        st = matcher.stats.as_dict()
        rate = n_events / elapsed if elapsed > 0 else float("inf")
        extra = ""
        if workload and reader is None:
            from engine.engines.aseq.workload import WorkloadMatcher

            alone = WorkloadMatcher(queries, share=False, **options)
            with guarding(guard):
                for e in events:
                    alone.feed(e)
                alone.close()
            extra = f" unshared_counter_updates={alone.stats.extra.get('counter_updates', 0)}"
        print(f"engine={name} events={n_events} rows={len(rows)} seconds={elapsed:.3f} events/s={rate:,.0f} "
              + " ".join(f"{k}={v}" for k, v in st.items() if k not in ("phase_seconds", "rows", "events")) + extra,
              file=sys.stderr)
    return 0
