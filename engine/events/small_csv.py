"""A small CSV/TSV file without pandas: ``TextTable`` types the cells as pandas' reader
(``formats.read_csv``) would type them, so that the one set of validation rules
(``validation.RULES``, through ``columns.Table``) and the one event assembly
(``records.assemble_events``) give the same events and the same report as the pandas
path; ``cep run`` on a small file then starts without pandas (importing pandas is most of the start-up time).

It reads only what it is sure of, and says so by returning None (``read_small_csv``,
``load_small_csv``): the caller then reads the file with pandas. Sure means:

- the file is uncompressed, at most ``SMALL_BYTES``, UTF-8 without a byte-order mark, and
  holds no quote, carriage return or NUL (pandas' tokenizer treats those specially);
- no blank line, no record with more or fewer fields than the header (the pandas path
  has the message for it), a header of distinct, non-empty names without surrounding blanks
  (a repeated name is the ``DataError`` of ``sources.check_csv_header``), at least one row;
- a column is typed as pandas types it (``_type_column``): all cells integers (or empty):
  ``int``; integers and decimals: ``float``; ``True``/``False`` spellings: ``bool``; a cell
  that is certainly not a number: text. A cell pandas might read as a number although it is
  not one here (``" 5"``, ``"inf"``, ``"1e400"``, more than 15 digits ...) makes it unsure;
- a time cell is a number, an ISO date-time of the forms ``_DATETIME`` matches in the
  years 1900-2199, or a value no parser takes (no digit, not a special word): else unsure.

``tests/events/test_small_csv.py`` runs random files (broken ones too) through both paths and
compares events and reports exactly.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.events.columns import T_BAD, T_DATETIME, T_MISSING, T_NUMBER
from engine.events.numbers import plain_kind, text_number
from engine.events.sources import check_csv_header

__all__ = ["SMALL_BYTES", "TextColumn", "TextTable", "Unsure", "read_small_csv"]

SMALL_BYTES = 1 << 20

_INT = re.compile(r"[+-]?(\d+)", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:(\d+)\.(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?|[+-]?(\d+)[eE]([+-]?\d+)", re.ASCII)
# text that a number parser might take, with blanks, signs, words
_NUMBERISH = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d*)?\s*", re.ASCII)
_NUMBER_WORDS = {"inf", "infinity", "nan", "true", "false"}  # words a number or bool parser may take
_TIME_WORDS = _NUMBER_WORDS | {"now", "today", "nat"}        # and a date-time parser
_TRUE = {"True", "TRUE", "true"}
_FALSE = {"False", "FALSE", "false"}
_DATETIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})"
                       r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?", re.ASCII)
_EPOCH = _dt.date(1970, 1, 1).toordinal()


class Unsure(Exception):
    """The file holds something whose reading by pandas this module does not know."""


# --------------------------------------------------------------------------- cells

def _int_cell(text: str) -> int | None:
    m = _INT.fullmatch(text)
    if m is None or len(m.group(1)) > 18:
        return None
    return int(text)


def _float_cell(text: str) -> float | None:
    """A decimal that both pandas and Python read as the same float (at most 15 digits
    and a power of ten up to 22: one correctly rounded operation); None otherwise."""
    m = _FLOAT.fullmatch(text)
    if m is None:
        return None
    if m.group(5) is not None:
        whole, frac, exp = m.group(5), "", m.group(6)
    else:
        whole, frac, exp = m.group(1) or "", m.group(2) or m.group(3) or "", m.group(4)
    digits = (whole + frac).lstrip("0")
    e = int(exp or 0) - len(frac)
    if len(whole + frac) > 15 or len(digits) > 15 or abs(e) > 22 or (exp is not None and len(exp) > 4):
        return None
    return float(text)


def _certainly_text(text: str, words: set[str] = _NUMBER_WORDS) -> bool:
    """No number or bool parser (nor one for ``words``) takes this cell."""
    if _NUMBERISH.fullmatch(text):
        return False
    return text.strip().lower().lstrip("+-") not in words


# --------------------------------------------------------------------------- columns

@dataclass
class TextColumn:
    """A ``columns.Column`` of a small CSV file: ``kind`` is "int", "float", "bool" or
    "text" (pandas' Int64, Float64, boolean, string); ``cells`` the values as pandas holds
    them (None for missing)."""

    kind: str
    cells: list[Any]

    @property
    def is_object(self) -> bool:
        return False

    @property
    def is_text(self) -> bool:
        return self.kind == "text"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    def raw(self, i: int) -> Any:
        return self.cells[i]

    def objects(self) -> np.ndarray:
        out = np.empty(len(self.cells), dtype=object)
        out[:] = self.cells
        return out

    def values(self) -> tuple[list[Any], str | None]:
        kind = {"int": "number", "float": "number", "bool": "bool", "text": "string"}[self.kind]
        return self.cells, kind

    def infinite(self) -> np.ndarray:
        return np.zeros(len(self.cells), dtype=bool)  # floats here are finite (``_float_cell``)

    def factorize(self) -> tuple[np.ndarray, list[Any]]:
        index: dict[Any, int] = {}
        codes = np.fromiter((-1 if v is None else index.setdefault(v, len(index)) for v in self.cells),
                            dtype=np.intp, count=len(self.cells))
        return codes, list(index)

    def parse_time(self) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.cells)
        values = np.full(n, np.nan)
        codes = np.full(n, T_MISSING, dtype=np.int8)
        for i, v in enumerate(self.cells):
            if v is None:
                continue
            if self.kind == "bool":
                codes[i] = T_BAD
            elif self.kind == "text":
                codes[i], values[i] = _time_text(v)
            else:
                codes[i], values[i] = T_NUMBER, float(v)
        return values, codes


def _time_text(text: str) -> tuple[int, float]:
    """The outcome and value of a text time cell, as ``times.parse_time`` gives them."""
    number = _int_cell(text)
    if number is not None:
        if len(text.lstrip("+-")) > 15 or (number == 0 and text.startswith("-")):
            raise Unsure(text)  # the sign of -0 depends on the other cells' types there
        return T_NUMBER, float(number)
    decimal = _float_cell(text)
    if decimal is not None:
        return T_NUMBER, decimal
    m = _DATETIME.fullmatch(text)
    if m is not None:
        return _datetime(m)
    if not text.strip():
        return T_MISSING, float("nan")
    if _certainly_text(text, _TIME_WORDS) and text.isascii() and not any(c.isdigit() for c in text):
        return T_BAD, float("nan")
    raise Unsure(text)


def _datetime(m: re.Match[str]) -> tuple[int, float]:
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    hour, minute, second = (int(m.group(k) or 0) for k in (4, 5, 6))
    if not 1900 <= year < 2200:
        raise Unsure(m.group(0))
    try:
        date = _dt.date(year, month, day)
    except ValueError:
        return T_BAD, float("nan")
    if hour > 23 or minute > 59 or second > 59:
        return T_BAD, float("nan")
    offset = 0
    tz = m.group(8)
    if tz and tz != "Z":
        oh, om = int(tz[1:3]), int(tz[4:6])
        if oh > 14 or om > 59:
            raise Unsure(tz)
        offset = (oh * 3600 + om * 60) * (1 if tz[0] == "+" else -1)
    seconds = (date.toordinal() - _EPOCH) * 86400 + hour * 3600 + minute * 60 + second - offset
    frac = (m.group(7) or "").ljust(9, "0")
    ns = seconds * 1_000_000_000 + int(frac or 0)
    return T_DATETIME, float(ns) / 1e9  # as pandas: float(ns) / float(1e9)


def _type_column(cells: list[str]) -> TextColumn:
    """The column pandas' reader makes of these cells ("" is missing); raises ``Unsure``."""
    present = [c for c in cells if c != ""]
    if any(_certainly_text(c) and c not in _TRUE and c not in _FALSE for c in present):
        return TextColumn("text", [c if c != "" else None for c in cells])
    ints = [_int_cell(c) for c in present]
    if all(v is not None for v in ints):
        return TextColumn("int", [None if c == "" else _int_cell(c) for c in cells])
    if all(c in _TRUE or c in _FALSE for c in present):
        return TextColumn("bool", [None if c == "" else c in _TRUE for c in cells])
    if any(c in _TRUE or c in _FALSE for c in present):
        if all(c in _TRUE or c in _FALSE or v is not None or _float_cell(c) is not None
               for c, v in zip(present, ints)):
            return TextColumn("text", [c if c != "" else None for c in cells])
        raise Unsure("bool and other cells")
    floats = []
    for c, v in zip(present, ints):
        if v is not None and len(c.lstrip("+-")) <= 15:
            f: float | None = float(c)  # "-0" is -0.0 in a float column, as in pandas
        else:
            f = _float_cell(c)
        if f is None:
            raise Unsure(c)
        floats.append(f)
    it = iter(floats)
    return TextColumn("float", [None if c == "" else next(it) for c in cells])


@dataclass
class TextTable:
    """A ``columns.Table`` of a small CSV file (see the module)."""

    names: list[str]
    data: dict[str, TextColumn]
    n: int

    @property
    def columns(self) -> list[str]:
        return list(self.names)

    def __len__(self) -> int:
        return self.n

    def column(self, name: str) -> TextColumn:
        return self.data[name]

    def attr_values(self, name: str, keep: list[int]) -> tuple[list[Any], str | None]:
        """The plain values of the kept rows of an attribute column, as the pandas path
        makes them: number text in a text column becomes numbers (``text_number``)."""
        col = self.data[name]
        take = getattr(col, "take", None)  # a column that makes its cells when read (arrow_csv)
        cells = take(np.asarray(keep, dtype=np.intp)) if take is not None else [col.cells[i] for i in keep]
        if col.kind != "text":
            return cells, col.values()[1]
        values = [text_number(v) for v in cells]
        return values, plain_kind(map(type, values))


def read_small_csv(path: Path, sep: str = ",") -> TextTable | None:
    """The file as a ``TextTable``; None when it is not a small plain CSV/TSV file or holds
    a cell this module is unsure of (see the module). Raises ``DataError`` for a repeated
    header name, as ``formats.read_csv`` does."""
    try:
        if not path.is_file() or path.suffix.lower() not in (".csv", ".tsv") \
                or path.stat().st_size > SMALL_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if data.startswith(b"\xef\xbb\xbf") or any(b in data for b in (b'"', b"\r", b"\x00")):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or any(not line.strip(" \t") for line in lines):
        return None
    check_csv_header(path, sep)
    names = lines[0].split(sep)
    if any(not name or name != name.strip() for name in names) or len(set(names)) < len(names):
        return None
    width = len(names)
    rows = []
    for line in lines[1:]:
        fields = line.split(sep)
        if len(fields) != width:
            return None  # more or fewer fields than the header: the pandas path names the line
        rows.append(fields)
    try:
        columns = {name: _type_column([r[k] for r in rows]) for k, name in enumerate(names)}
    except Unsure:
        return None
    return TextTable(names=names, data=columns, n=len(rows))
