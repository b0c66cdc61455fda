"""``cep stream``: Structured Streaming over a directory of files (DESIGN.md, "Spark").

Files (CSV, JSON Lines, Parquet) dropped into ``source`` are read as they arrive (the
file source); each event gets its partition key (``pipeline.key_expr``, the same as batch
runs) and ``groupBy(key).applyInPandasWithState`` keeps one matcher per key value across
micro-batches: the state is the pickled matcher (cloudpickle) with the key's position
counter and last time stamp. Matches are appended to the sink directory as JSON Lines
(``match_id, key, match, start, end, start_seq, end_seq``; ``match`` is the JSON text of
``Match.to_json()["match"]``).

Semantics on a stream differ from a batch run in two documented ways:

- ``seq`` counts the events of one key value (not of the whole stream), so count windows
  (``WITHIN n events``) are refused; time windows are fine.
- Events are matched per key in time order within a micro-batch; an event older than the
  last event already matched for its key arrives too late and is skipped (counted on
  stderr). Matches that wait for a window to close (trailing negation) are reported when
  a later event of the same key closes it.

Patterns without a partition key run as one group (no parallelism).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd

from ..events import TS_COL, ColumnMapping, DataError, events_from_frame, sort_frame, validate_frame
from ..events.formats import CSV_OPTIONS, BadLine, parse_json_line
from ..model import Pattern
from ..partition import partition_key
from .pipeline import MatcherFactory, _match_row, _norm_number, _norm_text, default_factory

__all__ = ["start_stream", "stream_cli", "STREAM_OUTPUT"]

STREAM_OUTPUT = ("match_id string, key string, `match` string, start double, `end` double, "
                 "start_seq long, end_seq long")
_STATE = "state binary"
_LINE = "value"


def _first_file(src: Path, fmt: str) -> Path | None:
    exts = {"csv": (".csv", ".tsv"), "json": (".json", ".jsonl", ".ndjson"), "parquet": (".parquet", ".pq")}[fmt]
    files = sorted(p for p in src.iterdir() if p.is_file() and p.suffix.lower() in exts
                   and not p.name.startswith((".", "_")))
    return files[0] if files else None


def _key_column(pattern: Pattern, columns: dict[str, Any], mapping: ColumnMapping, fmt: str) -> Any:
    """The partition key of a raw row (CSV: text columns; JSON: the line; Parquet: typed)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    key = partition_key(pattern)
    if key is None:
        return F.lit("*")

    def attr(a: str) -> Any:
        if fmt == "json":
            path = "$['" + a.replace("\\", "\\\\").replace("'", "\\'") + "']"
            return _norm_text(F.get_json_object(F.col(_LINE), path))
        if a not in columns:
            return F.lit(None).cast("string")
        dt = columns[a]
        c = F.col(f"`{a}`")
        if isinstance(dt, T.StringType):
            return _norm_text(c)
        if isinstance(dt, (T.FloatType, T.DoubleType, T.DecimalType)):
            return _norm_number(c.cast("double"))
        if isinstance(dt, T.BooleanType):
            return c.cast("int").cast("string")
        return c.cast("string")

    def for_attrs(attrs: tuple[str, ...]) -> Any:
        parts = [attr(a) for a in attrs]
        if len(parts) == 1:
            return F.coalesce(parts[0], F.lit("null"))
        return F.to_json(F.array(*parts))

    if fmt == "json":
        tcol = F.get_json_object(F.col(_LINE), "$['" + mapping.type_col.replace("'", "\\'") + "']")
    else:
        tcol = F.col(f"`{mapping.type_col}`")
    expr = None
    for t, attrs in sorted(key.by_type.items()):
        cond = F.trim(tcol) == F.lit(t)
        expr = F.when(cond, for_attrs(attrs)) if expr is None else expr.when(cond, for_attrs(attrs))
    other = key.default or key.uniform
    rest = for_attrs(other) if other is not None else F.lit("*")
    return rest if expr is None else expr.otherwise(rest)


