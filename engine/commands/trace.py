"""``cep trace PATTERN --data FILE [--engine E] [--limit N] [--format jsonl|table]
[--from EVENT] [--to EVENT] [--break SPEC ...]``.

One JSON object per event step (``step``, ``position``, ``event``, ``actions``, ``runs``,
``buffer``, ``matches``), then ``{"step": "close", "matches": [...]}`` (docs/trace.md);
``position`` is the event's 1-based number in the stream (``step`` + 1). The matcher
is chosen as ``cep run`` chooses it (``engine.run_choice``: ``--engine`` and
``--match-windows auto|on|off``, the same default), so the trace's matches, in order, are
what ``cep run`` prints. Past ``--limit`` events (default 5,000) it stops with a message.

``--from``/``--to`` trace only the events ``FROM..TO`` (1-based, inclusive) of a long file: the
run goes untraced to just before the window (``engine.checkpoints.CheckpointedRun``) and the
records equal the same records of the whole trace; ``--limit`` bounds the window. ``--break
SPEC`` (repeatable, engine/breakpoints.py) stops after the first step where a breakpoint holds
and prints ``{"break": reason, "step": k, "position": k+1}``.

A MATCH_RECOGNIZE query (``QUERY.sql`` or text starting with SELECT) is traced by the SQL engines
(engine/engines/sql/trace.py): one step per search start, per row a search reads and per search
result, with the threads in preference order (docs/trace.md, "MATCH_RECOGNIZE queries").
``--from``/``--to`` are then input rows: the searches that start in them are traced, the rest
run untraced (engine/engines/sql/trace_window.py); ``--break`` takes ``event:N`` (input row N),
``id:X`` and ``match:K`` (engine/engines/sql/trace_breaks.py).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from engine.commands.arguments import CommandError, add_mapping_args, load_data, load_pattern


def add_parser(sub: Any) -> argparse.ArgumentParser:
    from engine.engines.planner import engine_names
    from engine.trace import DEFAULT_LIMIT

    p = sub.add_parser("trace", help="step through a run: one record per event (actions, runs, buffer, matches)")
    p.add_argument("pattern", help="a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text; or a "
                   "MATCH_RECOGNIZE query (a .sql file or text starting with SELECT)")
    p.add_argument("--data", required=True, help="CSV, JSON Lines or Parquet file, or sample:NAME")
    p.add_argument("--engine", default="auto", choices=engine_names())
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT,
                   help=f"stop with a message past this many events (default {DEFAULT_LIMIT:,})")
    p.add_argument("--format", default="jsonl", choices=("jsonl", "table"))
    p.add_argument("--out", help="write the trace here instead of stdout")
    p.add_argument("--max-runs", type=int, default=None, help="state guard: live runs + buffer entries limit")
    p.add_argument("--skip-bad-rows", action="store_true", help="run without rows the validation rejected")
    p.add_argument("--table", help="MATCH_RECOGNIZE: the table name the query must read (as `cep run`)")
    p.add_argument("--from", dest="from_event", type=int, default=None, metavar="EVENT",
                   help="trace from this event (1-based position in the stream, inclusive; the run before it is "
                        "not traced); for a MATCH_RECOGNIZE query, the searches starting from this input row")
    p.add_argument("--to", dest="to_event", type=int, default=None, metavar="EVENT",
                   help="trace to this event (1-based, inclusive; default: the end, with the close step); for a "
                        "MATCH_RECOGNIZE query, the searches starting up to this input row")
    p.add_argument("--break", dest="breaks", action="append", default=None, metavar="SPEC",
                   help="stop after the first step where SPEC holds (repeatable): event:N, id:X, match:K, "
                        "fails:PREDICATE, holds:PREDICATE, runs>N, buffer>N")
    add_match_windows_arg(p)
    add_mapping_args(p)
    return p


def add_match_windows_arg(p: argparse.ArgumentParser) -> None:
    """``--match-windows auto|on|off`` as ``cep run`` has it (the same default)."""
    from engine.run_choice import MATCH_WINDOW_MODES

    p.add_argument("--match-windows", choices=MATCH_WINDOW_MODES, default="auto",
                   help="match windows (Algorithm 1, match-windows paper) around --engine, as in `cep run`: "
                        "on = wherever sound; auto (default) = on for event-set patterns where sound")


def run(args: argparse.Namespace) -> int:
    from engine.match import EngineUnsupported, StateExplosion
    from engine.run_choice import choose_run
    from engine.trace import Recorder, TraceLimit, record, type_rates

    from engine.memory import RunStopped, guarding
    from engine.commands.output_paths import check_out
    from engine.commands.request import run_guard

    if args.limit is not None and args.limit < 1:
        raise CommandError("--limit must be at least 1")
    check_out(args)
    windowed = args.from_event is not None or args.to_event is not None or bool(args.breaks)
    sql = sql_text(args)
    if sql is not None:
        if windowed:
            return _run_sql_window(args, *sql)
        return _run_sql(args, *sql)
    pattern, text = load_pattern(args.pattern)
    events, warnings = load_data(args, pattern, text)
    for w in warnings:
        print(w, file=sys.stderr)
    if windowed:
        return _run_window(args, pattern, events)
    if len(events) > args.limit:
        raise CommandError(f"the data has {len(events):,} events, more than --limit {args.limit:,}: a trace keeps "
                           "every step in memory. Trace a prefix of the file, or raise --limit", status=1)
    interval = any(e.lower is not None for e in events[:1])  # interval data: the uncertain engines only
    rates = None if interval else type_rates(args.engine, events)
    try:
        choice = choose_run(pattern, args.engine, args.match_windows, rates=rates, interval=interval)
        matcher = choice.build(pattern, tracer=Recorder(), max_runs=args.max_runs)
    except EngineUnsupported as err:
        raise CommandError(str(err)) from None
    try:
        out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    except OSError as err:
        raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    guard = run_guard(args, where=lambda: f"after {matcher.stats.events:,} events")
    try:
        write = _write_jsonl if args.format == "jsonl" else _write_table
        if args.format == "table":
            out.write(f"engine: {choice.engine}" + (f" (A = {choice.inner})" if choice.inner else "") + "\n")
        with guarding(guard):
            for step in record(matcher, events, limit=args.limit):
                write(step, out)
                guard.tick()
    except (StateExplosion, RunStopped) as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    except ValueError as err:  # an engine refusing its input (the oracle's limits, an interval event)
        raise CommandError(f"stopped: {err}", status=1) from None
    except TraceLimit as err:
        raise CommandError(str(err), status=1) from None
    finally:
        if args.out:
            out.close()
    return 0


def _window(args: argparse.Namespace, n: int) -> tuple[int, int]:
    """``--from``/``--to`` as step indices ``start .. stop-1``: the close step belongs to the
    window when ``--to`` is not given (the trace runs to the end)."""
    first = 1 if args.from_event is None else args.from_event
    last = n if args.to_event is None else args.to_event
    if n == 0:
        raise CommandError(f"{args.data}: no events to trace")
    for flag, v in (("--from", first), ("--to", last)):
        if not 1 <= v <= n:
            raise CommandError(f"{flag} {v}: events are numbered from 1 to {n:,} (1-based positions in the stream)")
    if first > last:
        raise CommandError(f"--from {first:,} is after --to {last:,}: the window would be empty")
    return first - 1, (last if args.to_event is not None else n + 1)


def _run_window(args: argparse.Namespace, pattern: Any, events: list[Any]) -> int:
    """``--from``/``--to``/``--break``: the pre-pass runs untraced (``CheckpointedRun``), then
    the window is traced in chunks, up to the first breakpoint hit (engine/breakpoints.py)."""
    from engine.breakpoints import CHUNK, BreakpointError, buffer_size, first_hit, parse_breakpoints
    from engine.checkpoints import CheckpointedRun
    from engine.commands.request import run_guard
    from engine.json_text import json_text
    from engine.match import EngineUnsupported, StateExplosion
    from engine.memory import RunStopped, guarding
    from engine.run_choice import choose_run
    from engine.trace import type_rates

    n = len(events)
    start, stop = _window(args, n)
    try:
        breakpoints = parse_breakpoints(args.breaks or [], pattern, n)
    except BreakpointError as err:
        raise CommandError(f"--break: {err}") from None
    if not breakpoints and stop - start > args.limit:
        raise CommandError(f"the window has {stop - start:,} steps, more than --limit {args.limit:,}: a trace keeps "
                           "every step of the window in memory. Narrow --from/--to, or raise --limit", status=1)
    interval = any(e.lower is not None for e in events[:1])
    rates = None if interval else type_rates(args.engine, events)
    try:
        choice = choose_run(pattern, args.engine, args.match_windows, rates=rates, interval=interval)
    except EngineUnsupported as err:
        raise CommandError(str(err)) from None
    guard = run_guard(args, where=lambda: "tracing")
    try:
        with guarding(guard):
            run = CheckpointedRun(choice, pattern, events, max_runs=args.max_runs, guard=guard)
            for b in breakpoints:
                if b.kind == "match" and b.value > len(run.matches):
                    print(f"note: --break {b.spec}: the run has {len(run.matches):,} matches", file=sys.stderr)
            hit = first_hit(run, breakpoints, start, limit=stop - start) if breakpoints else None
            end = hit[0] + 1 if hit is not None else stop
            if end - start > args.limit:
                where = (f"the first breakpoint holds at step {hit[0]:,} ({hit[1]})" if hit is not None
                         else "no breakpoint holds in the window")
                raise CommandError(f"{where}: that is {end - start:,} steps from --from, more than --limit "
                                   f"{args.limit:,}. Start later with --from, or raise --limit", status=1)
            if any(b.kind == "buffer" for b in breakpoints) and start < n:
                if buffer_size(run.steps(start, start + 1)[0].buffer) is None:
                    print(f"note: engine `{choice.engine}` reports no buffer: buffer>N never holds", file=sys.stderr)
            try:
                out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
            except OSError as err:
                raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
            try:
                write = _write_jsonl if args.format == "jsonl" else _write_table
                if args.format == "table":
                    out.write(f"engine: {choice.engine}" + (f" (A = {choice.inner})" if choice.inner else "") + "\n")
                for lo in range(start, end, CHUNK):
                    for step in run.steps(lo, min(end, lo + CHUNK)):
                        write(step, out)
                if hit is not None:
                    k, reason = hit
                    closing = k >= n
                    if args.format == "jsonl":
                        out.write(json_text({"break": reason, "step": "close" if closing else k,
                                             "position": None if closing else k + 1}, "a break") + "\n")
                    else:
                        out.write(f"break: {reason}\n")
            finally:
                if args.out:
                    out.close()
    except (StateExplosion, RunStopped, ValueError) as err:  # ValueError: an engine refusing its input
        raise CommandError(f"stopped: {err}", status=1) from None
    return 0


def sql_text(args: argparse.Namespace) -> tuple[str, str] | None:
    """(text, origin) when the PATTERN argument is a MATCH_RECOGNIZE query (a .sql file or
    text starting with SELECT), else None."""
    from engine.commands.arguments import read_pattern
    from engine.engines.sql.detect import is_sql, is_sql_file

    text, origin = read_pattern(args.pattern)
    return (text, origin) if is_sql_file(origin) or is_sql(text) else None


def load_sql(args: argparse.Namespace, text: str, origin: str) -> tuple[Any, Any, str]:
    """(the parsed query, its table, the SQL engine's name) as ``cep run QUERY.sql`` loads them."""
    from engine.commands.run_sql import _table
    from engine.engines.planner import choose_query
    from engine.engines.sql.errors import SqlError
    from engine.engines.sql.parser import parse_query
    from engine.match import EngineUnsupported

    try:
        engine = choose_query(args.engine).name
    except EngineUnsupported as err:
        raise CommandError(f"--engine: {err}") from None
    if getattr(args, "match_windows", "auto") == "on":
        raise CommandError("--match-windows on: MATCH_RECOGNIZE queries have no match windows")
    try:
        query = parse_query(text)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    return query, _table(args, query), engine


def _run_sql(args: argparse.Namespace, text: str, origin: str) -> int:
    """The trace of a MATCH_RECOGNIZE query (engine/engines/sql/trace.py): one step per search
    start, per row a search reads and per search result, then the close step."""
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.trace import trace_query
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    query, table, engine = load_sql(args, text, origin)
    if len(table.rows) > args.limit:
        raise CommandError(f"the data has {len(table.rows):,} rows, more than --limit {args.limit:,}: a trace keeps "
                           "every step in memory. Trace a window of rows (--from ROW --to ROW), or raise --limit",
                           status=1)
    options = {"max_threads": args.max_runs} if args.max_runs else {}
    try:
        trace = trace_query(query, table, engine, limit=args.limit, **options)
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    except (SqlRunError, StateExplosion, TraceLimit) as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    _write_sql_steps(args, engine, trace.steps, trace.label)
    return 0


def _write_sql_steps(args: argparse.Namespace, engine: str, steps: Any, label: Any,
                     hit: tuple[Any, str] | None = None) -> None:
    """A query's steps to ``--out`` (or stdout) as JSON Lines or the table, then the breakpoint
    that stopped them, if one did."""
    from engine.json_text import json_text

    try:
        out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    except OSError as err:
        raise CommandError(f"cannot write '{args.out}': {err.strerror or err}") from None
    try:
        if args.format == "table":
            out.write(f"engine: {engine}\n")
        for step in steps:
            if args.format == "jsonl":
                _write_sql_jsonl(step, out)
            else:
                _write_sql_table(step, out, label)
        if hit is not None:
            if args.format == "jsonl":
                out.write(json_text({"break": hit[1], "step": hit[0]}, "a break") + "\n")
            else:
                out.write(f"break: {hit[1]}\n")
    finally:
        if args.out:
            out.close()


def _run_sql_window(args: argparse.Namespace, text: str, origin: str) -> int:
    """``--from``/``--to``/``--break`` for a query: ROWs are input rows (1-based, inclusive). The
    query runs untraced once (``index_query``), then only the searches that start in the window are
    traced (engine/engines/sql/trace_window.py), up to the first breakpoint (``event:N``, ``id:X``,
    ``match:K``: engine/engines/sql/trace_breaks.py). ``--limit`` bounds the window's rows (and 50
    steps a row); the close step ends a window without ``--to``."""
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.trace_breaks import SqlBreakError, parse_sql_breaks, steps_to_break
    from engine.engines.sql.trace_window import STEPS_PER_ROW, index_query, trace_searches, trace_window
    from engine.match import StateExplosion
    from engine.trace import TraceLimit

    query, table, engine = load_sql(args, text, origin)
    n = len(table.rows)
    if n == 0:
        raise CommandError(f"{args.data}: no rows to trace")
    first = 1 if args.from_event is None else args.from_event
    last = n if args.to_event is None else args.to_event
    for flag, v in (("--from", first), ("--to", last)):
        if not 1 <= v <= n:
            raise CommandError(f"{flag} {v}: a query's rows are numbered from 1 to {n:,} (1-based input rows, in "
                               "file order)")
    if first > last:
        raise CommandError(f"--from {first:,} is after --to {last:,}: the window would be empty")
    options = {"max_threads": args.max_runs} if args.max_runs else {}
    hit = None
    try:
        index = index_query(query, table, engine, **options)
        breaks = parse_sql_breaks(args.breaks or [], index)
        for b in breaks:
            if b.kind == "match" and b.value > len(index.matches):
                print(f"note: --break {b.spec}: the run has {len(index.matches):,} matches", file=sys.stderr)
        close = args.to_event is None
        if breaks:
            steps, hit = steps_to_break(index, index.searches_between(first, last), breaks,
                                        STEPS_PER_ROW * args.limit)
            if hit is None and close:
                steps += trace_searches(index, [], close=True).steps
        else:
            steps = trace_window(index, first, last, close=close, max_rows=args.limit).steps
    except SqlBreakError as err:
        raise CommandError(f"--break: {err}") from None
    except SqlError as err:
        raise CommandError(f"{origin}: {err}") from None
    except TraceLimit as err:
        raise CommandError(f"{err} (--limit {args.limit:,} rows)", status=1) from None
    except (SqlRunError, StateExplosion) as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    _write_sql_steps(args, engine, steps, index.label, hit)
    return 0


def _write_sql_table(step: Any, out: TextIO, label: Any = None) -> None:
    """A SQL trace step for reading: a header (the row read, named ``row #N (id X)`` by
    ``label``, or the search's result), one line per action, the live threads in preference
    order, the output rows."""
    from engine.json_text import json_text

    if step.step == "close":
        out.write("close\n")
    elif step.event is None:
        out.write(f"step {step.step:,}: result\n")
    else:
        e = step.event
        cols = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("id", "position", "partition"))
        part = (" in " + ", ".join(f"{k}={v}" for k, v in e["partition"].items())) if "partition" in e else ""
        name = label(e["id"]) if label is not None else f"row #{e['id']:,}"
        out.write(f"step {step.step:,}: {name}{part} ({cols})\n")
    for a in step.actions:
        out.write("  " + describe_sql(a) + "\n")
    if step.step != "close" and step.event is not None and step.runs:
        out.write("  threads: " + "; ".join(
            f"{r.id} waits for {r.state}" if not r.state.startswith(("after", "end", "start")) else f"{r.id} {r.state}"
            for r in step.runs[:8]) + (" …" if len(step.runs) > 8 else "") + "\n")
    for m in step.matches:
        out.write("  ROW " + json_text(m, "a trace row") + "\n")


