"""The one file-extension -> format table: which reader a file name asks for.

Every place that names a format from a file name reads ``FORMATS``: the in-process loader
(``engine.events.sources.resolve_format``), the Spark reader (``engine.spark.read``), the
Spark writer (``engine.spark.pipeline.write_matches``), ``cep stream``
(``engine.spark.stream_files``, ``engine.spark.streaming``) and the app's sources and upload
box (``app.runner``). Standard library only.
"""
from __future__ import annotations

from pathlib import PurePath

__all__ = ["FORMATS", "COMPRESSION", "WRITTEN_FORMATS", "extension_of", "format_of", "written_format_of"]

#: extension (lower case, no dot) or format name -> the format that reads it; the key order
#: is the order the app's upload box lists the extensions in
FORMATS: dict[str, str] = {"csv": "csv", "tsv": "tsv", "json": "jsonl", "jsonl": "jsonl", "ndjson": "jsonl",
                           "parquet": "parquet", "pq": "parquet"}

#: compression suffixes the loader looks through (``data.csv.gz`` is a CSV file)
COMPRESSION: tuple[str, ...] = (".gz", ".bz2", ".xz", ".zst", ".zip")

#: the formats the Spark pipeline writes matches in (``written_format_of``)
WRITTEN_FORMATS: tuple[str, ...] = ("jsonl", "csv", "parquet")


def extension_of(name: str | PurePath, compression: tuple[str, ...] = COMPRESSION) -> str:
    """The extension that names a file's format: its last suffix in lower case without the
    dot, a suffix in ``compression`` looked through; ``""`` when it has none."""
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes and suffixes[-1] in compression:
        suffixes = suffixes[:-1]
    return suffixes[-1].lstrip(".") if suffixes else ""


def format_of(name: str | PurePath, compression: tuple[str, ...] = COMPRESSION) -> str | None:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet`` from a file name's extension (see
    ``extension_of``); None when the extension names no format."""
    return FORMATS.get(extension_of(name, compression))


def written_format_of(path: str | PurePath) -> str:
    """The format matches are written in to ``path``: one of ``WRITTEN_FORMATS`` when the
    name ends in one of its extensions (no compression looked through), else ``jsonl``."""
    name = str(path).lower()
    for ext, fmt in FORMATS.items():
        if fmt in WRITTEN_FORMATS and name.endswith("." + ext):
            return fmt
    return "jsonl"
