"""Input formats: which reader a file needs (``resolve_format``) and the readers for CSV /
TSV, JSON Lines (or a JSON array of objects) and Parquet, each giving a pandas frame for
the validation rules. ``arrow_to_pandas`` is the one Arrow -> pandas conversion (the Spark
reader uses it too).
"""
from __future__ import annotations

import io
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from engine.events.arrow_json_depth import MAX_JSON_DEPTH, check_json_depth  # (no pandas there)
from engine.events.lines import CsvLines, JsonlLines, LineIndex, TableLines, open_binary, with_lines
from engine.events.report import DataError, ValidationIssue, show_value
from engine.events.sources import (COMPRESSION, FORMATS, check_csv_header, csv_header, is_json_array, open_text,
                      parquet_files, parquet_rows, resolve_format, short_error)

__all__ = ["FORMATS", "COMPRESSION", "CSV_OPTIONS", "resolve_format", "read_csv", "read_csv_batches",
           "csv_failure", "csv_header", "check_csv_header", "check_csv_fields",
           "read_jsonl", "check_json_depth", "MAX_JSON_DEPTH", "parse_json_line", "record_or_bad", "loads", "BadLine", "read_parquet",
           "is_json_array", "JsonlBatch", "read_jsonl_batches", "parquet_files", "read_parquet_batches",
           "parquet_rows",
           "arrow_to_pandas", "open_text"]

#: ``pandas.read_csv`` options of every CSV reader: values are what the file says (only an
#: empty cell is missing; "NA", "null", "nan" ... stay text), nullable dtypes, and decimals read
#: as the nearest float (``round_trip``: Python's parser; pandas' default one is off by a unit in
#: the last place on about one float in five written with 17 digits, as ``repr`` writes them).
CSV_OPTIONS: dict[str, Any] = {"dtype_backend": "numpy_nullable", "keep_default_na": False,
                               "na_values": [""], "float_precision": "round_trip"}


def read_csv(path: Path, sep: str = ",", text_columns: tuple[str, ...] = (),
             attributes: frozenset[str] | None = None) -> pd.DataFrame:
    """A CSV/TSV file as it is: every cell that is not empty keeps its text (no "NA" or
    "null" strings turned into missing values), an empty cell is missing, a duplicate
    header name is a ``DataError`` naming the column and line, a record with more or fewer
    fields than the header is a ``DataError`` naming its line (``check_csv_fields``), and a NUL
    byte in a cell stays in the value (for the control-character rule to report).
    ``text_columns`` that pandas does not type as integers, and the float columns among
    ``attributes`` holding a magnitude of 2**53 or more, are read again as text (interval
    bounds, and integers a float64 column would round: read exactly by the rules)."""
    what = "CSV" if sep == "," else "TSV"
    check_csv_header(path, sep)
    options: dict[str, Any] = dict(sep=sep, **CSV_OPTIONS)
    try:
        check_csv_fields(path, sep)
        sentinel = _nul_sentinel(path)
        with warnings.catch_warnings():
            # a column typed differently in pandas' internal chunks: the rules make number
            # text numbers either way (the warning would only confuse a person)
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            if sentinel is None:
                source: Any = path
            else:  # pandas' parser ends a cell at a NUL byte: read with a stand-in, then put NUL back
                with open_text(path) as f:
                    source = io.StringIO(f.read().replace("\x00", sentinel))
            df = pd.read_csv(source, **options)
            again = [c for c in df.columns if (c in text_columns and not pd.api.types.is_integer_dtype(df[c].dtype))
                     or (attributes is not None and c in attributes and _rounds_integers(df[c]))]
            if again:  # decimals, or integers a float64 column may have rounded: the cells' own text
                if sentinel is not None:
                    source.seek(0)
                text = pd.read_csv(source, usecols=again, dtype={c: "string" for c in again}, **options)
                again = [c for c in again if c in text_columns or _holds_big_integer(text[c])]
                if again:
                    df[again] = text[again]
        return df if sentinel is None else _restore_nul(df, sentinel)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, OSError, ValueError) as e:
        raise csv_failure(e, path, what) from None