def describe_sql(a: Any) -> str:
    """One action of a SQL trace: ``take 1.1 row 3 as B [price < 15 (price=14) ✓]``."""
    d = a.detail or {}
    head = {"take": f"take {a.run} row {a.event} as {a.to}", "begin": f"start {a.run}",
            "search": f"search from row {a.event}", "merge": f"merge {a.run} into {d.get('into')}",
            "wait": f"complete {a.run}", "match": f"match {d.get('match', {}).get('number', '')}",
            "proceed": "skip", "ignore": "unmatched" if a.edge == "unmatched" else "no match",
            "expire": f"expire {a.run}"}.get(a.kind, f"{a.edge or a.kind} {a.run or ''}".strip())
    if a.kind == "discard":
        head = f"{'cut' if a.edge == 'cut' else 'die'} {a.run}" + (f" row {a.event}" if a.event is not None else "")
    if d.get("labels") and a.kind not in ("search", "match"):
        head += f" (labels {' '.join(d['labels'])})"
    if a.predicates:
        head += " [" + "; ".join(f"{p.text} {_vals(p.values)}{'✓' if p.result else '✗'}" for p in a.predicates) + "]"
    if a.reason and a.kind not in ("take", "begin"):
        head += f" — {a.reason}"
    return head


def _write_jsonl(step: Any, out: TextIO) -> None:
    """A pattern's trace step: ``step.to_json()`` with ``position`` (the event's 1-based
    number) after ``step``."""
    from engine.json_text import json_text

    d = step.to_json()
    if isinstance(step.step, int):
        d = {"step": step.step, "position": step.step + 1, **{k: v for k, v in d.items() if k != "step"}}
    out.write(json_text(d, "a trace step") + "\n")


