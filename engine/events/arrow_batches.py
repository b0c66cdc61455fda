"""A CSV/TSV file read in batches with pyarrow's streaming reader, in bounded memory.

``BatchReader`` reads a big file a batch of ``batch_rows`` rows at a time. For a plain CSV/TSV file
(the conditions of ``arrow_csv``, checked here while streaming through the file once:
UTF-8 without a byte-order mark, no carriage return or NUL, no blank line, every quote wrapping a
whole cell and no quoted line break) the batches come from ``pyarrow.csv.open_csv``, every column
read as text, cut into batches of exactly ``batch_rows`` records (the chunks pandas' reader would
give), each typed by ``arrow_csv`` as pandas types a chunk (``TextBatch.table``). A batch holding a
cell ``arrow_csv`` is unsure of is handed to pandas' reader as the text it was
(``TextBatch.frame``), so every batch is typed as before. Memory holds one batch of text and
its events, whatever the file's size.
"""
from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.events.arrow_csv import _type_column
from engine.events.small_csv import TextTable, Unsure

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["TextBatch", "plain_header", "file_plain_header", "arrow_csv_batches", "sorted_csv", "STREAM_ABOVE_BYTES"]

_CHUNK = 8 << 20  # bytes read at a time by the checks


@dataclass
class TextBatch:
    """One batch of a CSV file: typed by ``arrow_csv`` (``table``), or read by pandas from its
    text (``frame``) where that typing was unsure; ``offset`` is its first input row."""

    offset: int
    table: TextTable | None = None
    frame: pd.DataFrame | None = None
    text: Any = None  # the batch's cells as an Arrow table of strings (for pandas, if needed)

    def __len__(self) -> int:
        return self.table.n if self.table is not None else len(self.frame)  # type: ignore[arg-type]


_PLAIN: dict[tuple[str, str, int, int], list[str] | None] = {}  # (path, sep, size, mtime) -> plain_header


