"""A CSV/TSV file read with pyarrow's CSV reader and typed as pandas would type it.

``small_csv`` reads a small file without pandas, cell by cell in Python; this module reads a
file of any size that ``load_events`` reads whole (up to ``sources.BATCH_ABOVE_BYTES``) with
pyarrow: every column as text (explicit types: nothing is inferred by the reader), then each
column typed with vectorised tests that decide exactly as ``small_csv._type_column`` decides
(which types the cells as pandas' reader does). The result is a ``small_csv.TextTable``, so the
same rules and the same event assembly (``load.load_table``) run on it, and
``tests/events/test_arrow_csv.py`` compares events and reports with the pandas path on random
and broken files.

It reads only what it is sure of and otherwise returns None (the caller reads with pandas):
the conditions of ``small_csv`` (UTF-8 without a byte-order mark, no carriage return or NUL, no
blank line, the same number of fields in every record, a plain header, at least one row, no
cell it is unsure of), except that a cell may be quoted when the quotes wrap the whole cell and
hold no quote, separator or line break (``"AAPL"``: both readers take the text between them).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engine.events.small_csv import _FALSE, _TRUE, TextColumn, TextTable, Unsure, _certainly_text
from engine.events.columns import T_MISSING, T_NUMBER
from engine.events.arrow_values import numbers_of, scalar
from engine.events.sources import check_csv_header

__all__ = ["read_arrow_csv", "arrow_csv_table", "ArrowTextColumn"]

# RE2 (pyarrow's regex engine) spellings of small_csv's patterns: \d is ASCII there; Python's
# \s under re.ASCII is [ \t\n\r\f\v] (RE2's \s lacks \v), so the class is written out.
_INT_RE = r"^[+-]?[0-9]{1,18}$"
_MAX_DIGITS = 60  # digits of a decimal read here (more: pandas decides)
_NUMBERISH_RE = r"^[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]*)?[ \t\n\r\f\v]*$"
_FLOAT_RE = (r"^[+-]?(?:(?P<w>[0-9]*)\.(?P<f>[0-9]*)(?:[eE](?P<e>[+-]?[0-9]+))?"
             r"|(?P<w2>[0-9]+)[eE](?P<e2>[+-]?[0-9]+))$")
_TRUE_RE = "^(?:" + "|".join(sorted(_TRUE)) + ")$"
_BOOL_RE = "^(?:" + "|".join(sorted(_TRUE | _FALSE)) + ")$"  # (pa.array of a list would import pandas)


class ArrowTextColumn(TextColumn):
    """A ``TextColumn`` that also keeps its Arrow array: times and codes come from it
    vectorised instead of cell by cell."""

    def __init__(self, kind: str, cells: list[Any] | None, numbers: np.ndarray | None = None, text: Any = None,
                 ints: np.ndarray | None = None) -> None:
        self._cells = cells
        super().__init__(kind, cells)  # type: ignore[arg-type]
        self.numbers = numbers  # float64 values (NaN for missing) of an int or float column
        self.text = text        # the Arrow strings ("" for missing) of a text column
        self.ints = ints        # the int64 values of an int column (0 for missing)

    # the cells of a number column are made when first read (most columns of a file are only read
    # for the rows events are built of: ``take``)
    @property  # type: ignore[override]
    def cells(self) -> list[Any]:
        if self._cells is None:
            self._cells = self.take(None)
        return self._cells

    @cells.setter
    def cells(self, value: list[Any] | None) -> None:
        self._cells = value

    def take(self, rows: np.ndarray | None) -> list[Any]:
        """The cells of ``rows`` (None: every row) as ``cells`` holds them: Python ints of an int
        column, floats of a float column, None where a cell is missing."""
        if self._cells is not None or self.numbers is None:
            cells = self.cells
            return cells if rows is None else [cells[i] for i in rows.tolist()]
        values = self.numbers if rows is None else self.numbers[rows]
        out = (self.ints if rows is None else self.ints[rows]).tolist() if self.kind == "int" else values.tolist()
        missing = np.isnan(values)
        if missing.any():
            for k in np.flatnonzero(missing).tolist():
                out[k] = None
        return out

    def parse_time(self) -> tuple[np.ndarray, np.ndarray]:
        if self.numbers is None:
            return super().parse_time()
        values = self.numbers
        codes = np.where(np.isnan(values), T_MISSING, T_NUMBER).astype(np.int8)
        return values.copy(), codes

    def factorize(self) -> tuple[np.ndarray, list[Any]]:
        if self.text is None:
            return super().factorize()
        import pyarrow.compute as pc

        # first appearance order, as ``TextColumn.factorize``; "" (missing) is code -1
        encoded = pc.dictionary_encode(self.text)
        codes = numbers_of(encoded.indices).astype(np.intp)
        uniques = encoded.dictionary.to_pylist()
        if "" not in uniques:
            return codes, uniques
        empty = uniques.index("")
        codes = np.where(codes == empty, -1, codes - (codes > empty))
        return codes, uniques[:empty] + uniques[empty + 1:]


def read_arrow_csv(path: Path, sep: str = ",") -> TextTable | None:
    """The file as a ``TextTable``; None when it holds something this module is unsure of (see
    the module). Raises ``DataError`` for a repeated header name, as the other readers do."""
    try:
        if not path.is_file() or path.suffix.lower() not in (".csv", ".tsv"):
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if data.startswith(b"\xef\xbb\xbf") or b"\r" in data or b"\x00" in data or b"\n\n" in data \
            or data.startswith(b"\n") or not _plain_quotes(data, sep):
        return None
    check_csv_header(path, sep)
    return arrow_csv_table(data, sep)


def arrow_csv_table(data: bytes, sep: str = ",") -> TextTable | None:
    """``read_arrow_csv`` of a file's bytes (a header line, then records) whose byte checks have
    passed (no byte-order mark, carriage return, NUL or blank line; plain quotes) and whose header
    names occur once: the Spark read hands it a header and one byte range of records."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    first = data.split(b"\n", 1)[0]
    try:
        names = [n[1:-1] if len(n) >= 2 and n[0] == n[-1] == '"' else n for n in first.decode("utf-8").split(sep)]
    except UnicodeDecodeError:
        return None
    if len(names) < 2 or any(not name or name != name.strip() for name in names) or len(set(names)) < len(names):
        return None  # (with two columns or more, a line of blanks is a record of one field: refused below)
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(use_threads=True, block_size=1 << 22),
            parse_options=pcsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=False,
                                            escape_char=False, newlines_in_values=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                check_utf8=True))
    except (pa.ArrowInvalid, pa.ArrowException, UnicodeDecodeError):
        return None  # a record with more or fewer fields, bad UTF-8 ...: the pandas path names it
    records = data.count(b"\n") + (0 if data.endswith(b"\n") else 1) - 1
    if table.num_rows == 0 or table.num_rows != records or table.column_names != names:
        return None
    try:
        columns = {name: _type_column(table.column(name).combine_chunks()) for name in names}
    except Unsure:
        return None
    return TextTable(names=names, data=columns, n=table.num_rows)


