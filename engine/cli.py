"""The ``cep`` command: check, run, samples, serve (and stream, when Spark is available).

Exit status: 0 success, 1 the run was stopped (state explosion, oracle too large),
2 bad input (pattern, data, arguments). Diagnostics go to stderr so that
``--format jsonl`` on stdout stays parseable.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence, TextIO

from .dsl import DslError, check_schema, parse
from .matchers.base import EngineUnsupported, Match, StateExplosion
from .model import PatternError

FORMATS = ("table", "jsonl", "csv", "count")


class CliError(Exception):
    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def read_pattern(arg: str) -> tuple[str, str]:
    """PATTERN is a file (``.cep``/``.json``) or inline text; returns (text, origin)."""
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
                raise CliError(f"unknown preset `{preset}` of sample `{sample}`; known: {', '.join(s.presets)}")
            return s.presets[preset], arg
        raise CliError(f"pattern file not found: {arg} (or give the pattern text, starting with PATTERN)")
    return arg, "<inline>"


def load_pattern(arg: str) -> tuple[Any, str]:
    text, origin = read_pattern(arg)
    if origin.endswith(".json"):
        from .model import Pattern

        try:
            return Pattern.model_validate_json(text).check(), text
        except (ValueError, PatternError) as err:
            raise CliError(f"{origin}: invalid pattern JSON: {err}") from None
    try:
        return parse(text), text
    except DslError as err:
        raise CliError(f"{origin}: {err}") from None


def _mapping(args: argparse.Namespace, columns_hint: dict[str, Any] | None = None) -> Any:
    from .events import ColumnMapping

    base = dict(columns_hint or {})
    for key, attr in (("type_col", "type_col"), ("ts_col", "ts_col"), ("id_col", "id_col"),
                      ("lower_col", "lower_col"), ("upper_col", "upper_col")):
        v = getattr(args, attr, None)
        if v is not None:
            base[key] = v
    base = {k: v for k, v in base.items() if v is not None or k in ("id_col", "lower_col", "upper_col")}
    return ColumnMapping(**base)


def load_data(args: argparse.Namespace, pattern: Any, source_text: str) -> tuple[list[Any], list[str]]:
    """Load and validate the data; returns events and warnings. Errors raise CliError."""
    from .events import DataError, load_events

    data = args.data
    hint: dict[str, Any] | None = None
    if data.startswith("sample:"):
        import sample_streams

        s = sample_streams.load(data.split(":", 1)[1])
        data, hint = str(s.path), dict(s.mapping)
    mapping = _mapping(args, hint)
    try:
        res = load_events(data, mapping)
    except DataError as err:
        raise CliError(f"{args.data}: {err}") from None
    warnings: list[str] = []
    report = res.report
    issues = list(report.issues)
    # Only attributes whose loaded column is not all numbers can hold a non-number.
    wanted = pattern.numeric_attrs()
    suspect: dict[str, set[str]] = {}
    for t, attrs in wanted.items():
        types = res.schema if t == "ANY" else {t: res.schema.get(t, {})}
        for tt, kinds in types.items():
            bad = {a for a in attrs if kinds.get(a, "number") != "number"}
            if bad:
                suspect.setdefault(tt, set()).update(bad)
    numeric = res.numeric_issues(suspect) if suspect else []
    if numeric:
        issues.extend(numeric)
    errors = [i for i in issues if i.severity == "error"]
    if errors and not args.skip_bad_rows:
        report.issues = issues
        raise CliError(f"{args.data}: the data has problems:\n{report.format()}\n"
                       "(fix the file, or pass --skip-bad-rows to run without the rejected rows)")
    if issues:
        report.issues = issues
        warnings.append(report.format())
    # With --skip-bad-rows, events whose values are not numbers stay in the stream: a
    # comparison with a non-number is false (docs/semantics.md), and the report lists them.
    try:
        warnings += check_schema(pattern, res.schema, source_text)
    except DslError as err:
        raise CliError(str(err)) from None
    return res.events, warnings


def format_matches(matches: list[Match], fmt: str, out: TextIO, variables: list[str]) -> None:
    if fmt == "count":
        out.write(f"{len(matches)}\n")
    elif fmt == "jsonl":
        for m in matches:
            out.write(json.dumps(m.to_json(), default=_json_default) + "\n")
    elif fmt == "csv":
        w = csv.writer(out)
        w.writerow(["match", "start", "end", *variables])
        for k, m in enumerate(matches, 1):
            d = m.as_dict()
            w.writerow([k, m.start, m.end, *(" ".join(map(str, d.get(v, []))) for v in variables)])
    else:
        rows = [["#", "start", "end", *variables]]
        for k, m in enumerate(matches, 1):
            d = m.as_dict()
            rows.append([str(k), _num(m.start), _num(m.end), *(",".join(map(str, d.get(v, []))) for v in variables)])
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        for r in rows:
            out.write("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip() + "\n")
        out.write(f"({len(matches)} match{'es' if len(matches) != 1 else ''})\n")


def _num(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):
        return o.item()
    return str(o)


def cmd_check(args: argparse.Namespace) -> int:
    from .dsl import to_text

    pattern, _ = load_pattern(args.pattern)
    sys.stdout.write(to_text(pattern))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .planner import choose, make_matcher

    pattern, text = load_pattern(args.pattern)
    if args.spark:
        try:
            from .spark import pipeline
        except ImportError as err:
            raise CliError(f"Spark is not available: {err}") from None
        return pipeline.run_cli(pattern=pattern, text=text, args=args)
    events, warnings = load_data(args, pattern, text)
    for w in warnings:
        print(w, file=sys.stderr)
    rates = None
    if args.engine == "auto":  # type rates steer `auto` to the lazy chain on skewed data
        from collections import Counter

        rates = dict(Counter(e.type for e in events))
    try:
        info = choose(pattern, args.engine, rates=rates)
    except EngineUnsupported as err:
        raise CliError(str(err)) from None
    options: dict[str, Any] = {}
    if args.max_runs is not None:
        options["max_runs"] = args.max_runs
    matcher = make_matcher(pattern, info.name, rates=rates, **options)
    t0 = time.perf_counter()
    matches: list[Match] = []
    try:
        for e in events:
            matches.extend(matcher.feed(e))
        matches.extend(matcher.close())
    except StateExplosion as err:
        raise CliError(f"stopped: {err}", status=1) from None
    except ValueError as err:  # e.g. the oracle refusing a large input
        raise CliError(f"stopped: {err}", status=1) from None
    elapsed = time.perf_counter() - t0
    variables = [c.var for c in pattern.positive]
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="") as fh:
            format_matches(matches, args.format, fh, variables)
    else:
        format_matches(matches, args.format, sys.stdout, variables)
    if args.stats:
        st = matcher.stats.as_dict()
        rate = len(events) / elapsed if elapsed > 0 else float("inf")
        print(f"engine={info.name} events={len(events)} matches={len(matches)} seconds={elapsed:.3f} "
              f"events/s={rate:,.0f} " + " ".join(f"{k}={v}" for k, v in st.items() if k != "phase_seconds"),
              file=sys.stderr)
    return 0


def cmd_samples(args: argparse.Namespace) -> int:
    import sample_streams

    for name in sample_streams.names():
        s = sample_streams.load(name)
        print(f"{name}: {s.description}")
        print(f"    data: {s.path}")
        for preset in s.presets:
            print(f"    preset:{name}/{preset}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    app = Path(__file__).resolve().parent.parent / "app" / "Home.py"
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(args.port),
           "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    return subprocess.call(cmd)


def cmd_stream(args: argparse.Namespace) -> int:
    try:
        from .spark import streaming
    except ImportError as err:
        raise CliError(f"Spark streaming is not available: {err}") from None
    pattern, text = load_pattern(args.pattern)
    return streaming.stream_cli(pattern=pattern, args=args)


def build_parser() -> argparse.ArgumentParser:
    from .planner import engine_names

    ap = argparse.ArgumentParser(prog="cep", description="CEP Studio: check and run event patterns.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="parse and validate a pattern; print its normalised DSL")
    p.add_argument("pattern", help="a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text")
    p.set_defaults(func=cmd_check)

    def data_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--type-col", dest="type_col")
        q.add_argument("--ts-col", dest="ts_col")
        q.add_argument("--id-col", dest="id_col")
        q.add_argument("--lower-col", dest="lower_col")
        q.add_argument("--upper-col", dest="upper_col")

    p = sub.add_parser("run", help="run a pattern over a data file")
    p.add_argument("pattern", help="a .cep/.json file, preset:SAMPLE/PRESET, or the pattern text")
    p.add_argument("--data", required=True, help="CSV, JSON Lines or Parquet file, or sample:NAME")
    p.add_argument("--engine", default="auto", choices=engine_names())
    p.add_argument("--format", default="table", choices=FORMATS)
    p.add_argument("--out", help="write the matches here instead of stdout")
    p.add_argument("--stats", action="store_true", help="print engine statistics to stderr")
    p.add_argument("--max-runs", type=int, default=None, help="state guard: live runs + buffer entries limit")
    p.add_argument("--skip-bad-rows", action="store_true", help="run without rows the validation rejected")
    p.add_argument("--spark", action="store_true", help="run on Spark")
    p.add_argument("--master", default=None, help="Spark master URL (default CEP_SPARK_MASTER or local[*])")
    p.add_argument("--with-events", action="store_true", help="(Spark) add the events' attributes")
    data_args(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("samples", help="list the sample streams and presets")
    p.set_defaults(func=cmd_samples)

    p = sub.add_parser("serve", help="start the app (same as `make run`)")
    p.add_argument("--port", type=int, default=int(os.environ.get("CEP_PORT", "8501")))
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("stream", help="(Spark Structured Streaming) match files as they arrive in a directory")
    p.add_argument("pattern")
    p.add_argument("--source", required=True, help="directory watched for new CSV/JSON/Parquet files")
    p.add_argument("--out", required=True, help="directory the matches are appended to")
    p.add_argument("--format", dest="source_format", default="csv", choices=("csv", "json", "parquet"))
    p.add_argument("--checkpoint", default=None)
    p.add_argument("--master", default=None)
    p.add_argument("--once", action="store_true", help="process what is there, then stop")
    data_args(p)
    p.set_defaults(func=cmd_stream)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as err:
        print(f"cep: {err}", file=sys.stderr)
        return err.status
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
