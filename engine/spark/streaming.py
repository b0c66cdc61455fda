"""``cep stream``: Structured Streaming over a directory of files (docs/design.md, "Spark").

Files (CSV, JSON Lines, Parquet) dropped into ``source`` are read as they arrive (the
``binaryFile`` source: each file whole, with its name). A stateless ``mapInPandas`` step
reads each file with the in-process loader (``stream_files.read_file``: the same readers,
rules and messages as ``cep run``), so every rejection names the file and its line, a
ragged CSV line refuses its file as ``cep run`` refuses it (named, never dropped in
silence), and every file has its own header (no first file fixes the columns). Each event
gets its partition key (``engine.partition``, as batch runs), and
``groupBy(key).applyInPandasWithState`` keeps one matcher per key value across
micro-batches: the state is the pickled matcher (cloudpickle) with the key's position
counter and last time stamp. Matches are appended to the sink directory as JSON Lines
(``match_id, key, match, start, end, start_seq, end_seq``; ``match`` is the JSON text of
``Match.to_json()["match"]``). ``read_stream_output`` reads only what Spark's commit log
lists (``stream_files.committed_files``).

Semantics on a stream differ from a batch run in two documented ways:

- ``seq`` counts the events of one key value (not of the whole stream), so count windows
  (``WITHIN n events``) are refused; time windows are fine.
- Events are matched per key in time order within a micro-batch (ties: file name, then
  line); an event older than the last event already matched for its key arrives too late
  and is skipped (named on stderr with its file and line). Matches that wait for a window
  to close (trailing negation) are reported when a later event of the same key closes it.

Patterns without a partition key run as one group (no parallelism). Messages go to the
stderr of the process that reads the file (the console, with a local master).

Files are read once: a file that changes after it was listed or read (its size or
modification time) is named on stderr (``stream_files.changed_since_listed`` when read,
``ChangeWatcher`` while the stream runs), since its later rows are never matched. Writers
follow the write-then-rename rule (``stream_files.WRITE_THEN_RENAME``); names starting with
``.`` or ``_``, ending in ``._COPYING_`` or with another extension are ignored.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pandas as pd

from engine.events import ColumnMapping, DataError
from engine.events.file_formats import FORMATS
from engine.model import Pattern
from engine.partition import partition_key
from engine.spark.match_rows import match_row
from engine.spark.pipeline import MatcherFactory, default_factory
from engine.spark.stream_files import (EVENT_ROW, WRITE_THEN_RENAME, ChangeWatcher, changed_since_listed, event_from_json, read_committed,
                           read_file)

__all__ = ["start_stream", "watch", "stream_extensions", "read_stream_output", "STREAM_OUTPUT"]

STREAM_OUTPUT = ("match_id string, key string, `match` string, start double, `end` double, "
                 "start_seq long, end_seq long")
_STATE = "state binary"
_BINARY_FILE = "path string, modificationTime timestamp, length long, content binary"
# format -> the Spark file source family that reads it; family -> the extensions it takes
_FAMILY = {"csv": "csv", "tsv": "csv", "jsonl": "json", "parquet": "parquet"}
_EXTS = {family: tuple(ext for ext, fmt in FORMATS.items() if _FAMILY[fmt] == family)
         for family in ("csv", "json", "parquet")}


def _say(text: str) -> None:
    print(f"cep stream: {text}", file=sys.stderr, flush=True)


def _reader(pattern: Pattern, mapping: ColumnMapping, fmt: str) -> Any:
    """``mapInPandas``: binaryFile rows (path, content) -> event rows (``EVENT_ROW``)."""
    key = partition_key(pattern)

    def func(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        cols = ["key", "file", "row", "line", "ts", "event"]
        for pdf in batches:
            rows: list[tuple] = []
            for path, length, content in zip(pdf["path"].tolist(), pdf["length"].tolist(),
                                             pdf["content"].tolist()):
                # sizes only: the listed modification time comes in the session's time zone
                changed = changed_since_listed(str(path), int(length) if length is not None else None, None,
                                               len(content))
                if changed:
                    _say(changed)
                got = read_file(str(path).rsplit("/", 1)[-1], bytes(content), mapping, fmt, key)
                for msg in got.messages:
                    _say(msg)
                rows.extend(got.rows)
            yield pd.DataFrame(rows, columns=cols).astype({"row": "int64", "line": "Int64", "ts": "float64"})

    return func


def _stateful(pattern: Pattern, factory: MatcherFactory) -> Any:
    def func(key: tuple, pdfs: Iterator[pd.DataFrame], state: Any) -> Iterator[pd.DataFrame]:
        from pyspark import cloudpickle

        if state.exists:
            matcher, nseq, last_ts = cloudpickle.loads(state.get[0])
        else:
            matcher, nseq, last_ts = factory(pattern), 0, float("-inf")
        parts = [p for p in pdfs if len(p)]
        rows: list[tuple] = []
        if parts:
            pdf = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
            pdf = pdf.sort_values(["ts", "file", "row"], kind="stable").reset_index(drop=True)
            late = pdf["ts"].to_numpy() < last_ts
            if late.any():
                where = [f"{f} {'line ' + str(ln) if pd.notna(ln) else 'data row ' + str(r + 1)}"
                         for f, ln, r in pdf.loc[late, ["file", "line", "row"]].itertuples(index=False)]
                shown = ", ".join(where[:5]) + (f", ... ({len(where)} in all)" if len(where) > 5 else "")
                _say(f"key {key[0]}: skipped {len(where)} late event(s), older than the last matched event "
                     f"of the key: {shown}")
                pdf = pdf[~late].reset_index(drop=True)
            k = key[0]
            for text in pdf["event"].tolist():
                e = event_from_json(text, nseq)
                nseq += 1
                for m in matcher.feed(e):
                    rows.append(match_row(m, k))
                last_ts = e.ts
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

    ``fmt``: ``csv`` | ``json`` (JSON Lines) | ``parquet``: the files of ``source`` with
    that format's extensions are read (``.csv``/``.tsv``, ``.json``/``.jsonl``/``.ndjson``,
    ``.parquet``/``.pq``; names starting with ``.`` or ``_`` are not). ``trigger`` is passed
    to ``writeStream.trigger`` (e.g. ``{"availableNow": True}``, ``{"processingTime": "2
    seconds"}``).
    """
    from pyspark.sql.streaming.state import GroupStateTimeout

    from engine.spark.session import get_spark

    if pattern.window is not None and pattern.window.is_count:
        raise ValueError("`WITHIN n events` needs global stream positions, which a stream does not have; "
                         "use a time window with cep stream")
    spark = spark or get_spark()
    mapping = mapping or ColumnMapping()
    if factory is None:
        from engine.engines.planner import choose

        spec = choose(pattern, engine)  # unsupported patterns fail here
        if not spec.incremental:  # it reports its matches only at the end: a stream has none
            raise ValueError(spec.stream_refusal)
        factory = default_factory(engine)
    factory(pattern)  # a factory's refusal fails here, before the stream starts
    src = Path(source)
    if not src.is_dir():
        raise DataError(f"source directory not found: '{src}'")
    fmt = _FAMILY.get(FORMATS.get(fmt, fmt), fmt)
    if fmt not in _EXTS:
        raise ValueError(f"unknown stream format '{fmt}'; use csv, json or parquet")
    reader = (spark.readStream.format("binaryFile").schema(_BINARY_FILE)
              .option("pathGlobFilter", "*.{" + ",".join(_EXTS[fmt]) + "}"))
    if max_files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", max_files_per_trigger)
    raw = reader.load(str(src)).select("path", "length", "content")
    events = raw.mapInPandas(_reader(pattern, mapping, fmt), schema=EVENT_ROW)
    matches = events.groupBy("key").applyInPandasWithState(
        _stateful(pattern, factory), outputStructType=STREAM_OUTPUT, stateStructType=_STATE,
        outputMode="append", timeoutConf=GroupStateTimeout.NoTimeout)
    ckpt = checkpoint or str(Path(out).with_name(Path(out).name + ".checkpoint"))
    writer = (matches.writeStream.format("json").option("path", out).option("checkpointLocation", ckpt)
              .outputMode("append"))
    if trigger:
        writer = writer.trigger(**trigger)
    return writer.start()