def _plain_quotes(data: bytes, sep: str) -> bool:
    """Every quote opens a cell (after a separator or a line break) or closes one (before
    them), as many open as close: no quote inside a cell, no escaped quote."""
    quotes = data.count(b'"')
    if not quotes:
        return True
    # one pass for the quotes' places, then their neighbours (a file's start and end count as line breaks)
    raw = np.frombuffer(data, dtype=np.uint8)
    at = np.flatnonzero(raw == ord('"'))
    before = np.where(at > 0, raw[np.maximum(at - 1, 0)], ord("\n"))
    after = np.where(at < len(raw) - 1, raw[np.minimum(at + 1, len(raw) - 1)], ord("\n"))
    s = ord(sep)
    opens = int(np.count_nonzero((before == s) | (before == ord("\n"))))
    closes = int(np.count_nonzero((after == s) | (after == ord("\n"))))
    return quotes == 2 * opens == 2 * closes


def _type_column(arr: Any) -> ArrowTextColumn:
    """``small_csv._type_column`` on an Arrow string array, vectorised; raises ``Unsure``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    present = pc.not_equal(arr, scalar(""))
    all_present = pc.all(present).as_py()
    n_present = pc.sum(present).as_py() or 0

    def every(mask: Any) -> bool:
        return pc.sum(pc.and_(mask, present)).as_py() == n_present if n_present else True

    def text_column() -> ArrowTextColumn:
        cells = arr.to_pylist()
        if not all_present:
            cells = [c if c != "" else None for c in cells]
        return ArrowTextColumn("text", cells, text=arr)

    ints = _plain_ints(arr, present)
    if ints is not None:
        return _int_column(ints, present, all_present)
    floats = _plain_decimals(arr, present)
    if floats is not None:
        return _float_column(floats, all_present)
    is_bool = pc.match_substring_regex(arr, _BOOL_RE)
    numberish = pc.match_substring_regex(arr, _NUMBERISH_RE)
    maybe_text = pc.and_(present, pc.invert(pc.or_(numberish, is_bool)))
    if pc.any(maybe_text).as_py():
        candidates = pc.unique(pc.filter(arr, maybe_text)).to_pylist()
        if any(_certainly_text(c) for c in candidates):
            return text_column()
    is_int = pc.match_substring_regex(arr, _INT_RE)
    if every(is_int):
        ints = pc.cast(pc.replace_substring_regex(pc.if_else(present, arr, scalar("0")), r"^\+", ""), pa.int64())
        return _int_column(ints, present, all_present)
    if every(is_bool):
        truth = pc.match_substring_regex(arr, _TRUE_RE).to_pylist()
        if not all_present:
            truth = [None if c == "" else t for c, t in zip(arr.to_pylist(), truth)]
        return ArrowTextColumn("bool", truth)
    # an integer cell of 16 digits or more in a float column: pandas re-reads the column as text
    # to keep it exact (``formats._rounds_integers``): left to it
    short_int = pc.and_(is_int, pc.less_equal(pc.utf8_length(pc.utf8_ltrim(arr, "+-")), scalar(15)))
    number = pc.or_(short_int, _float_cells(arr))
    if pc.any(pc.and_(is_bool, present)).as_py():
        if every(pc.or_(pc.or_(is_bool, is_int), number)):
            return text_column()
        raise Unsure("bool and other cells")
    if not every(number):
        raise Unsure("a cell pandas may read otherwise")
    return _float_column(pc.cast(pc.if_else(present, arr, scalar("nan")), pa.float64()), all_present)


def _int_column(ints: Any, present: Any, all_present: bool) -> ArrowTextColumn:
    """The int column of int64 values (0 where a cell is missing); its cells are made when read."""
    import pyarrow.compute as pc

    exact = numbers_of(ints)
    values = exact.astype(np.float64)
    if not all_present:
        values[numbers_of(pc.invert(present))] = np.nan
    return ArrowTextColumn("int", None, values, ints=exact)


def _float_column(floats: Any, all_present: bool) -> ArrowTextColumn:
    """The float column of float64 values (NaN where a cell is missing); its cells are made when read."""
    return ArrowTextColumn("float", None, numbers_of(floats))


def _plain_ints(arr: Any, present: Any) -> Any:
    """Fast path: int64 values when every present cell is ``-?[0-9]{1,18}`` as Arrow's own
    integer parser reads it (it refuses ``+5``, which the general path then takes); else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cells = pc.if_else(present, arr, scalar("0"))
    if not pc.all(pc.ascii_is_decimal(pc.utf8_ltrim(cells, "-"))).as_py():
        return None  # (checked first: a cast that fails costs as much as fifty that do not)
    try:
        ints = pc.cast(cells, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    longest = pc.max(pc.utf8_length(arr)).as_py() or 0
    if longest > 18 and (pc.max(pc.utf8_length(pc.utf8_ltrim(arr, "-"))).as_py() or 0) > 18:
        return None
    return ints


def _plain_decimals(arr: Any, present: Any) -> Any:
    """Fast path: float64 values when every present cell is a sign (at most one), digits and at
    most one point (in some cell), at least one digit: a decimal that Arrow's parser, Python's and
    pandas' ``round_trip`` all read as the nearest float; else None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    cells = pc.if_else(present, arr, scalar("0"))
    unsigned = pc.utf8_ltrim(cells, "+-")
    if pc.max(pc.subtract(pc.utf8_length(cells), pc.utf8_length(unsigned))).as_py() > 1:
        return None
    points = pc.count_substring(unsigned, ".")
    if pc.max(points).as_py() > 1 or not pc.sum(points).as_py():
        return None  # (no point anywhere: integers, some signed "+5", which the general path types)
    digits = pc.replace_substring(unsigned, ".", "")
    if not pc.all(pc.ascii_is_decimal(digits)).as_py() or pc.max(pc.utf8_length(digits)).as_py() > _MAX_DIGITS:
        return None
    integer_digits = pc.if_else(pc.equal(points, scalar(0)), pc.utf8_length(digits), scalar(0))
    if pc.max(integer_digits).as_py() > 15:
        return None  # an integer a float64 may round, beside decimals: pandas keeps it exact
    try:
        return pc.cast(pc.if_else(present, arr, scalar("nan")), pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _float_cells(arr: Any) -> Any:
    """Per cell: a decimal that pandas (``round_trip``, ``formats.CSV_OPTIONS``) and Python read
    as the same float: a power of ten up to 300 (no overflow, no subnormal) and an exponent of at
    most 4 characters (``small_csv._float_cell`` also limits the digits to 15 and the power to 22,
    for pandas' default parser)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    shape = pc.match_substring_regex(arr, _FLOAT_RE)
    if not pc.any(shape).as_py():
        return shape
    parts = pc.extract_regex(pc.if_else(shape, arr, scalar("0.0")), _FLOAT_RE)
    whole = pc.coalesce(parts.field("w"), parts.field("w2"))
    frac = pc.coalesce(parts.field("f"), scalar(""))
    exp = pc.coalesce(parts.field("e"), parts.field("e2"), scalar(""))
    whole, frac, exp = (pc.if_else(pc.is_null(x), scalar(""), x) for x in (whole, frac, exp))
    # "." alone and ".e5" have no digit: not numbers ("1." and ".5" are)
    digits = pc.add(pc.utf8_length(whole), pc.utf8_length(frac))
    exp_len = pc.utf8_length(exp)
    exp_ok = pc.less_equal(exp_len, scalar(4))
    exp_value = pc.cast(pc.if_else(pc.and_(exp_ok, pc.greater(exp_len, scalar(0))),
                                   pc.replace_substring_regex(exp, r"^\+", ""), scalar("0")), pa.int64())
    power = pc.subtract(exp_value, pc.utf8_length(frac).cast(pa.int64()))
    ok = pc.and_(pc.and_(shape, pc.greater(digits, scalar(0))), pc.less_equal(digits, scalar(_MAX_DIGITS)))
    ok = pc.and_(pc.and_(ok, exp_ok), pc.less_equal(pc.abs(power), scalar(300)))
    return pc.fill_null(ok, scalar(False))