def _frame_of(pdfs: Iterator[pd.DataFrame], fmt: str) -> tuple[pd.DataFrame, np.ndarray | None]:
    parts = [p for p in pdfs if len(p)]
    if not parts:
        return pd.DataFrame(), None
    pdf = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].reset_index(drop=True)
    if fmt == "csv":  # text cells: type them as the in-process CSV reader does
        import io as _io

        pdf = pdf.drop(columns=["__cep_key"], errors="ignore")
        return pd.read_csv(_io.StringIO(pdf.to_csv(index=False)), **CSV_OPTIONS), None
    if fmt != "json":
        return pdf.drop(columns=["__cep_key"], errors="ignore"), None
    records = []
    for ln in pdf[_LINE].tolist():
        if ln is None or not ln.strip():
            continue
        item = parse_json_line(ln)
        if isinstance(item, BadLine):
            print(f"cep stream: skipped a line ({item.reason}): {ln[:60]!r}", file=sys.stderr)
            continue
        records.append(item)
    return pd.DataFrame(records, dtype=object), None


def _stateful(pattern: Pattern, factory: MatcherFactory, mapping: ColumnMapping, fmt: str) -> Any:
    def func(key: tuple, pdfs: Iterator[pd.DataFrame], state: Any) -> Iterator[pd.DataFrame]:
        from pyspark import cloudpickle

        if state.exists:
            matcher, nseq, last_ts = cloudpickle.loads(state.get[0])
        else:
            matcher, nseq, last_ts = factory(pattern), 0, float("-inf")
        pdf, _ = _frame_of(pdfs, fmt)
        rows: list[tuple] = []
        if len(pdf):
            try:
                vf, issues = validate_frame(pdf, mapping, text_source=(fmt == "csv"))
            except DataError as err:
                print(f"cep stream: {err}", file=sys.stderr)
                vf, issues = None, []
            for it in issues:
                if it.severity == "error":
                    print(f"cep stream: rejected {it.format()}", file=sys.stderr)
            if vf is not None and len(vf.frame):
                frame, _ = sort_frame(vf.frame)
                late = frame[TS_COL].to_numpy() < last_ts
                if late.any():
                    print(f"cep stream: key {key[0]}: skipped {int(late.sum())} late event(s) "
                          f"(older than the last matched event)", file=sys.stderr)
                    frame = frame[~late].reset_index(drop=True)
                evs = events_from_frame(frame, vf.attr_columns, seq_start=nseq)
                nseq += len(evs)
                k = key[0]
                for e in evs:
                    for m in matcher.feed(e):
                        rows.append(_match_row(m, k, None))
                if evs:
                    last_ts = evs[-1].ts
        state.update((cloudpickle.dumps((matcher, nseq, last_ts)),))
        cols = ["match_id", "key", "match", "start", "end", "start_seq", "end_seq"]
        yield pd.DataFrame(rows, columns=cols).astype(
            {"start": "float64", "end": "float64", "start_seq": "int64", "end_seq": "int64"})

    return func