def plain_header(path: Path, sep: str) -> list[str] | None:
    """``file_plain_header``, remembered for the file as it is (its size and modification time):
    ``cep run`` asks once to decide how to read a file and once to read it."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path.resolve()), sep, st.st_size, st.st_mtime_ns)
    if key not in _PLAIN:
        if len(_PLAIN) > 64:
            _PLAIN.clear()
        _PLAIN[key] = file_plain_header(path, sep)
    found = _PLAIN[key]
    return None if found is None else list(found)


def file_plain_header(path: Path, sep: str) -> list[str] | None:
    """The header's names when the file is plain enough for the Arrow batches (see the module)
    and every record has as many fields as the header (pandas' reader names the line of one
    that has not: such a file is left to it), else None. Reads the file once, ``_CHUNK`` bytes
    at a time, counting with numpy."""
    try:
        f = path.open("rb")
    except OSError:
        return None
    with f:
        first = f.read(_CHUNK)
        if first.startswith(b"\xef\xbb\xbf") or first.startswith(b"\n") or not first:
            return None
        header = first.split(b"\n", 1)[0]
        try:
            names = [n[1:-1] if len(n) >= 2 and n[0] == n[-1] == '"' else n
                     for n in header.decode("utf-8").split(sep)]
        except UnicodeDecodeError:
            return None
        if len(names) < 2 or any(not n or n != n.strip() or '"' in n for n in names) or len(set(names)) < len(names):
            return None
        fields = _FieldCount(ord(sep), len(names) - 1)
        last = b""
        chunk = first
        while chunk:
            if b"\r" in chunk or b"\x00" in chunk or b"\n\n" in last[-1:] + chunk or not fields.add(chunk):
                return None
            last = chunk
            chunk = f.read(_CHUNK)
        if not fields.end(last.endswith(b"\n")):
            return None
    return names


class _FieldCount:
    """Per line: an even number of quotes, each opening quote at the start of a cell and each
    closing one at its end (no line break inside quotes, no quote inside a cell, as
    ``arrow_csv`` requires), and exactly ``seps`` separators outside quotes; and at least one
    record after the header."""

    def __init__(self, sep: int, seps: int) -> None:
        self.sep, self.seps = sep, seps
        self.parity = 0       # quotes so far on the current line, modulo 2
        self.on_line = 0      # separators outside quotes so far on the current line
        self.before = 10      # the byte before the chunk (a line break at the start of the file)
        self.closing = False  # the chunk before ended with a closing quote: a cell's end must follow
        self.breaks = 0

    def add(self, chunk: bytes) -> bool:
        data = np.frombuffer(chunk, dtype=np.uint8)
        if self.closing and data[0] not in (10, self.sep):
            return False
        breaks = np.flatnonzero(data == 10)
        quotes = np.flatnonzero(data == 34)
        seps = np.flatnonzero(data == self.sep)
        if quotes.size:
            if np.any((np.searchsorted(quotes, breaks) + self.parity) % 2):
                return False  # a line break inside quotes
            outside = seps[(np.searchsorted(quotes, seps) + self.parity) % 2 == 0]
            opening = (np.arange(quotes.size) + self.parity) % 2 == 0
            before = data[np.maximum(quotes - 1, 0)]
            before[quotes == 0] = self.before
            last = len(data) - 1
            after = data[np.minimum(quotes + 1, last)]
            at_end = quotes == last
            ok = np.where(opening, (before == self.sep) | (before == 10),
                          (after == self.sep) | (after == 10) | at_end)
            if not ok.all():
                return False
            self.closing = bool(at_end[-1] and not opening[-1])
        else:
            outside = seps
            self.closing = False
        per_line = np.bincount(np.searchsorted(breaks, outside), minlength=breaks.size + 1)
        per_line[0] += self.on_line
        if np.any(per_line[:-1] != self.seps):
            return False
        self.on_line = int(per_line[-1])
        self.parity = int((self.parity + quotes.size) % 2)
        self.before = int(data[-1])
        self.breaks += int(breaks.size)
        return True

    def end(self, ends_with_break: bool) -> bool:
        """The last line (without a line break at the end of the file) is complete too, and
        there is a record after the header."""
        records = self.breaks - (1 if ends_with_break else 0)
        return self.parity == 0 and records >= 1 and (ends_with_break or self.on_line == self.seps)


def arrow_csv_batches(path: Path, sep: str, names: list[str], batch_rows: int) -> Iterator[TextBatch]:
    """The file's records in batches of ``batch_rows`` (the last one shorter), each typed (see the
    module). Raises ``DataError`` (through ``csv_failure``) for what the reader refuses."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from engine.events.report import DataError
    from engine.events.sources import short_error

    try:
        # a Python file: given a path (or an Arrow file), the reader reads ahead through the whole
        # file and holds it (120 MB for a 120 MB file); from a Python file it holds a few blocks
        source = path.open("rb")
        reader = pcsv.open_csv(
            source,
            read_options=pcsv.ReadOptions(use_threads=True, block_size=1 << 22),
            parse_options=pcsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=False, escape_char=False,
                                            newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowException, OSError) as e:
        if "source" in locals():
            source.close()
        raise DataError(f"cannot read '{path.name}' as {'CSV' if sep == ',' else 'TSV'}: {short_error(e)}") from None
    offset = 0
    pending: list[Any] = []
    held = 0
    try:
        for rb in reader:
            pending.append(rb)
            held += rb.num_rows
            while held >= batch_rows:
                table = pa.Table.from_batches(pending)
                yield _typed(table.slice(0, batch_rows), offset, sep, names)
                offset += batch_rows
                rest = table.slice(batch_rows)
                pending = rest.to_batches()
                held = rest.num_rows
    except (pa.ArrowInvalid, pa.ArrowException) as e:
        raise DataError(f"cannot read '{path.name}' as {'CSV' if sep == ',' else 'TSV'}: {short_error(e)}") from None
    finally:
        source.close()
    if held:
        yield _typed(pa.Table.from_batches(pending), offset, sep, names)


def _typed(table: Any, offset: int, sep: str, names: list[str]) -> TextBatch:
    """A batch typed by ``arrow_csv``; a column it is unsure of sends the batch to pandas."""
    try:
        columns = {name: _type_column(table.column(name).combine_chunks()) for name in names}
    except Unsure:
        return TextBatch(offset=offset, frame=pandas_frame(table, sep, names), text=table)
    return TextBatch(offset=offset, table=TextTable(names=names, data=columns, n=table.num_rows), text=table)


def pandas_frame(table: Any, sep: str, names: list[str]) -> pd.DataFrame:
    """pandas' reading of a batch's text (the chunk ``read_csv_batches`` would give): the
    cells written back as CSV text (a cell holding the separator quoted, as it was)."""
    import warnings

    import pandas as pd

    from engine.events.formats import CSV_OPTIONS

    columns = [table.column(n).to_pylist() for n in names]
    out = io.StringIO()
    out.write(sep.join(names) + "\n")
    for row in zip(*columns):
        out.write(sep.join(f'"{c}"' if sep in c else c for c in row) + "\n")
    out.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.DtypeWarning)
        return pd.read_csv(out, sep=sep, **CSV_OPTIONS)


#: a plain CSV/TSV file above this size whose times are sorted numbers is read in batches by
#: default (``sorted_csv``): the same events in bounded memory. Below it a whole read is faster
#: (OpenCEP's stream shape, 150,150 rows, 8.6 MB: ``cep run`` 1.17-1.21 s whole against 1.33-1.57 s
#: in batches) and its memory is bounded by this size (250-290 MB at 8.6 MB)
STREAM_ABOVE_BYTES = 12 << 20