def csv_failure(exc: BaseException, path: Path, what: str = "CSV") -> DataError:
    """The ``DataError`` for an exception of pandas' CSV reader (or ``exc`` itself when it
    is one already)."""
    if isinstance(exc, DataError):
        return exc
    if isinstance(exc, pd.errors.EmptyDataError):
        return DataError(f"'{path.name}' is empty: no header and no rows")
    if isinstance(exc, UnicodeDecodeError):
        return DataError(f"cannot read '{path.name}' as {what}: it is not UTF-8 text "
                         f"(is it a binary file?)")
    return DataError(f"cannot read '{path.name}' as {what}: {short_error(exc)}")


def read_csv_batches(path: Path, sep: str = ",", batch_rows: int = 100_000,
                     text_columns: tuple[str, ...] = ()) -> Iterator[pd.DataFrame]:
    """``read_csv`` a batch of ``batch_rows`` records at a time, with the same options,
    checks and messages (pandas types each batch on its own; the validation rules turn
    number text into numbers either way). Raises ``DataError`` like ``read_csv``."""
    what = "CSV" if sep == "," else "TSV"
    check_csv_header(path, sep)
    options: dict[str, Any] = dict(sep=sep, chunksize=batch_rows, **CSV_OPTIONS)
    if text_columns:
        options["dtype"] = {c: "string" for c in text_columns}
    try:
        check_csv_fields(path, sep)
        sentinel = _nul_sentinel(path)
        source: Any = path if sentinel is None else _NulReplacing(open_text(path), sentinel)
        with pd.read_csv(source, **options) as reader:
            for chunk in reader:
                yield chunk if sentinel is None else _restore_nul(chunk, sentinel)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, OSError, ValueError) as e:
        raise csv_failure(e, path, what) from None


class _NulReplacing(io.TextIOBase):
    """A text file whose NUL characters read as ``sentinel`` (pandas' parser ends a cell
    at NUL)."""

    def __init__(self, raw: IO[str], sentinel: str) -> None:
        self._raw, self._sentinel = raw, sentinel

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        return self._raw.read(size).replace("\x00", self._sentinel)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        return self._raw.readline(size).replace("\x00", self._sentinel)

    def close(self) -> None:
        self._raw.close()
        super().close()


def check_csv_fields(path: Path, sep: str = ",") -> None:
    """Raise ``DataError`` for the first record with more or fewer fields than the header,
    naming its line (pandas' reader fills the missing cells of a short record with missing
    values, so a short record is refused here). pandas' tokenizer refuses a long record,
    except when it is the first record of one of the chunks it reads a file in (every 2^17
    or so records, and every chunk of ``chunksize``): then it keeps the first fields and
    drops the rest without a word.
    pyarrow's parser (one column converted) counts the fields of every record."""
    import pyarrow.csv as pc

    found = csv_header(path, sep)
    if found is None:
        return
    names, _ = found
    first_bad: list[Any] = []
    blank = [0]  # whitespace-only lines before the bad record (pyarrow counts them, pandas does not)

    def handler(row: Any) -> str:
        if row.actual_columns != row.expected_columns and (row.text or "").strip():
            first_bad.append(row)  # more fields, or fewer (pandas would read them as missing)
            return "error"
        if not (row.text or "").strip():
            blank[0] += 1
        return "skip"

    fh: Any = str(path)
    if path.suffix.lower() in COMPRESSION:
        fh = open_binary(path)
        if fh is None:
            return
    try:
        reader = pc.open_csv(
            fh, read_options=pc.ReadOptions(use_threads=False, column_names=names, block_size=1 << 22),
            parse_options=pc.ParseOptions(delimiter=sep, newlines_in_values=True, ignore_empty_lines=True,
                                          invalid_row_handler=handler),
            convert_options=pc.ConvertOptions(include_columns=[names[0]], column_types={names[0]: pa.binary()}))
        for _ in reader:
            pass
    except (pa.ArrowException, OSError, ValueError, EOFError):
        if not first_bad:
            return  # something else is wrong; pandas' reader says what
    finally:
        if not isinstance(fh, str):
            fh.close()
    if not first_bad:
        return
    row = first_bad[0]
    what = "CSV" if sep == "," else "TSV"
    # pyarrow numbers records from 1 with the header as a record here (column_names given)
    data_row = (row.number or 0) - 2 - blank[0]
    line = CsvLines(path, sep).lines([data_row]).get(data_row) if data_row >= 0 else None
    where = f"in line {line}" if line is not None else f"in data row {data_row + 1}"
    text = row.text if len(row.text) <= 60 else row.text[:57] + "..."
    raise DataError(f"cannot read '{path.name}' as {what}: expected {row.expected_columns} fields {where}, "
                    f"saw {row.actual_columns}: {text!r}")


