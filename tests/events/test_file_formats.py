"""The one file-extension -> format table (engine/events/file_formats.py) and its readers."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.events.file_formats import (COMPRESSION, FORMATS, WRITTEN_FORMATS, extension_of, format_of,
                                        written_format_of)


def test_the_table():
    assert FORMATS == {"csv": "csv", "tsv": "tsv", "json": "jsonl", "jsonl": "jsonl", "ndjson": "jsonl",
                       "parquet": "parquet", "pq": "parquet"}
    assert set(FORMATS.values()) == {"csv", "tsv", "jsonl", "parquet"}
    assert COMPRESSION == (".gz", ".bz2", ".xz", ".zst", ".zip")


@pytest.mark.parametrize("name, ext, fmt", [
    ("a.csv", "csv", "csv"), ("A.CSV", "csv", "csv"), ("dir/b.tsv", "tsv", "tsv"), ("c.json", "json", "jsonl"),
    ("c.ndjson", "ndjson", "jsonl"), ("d.parquet", "parquet", "parquet"), ("d.pq", "pq", "parquet"),
    ("e.csv.gz", "csv", "csv"), ("e.jsonl.zst", "jsonl", "jsonl"), ("e.tsv.zip", "tsv", "tsv"),
    ("f.txt", "txt", None), ("noext", "", None), ("g.gz", "", None), ("v1.2.csv", "csv", "csv"),
])
def test_extension_and_format(name, ext, fmt):
    assert extension_of(name) == ext
    assert extension_of(Path(name)) == ext
    assert format_of(name) == fmt


def test_compression_list_is_a_parameter():
    # the app looks through gz/bz2/xz/zst only: a .zip upload names no format
    assert format_of("e.csv.zip", (".gz", ".bz2", ".xz", ".zst")) is None
    assert format_of("e.csv.gz", ()) is None


@pytest.mark.parametrize("path, fmt", [
    ("m.jsonl", "jsonl"), ("m.ndjson", "jsonl"), ("m.JSON", "jsonl"), ("m.csv", "csv"), ("m.parquet", "parquet"),
    ("m.pq", "parquet"), ("m.tsv", "jsonl"), ("m.csv.gz", "jsonl"), ("out", "jsonl"),
])
def test_written_format(path, fmt):
    assert written_format_of(path) == fmt
    assert fmt in WRITTEN_FORMATS


def test_every_reader_reads_the_one_table():
    from app import runner
    from engine.events import formats, sources
    from engine.spark import stream_files

    assert sources.FORMATS is FORMATS and formats.FORMATS is FORMATS and stream_files.FORMATS is FORMATS
    assert sources.COMPRESSION is COMPRESSION
    assert runner.FORMATS is FORMATS and runner.UPLOAD_TYPES == list(FORMATS)
    assert runner.format_of("x.JSONL.gz") == "jsonl" and runner.format_of("x.csv.zip") is None
    assert sources.resolve_format(Path("x.pq"), None) == "parquet"
