"""Where a data record is in its file: the 1-based line it starts on.

Readers number records 0, 1, 2 ... (``ValidationIssue.row``); people and editors number
lines. A ``LineIndex`` maps one to the other for the rows that have issues, and
``with_lines`` puts the lines into the issues. A CSV header is line 1; blank lines (which
no reader counts as records) and line breaks inside quoted cells are counted, so the line
is the one an editor shows. The indexes are lazy: a file is scanned only when an issue
needs a line, and only as far as the last such row.
"""
from __future__ import annotations

import bz2
import csv
import gzip
import lzma
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, ClassVar, Protocol

from engine.events.report import ValidationIssue

__all__ = ["LineIndex", "OffsetLines", "TableLines", "CsvLines", "JsonlLines", "with_lines",
           "open_binary"]

_CHUNK = 1 << 22
# a line that no reader counts as a record (empty or only blanks), and a CR that is not
# part of CRLF (a line break for the readers)
_BLANK_LINE = re.compile(rb"\n[ \t]*\r?\n")
_LONE_CR = re.compile(rb"\r(?!\n)")


class LineIndex(Protocol):
    def lines(self, rows: Iterable[int]) -> dict[int, int]:
        """The line of each of ``rows`` that the index knows."""
        ...


@dataclass(frozen=True)
class OffsetLines:
    """``line = row + offset`` (one record per line, no blank lines)."""

    offset: int

    def lines(self, rows: Iterable[int]) -> dict[int, int]:
        return {r: r + self.offset for r in rows}


@dataclass(frozen=True)
class TableLines:
    """The line of every record, as a reader that knew them recorded them."""

    table: Sequence[int]

    def lines(self, rows: Iterable[int]) -> dict[int, int]:
        n = len(self.table)
        return {r: int(self.table[r]) for r in rows if 0 <= r < n}


def open_binary(path: Path) -> IO[bytes] | None:
    """The file's bytes, decompressed (.gz, .bz2, .xz); None for a format this cannot read."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".xz":
        return lzma.open(path, "rb")
    if suffix in (".zst", ".zip"):
        return None
    return open(path, "rb")


def _plain_lines(path: Path, quotes_matter: bool) -> bool | None:
    """True when every line is one record: no blank line, no lone CR, and (CSV) no quote
    that could hold a line break. None when the file cannot be read here."""
    fh = open_binary(path)
    if fh is None:
        return None
    tail = b"\n"  # a blank first line counts too
    with fh:
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                return True
            if quotes_matter and b'"' in chunk:
                return False
            data = tail + chunk
            if _BLANK_LINE.search(data) or _LONE_CR.search(data):
                return False
            tail = data[data.rfind(b"\n"):]


@dataclass
class _RecordLines(ABC):
    """Lines of a text file's records, found lazily: when every line is one record (no blank
    line, no lone CR, and for CSV no quote) record ``r`` is on line ``r + FIRST_LINE``;
    otherwise the file is read as far as the last wanted record (``_starts``)."""

    FIRST_LINE: ClassVar[int] = 1       # the line of record 0 in a file of plain lines
    QUOTES_MATTER: ClassVar[bool] = False  # whether a quote may hold a line break

    path: Path
    _fast: bool | None = field(default=None, init=False, repr=False)

    def lines(self, rows: Iterable[int]) -> dict[int, int]:
        wanted = sorted({r for r in rows if r >= 0})
        if not wanted:
            return {}
        if self._fast is None:
            self._fast = bool(_plain_lines(self.path, quotes_matter=self.QUOTES_MATTER))
        if self._fast:
            return OffsetLines(self.FIRST_LINE).lines(wanted)
        fh = open_binary(self.path)
        if fh is None:
            return {}
        out: dict[int, int] = {}
        want = set(wanted)
        last = wanted[-1]
        with fh:
            for row, line in self._starts(fh):
                if row in want:
                    out[row] = line
                if row >= last:
                    break
        return out

    @abstractmethod
    def _starts(self, fh: IO[bytes]) -> Iterator[tuple[int, int]]:
        """(record, the line it starts on) for every record of the file, in order."""


@dataclass
class CsvLines(_RecordLines):
    """Lines of a CSV/TSV file's records, counted as pandas counts records: blank lines are
    skipped, a quoted cell may span lines, the first record is the header (record -1)."""

    FIRST_LINE: ClassVar[int] = 2
    QUOTES_MATTER: ClassVar[bool] = True

    sep: str = ","

    def _starts(self, fh: IO[bytes]) -> Iterator[tuple[int, int]]:
        import io

        with io.TextIOWrapper(fh, encoding="utf-8-sig", errors="replace", newline="") as text:
            reader = csv.reader(text, delimiter=self.sep)
            row = -1  # the header is record -1
            start = 1
            for rec in reader:
                line = start
                start = reader.line_num + 1
                if not rec or (len(rec) == 1 and not rec[0].strip()):
                    continue  # a blank line: not a record
                yield row, line
                row += 1


@dataclass
class JsonlLines(_RecordLines):
    """Lines of a JSON Lines file's records: the non-blank lines."""

    def _starts(self, fh: IO[bytes]) -> Iterator[tuple[int, int]]:
        row = 0
        for number, raw in enumerate(fh, 1):
            if raw.strip():
                yield row, number
                row += 1


def with_lines(issues: list[ValidationIssue], index: LineIndex | None) -> list[ValidationIssue]:
    """``issues`` with ``line`` (and ``first_line``) set from ``index`` where it knows them."""
    if index is None:
        return issues
    rows = {i.row for i in issues if i.row is not None and i.line is None}
    rows |= {i.first_row for i in issues if i.first_row is not None and i.first_line is None}
    if not rows:
        return issues
    m = index.lines(rows)
    out = []
    for i in issues:
        upd = {}
        if i.row is not None and i.line is None and i.row in m:
            upd["line"] = m[i.row]
        if i.first_row is not None and i.first_line is None and i.first_row in m:
            upd["first_line"] = m[i.first_row]
        out.append(i.model_copy(update=upd) if upd else i)
    return out