def _write_sql_jsonl(step: Any, out: TextIO) -> None:
    """A MATCH_RECOGNIZE trace step as it is (its steps are searches, not events)."""
    from engine.json_text import json_text

    out.write(json_text(step.to_json(), "a trace step") + "\n")


def _write_table(step: Any, out: TextIO) -> None:
    """A readable line per action under a header per event (named as ``event_label`` names it)."""
    from engine.trace import event_label

    if step.step == "close":
        out.write("close\n")
    else:
        e = step.event
        attrs = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("id", "type", "ts"))
        out.write(f"{event_label(step.step, e['id'])}: {e['type']} @ {e['ts']}" + (f" ({attrs})" if attrs else "")
                  + "\n")
    for a in step.actions:
        out.write("  " + describe(a) + "\n")
    if step.step != "close":
        out.write(f"  runs: {step.runs_total}" + (" — " + "; ".join(
            f"{r.id}@{r.state} " + " ".join(f"{v}={','.join(map(str, ids))}" for v, ids in r.bindings.items())
            for r in step.runs[:6]) if step.runs else "") + (" …" if step.runs_total > 6 else "") + "\n")
    for m in step.matches:
        out.write(_match_line(m) + "\n")


def _match_line(m: Any) -> str:
    """A match (``{"match": ...}``, with ``range``/``confidence`` on interval data) or an AGG
    row (``{"ts", "event", "group", "value"}``) as one table line."""
    from engine.json_text import json_text

    if isinstance(m, dict) and isinstance(m.get("match"), dict):
        text = "  MATCH " + " ".join(f"{v}={','.join(map(str, ids))}" for v, ids in m["match"].items())
        if "confidence" in m:
            text += f" range={m.get('range')} confidence={m.get('confidence')}"
        return text
    if isinstance(m, dict) and "value" in m:
        query = f"query={m['query']} " if m.get("query") is not None else ""
        return f"  ROW {query}event={m.get('event')} group={json_text(m.get('group'), 'a trace row')} " \
               f"value={m.get('value')}"
    return "  MATCH " + json_text(m, "a trace match")


