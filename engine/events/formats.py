"""Input formats: which reader a file needs (``resolve_format``) and the readers for CSV /
TSV, JSON Lines (or a JSON array of objects) and Parquet, each giving a pandas frame for
the validation rules. ``arrow_to_pandas`` is the one Arrow -> pandas conversion (the Spark
reader uses it too).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .report import DataError, ValidationIssue, show_value

__all__ = ["FORMATS", "COMPRESSION", "resolve_format", "read_csv", "read_jsonl", "read_parquet",
           "arrow_to_pandas"]

FORMATS = {"csv": "csv", "tsv": "tsv", "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl",
           "parquet": "parquet", "pq": "parquet"}
COMPRESSION = (".gz", ".bz2", ".xz", ".zst", ".zip")


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def resolve_format(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        key = fmt.lower().lstrip(".")
        if key not in FORMATS:
            raise DataError(f"unknown format '{fmt}'; use one of: csv, tsv, jsonl (json, ndjson), "
                            f"parquet")
        return FORMATS[key]
    if path.is_dir():
        return "parquet"
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSION:
        suffixes = suffixes[:-1]
    ext = suffixes[-1].lstrip(".") if suffixes else ""
    if ext not in FORMATS:
        raise DataError(f"cannot tell the format of '{path.name}' from its extension "
                        f"('{ext or 'none'}'); use .csv, .tsv, .jsonl/.json/.ndjson or .parquet, "
                        f"or pass fmt='csv' | 'jsonl' | 'parquet'")
    return FORMATS[ext]


def read_csv(path: Path, sep: str = ",") -> pd.DataFrame:
    what = "CSV" if sep == "," else "TSV"
    try:
        return pd.read_csv(path, sep=sep, dtype_backend="numpy_nullable")
    except pd.errors.EmptyDataError:
        raise DataError(f"'{path.name}' is empty: no header and no rows") from None
    except pd.errors.ParserError as e:
        raise DataError(f"cannot read '{path.name}' as {what}: {_short(e)}") from None
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as {what}: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except (OSError, ValueError) as e:
        raise DataError(f"cannot read '{path.name}' as {what}: {_short(e)}") from None


def _open_text(path: Path):
    suffix = path.suffix.lower()
    if suffix == ".gz":
        import gzip
        return gzip.open(path, "rt", encoding="utf-8")
    if suffix == ".bz2":
        import bz2
        return bz2.open(path, "rt", encoding="utf-8")
    if suffix == ".xz":
        import lzma
        return lzma.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _read_jsonl_arrow(path: Path) -> pd.DataFrame | None:
    """Fast path for well-typed JSON Lines (pyarrow, multi-threaded). Returns None when the
    file needs the exact Python reader: a column mixing types, nested values, a bad line."""
    import pyarrow.json as pj

    try:
        table = pj.read_json(path)
        if table.num_rows == 0 or table.num_columns == 0:
            return None
        # pyarrow guesses timestamps from strings; keep them as the strings in the file.
        inferred = [f.name for f in table.schema
                    if pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)]
        if inferred:
            schema = pa.schema([pa.field(f.name, pa.string()) if f.name in inferred else f
                                for f in table.schema])
            table = pj.read_json(path, parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="infer"))
        for f in table.schema:
            t = f.type
            if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
                    or pa.types.is_string(t) or pa.types.is_large_string(t)
                    or pa.types.is_null(t)):
                return None
        return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OSError):
        return None


def read_jsonl(path: Path) -> tuple[pd.DataFrame, np.ndarray | None, list[ValidationIssue]]:
    """JSON Lines (one object per line; a JSON array of objects is accepted too).

    Returns the frame, each frame row's input row (0-based number among non-blank lines;
    None when it is the frame position) and issues for lines that are not JSON objects
    (those rows are rejected)."""
    df = _read_jsonl_arrow(path)
    if df is not None:
        return df, None, []
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    issues: list[ValidationIssue] = []
    try:
        with _open_text(path) as f:
            text = f.read()
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as JSON Lines: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except (OSError, EOFError) as e:
        raise DataError(f"cannot read '{path.name}': {_short(e)}") from None
    stripped = text.lstrip()
    if not stripped:
        raise DataError(f"'{path.name}' is empty: no rows")
    items: list[Any] | None = None
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise DataError(f"cannot read '{path.name}' as JSON: {e.msg} at line {e.lineno}, "
                            f"column {e.colno}") from None
        items = data if isinstance(data, list) else [data]
    else:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        try:  # one call for the whole file; line by line only to locate errors
            items = json.loads("[" + ",".join(lines) + "]")
            if len(items) != len(lines):
                items = None
        except json.JSONDecodeError:
            items = None
        if items is None:
            items = []
            for row, line in enumerate(lines):
                try:
                    items.append(json.loads(line))
                except json.JSONDecodeError as e:
                    items.append(_BadLine(f"invalid JSON: {e.msg} at column {e.colno}"))
    for row, item in enumerate(items):
        if isinstance(item, dict):
            records.append(item)
            rows.append(row)
            continue
        reason = (item.reason if isinstance(item, _BadLine)
                  else f"not a JSON object: {show_value(item)}")
        issues.append(ValidationIssue(row=row, column=None, code="bad_json", reason=reason))
    if not records:
        first = issues[0].format() if issues else "no objects"
        raise DataError(f"cannot read '{path.name}' as JSON Lines: no line is a JSON object "
                        f"({first})")
    df = pd.DataFrame(records, dtype=object)
    return df, np.asarray(rows, dtype=np.int64), issues


@dataclass
class _BadLine:
    reason: str


_PARQUET_TYPES: dict[Any, Any] = {
    pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
    pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
    pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype(),
    pa.string(): pd.StringDtype(), pa.large_string(): pd.StringDtype(),
}


def arrow_to_pandas(table: "pa.Table | pa.RecordBatch") -> pd.DataFrame:
    """Arrow -> pandas keeping integer columns with nulls as integers (nullable dtypes).

    The Spark reader should use this for its Arrow batches before ``validate_frame``."""
    return table.to_pandas(types_mapper=_PARQUET_TYPES.get)


def read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise DataError(f"cannot read '{path.name}' as Parquet: {_short(e)}") from None
    try:
        return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OverflowError) as e:
        raise DataError(f"cannot convert '{path.name}' from Parquet: {_short(e)}") from None

