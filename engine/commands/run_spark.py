"""``cep run --spark``: the request (engine/commands/run.py) run on Spark, matches or AGG
rows, with the same output contract as in process. Only this module of the commands imports
``engine.spark`` (and only when called).

``--master`` / ``--remote`` (or ``CEP_SPARK_MASTER``) choose where: ``local[*]`` by default,
a cluster's master URL, or a Spark Connect server (``sc://HOST:PORT``). Off this machine, a
data file on this machine's disk up to ``LOCAL_BYTES`` is read here and sent to the cluster
with the job (its executors may not see this disk); a bigger one, a directory or a glob must
be at a path the executors can read (HDFS, S3, a shared mount)."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from engine.commands.arguments import CommandError
from engine.commands.errors import preparing
from engine.commands.stats import print_stats

if TYPE_CHECKING:  # pragma: no cover
    from engine.commands.request import RunRequest

__all__ = ["run_aggregate_on_spark", "run_matches_on_spark", "read_for"]


def _spark_unavailable(err: Exception) -> CommandError:
    return CommandError(f"Spark is not available: {err}")


def read_for(data: Any, mapping: Any, spark: Any) -> Any:
    """The events of ``data`` for a run on ``spark`` (see the module): read here and sent with
    the job when the session is not local and ``data`` is a small local file, else by Spark."""
    from engine.spark.local_source import LOCAL_BYTES
    from engine.spark.pipeline import read_source
    from engine.spark.session import is_local, master_of

    return read_source(data, mapping, None, spark, None if is_local(master_of(spark)) else LOCAL_BYTES)


def run_matches_on_spark(request: RunRequest) -> int:
    """``cep run ... --spark``: the same output contract as in process (``format_matches`` on
    stdout or ``--out``), progress per Spark stage and diagnostics on stderr."""
    from engine.commands.output import format_matches
    from engine.dsl import DslError, check_schema

    try:
        from engine.spark.errors import PipelineError
        from engine.spark.pipeline import Progress, default_factory, jsonl_lines, numeric_issues, run
        from engine.spark.session import SparkUnavailable, get_spark
    except ImportError as err:
        raise _spark_unavailable(err) from None

    args, pattern, text = request.args, request.pattern, request.text
    assert pattern is not None
    opts = dict(vars(args))
    data, mapping = request.data, request.column_mapping()
    try:
        spark = get_spark(opts.get("master"))
    except SparkUnavailable as err:
        raise CommandError(str(err)) from None
    fmt = opts.get("format") or "table"
    try:
        with preparing(request.label), Progress(spark):
            if _run_columnar(request, spark, opts, fmt):
                return 0
            ev = read_for(data, mapping, spark)
            report = ev.report
            numeric = numeric_issues(ev, pattern)
            issues = list(report.issues) + numeric
            errors = [i for i in issues if i.severity == "error"]
            if errors and not opts.get("skip_bad_rows"):
                report.issues = issues
                raise CommandError(f"{opts['data']}: the data has problems:\n{report.format()}\n"
                               "(fix the file, or pass --skip-bad-rows to run without the rejected rows)")
            if issues:
                report.issues = issues
                print(report.format(), file=sys.stderr)
            try:
                for w in check_schema(pattern, ev.schema, text or None):
                    print(w, file=sys.stderr)
            except DslError as err:
                raise CommandError(str(err)) from None
            options = {}
            if opts.get("max_runs") is not None:
                options["max_runs"] = opts["max_runs"]
            from engine.run_choice import choose_run
            from engine.engines.windows.matcher import spark_factory

            engine = opts.get("engine") or "auto"
            # the choice cep run makes in process (match windows never on interval data): Algorithm 1 per key
            choice = choose_run(pattern, engine, opts.get("match_windows") or "auto", interval=ev.is_interval)
            res = run(pattern, ev, engine=engine, with_events=bool(opts.get("with_events")), spark=spark,
                      factory=(spark_factory if choice.windows else default_factory)(engine, **options),
                      collect=True)  # one action: the matches come to the driver for the output anyway
            for w in res.warnings:
                print(f"warning: {w}", file=sys.stderr)
            if fmt == "jsonl" and opts.get("with_events"):
                sink = open(opts["out"], "w", encoding="utf-8") if opts.get("out") else sys.stdout
                try:
                    for line in jsonl_lines(res):
                        sink.write(line + "\n")
                finally:
                    if sink is not sys.stdout:
                        sink.close()
            else:
                matches = res.to_matches()
                variables = [c.var for c in pattern.positive]
                uncertain = bool(getattr(res, "interval", False))  # interval data: one row per signature
                if uncertain:
                    from engine.commands.run_intervals import apply_min_confidence

                    matches = apply_min_confidence(matches, opts.get("min_confidence"))
                if opts.get("out"):
                    with open(opts["out"], "w", encoding="utf-8", newline="") as fh:
                        format_matches(matches, fmt, fh, variables, uncertain=uncertain)
                else:
                    format_matches(matches, fmt, sys.stdout, variables, uncertain=uncertain)
    except PipelineError as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    print_stats(args, [("spark mode", res.mode), ("events", ev.count), ("matches", res.count)], res.seconds, res.info,
                events=ev.count, skip=())
    res.unpersist()
    return 0


def _run_columnar(request: RunRequest, spark: Any, opts: dict[str, Any], fmt: str) -> bool:
    """The run on ``engine.spark.columnar_run`` where it applies (a plain local CSV file on a local
    session, read in byte ranges by Python tasks and matched by the lazy chain's columnar path): the
    output, the stats, and True; False where it does not apply."""
    from engine.commands.output import MatchWriter
    from engine.dsl import DslError, check_schema
    from engine.spark.columnar_run import run_columnar
    from engine.spark.session import is_local, master_of

    if not is_local(master_of(spark)) or opts.get("with_events") or opts.get("match_windows") == "on":
        return False
    pattern = request.pattern
    assert pattern is not None
    res = run_columnar(pattern, request.data, spark, opts.get("engine") or "auto", request.column_mapping(),
                       count_only=fmt == "count", max_runs=opts.get("max_runs"))
    if res is None:
        return False
    try:
        for w in check_schema(pattern, res.schema, request.text or None):
            print(w, file=sys.stderr)
    except DslError as err:
        raise CommandError(str(err)) from None
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    sink = open(opts["out"], "w", encoding="utf-8", newline="") if opts.get("out") else sys.stdout
    try:
        writer = MatchWriter(fmt, sink, [c.var for c in pattern.positive])
        if res.table is None:
            writer.count = res.count
        else:
            for m in res.to_matches():
                writer.write(m)
        writer.close()
    finally:
        if sink is not sys.stdout:
            sink.close()
    print_stats(request.args, [("spark mode", res.mode), ("events", res.events), ("matches", res.count)],
                res.seconds, res.info, events=res.events, skip=())
    return True


def run_aggregate_on_spark(request: RunRequest) -> int:
    """``cep run AGG-PATTERN --spark``: the rows in ``--format`` (as in process)."""
    from engine.dsl import DslError, check_schema
    from engine.engines.aseq.output import emit_rows

    try:
        from engine.spark.aseq import run
        from engine.spark.errors import PipelineError
        from engine.spark.pipeline import Progress, numeric_issues
        from engine.spark.session import SparkUnavailable, get_spark
    except ImportError as err:
        raise _spark_unavailable(err) from None

    args, pattern, text = request.args, request.pattern, request.text
    assert pattern is not None
    data, mapping = request.data, request.column_mapping()
    try:
        spark = get_spark(getattr(args, "master", None))
    except SparkUnavailable as err:
        raise CommandError(str(err)) from None
    try:
        with preparing(request.label), Progress(spark):
            ev = read_for(data, mapping, spark)
            issues = list(ev.report.issues) + numeric_issues(ev, pattern)
            errors = [i for i in issues if i.severity == "error"]
            if errors and not getattr(args, "skip_bad_rows", False):
                ev.report.issues = issues
                raise CommandError(f"{args.data}: the data has problems:\n{ev.report.format()}\n"
                                   "(fix the file, or pass --skip-bad-rows to run without the rejected rows)")
            try:
                for w in check_schema(pattern, ev.schema, text or None):
                    print(w, file=sys.stderr)
            except DslError as err:
                raise CommandError(str(err)) from None
            res = run(pattern, ev, getattr(args, "engine", "auto") or "auto", emit=getattr(args, "emit", "trig"),
                      spark=spark, max_runs=getattr(args, "max_runs", None))
    except PipelineError as err:
        raise CommandError(f"stopped: {err}", status=1) from None
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    emit_rows(res.rows, args, False)
    print_stats(args, [("spark mode", res.mode), ("events", res.events), ("rows", len(res.rows))], res.seconds,
                res.info, skip=())
    ev.unpersist()
    return 0
