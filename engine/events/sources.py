"""Input files without pandas: the format a file needs (``resolve_format``, from the table
in ``engine.events.file_formats``), opening it as text (decompressed), its CSV header, and
which reader ``cep run`` should use (``can_batch``, ``wants_batches``). Standard library only (the Parquet helpers import
pyarrow when called).
"""
from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import IO

from engine.events.file_formats import COMPRESSION, FORMATS, extension_of
from engine.events.lines import open_binary
from engine.events.report import DataError

__all__ = ["FORMATS", "COMPRESSION", "resolve_format", "open_text", "is_json_array", "csv_header",
           "check_csv_header", "parquet_files", "parquet_rows", "short_error", "can_batch", "wants_batches",
           "BATCH_ABOVE_BYTES", "BATCH_ABOVE_ROWS"]


BATCH_ABOVE_BYTES = 32 << 20  # text files above this size are read in batches by default
BATCH_ABOVE_ROWS = 250_000    # Parquet inputs above this many rows too


def short_error(exc: BaseException) -> str:
    """The first line of an exception's message (its type when it has none)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def resolve_format(path: Path, fmt: str | None) -> str:
    """"csv", "tsv", "jsonl" or "parquet": ``fmt`` when given, else from the extension
    (a compression suffix is looked through; a directory is Parquet)."""
    if fmt is not None:
        key = fmt.lower().lstrip(".")
        if key not in FORMATS:
            raise DataError(f"unknown format '{fmt}'; use one of: csv, tsv, jsonl (json, ndjson), "
                            f"parquet")
        return FORMATS[key]
    if path.is_dir():
        return "parquet"
    ext = extension_of(path.name)
    if ext not in FORMATS:
        raise DataError(f"cannot tell the format of '{path.name}' from its extension "
                        f"('{ext or 'none'}'); use .csv, .tsv, .jsonl/.json/.ndjson or .parquet, "
                        f"or pass fmt='csv' | 'jsonl' | 'parquet'")
    return FORMATS[ext]


def open_text(path: Path) -> IO[str]:
    """The file as UTF-8 text, decompressed (.gz, .bz2, .xz)."""
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


def is_json_array(path: Path) -> bool:
    """True when the file's first non-blank character is ``[`` (a JSON array, not JSON Lines)."""
    try:
        with open_text(path) as f:
            while chunk := f.read(1 << 16):
                stripped = chunk.lstrip()
                if stripped:
                    return stripped.startswith("[")
    except (OSError, EOFError, UnicodeDecodeError):
        return False
    return False


def csv_header(path: Path, sep: str = ",") -> tuple[list[str], int] | None:
    """The header of a CSV/TSV file and its line (blank lines before it are skipped, as the
    readers do); None when the file is empty or cannot be read here."""
    fh = open_binary(path)
    if fh is None:
        return None
    try:
        with io.TextIOWrapper(fh, encoding="utf-8-sig", newline="") as text:
            reader = csv.reader(text, delimiter=sep)
            start = 1
            for rec in reader:
                if rec and not (len(rec) == 1 and not rec[0].strip()):
                    return rec, start
                start = reader.line_num + 1
    except (OSError, EOFError, csv.Error, UnicodeDecodeError):
        return None  # the reader says what is wrong with the file
    return None


def check_csv_header(path: Path, sep: str = ",") -> None:
    """Raise ``DataError`` for a column name that occurs twice in the header (readers would
    rename the second one silently)."""
    found = csv_header(path, sep)
    if found is None:
        return
    names, line = found
    seen: dict[str, int] = {}
    for k, name in enumerate(names, 1):
        if name in seen:
            raise DataError(f"'{path.name}': duplicate column '{name}' in the header (line {line}): "
                            f"columns {seen[name]} and {k}; rename one of them")
        seen[name] = k


def can_batch(path: str | os.PathLike[str], fmt: str | None = None) -> bool:
    """Whether ``BatchReader`` can read this file (not a JSON array)."""
    p = Path(path)
    if not p.exists():
        return False
    try:
        kind = resolve_format(p, fmt)
    except DataError:
        return False
    if kind == "jsonl":
        return not p.is_dir() and not is_json_array(p)
    return kind == "parquet" or not p.is_dir()


def wants_batches(path: str | os.PathLike[str], fmt: str | None = None) -> bool:
    """The default: read in batches a text file over ``BATCH_ABOVE_BYTES`` (five times
    that compressed) or a Parquet input over ``BATCH_ABOVE_ROWS`` rows."""
    p = Path(path)
    if not can_batch(p, fmt):
        return False
    kind = resolve_format(p, fmt)
    if kind == "parquet":
        return parquet_rows(p) > BATCH_ABOVE_ROWS
    size = p.stat().st_size
    if p.suffix.lower() in COMPRESSION:
        size *= 5
    return size > BATCH_ABOVE_BYTES


def parquet_files(path: Path) -> list[str]:
    """The files of a Parquet file or directory, in the order ``read_parquet`` reads them."""
    import pyarrow as pa
    import pyarrow.dataset as pds

    if not path.is_dir():
        return [str(path)]
    try:
        return list(pds.dataset(str(path), format="parquet").files)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise DataError(f"cannot read '{path.name}' as Parquet: {short_error(e)}") from None


def parquet_rows(path: Path) -> int:
    """The number of rows of a Parquet file or directory, from the footers (0 when unknown)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return sum(pq.ParquetFile(name).metadata.num_rows for name in parquet_files(path))
    except (pa.ArrowException, OSError, ValueError, DataError):
        return 0
