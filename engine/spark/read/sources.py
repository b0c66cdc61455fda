"""The front door: ``read_events`` resolves the format of a file, a directory or a glob and
reads it (CSV/TSV in ``csv``, JSON Lines in ``jsonl``, Parquet here as typed);
``from_spark_frame`` validates an existing Spark DataFrame."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from engine.events import ColumnMapping, DataError, guess_mapping
# the loader's format table and rules, so both read the same files
from engine.events.file_formats import FORMATS as _FORMATS
from engine.events.formats import resolve_format as _loader_format
from engine.events.formats import check_csv_header
from engine.events.lines import CsvLines, JsonlLines
from engine.spark.read.assemble import _expected_issues, _finish
from engine.spark.read.columns import _BLOCK, _FILE, _with_segment
from engine.spark.read.csv import _csv_source
from engine.spark.read.errors import _spark_error
from engine.spark.read.events import SparkEvents
from engine.spark.read.jsonl import _read_json_array, _read_jsonl, _starts_with_bracket
from engine.spark.read.kinds import _spark_decision, _string_time_counts
from engine.spark.read.one_pass import read_csv_one_pass


def _resolve_format(path: Path, fmt: str | None) -> str:
    """The loader's format rules (``engine.events.formats.resolve_format``), plus Spark's
    directories: the one format their files share, else Parquet."""
    if fmt is None and path.is_dir():
        files = [p for p in path.iterdir() if p.is_file() and not p.name.startswith((".", "_"))]
        exts = {p.suffix.lower().lstrip(".") for p in files}
        kinds = {_FORMATS[e] for e in exts if e in _FORMATS}
        if len(kinds) == 1:
            return kinds.pop()
        if not files:
            raise DataError(f"'{path}' is an empty directory")
        return "parquet"
    return _loader_format(path, fmt)


def read_events(source: str | os.PathLike[str] | Any, mapping: ColumnMapping | dict | None = None,
                fmt: str | None = None, spark: Any = None) -> SparkEvents:
    """Read and validate events with Spark (CSV, TSV, JSON Lines, Parquet; a file, a
    directory or a glob; or a Spark DataFrame). Same mapping rules and report as
    ``load_events``: rows with errors are left out and listed, never dropped silently.
    Raises ``DataError`` when the input as a whole is unusable.
    """
    from engine.spark.session import get_spark

    spark = spark or get_spark()
    if isinstance(mapping, dict):
        mapping = ColumnMapping(**{k: v for k, v in mapping.items() if v is not None or k != "ts_col"})
    if isinstance(source, pd.DataFrame):  # input order = row order (Arrow slices in order)
        return from_spark_frame(spark.createDataFrame(source), mapping)
    if not isinstance(source, (str, os.PathLike)):
        return from_spark_frame(source, mapping)
    path = Path(source)
    is_glob = any(ch in str(source) for ch in "*?[")
    if not is_glob and not path.exists():
        raise DataError(f"file not found: '{path}'")
    kind = _resolve_format(path if not is_glob else Path(str(source).rstrip("*")), fmt)
    if kind == "jsonl" and path.is_file():
        from engine.events.formats import check_json_depth

        check_json_depth(path)  # deep nesting refused with its line before any parser sees it
    if kind == "jsonl" and path.is_file() and _starts_with_bracket(path):
        return _read_json_array(spark, path, mapping)
    if kind in ("csv", "tsv"):
        sep = "," if kind == "csv" else "\t"
        files = _files(path, str(source), is_glob)
        for f in files:
            check_csv_header(f, sep)
        lines = CsvLines(path, sep) if path.is_file() else None
        got = read_csv_one_pass(spark, path, files, sep, mapping, lines)
        if got is not None:
            return got
        typed, columns, decisions, counts = _csv_source(spark, path, sep)
        if mapping is None:
            mapping = guess_mapping(columns)
        whole = _expected_issues(columns, mapping)
        return _finish(spark, typed, kind, mapping, columns, decisions, counts, whole, str(path), lines=lines)
    if kind == "parquet":
        try:
            raw = spark.read.parquet(str(path))
            columns = raw.columns
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, "Parquet", e) from None
        if mapping is None:
            mapping = guess_mapping(columns)
        whole = _expected_issues(columns, mapping)
        typed = _with_segment(raw)
        decisions = {f.name: _spark_decision(f.dataType) for f in raw.schema.fields}
        counts = _string_time_counts(typed, mapping, decisions)
        return _finish(spark, typed, kind, mapping, columns, decisions, counts, whole, str(path))
    return _read_jsonl(spark, path, mapping, str(path), lines=JsonlLines(path) if path.is_file() else None)


def _files(path: Path, source: str, is_glob: bool) -> list[Path]:
    """The data files of a file, a directory or a glob."""
    if is_glob:
        import glob

        return [Path(p) for p in sorted(glob.glob(source)) if Path(p).is_file()]
    if path.is_dir():
        return [p for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith((".", "_"))]
    return [path]


def from_spark_frame(df: Any, mapping: ColumnMapping | None = None) -> SparkEvents:
    """Validate an existing Spark DataFrame (typed columns) as an event source. Input
    order is the order of its partitions."""
    from pyspark.sql import functions as F

    columns = df.columns
    if mapping is None:
        mapping = guess_mapping(columns)
    whole = _expected_issues(columns, mapping)
    typed = df.select("*", F.lit("frame").alias(_FILE),
                      F.spark_partition_id().cast("long").alias(_BLOCK))
    decisions = {f.name: _spark_decision(f.dataType) for f in df.schema.fields}
    counts = _string_time_counts(typed, mapping, decisions)
    return _finish(df.sparkSession, typed, "frame", mapping, columns, decisions, counts, whole, "frame")