def describe(a: Any) -> str:
    """One action in words: ``take run 1 at a[i] -> a[i] (a[i].price > avg(...): 121 > 120 ✓)``."""
    parts = [a.kind]
    if a.run is not None:
        parts.append(f"run {a.run}")
    if a.state:
        parts.append(f"at {a.state}")
    if a.to and a.to != a.state:
        parts.append(f"-> {a.to}")
    if a.event is not None and a.kind not in ("match",):
        parts.append(f"event {a.event}")
    s = " ".join(parts)
    if a.detail.get("clone_of"):
        s += f" (clone of {a.detail['clone_of']})"
    if a.detail.get("into"):
        s += f" into run {a.detail['into']}"
    if a.kind == "match" and "match" in a.detail:
        s += " " + " ".join(f"{v}={','.join(map(str, ids))}" for v, ids in a.detail["match"]["match"].items())
    if a.predicates:
        s += " [" + "; ".join(f"{p.text} {_vals(p.values)}{'✓' if p.result else '✗'}" for p in a.predicates) + "]"
    if a.reason:
        s += f" — {a.reason}"
    return s + _window_state(a.detail)


def _window_state(d: dict[str, Any]) -> str:
    """Match windows (``store`` of Algorithm 1): the window's events, counters and β_s."""
    if "counters" not in d or "window" not in d:
        return ""
    counters = " ".join(f"{v}={n}" for v, n in d["counters"].items())
    return (f" (window {' '.join(f'e{i}' for i in d['window'])}; counters {counters}; β_s={d.get('beta_s', '')}"
            + (f"; β_e={d['beta_e']}" if d.get("beta_e") else "") + ")")


def _vals(values: dict[str, Any]) -> str:
    if not values:
        return ""
    return "(" + ", ".join(f"{k}={v}" for k, v in values.items()) + ") "
