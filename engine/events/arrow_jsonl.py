"""JSON Lines read with pyarrow's JSON reader, validated over Arrow columns, without pandas.

``formats.read_jsonl`` reads JSON Lines with pyarrow and hands the table to pandas when every
column is plainly typed, and otherwise with Python's ``json`` module (the exact reader) into an
object frame; ``formats.read_jsonl_batches`` reads batches with the exact reader only. This module
gives the same events, rows and report without pandas: the text parsed by ``pyarrow.json``
(explicit string types for the columns pyarrow would read as time stamps), the table validated by
the same rules over ``arrow_table.ArrowTable`` (``load.load_table``, ``BatchReader._table_batch``).

It answers only where the Arrow reading, the exact reader and pandas' reading of the Arrow table
all give the same values, and otherwise declines (None; the caller takes the path of today):

- the text: UTF-8 without a byte-order mark, no carriage return outside a CRLF line end (Python's
  text files break lines at a lone CR, pyarrow does too, but the line numbers differ), no NUL
  character (``\\u0000``: pandas' factorizing of the event types cuts strings at it), every
  non-blank line ``{...}`` and one JSON object that pyarrow parses (a line Python's parser
  refuses, a repeated key, a line that is not an object or holds two, NaN or Infinity, a number
  beyond the float range: declined);
- the columns: integers (int64: exact), decimals, booleans, strings and all-null columns (lists
  and objects are declined);
- a whole number in a decimal column: pyarrow reads ``1`` beside ``1.5`` as the float ``1.0``,
  Python as the int ``1``, ``-0`` beside a decimal as ``-0.0``, an integer beyond 64 bits as a
  rounded double. The lines holding one are looked up (one RE2 count): declined when they hold
  more members written as integers than their int64 columns have values (``152.0`` and ``1e2``
  are floats in both readers, and integers in an int64 column ints in both);
- a decimal id column (pandas' reading turns whole floats into ints, the exact reader does not).

So the integers of a file read here stay ints, as the exact reader keeps them; where
``read_jsonl``'s pyarrow path would make them floats (``1`` beside ``1.5``), this module declines,
and ``read_jsonl`` answers as before.

``tests/events/test_arrow_jsonl.py`` compares it with the exact reader and with ``read_jsonl`` on
random and broken files, whole and in batches of 1-5 rows.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["read_jsonl_arrow", "jsonl_arrow_table", "load_jsonl_arrow", "JsonlTextBatch", "arrow_jsonl_batches",
           "clean_text"]

_BLOCK = 1 << 22          # pyarrow's block: a line longer than this is declined
_SNIFF = 1 << 19          # bytes whose parse says which columns are time-stamp-like text
_BOM = b"\xef\xbb\xbf"
_LONE_CR = re.compile(rb"\r(?!\n)")


def clean_text(data: bytes) -> bool:
    """No byte-order mark at the start, no carriage return but in CRLF, no NUL character (written
    ``\\u0000``: pandas compares strings only up to a NUL when it factorizes the event types, so
    the exact reader takes ``"\\u0000"`` for ``""``), valid UTF-8."""
    if data.startswith(_BOM) or b"\\u0000" in data:
        return False
    if b"\r" in data and _LONE_CR.search(data):
        return False
    return _valid_utf8(data)


def _valid_utf8(data: bytes) -> bool:
    """``data`` is UTF-8 (checked by Arrow's validation of one string over the bytes)."""
    import pyarrow as pa

    if data.isascii():
        return True
    offsets = np.array([0, len(data)], dtype=np.int64)
    arr = pa.Array.from_buffers(pa.large_string(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    try:
        arr.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


#: an integer written as the value of an object member (RE2): ``"x": 12,`` ``"x":-3}``
_INTEGER_MEMBER = r":[ \t]*-?[0-9]+[ \t]*[,}]"


def _integer_members(data: bytes) -> int:
    """How many member values of the text are written as integers (one pass of RE2 over the
    whole text; a string holding such text counts too)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets = np.array([0, len(data)], dtype=np.int64)
    text = pa.Array.from_buffers(pa.large_string(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    return pc.sum(pc.count_substring_regex(text, _INTEGER_MEMBER)).as_py() or 0


def _parse(data: bytes, explicit: Any = None) -> Any:
    import pyarrow as pa
    import pyarrow.json as pj

    parse = pj.ParseOptions(newlines_in_values=False) if explicit is None else \
        pj.ParseOptions(explicit_schema=explicit, unexpected_field_behavior="infer", newlines_in_values=False)
    return pj.read_json(pa.BufferReader(data), read_options=pj.ReadOptions(use_threads=True, block_size=_BLOCK),
                        parse_options=parse)


def jsonl_arrow_table(data: bytes, lines: Sequence[int]) -> Any:
    """The Arrow table of JSON Lines text ``data`` whose non-blank lines are ``lines`` (1-based),
    each ``OBJECT`` shaped, or None when this module declines it (see the module)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    records = len(lines)
    if not records or not clean_text(data):
        return None
    try:
        table = _as_text_stamps(data)
    except (pa.ArrowException, ValueError, OSError, UnicodeDecodeError):
        return None
    if table.num_rows != records or table.num_columns == 0:
        return None
    whole = np.zeros(table.num_rows, dtype=bool)  # rows where a decimal column holds a whole number
    integers = np.zeros(table.num_rows, dtype=np.int64)  # values of the int64 columns per row
    for f in table.schema:
        t = f.type
        col = table.column(f.name)
        if pa.types.is_floating(t):
            if col.null_count == len(col):
                continue
            if pc.any(pc.or_(pc.is_nan(col), pc.is_inf(col))).as_py():
                return None  # NaN, Infinity: Python's reader and pyarrow's differ on their spellings
            whole |= _true(pc.equal(pc.floor(col), col))
        elif pa.types.is_int64(t):
            integers += ~_true(pc.is_null(col))
        elif not (pa.types.is_boolean(t) or pa.types.is_string(t) or pa.types.is_large_string(t)
                  or pa.types.is_null(t)):
            return None
    # in those rows, every value of an int64 column is written as an integer: any other integer
    # member is a whole number pyarrow read as a decimal (``1`` beside ``1.5``, ``-0``, beyond 64
    # bits), or text inside a string (declined all the same)
    if whole.any():
        at = np.flatnonzero(whole)
        indexes = at + (lines.start - 1) if isinstance(lines, range) else np.asarray(lines, dtype=np.int64)[at] - 1
        if _integer_members(_lines_at(data, indexes)) != int(integers[at].sum()):
            return None
    return table


def _stamps(table: Any) -> list[str]:
    import pyarrow as pa

    return [f.name for f in table.schema if pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)]


def _as_text_stamps(data: bytes) -> Any:
    """pyarrow's table of the text with the columns it would read as time stamps or dates read as
    the strings they are. The first ``_SNIFF`` bytes say which columns those are (one parse of the
    whole text, those columns given as strings, in the order of first appearance: the sniff's
    columns first); where the sniff missed one, the whole text is parsed again, as it first was."""
    import pyarrow as pa

    cut = data.find(b"\n", _SNIFF) + 1 if len(data) > 2 * _SNIFF else 0  # (the lines that start in the sniff)
    if 0 < cut < len(data):
        sniff = _parse(data[:cut])
        stamps = _stamps(sniff)
        if stamps:
            table = _parse(data, pa.schema([pa.field(name, pa.string()) for name in stamps]))
            if not _stamps(table):
                order = sniff.schema.names
                return table.select(order + [n for n in table.schema.names if n not in set(order)])
    table = _parse(data)
    stamps = _stamps(table)
    if stamps:  # pyarrow reads time-stamp-like strings as time stamps: read them as the strings they are
        order = table.schema.names
        table = _parse(data, pa.schema([pa.field(f.name, pa.string()) if f.name in stamps else f
                                        for f in table.schema]))
        if table.schema.names != order:
            table = table.select(order)
    return table


def _true(mask: Any) -> np.ndarray:
    """An Arrow bool array (nulls: False) as numpy bools."""
    import pyarrow.compute as pc

    from engine.events.arrow_values import numbers_of, scalar

    return numbers_of(pc.fill_null(mask, scalar(False))) if mask.null_count else numbers_of(mask)


def _lines_at(data: bytes, indexes: np.ndarray) -> bytes:
    """The lines of ``data`` at these 0-based indexes, joined by line breaks."""
    breaks = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    starts = np.concatenate(([0], breaks + 1))[indexes].tolist()
    ends = np.concatenate((breaks, [len(data)]))[indexes].tolist()
    return b"\n".join([data[a:b] for a, b in zip(starts, ends)])


BLANK, OBJECT, OTHER = 0, 1, 2


def line_kind(line: bytes) -> int | None:
    """``BLANK`` (the exact reader skips it: ``str.strip`` leaves nothing), ``OBJECT`` (starts with
    ``{`` and ends with ``}``, blanks aside: one JSON object if it parses and holds one), ``OTHER``,
    or None (not UTF-8)."""
    stripped = line.strip()
    if stripped[:1] == b"{":
        return OBJECT if stripped[-1:] == b"}" else OTHER
    if not stripped:
        return BLANK
    try:
        return OTHER if line.decode("utf-8").strip() else BLANK
    except UnicodeDecodeError:
        return None


def _records(data: bytes) -> list[int] | range | None:
    """The 1-based line number of every non-blank line; None when a non-blank line is not
    ``OBJECT`` shaped (so that with one row per line, no object spans lines)."""
    if data.startswith(b"{"):  # every line {...} (no blank or other line): checked with numpy
        raw = np.frombuffer(data, dtype=np.uint8)
        breaks = np.flatnonzero(raw == 10)
        ends = breaks if data.endswith(b"\n") else np.append(breaks, len(data))
        if bool(np.all(raw[ends - 1] == 125)) and bool(np.all(raw[ends[:-1] + 1] == 123)):  # "}" ends, "{" starts
            return range(1, len(ends) + 1)
    out: list[int] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        kind = line_kind(line)
        if kind == OBJECT:
            out.append(number)
        elif kind != BLANK:
            return None
    return out


def read_jsonl_arrow(path: Path) -> tuple[Any, list[int]] | None:
    """A whole JSON Lines file as an Arrow table and the line of each record, or None (see the
    module). Raises ``DataError`` as ``read_jsonl`` does for a file nested too deeply."""
    from engine.events.arrow_json_depth import check_json_depth
    from engine.events.lines import open_binary
    from engine.events.sources import is_json_array

    check_json_depth(path)
    if is_json_array(path):
        return None
    try:
        fh = open_binary(path)
        if fh is None:
            return None
        with fh:
            data = fh.read()
    except (OSError, EOFError, ValueError):
        return None
    numbers = _records(data)
    if numbers is None:
        return None
    table = jsonl_arrow_table(data, numbers)
    return None if table is None else (table, numbers)


def load_jsonl_arrow(path: Path, mapping: Any, types: Any = None, lazy: bool = False) -> Any:
    """``load.load_events`` of a JSON Lines file through Arrow (a ``LoadResult``; ``lazy``: its events
    as an ``EventColumns``), or None when this module or the rules decline it."""
    from engine.events.arrow_table import read_arrow_table
    from engine.events.lines import TableLines
    from engine.events.load import load_table
    from engine.events.mapping import guess_mapping

    read = read_jsonl_arrow(path)
    if read is None:
        return None
    table, numbers = read
    if mapping is None:
        mapping = guess_mapping(table.column_names)
    if float_column(table, mapping.id_col):
        return None
    arrow = read_arrow_table(table)
    if arrow is None:
        return None
    return load_table(arrow, mapping, TableLines(numbers), types, lazy)


def float_column(table: Any, name: str | None) -> bool:
    """``name`` is a decimal column of the Arrow table (an id column declined: see the module)."""
    import pyarrow as pa

    return name is not None and name in table.column_names and pa.types.is_floating(table.schema.field(name).type)


# --------------------------------------------------------------------------- batches

@dataclass
class JsonlTextBatch:
    """``batch_rows`` non-blank lines of a JSON Lines file: their first input row, the line of
    each, the ``ArrowTable`` of their records (``table``; None where this module declines them)
    and their bytes (``texts()``: as the exact reader reads them, for ``formats._jsonl_batch``)."""

    first_row: int
    lines: list[int]
    table: Any = None
    raw: list[bytes] | None = None

    def line_of(self, row: int) -> int | None:
        k = row - self.first_row
        return self.lines[k] if 0 <= k < len(self.lines) else None

    def texts(self) -> list[str]:
        """The lines as the exact reader's text file gives them (CRLF read as LF)."""
        return [ln.decode("utf-8").replace("\r\n", "\n") for ln in self.raw or []]


def arrow_jsonl_batches(path: Path, batch_rows: int) -> Iterator[JsonlTextBatch] | None:
    """The batches of ``formats.read_jsonl_batches`` (the same non-blank lines in each, the same
    ``DataError`` for a file nested too deeply), each with its Arrow table where this module is
    sure of it; None when the file is not one this module reads (compressed, a byte-order mark, a
    lone CR, not UTF-8: checked here, reading the file once)."""
    from engine.events.arrow_json_depth import check_json_depth

    if path.suffix.lower() in (".gz", ".bz2", ".xz", ".zst", ".zip") or not _clean_file(path):
        return None
    check_json_depth(path)
    return _batches(path, batch_rows)


def _clean_file(path: Path) -> bool:
    """``clean_text`` of the whole file, read a block at a time (each cut after a line break)."""
    try:
        with path.open("rb") as f:
            if f.read(3) == _BOM:
                return False
            f.seek(0)
            carry = b""
            while True:
                block = f.read(8 << 20)
                data = carry + block
                if not block:
                    return clean_text(data)
                cut = data.rfind(b"\n") + 1
                if not clean_text(data[:cut]):
                    return False
                carry = data[cut:]
    except OSError:
        return False


def _batches(path: Path, batch_rows: int) -> Iterator[JsonlTextBatch]:
    row = 0
    with path.open("rb") as f:
        pending: list[bytes] = []
        numbers: list[int] = []
        shaped = True
        for number, line in enumerate(f, 1):
            kind = line_kind(line)
            if kind == BLANK:
                continue
            shaped = shaped and kind == OBJECT
            pending.append(line)
            numbers.append(number)
            if len(pending) >= batch_rows:
                yield _batch(pending, numbers, row, shaped)
                row += len(pending)
                pending, numbers, shaped = [], [], True
        if pending:
            yield _batch(pending, numbers, row, shaped)


def _batch(lines: list[bytes], numbers: list[int], first_row: int, shaped: bool) -> JsonlTextBatch:
    from engine.events.arrow_table import read_arrow_table

    table = None
    if shaped:
        data = b"".join(lines)
        arrow = jsonl_arrow_table(data if data.endswith(b"\n") else data + b"\n", range(1, len(lines) + 1))
        table = None if arrow is None else read_arrow_table(arrow)
    return JsonlTextBatch(first_row=first_row, lines=numbers, table=table, raw=lines)