def sorted_csv(path: Path, mapping: Any = None) -> bool:
    """A plain CSV/TSV file (``plain_header``) of point events whose time column holds only
    numbers, sorted (ties allowed): read in batches, it gives the events a whole read gives (which
    sorts) without holding them. Streams the time column alone; False at the first doubt (a
    missing, text or date-time value, or one out of order)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from engine.events.arrow_csv import _plain_decimals, _plain_ints
    from engine.events.arrow_values import numbers_of, scalar
    from engine.events.mapping import guess_mapping

    sep = "\t" if path.suffix.lower() == ".tsv" else ","
    names = plain_header(path, sep)
    if names is None:
        return False
    m = mapping or guess_mapping(names)
    if m.is_interval or m.ts_col not in names:
        return False
    import pyarrow.compute as pc

    last = None
    with path.open("rb") as source:
        try:
            reader = pcsv.open_csv(
                source, read_options=pcsv.ReadOptions(use_threads=True, block_size=1 << 22),
                parse_options=pcsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=False, escape_char=False,
                                                newlines_in_values=False, ignore_empty_lines=False),
                convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                    include_columns=[m.ts_col], strings_can_be_null=False,
                                                    quoted_strings_can_be_null=False))
            for rb in reader:
                cells = rb.column(0)
                present = pc.not_equal(cells, scalar(""))
                if not pc.all(present).as_py():
                    return False
                typed = _plain_ints(cells, present)
                if typed is None:
                    typed = _plain_decimals(cells, present)
                if typed is None:
                    return False
                values = numbers_of(typed)
                if not len(values):
                    continue
                if (last is not None and values[0] < last) or bool((values[1:] < values[:-1]).any()):
                    return False
                last = values[-1]
        except (pa.ArrowInvalid, pa.ArrowException, OSError):
            return False
    return True


# --------------------------------------------------------------------------- the duplicate-id memory

#: a remembered id's first row and, where the batch knew it, its line (-1: none)
Hit = tuple[int, int, "int | None"]


class IdMemory:
    """The ids ``BatchReader`` remembers for its duplicate check across batches: the last
    ``window`` to ``2 * window`` distinct ids (a ``new`` generation that becomes the ``old`` one
    when it holds ``window`` ids, the old one then forgotten), each with the row and line it was
    first seen on.

    ``find`` gives, for a batch's ids in row order, the positions whose id was seen before (in an
    earlier batch, or earlier in this batch) with the first row and line, and remembers the rest.
    Integer ids of a batch whose column is typed as integers go through numpy (sorted arrays,
    ``searchsorted``; the ids of a batch above every remembered one are not looked up at all);
    any other batch, and every batch after one, through two dicts, one id at a time (the
    reference: ``tests/events/test_arrow_batches.py`` checks that both give the same)."""

    def __init__(self, window: int) -> None:
        self.window = max(1, int(window))
        self.new: dict[Any, int | tuple[int, int]] = {}
        self.old: dict[Any, int | tuple[int, int]] = {}
        empty = np.empty(0, dtype=np.int64)
        self._ints: list[list[np.ndarray]] | None = [[empty, empty, empty], [empty, empty, empty]]  # new, old

    @property
    def numeric(self) -> bool:
        """Whether the memory is still held in numpy arrays (every batch so far had integer ids)."""
        return self._ints is not None

    def find(self, ids: list[Any], rows: np.ndarray, lines: np.ndarray | None, ints: np.ndarray | None,
             line_of: Any = None) -> list[Hit]:
        """(position in the batch, first row, first line or None) for every repeated id; ``ids``
        the batch's ids (Python values), ``rows`` their input rows, ``lines`` their lines (-1 where
        unknown) or None, ``ints`` the ids as int64 when the batch's column holds integers only
        (None otherwise), ``line_of`` a row's line for the dict path (None: no lines)."""
        if ints is not None and self._ints is not None:
            return self._find_ints(ints, np.asarray(rows, dtype=np.int64), lines)
        self._to_dicts()
        return self._find_dicts(ids, rows, line_of)

    # -- the reference: one id at a time

    def _find_dicts(self, ids: list[Any], rows: Any, line_of: Any) -> list[Hit]:
        new, old = self.new, self.old
        hits: list[Hit] = []
        for k, (ident, row) in enumerate(zip(ids, np.asarray(rows).tolist())):
            try:
                first = new.get(ident)
                if first is None:
                    first = old.get(ident)
            except TypeError:  # unhashable: refused by the rules already
                continue
            if first is not None:
                hits.append((k, first, None) if type(first) is int else (k, *first))  # type: ignore[misc]
            else:
                line = None if line_of is None else line_of(row)  # (a CSV batch knows no lines: the row alone)
                new[ident] = row if line is None else (row, line)
                if len(new) >= self.window:
                    self.old, self.new = new, {}
                    new, old = self.new, self.old
        return hits

    def _to_dicts(self) -> None:
        if self._ints is None:
            return
        for generation, arrays in zip(("new", "old"), self._ints):
            ids, rows, lines = (a.tolist() for a in arrays)
            setattr(self, generation, {i: (r if ln < 0 else (r, ln)) for i, r, ln in zip(ids, rows, lines)})
        self._ints = None

    # -- integer ids through numpy

    def _find_ints(self, ids: np.ndarray, rows: np.ndarray, lines: np.ndarray | None) -> list[Hit]:
        assert self._ints is not None
        if lines is None:
            lines = np.full(len(ids), -1, dtype=np.int64)
        found_k: list[np.ndarray] = []
        found_row: list[np.ndarray] = []
        found_line: list[np.ndarray] = []
        pos = 0
        while pos < len(ids):
            seg = ids[pos:]
            n = len(seg)
            # in id order (a stable sort keeps each id's first row first): remembered ids, and each
            # row's first occurrence in the segment
            if n < 2 or bool(np.all(seg[1:] > seg[:-1])):
                order = np.arange(n)
                ordered = seg
                starts = np.ones(n, dtype=bool)
            else:
                order = np.argsort(seg, kind="stable")
                ordered = seg[order]
                starts = np.empty(n, dtype=bool)
                starts[0] = True
                starts[1:] = ordered[1:] != ordered[:-1]
            first_row, first_line, found = self._lookup(ordered)  # (sorted needles: a faster search)
            first_of = order[np.flatnonzero(starts)][np.cumsum(starts) - 1]
            insert = np.empty(n, dtype=bool)
            insert[order] = ~found & starts
            room = self.window - len(self._ints[0][0])
            counted = np.cumsum(insert)
            rotate = bool(counted[-1] >= room)
            end = int(np.searchsorted(counted, room)) + 1 if rotate else n  # the row that fills the window
            # rows up to ``end`` seen before: remembered, or earlier in the segment (remembered then)
            repeated = np.flatnonzero((found | ~starts) & (order < end))
            if repeated.size:
                at = order[repeated]
                earlier = first_of[repeated] + pos
                from_memory = found[repeated]
                found_k.append(at + pos)
                found_row.append(np.where(from_memory, first_row[repeated], rows[earlier]))
                found_line.append(np.where(from_memory, first_line[repeated], lines[earlier]))
            keep = order[np.flatnonzero(~found & starts & (order < end))] + pos  # (in id order)
            self._remember(ids[keep], rows[keep], lines[keep])
            if rotate:
                self._ints = [self._ints[0], self._ints[0]]
                empty = np.empty(0, dtype=np.int64)
                self._ints[0] = [empty, empty, empty]
            pos += end
        if not found_k:
            return []
        k = np.concatenate(found_k)
        by_row = np.argsort(k, kind="stable")
        k, r, ln = (a[by_row].tolist() for a in (k, np.concatenate(found_row), np.concatenate(found_line)))
        if min(ln) >= 0:
            return list(zip(k, r, ln))
        return [(a, b, None if c < 0 else c) for a, b, c in zip(k, r, ln)]

    def _lookup(self, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """First row, first line and whether remembered, for every id of ``seg``."""
        assert self._ints is not None
        n = len(seg)
        first_row = np.full(n, -1, dtype=np.int64)
        first_line = np.full(n, -1, dtype=np.int64)
        found = np.zeros(n, dtype=bool)
        low = int(seg.min()) if n else 0
        high = int(seg.max()) if n else 0
        for ids, rows, lines in self._ints:
            if not len(ids) or low > ids[-1] or high < ids[0]:
                continue  # (ids above every remembered one: nothing to look up)
            at = np.minimum(np.searchsorted(ids, seg), len(ids) - 1)
            hit = (ids[at] == seg) & ~found
            first_row[hit] = rows[at[hit]]
            first_line[hit] = lines[at[hit]]
            found |= hit
        return first_row, first_line, found

    def _remember(self, ids: np.ndarray, rows: np.ndarray, lines: np.ndarray) -> None:
        """Add distinct ids in increasing order (none remembered yet) to the new generation, kept
        sorted."""
        assert self._ints is not None
        if not len(ids):
            return
        have, have_rows, have_lines = self._ints[0]
        if not len(have) or ids[0] > have[-1]:
            self._ints[0] = [np.concatenate((have, ids)), np.concatenate((have_rows, rows)),
                             np.concatenate((have_lines, lines))]
            return
        at = np.searchsorted(have, ids)
        self._ints[0] = [np.insert(have, at, ids), np.insert(have_rows, at, rows), np.insert(have_lines, at, lines)]