def start_stream(pattern: Pattern, source: str, out: str, *, mapping: ColumnMapping | None = None,
                 fmt: str = "csv", checkpoint: str | None = None, engine: str = "auto",
                 factory: MatcherFactory | None = None, spark: Any = None,
                 trigger: dict[str, Any] | None = None, max_files_per_trigger: int | None = None) -> Any:
    """Start the streaming query; returns the ``StreamingQuery``.

    ``fmt``: ``csv`` | ``json`` (JSON Lines) | ``parquet``. CSV and Parquet need one file
    in ``source`` at start (its header / schema is the stream's schema). ``trigger`` is
    passed to ``writeStream.trigger`` (e.g. ``{"availableNow": True}``,
    ``{"processingTime": "2 seconds"}``).
    """
    from pyspark.sql import types as T
    from pyspark.sql.streaming.state import GroupStateTimeout

    from .session import get_spark

    if pattern.window is not None and pattern.window.is_count:
        raise ValueError("`WITHIN n events` needs global stream positions, which a stream does not have; "
                         "use a time window with cep stream")
    spark = spark or get_spark()
    mapping = mapping or ColumnMapping()
    factory = factory or default_factory(engine)
    probe = factory(pattern)  # unsupported patterns fail here
    if getattr(probe, "name", "") == "oracle":
        raise ValueError("the oracle reports matches only at the end of the stream; use an incremental "
                         "engine (--engine nfab or auto) with cep stream")
    src = Path(source)
    if not src.is_dir():
        raise DataError(f"source directory not found: '{src}'")
    fmt = {"jsonl": "json", "ndjson": "json", "tsv": "csv"}.get(fmt, fmt)
    reader = spark.readStream
    if max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", max_files_per_trigger)
    if fmt == "json":
        raw = reader.format("text").load(str(src))
        columns: dict[str, Any] = {}
    else:
        first = _first_file(src, fmt)
        if first is None:
            raise DataError(f"'{src}' has no {fmt} file yet: the first file fixes the columns of the stream")
        if fmt == "csv":
            names = spark.read.option("header", True).csv(str(first)).columns
            schema = T.StructType([T.StructField(c, T.StringType(), True) for c in names])
            raw = (reader.schema(schema).option("header", True).option("escape", '"')
                   .option("pathGlobFilter", "*.csv").csv(str(src)))
        else:
            schema = spark.read.parquet(str(first)).schema
            raw = reader.schema(schema).parquet(str(src))
        columns = {f.name: f.dataType for f in schema.fields}
    keyed = raw.withColumn("__cep_key", _key_column(pattern, columns, mapping, fmt))
    func = _stateful(pattern, factory, mapping, fmt)
    matches = keyed.groupBy("__cep_key").applyInPandasWithState(
        func, outputStructType=STREAM_OUTPUT, stateStructType=_STATE, outputMode="append",
        timeoutConf=GroupStateTimeout.NoTimeout)
    ckpt = checkpoint or str(Path(out).with_name(Path(out).name + ".checkpoint"))
    writer = (matches.writeStream.format("json").option("path", out).option("checkpointLocation", ckpt)
              .outputMode("append"))
    if trigger:
        writer = writer.trigger(**trigger)
    return writer.start()


def read_stream_output(out: str) -> list[dict[str, Any]]:
    """The matches written so far to a stream's sink directory (JSON Lines part files)."""
    rows: list[dict[str, Any]] = []
    p = Path(out)
    if not p.is_dir():
        return rows
    for f in sorted(p.glob("part-*")):
        for ln in f.read_text(encoding="utf-8").splitlines():
            if ln.strip():
                rows.append(json.loads(ln))
    return rows


def stream_cli(pattern: Pattern, args: Any = None, **kw: Any) -> int:
    """``cep stream PATTERN --source DIR --out DIR [--format csv|json|parquet] [--once]``."""
    from ..arguments import CommandError, mapping_from_args
    from .pipeline import Progress
    from .session import SparkUnavailable, get_spark

    opts = dict(vars(args)) if args is not None else {}
    opts.update(kw)
    try:
        spark = get_spark(opts.get("master"))
    except SparkUnavailable as err:
        raise CommandError(str(err)) from None

    mapping = mapping_from_args(opts)
    trigger = {"availableNow": True} if opts.get("once") else {"processingTime": "1 second"}
    try:
        q = start_stream(pattern, opts["source"], opts["out"], mapping=mapping,
                         fmt=opts.get("source_format") or "csv", checkpoint=opts.get("checkpoint"),
                         engine=opts.get("engine") or "auto", spark=spark, trigger=trigger)
    except (DataError, ValueError) as err:
        raise CommandError(str(err)) from None
    print(f"cep stream: watching {opts['source']} -> {opts['out']} (Ctrl-C to stop)", file=sys.stderr)
    try:
        with Progress(spark, label="stream"):
            if opts.get("once"):
                q.awaitTermination()
            else:
                while q.isActive:
                    time.sleep(1)
    except KeyboardInterrupt:
        q.stop()
    if q.exception() is not None:
        raise CommandError(f"stream stopped: {q.exception()}", status=1)
    return 0