def _nul_sentinel(path: Path) -> str | None:
    """None when the file has no NUL byte; else a character the file does not contain
    (both found reading the file a chunk at a time)."""
    fh = open_binary(path)
    if fh is None:
        return None
    with fh:
        found = False
        while chunk := fh.read(1 << 22):
            if b"\x00" in chunk:
                found = True
                break
    if not found:
        return None
    # Unicode noncharacters: not in interchanged text
    free = [chr(code) for code in range(0xFDD0, 0xFDF0)]
    with open_text(path) as f:
        while free and (text := f.read(1 << 22)):
            free = [c for c in free if c not in text]
    if free:
        return free[0]
    raise DataError(f"cannot read '{path.name}': it holds NUL bytes and every stand-in character")


def _restore_nul(df: pd.DataFrame, sentinel: str) -> pd.DataFrame:
    df = df.rename(columns=lambda c: c.replace(sentinel, "\x00") if isinstance(c, str) else c)
    for c in df.columns:
        col = df[c]
        if col.dtype == object or isinstance(col.dtype, pd.StringDtype):
            has = col.str.contains(sentinel, regex=False, na=False)
            if has.any():
                col = col.astype(object)
                col[has] = col[has].str.replace(sentinel, "\x00", regex=False)
                df[c] = col
    return df


def _read_jsonl_arrow(path: Path) -> pd.DataFrame | None:
    """Fast path for well-typed JSON Lines (pyarrow, multi-threaded): ``arrow_jsonl``'s reading of
    the whole file, handed to pandas. Returns None when the file needs the exact Python reader: a
    column mixing types, nested values, a bad line, a duplicate key, a whole number in a decimal
    column (pyarrow would read ``1`` beside ``1.5`` as ``1.0``; the exact reader keeps the int)."""
    from engine.events.arrow_jsonl import read_jsonl_arrow

    try:
        read = read_jsonl_arrow(path)
        if read is None:
            return None
        table = read[0]
        for f in table.schema:
            if pa.types.is_floating(f.type) and _beyond_exact_floats(table.column(f.name)):
                return None  # pyarrow reads an integer beyond int64 as a double: read it exactly
        return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OSError):
        return None


def _rounds_integers(s: pd.Series) -> bool:
    """A float column holding a magnitude of 2**53 or more: an integer cell there may have
    been rounded (``9007199254740993`` next to ``0.5``); read as text, the rules keep it an int."""
    if not pd.api.types.is_float_dtype(s.dtype):
        return False
    values = s.to_numpy(dtype="float64", na_value=np.nan)
    finite = values[np.isfinite(values)]
    return bool(finite.size) and float(np.abs(finite).max()) >= 2.0 ** 53


def _holds_big_integer(text: pd.Series) -> bool:
    """A cell of this text column is an integer a float64 would round (magnitude >= 2**53)."""
    cells = text.dropna()
    ints = cells[cells.str.fullmatch(r"\s*[+-]?[0-9]{16,}\s*")]
    return any(abs(int(v)) >= 2**53 for v in ints.tolist() if len(v.strip()) <= 4300)


def _beyond_exact_floats(column: Any) -> bool:
    """A float column holding a magnitude of 2**53 or more (where a double may be a rounded
    integer of the file: the Python reader keeps such integers exact)."""
    import pyarrow.compute as pc

    top = pc.max(pc.abs(column)).as_py()
    return top is not None and top >= 2.0 ** 53


@dataclass
class BadLine:
    """A JSON line that is not usable, and why."""

    reason: str
    code: str = "bad_json"


class _Object(dict):
    """A decoded JSON object that repeats a key (here or in a nested object)."""

    duplicate: str = ""


def _nested_duplicate(v: Any) -> str:
    if isinstance(v, _Object):
        return v.duplicate
    if isinstance(v, list):
        for x in v:
            d = _nested_duplicate(x)
            if d:
                return d
    return ""