def read_stream_output(out: str) -> list[dict[str, Any]]:
    """The matches of the micro-batches committed so far to a stream's sink directory: the
    part files Spark's commit log (``_spark_metadata``) lists, never those of a batch in
    progress or interrupted (``stream_files.committed_files``)."""
    return read_committed(out)


def stream_extensions(fmt: str) -> tuple[str, ...]:
    """The file extensions a stream of ``fmt`` (``csv``, ``json``, ``jsonl``, ``parquet``, ...) reads."""
    family = _FAMILY.get(FORMATS.get(fmt, fmt), fmt)
    return _EXTS.get(family, ())


def watch(spark: Any, query: Any, source: str, fmt: str, once: bool) -> BaseException | None:
    """Run until ``query`` stops (``once``: when the files there are processed; otherwise until
    Ctrl-C), naming on stderr every file of ``source`` that changes after the stream read it
    (its later rows are never matched); returns the query's exception, if it failed."""
    from engine.spark.pipeline import Progress

    watcher = ChangeWatcher(source, stream_extensions(fmt))
    watcher.poll()
    try:
        with Progress(spark, label="stream"):
            while query.isActive:
                if once:
                    query.awaitTermination(1)
                else:
                    time.sleep(1)
                for msg in watcher.poll():
                    _say(msg)
    except KeyboardInterrupt:
        query.stop()
    return query.exception()