def _object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: a plain dict, or an ``_Object`` naming a repeated key."""
    d = dict(pairs)
    dup = ""
    if len(d) < len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                dup = k
                break
            seen.add(k)
    else:
        for v in d.values():
            if isinstance(v, (list, _Object)):
                dup = _nested_duplicate(v)
                if dup:
                    break
    if not dup:
        return d
    obj = _Object(d)
    obj.duplicate = dup
    return obj


def loads(text: str) -> Any:
    """``json.loads`` that marks objects repeating a key (see ``record_or_bad``)."""
    return json.loads(text, object_pairs_hook=_object_pairs)


def record_or_bad(item: Any) -> dict[str, Any] | BadLine:
    """A decoded JSON line as a record, or why it is not one: not an object, or an object
    that repeats a key (a reader would keep only one of the values)."""
    if isinstance(item, BadLine):
        return item
    if not isinstance(item, dict):
        return BadLine(f"not a JSON object: {show_value(item)}")
    if isinstance(item, _Object):
        return BadLine(f"duplicate key '{item.duplicate}' in the JSON object", code="duplicate_key")
    return item


def parse_json_line(line: str) -> dict[str, Any] | BadLine:
    """One JSON line as a record, or why it is not one."""
    try:
        return record_or_bad(loads(line))
    except json.JSONDecodeError as e:
        return BadLine(f"invalid JSON: {e.msg} at column {e.colno}")
    except RecursionError:
        return BadLine("invalid JSON: nested too deeply")


def parse_json_lines(lines: list[str]) -> list[Any]:
    """Non-blank JSON lines decoded (objects that repeat a key marked, as :func:`loads` does):
    one ``json.loads`` for all of them, line by line (each a record or a ``BadLine``) only when
    that fails, to say which line is wrong and why."""
    try:
        items = loads("[" + ",".join(lines) + "]")
        if len(items) == len(lines):
            return items
    except (json.JSONDecodeError, RecursionError):
        pass
    return [parse_json_line(line) for line in lines]


def read_jsonl(path: Path) -> tuple[pd.DataFrame, np.ndarray | None, list[ValidationIssue], LineIndex | None]:
    """JSON Lines (one object per line; a JSON array of objects is accepted too).

    Returns the frame, each frame row's input row (0-based number among non-blank lines;
    None when it is the frame position), issues for lines that are not JSON objects or
    repeat a key (those rows are rejected), and the line of each row (None for an array).
    A file nested deeper than ``MAX_JSON_DEPTH`` is refused first (``check_json_depth``)."""
    check_json_depth(path)
    # a JSON array (one text over many lines) is read by Python's parser, which refuses deep
    # nesting itself (RecursionError); pyarrow reads JSON Lines only
    df = None if is_json_array(path) else _read_jsonl_arrow(path)
    if df is not None:
        return df, None, [], JsonlLines(path)
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    issues: list[ValidationIssue] = []
    try:
        with open_text(path) as f:
            text = f.read()
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as JSON Lines: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except (OSError, EOFError) as e:
        raise DataError(f"cannot read '{path.name}': {short_error(e)}") from None
    stripped = text.lstrip()
    if not stripped:
        raise DataError(f"'{path.name}' is empty: no rows")
    items: list[Any] | None = None
    line_numbers: list[int] | None = None
    if stripped.startswith("["):
        try:
            data = loads(text)
        except json.JSONDecodeError as e:
            raise DataError(f"cannot read '{path.name}' as JSON: {e.msg} at line {e.lineno}, "
                            f"column {e.colno}") from None
        except RecursionError:
            raise DataError(f"cannot read '{path.name}' as JSON: nested too deeply") from None
        items = data if isinstance(data, list) else [data]
    else:
        numbered = [(k, ln) for k, ln in enumerate(text.split("\n"), 1) if ln.strip()]
        line_numbers = [k for k, _ in numbered]
        lines = [ln for _, ln in numbered]
        items = parse_json_lines(lines)
    for row, item in enumerate(items):
        rec = record_or_bad(item)
        if isinstance(rec, BadLine):
            issues.append(ValidationIssue(row=row, column=None, code=rec.code, reason=rec.reason))
            continue
        records.append(rec)
        rows.append(row)
    index = TableLines(line_numbers) if line_numbers is not None else None
    if not records:
        first = with_lines(issues[:1], index)[0].format() if issues else "no objects"
        raise DataError(f"cannot read '{path.name}' as JSON Lines: no line is a JSON object "
                        f"({first})")
    df = pd.DataFrame(records, dtype=object)
    return df, np.asarray(rows, dtype=np.int64), issues, index


@dataclass
class JsonlBatch:
    """Up to ``batch_rows`` records of a JSON Lines file: the frame (object columns), the
    input row of each frame row, issues for the lines that are not records (rejected), and
    the file line of each input row of the batch (``lines[row - first_row]``)."""

    frame: pd.DataFrame
    rows: np.ndarray
    issues: list[ValidationIssue]
    first_row: int
    lines: list[int]

    def line_of(self, row: int) -> int | None:
        k = row - self.first_row
        return self.lines[k] if 0 <= k < len(self.lines) else None


def read_jsonl_batches(path: Path, batch_rows: int = 100_000) -> Iterator[JsonlBatch]:
    """JSON Lines ``batch_rows`` non-blank lines at a time, parsed as ``read_jsonl``'s exact
    reader parses them (the same records, rejections and messages; lines are the file's).
    A JSON array is not read here (``is_json_array``). Raises ``DataError`` for a file that
    is not UTF-8 text, when no line at all is a JSON object, and for a file nested deeper
    than ``MAX_JSON_DEPTH`` (before the first batch)."""
    check_json_depth(path)
    row = 0
    any_record = False
    first_issue: list[ValidationIssue] = []
    try:
        with open_text(path) as f:
            texts: list[str] = []
            numbers: list[int] = []
            for number, text in enumerate(f, 1):
                if not text.strip():
                    continue
                texts.append(text)
                numbers.append(number)
                if len(texts) >= batch_rows:
                    batch = _jsonl_batch(texts, numbers, row)
                    row += len(texts)
                    any_record = any_record or len(batch.frame) > 0
                    first_issue = first_issue or batch.issues[:1]
                    texts, numbers = [], []
                    yield batch
            if texts:
                batch = _jsonl_batch(texts, numbers, row)
                any_record = any_record or len(batch.frame) > 0
                first_issue = first_issue or batch.issues[:1]
                yield batch
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as JSON Lines: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except (OSError, EOFError) as e:
        raise DataError(f"cannot read '{path.name}': {short_error(e)}") from None
    if not any_record:
        if not first_issue:
            raise DataError(f"'{path.name}' is empty: no rows")
        raise DataError(f"cannot read '{path.name}' as JSON Lines: no line is a JSON object "
                        f"({first_issue[0].format()})")


def _jsonl_batch(texts: list[str], numbers: list[int], first_row: int) -> JsonlBatch:
    lines = [t.rstrip("\n") for t in texts]
    items = parse_json_lines(lines)
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    issues: list[ValidationIssue] = []
    for k, item in enumerate(items):
        rec = record_or_bad(item)
        if isinstance(rec, BadLine):
            issues.append(ValidationIssue(row=first_row + k, column=None, code=rec.code, reason=rec.reason,
                                          line=numbers[k]))
            continue
        records.append(rec)
        rows.append(first_row + k)
    frame = pd.DataFrame(records, dtype=object) if records else pd.DataFrame()
    return JsonlBatch(frame=frame, rows=np.asarray(rows, dtype=np.int64), issues=issues,
                      first_row=first_row, lines=numbers)


def read_parquet_batches(path: Path, batch_rows: int = 100_000) -> Iterator[pd.DataFrame]:
    """``read_parquet`` ``batch_rows`` rows at a time (``ParquetFile.iter_batches``)."""
    import pyarrow.parquet as pq

    for name in parquet_files(path):
        try:
            pf = pq.ParquetFile(name)
            batches = pf.iter_batches(batch_size=batch_rows)
            for batch in batches:
                yield arrow_to_pandas(batch)
        except (pa.ArrowException, OSError, ValueError, OverflowError) as e:
            raise DataError(f"cannot read '{path.name}' as Parquet: {short_error(e)}") from None


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
        raise DataError(f"cannot read '{path.name}' as Parquet: {short_error(e)}") from None
    try:
        return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, OverflowError) as e:
        raise DataError(f"cannot convert '{path.name}' from Parquet: {short_error(e)}") from None

