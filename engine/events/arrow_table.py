"""Arrow tables (Parquet, or a ``pyarrow.Table`` handed in) validated without pandas.

``ArrowTable`` is the ``columns.Table`` of the validation rules over typed Arrow arrays: every
method gives exactly what ``pandas_table.FrameTable(formats.arrow_to_pandas(table))`` gives (the
nullable integer, boolean and string dtypes, float NaN for null, ``datetime64`` in the column's
unit, ``datetime.date`` objects, categoricals of dictionary-encoded strings, numpy arrays for
lists), so the same rules and the same event assembly (``load.load_table``) give the same events
and the same report as ``load.load_with_pandas``. ``tests/events/test_arrow_table.py`` runs random
tables written to Parquet through both paths.

It reads only what it is sure of and otherwise declines (``read_arrow_table`` returns None, or a
column raises ``small_csv.Unsure`` while the rules run, and ``arrow_load.load_arrow`` returns None): the
caller then takes the pandas path. Sure means every column is one of: integers, floats,
booleans, decimals (floats in pandas' values), strings (plain, large, or dictionary-encoded
with a string dictionary), time stamps in the years pandas holds in nanoseconds (naive, UTC, a
fixed offset, or a zone name pytz knows, as pandas reads them), dates in that range, the null type, lists of integers, floats, booleans or strings (a null inside a list of numbers
makes every number of the column's lists a float, as pandas does) and structs of those
(no null in an integer field: pandas makes floats of it, per chunk as the file was read); a pandas
schema note (a file pandas wrote) only with a plain range index and string column names; a
type or time column only of the types whose pandas reading is plain here.

Python values are made without pyarrow's pandas check (see ``arrow_values``): numbers through
the buffer protocol, strings through a dictionary of the distinct values.
"""
from __future__ import annotations

import datetime as _dt
import json
from typing import Any

import numpy as np

from engine.events.columns import T_BAD, T_DATETIME, T_INFINITE, T_MISSING, T_NUMBER
from engine.events.numbers import plain_kind
from engine.events.small_csv import Unsure, _time_text

__all__ = ["ArrowColumn", "ArrowTable", "read_arrow_table", "arrow_batch_table", "supported_type"]

_INTS = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
         "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64}
_FLOATS = {"halffloat": np.float16, "float": np.float32, "double": np.float64}
_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
#: time stamps beyond about the year 2255 (or before 1685) overflow pandas' nanoseconds
_SECONDS_LIMIT = 9_000_000_000
_DAYS_LIMIT = _SECONDS_LIMIT // 86400
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


# --------------------------------------------------------------------------- buffers

def _buffer(arr: Any, dtype: Any) -> np.ndarray:
    """The value buffer of a fixed-width Arrow array as numpy (undefined under nulls)."""
    dtype = np.dtype(dtype)
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)


def _valid(arr: Any) -> np.ndarray | None:
    """A bool per row: the value is not null (None when no value is)."""
    if not arr.null_count:
        return None
    import pyarrow.compute as pc

    return _bools(pc.is_valid(arr))


def _bools(arr: Any) -> np.ndarray:
    """An Arrow bool array without nulls as numpy bools."""
    bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little", count=arr.offset + len(arr))[arr.offset:].astype(bool)


def _with_none(values: list[Any], valid: np.ndarray | None) -> list[Any]:
    if valid is not None:
        for i in np.flatnonzero(~valid).tolist():
            values[i] = None
    return values


def _encoded(arr: Any) -> tuple[np.ndarray, list[Any]]:
    """Codes (-1 for null) into the distinct values in order of first appearance."""
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(arr)
    indices = enc.indices
    codes = _buffer(indices, np.int32).astype(np.intp)
    valid = _valid(indices)
    if valid is not None:
        codes[~valid] = -1
    return codes, enc.dictionary.to_pylist()


# --------------------------------------------------------------------------- columns

class ArrowColumn:
    """A ``columns.Column`` over one Arrow array, read as ``arrow_to_pandas`` would make it.

    ``kind``: "int", "float", "bool", "string", "category" (dictionary-encoded strings),
    "timestamp", "date", "decimal", "null", "list" or "struct"."""

    def __init__(self, kind: str, arr: Any) -> None:
        self.kind = kind
        self.arr = arr
        self.n = len(arr)
        self.valid = _valid(arr)
        self.inner_nan = False  # list: a number inside some list is null (see ``_lists``)
        self._cache: dict[str, Any] = {}

    # -- what pandas' dtype says

    @property
    def is_object(self) -> bool:
        return self.kind in ("date", "null", "list", "struct", "decimal")

    @property
    def is_text(self) -> bool:
        return self.kind in ("string", "date", "null", "list", "struct", "decimal")

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    # -- the values

    def _numbers(self) -> np.ndarray:
        """int / float / bool / timestamp / date: numpy values (float: NaN where null)."""
        got = self._cache.get("numbers")
        if got is None:
            t = str(self.arr.type)
            if self.kind == "int":
                got = _buffer(self.arr, _INTS[t])
            elif self.kind == "float":
                got = _buffer(self.arr, _FLOATS[t])
                if self.valid is not None:
                    got = np.where(self.valid, got, np.array(np.nan, dtype=got.dtype))
            elif self.kind == "bool":
                got = _bools(self.arr)
            elif self.kind == "timestamp":
                got = _buffer(self.arr, np.int64)
            else:  # date: days
                got = _buffer(self.arr, np.int32) if t == "date32[day]" else _buffer(self.arr, np.int64) // 86_400_000
            self._cache["numbers"] = got
        return got

    def _strings(self) -> tuple[np.ndarray, list[Any]]:
        """string / category: codes (-1 null) into the distinct strings, first appearance first."""
        got = self._cache.get("strings")
        if got is None:
            got = self._cache["strings"] = _encoded(self.arr)
        return got

    def _plain(self, keep: np.ndarray | None = None) -> list[Any]:
        """The plain Python value of every row (or of the rows ``keep``): None for null/NaN."""
        k = self.kind
        valid = self.valid if keep is None or self.valid is None else self.valid[keep]
        if k in ("int", "bool"):
            nums = self._numbers()
            return _with_none((nums if keep is None else nums[keep]).tolist(), valid)
        if k == "float":
            nums = self._numbers()
            if keep is not None:
                nums = nums[keep]
            out = nums.tolist()
            for i in np.flatnonzero(np.isnan(nums)).tolist():
                out[i] = None
            return out
        if k in ("string", "category"):
            codes, uniques = self._strings()
            lookup = np.empty(len(uniques) + 1, dtype=object)
            lookup[:-1] = uniques
            lookup[-1] = None
            return lookup[codes if keep is None else codes[keep]].tolist()
        if k == "null":
            return [None] * (self.n if keep is None else len(keep))
        if k == "decimal":
            floats = self._decimals()
            return floats if keep is None else [floats[i] for i in keep.tolist()]
        texts = self._texts()
        return texts if keep is None else [texts[i] for i in keep.tolist()]

    def _lists(self) -> list[Any]:
        """list: each list as pandas' numpy array's ``tolist`` gives it (numbers as floats, null
        as NaN, when a number inside some list of the column is null); struct: the dicts."""
        got = self._cache.get("lists")
        if got is None:
            got = self.arr.to_pylist()
            if self.inner_nan:
                nan = float("nan")
                got = [None if v is None else [nan if x is None else float(x) for x in v] for v in got]
            self._cache["lists"] = got
        return got

    def _decimals(self) -> list[float | None]:
        """decimal: each value as the float ``values.normalize`` makes of a ``Decimal``."""
        got = self._cache.get("decimals")
        if got is None:
            got = self._cache["decimals"] = [None if v is None else float(v) for v in self.arr.to_pylist()]
        return got

    def _texts(self) -> list[Any]:
        """timestamp / date / list: the text pandas' values become (``values.normalize``)."""
        got = self._cache.get("texts")
        if got is None:
            if self.kind in ("list", "struct"):
                got = [None if v is None else json.dumps(v, default=str) for v in self._lists()]
            elif self.kind == "date":
                got = _with_none([_date_text(d) for d in self._numbers().tolist()], self.valid)
            else:
                got = _with_none(_stamp_texts(self._numbers(), self.arr.type), self.valid)
            self._cache["texts"] = got
        return got

    def raw(self, i: int) -> Any:
        k = self.kind
        if self.valid is not None and not self.valid[i]:
            return float("nan") if k in ("float", "category") else None
        if k in ("int", "bool"):
            return self._numbers()[i].item()
        if k == "float":
            return self._numbers()[i]  # the numpy scalar: str(float32) is its shortest text
        if k == "timestamp":
            return _Shown(self._texts()[i].replace("T", " ", 1))  # str(pandas.Timestamp)
        if k == "date":
            return _EPOCH.date() + _dt.timedelta(days=int(self._numbers()[i]))
        if k in ("list", "struct"):
            return self._lists()[i]
        if k == "decimal":
            return self.arr[i].as_py()
        return self._plain(np.array([i]))[0]

    def objects(self) -> np.ndarray:
        out = np.empty(self.n, dtype=object)
        if self.kind == "date":
            days = self._numbers().tolist()
            out[:] = [_EPOCH.date() + _dt.timedelta(days=d) for d in days]
            if self.valid is not None:
                out[~self.valid] = None
        elif self.kind in ("list", "struct"):
            out[:] = self._lists()
        elif self.kind == "decimal":
            out[:] = self.arr.to_pylist()
        elif self.kind == "category":
            out[:] = self._plain()
            if self.valid is not None:
                out[~self.valid] = float("nan")
        else:
            out[:] = self._plain()
        return out

    def values(self) -> tuple[list[Any], str | None]:
        values = self._plain()
        return values, self._kind(values)

    def values_at(self, keep: np.ndarray) -> tuple[list[Any], str | None]:
        """``values`` of the rows ``keep`` (as the pandas path converts the kept rows)."""
        values = self._plain(keep)
        return values, self._kind(values, keep)

    def _kind(self, values: list[Any], keep: np.ndarray | None = None) -> str | None:
        """The kind ``values.column_values`` gives these rows."""
        k = self.kind
        if k in ("int", "float"):
            return "number"
        if k == "bool":
            return "bool"
        if k in ("string",):
            return "string"
        if k == "timestamp":
            return None if self.arr.type.tz is None else "string"
        valid = self.valid if keep is None or self.valid is None else self.valid[keep]
        some_null = valid is not None and not valid.all()
        if k == "category":  # astype(object): str and NaN
            return plain_kind({str, float} if some_null else {str}) if len(values) else plain_kind(())
        if k == "null" or not len(values) or (valid is not None and not valid.any()):
            return None  # object values all None
        return "number" if k == "decimal" else "string"  # decimals as floats, dates and lists as text

    def infinite(self) -> np.ndarray:
        if self.kind == "float":
            return np.isinf(self._numbers())
        return np.zeros(self.n, dtype=bool)

    def factorize(self) -> tuple[np.ndarray, list[Any]]:
        if self.kind in ("string", "category"):
            codes, uniques = self._strings()
            return codes, list(uniques)
        if self.kind == "null":
            return np.full(self.n, -1, dtype=np.intp), []
        if self.kind not in ("int", "bool", "float"):
            raise Unsure(f"a {self.kind} event type column")
        index: dict[Any, int] = {}
        codes = np.fromiter((-1 if v is None else index.setdefault(v, len(index)) for v in self._plain()),
                            dtype=np.intp, count=self.n)
        return codes, list(index)

    def parse_time(self) -> tuple[np.ndarray, np.ndarray]:
        n, k = self.n, self.kind
        values = np.full(n, np.nan)
        codes = np.full(n, T_MISSING, dtype=np.int8)
        valid = self.valid if self.valid is not None else np.ones(n, dtype=bool)
        if k == "null":
            return values, codes
        if k == "bool":
            codes[valid] = T_BAD
            return values, codes
        if k in ("int", "float"):
            arr = self._numbers().astype(np.float64)
            if self.valid is not None:
                arr[~self.valid] = np.nan
            finite = np.isfinite(arr)
            codes[finite] = T_NUMBER
            codes[np.isinf(arr)] = T_INFINITE
            values[finite] = arr[finite]
            return values, codes
        if k == "decimal":  # pandas.to_numeric of the Decimal objects: their floats
            arr = np.array([np.nan if v is None else v for v in self._decimals()], dtype=np.float64)
            codes[~np.isnan(arr)] = T_NUMBER
            return arr, codes
        if k in ("timestamp", "date"):
            nums = self._numbers().astype(np.int64)
            ns = nums * (86400 * 10**9 if k == "date" else _NS[self.arr.type.unit])
            secs = ns.astype(np.float64) / 1e9  # as pandas: nanoseconds as float / 1e9
            codes[valid] = T_DATETIME
            values[valid] = secs[valid]
            return values, codes
        if k in ("string", "category"):
            scodes, uniques = self._strings()
            parsed = [_time_text(u) for u in uniques]  # raises Unsure
            if parsed:
                ucodes = np.array([c for c, _ in parsed], dtype=np.int8)
                uvalues = np.array([v for _, v in parsed], dtype=np.float64)
                at = scodes >= 0
                codes[at] = ucodes[scodes[at]]
                values[at] = uvalues[scodes[at]]
            return values, codes
        raise Unsure(f"a {k} time column")


class _Shown(str):
    """A time stamp for messages (``str`` gives pandas' text; no ``item``)."""


def _date_text(days: int) -> str:
    return (_EPOCH.date() + _dt.timedelta(days=days)).isoformat()


def _stamp_texts(nums: np.ndarray, typ: Any) -> list[str]:
    """``pandas.Timestamp.isoformat`` of every value (naive, or in the column's time zone)."""
    unit = typ.unit
    per = _PER_SECOND[unit]
    secs, frac = np.divmod(nums.astype(np.int64), per)
    # microseconds in 6 digits; nanoseconds in 9 where they are not whole microseconds
    fractions = [("" if not f else f".{f:09d}" if unit == "ns" and f % 1000 else f".{f * 10**6 // per:06d}")
                 for f in frac.tolist()]
    tz = typ.tz
    if tz is not None and _fixed_offset(tz) is None:  # a named zone, as pandas reads it (pytz)
        zone = _named_zone(tz)
        out = []
        for s, f in zip(secs.tolist(), fractions):
            local = (_EPOCH_UTC + _dt.timedelta(seconds=s)).astimezone(zone).isoformat()
            out.append(local[:19] + f + local[19:])
        return out
    offset = 0 if tz is None else _fixed_offset(tz)
    suffix = "" if tz is None else _offset_text(offset)  # type: ignore[arg-type]
    return [(_EPOCH + _dt.timedelta(seconds=s)).isoformat() + f + suffix
            for s, f in zip((secs + offset).tolist(), fractions)]


def _named_zone(name: str) -> Any:
    """The pytz zone pandas gives a column of this zone name (None: not one pytz knows)."""
    try:
        import pytz
    except ImportError:
        return None
    try:
        return pytz.timezone(name)
    except (pytz.UnknownTimeZoneError, ValueError, KeyError):
        return None


def _fixed_offset(tz: str) -> int | None:
    """The UTC offset of UTC or a fixed ``+HH:MM``; None for a named zone."""
    if tz in ("UTC", "+00:00"):
        return 0
    if len(tz) == 6 and tz[0] in "+-" and tz[3] == ":" and tz[1:3].isdigit() and tz[4:6].isdigit() \
            and int(tz[1:3]) < 24 and int(tz[4:6]) < 60:
        sign = 1 if tz[0] == "+" else -1
        return sign * (int(tz[1:3]) * 3600 + int(tz[4:6]) * 60)
    return None


def _offset_text(offset: int) -> str:
    sign = "+" if offset >= 0 else "-"
    hours, rest = divmod(abs(offset), 3600)
    return f"{sign}{hours:02d}:{rest // 60:02d}"


# --------------------------------------------------------------------------- types

def supported_type(typ: Any) -> str | None:
    """The ``ArrowColumn`` kind of an Arrow type this module reads, or None."""
    import pyarrow as pa

    t = pa.types
    if t.is_integer(typ):
        return "int"
    if t.is_floating(typ):
        return "float"
    if t.is_boolean(typ):
        return "bool"
    if t.is_string(typ) or t.is_large_string(typ):
        return "string"
    if t.is_dictionary(typ):
        value = typ.value_type
        return "category" if t.is_string(value) or t.is_large_string(value) else None
    if t.is_timestamp(typ):
        tz = typ.tz
        if tz is None or _fixed_offset(tz) is not None or (tz != "UTC" and _named_zone(tz) is not None):
            return "timestamp"
        return None
    if t.is_date32(typ) or t.is_date64(typ):
        return "date"
    if t.is_decimal(typ):
        return "decimal"
    if t.is_null(typ):
        return "null"
    if t.is_struct(typ):
        fields = [typ.field(i).type for i in range(typ.num_fields)]
        if all(t.is_integer(f) or t.is_boolean(f) or t.is_string(f) or t.is_large_string(f)
               or (t.is_floating(f) and not t.is_float16(f)) for f in fields):
            return "struct"
        return None
    if t.is_list(typ) or t.is_large_list(typ):
        value = typ.value_type
        if t.is_integer(value) or t.is_boolean(value) or t.is_string(value) or t.is_large_string(value) \
                or (t.is_floating(value) and not t.is_float16(value)):
            return "list"
    return None


def _column(arr: Any) -> ArrowColumn | None:
    """The column of an Arrow array, or None when its pandas reading is not plain here."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_struct(arr.type):
        chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
        if supported_type(arr.type) is None or any(_int_field_nulls(chunk) for chunk in chunks):
            return None
        return ArrowColumn("struct", arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr)
    if isinstance(arr, pa.ChunkedArray):
        if pa.types.is_dictionary(arr.type):
            if supported_type(arr.type) is None or any(_repeated_categories(c.dictionary) for c in arr.chunks):
                return None
            arr = pc.cast(arr, arr.type.value_type)  # the unified categories' values
            return ArrowColumn("category", arr.combine_chunks())
        arr = arr.combine_chunks()
    kind = supported_type(arr.type)
    if kind is None:
        return None
    if kind == "category":
        if _repeated_categories(arr.dictionary):
            return None
        arr = pc.cast(arr, arr.type.value_type)
    elif kind == "timestamp":
        nums = _buffer(arr, np.int64)
        limit = _SECONDS_LIMIT * _PER_SECOND[arr.type.unit]
        valid = _valid(arr)
        if len(nums) and np.abs(nums if valid is None else nums[valid]).max(initial=0) > limit:
            return None
    elif kind == "date":
        days = _buffer(arr, np.int32) if pa.types.is_date32(arr.type) else _buffer(arr, np.int64) // 86_400_000
        valid = _valid(arr)
        if len(days) and np.abs(days if valid is None else days[valid]).max(initial=0) > _DAYS_LIMIT:
            return None
        if pa.types.is_date64(arr.type) and arr.null_count < len(arr):
            ms = _buffer(arr, np.int64)
            if np.any((ms % 86_400_000 != 0) & (valid if valid is not None else True)):
                return None  # a date64 holding a time of day
    elif kind == "list":
        col = ArrowColumn(kind, arr)
        flat = arr.flatten()
        if flat.null_count and (pa.types.is_integer(flat.type) or pa.types.is_floating(flat.type)):
            col.inner_nan = True  # pandas makes every list of the column floats, null NaN
        return col
    return ArrowColumn(kind, arr)


def _int_field_nulls(chunk: Any) -> bool:
    """An integer field of a struct chunk holds a null (in its child array, also under a null
    struct): pandas makes that field's values floats, per chunk of however the file was read."""
    import pyarrow as pa

    return any(pa.types.is_integer(chunk.type.field(i).type) and chunk.field(i).null_count
               for i in range(chunk.type.num_fields))


def _repeated_categories(dictionary: Any) -> bool:
    """A dictionary pandas refuses as categories: a repeated or missing value."""
    import pyarrow.compute as pc

    return bool(dictionary.null_count) or len(pc.unique(dictionary)) != len(dictionary)


def _plain_pandas_note(schema: Any) -> bool:
    """No pandas note, or one ``arrow_to_pandas`` reads as plain columns: a range index (or
    none), string column names, and no column whose pandas dtype the note changes."""
    meta = schema.metadata or {}
    note = meta.get(b"pandas")
    if note is None:
        return True
    try:
        info = json.loads(note)
    except ValueError:
        return False
    if any(not (isinstance(ix, dict) and ix.get("kind") == "range") for ix in info.get("index_columns", [])):
        return False
    for level in info.get("column_indexes", []):
        if level.get("pandas_type") not in ("unicode", "string", "empty", "object") \
                or level.get("metadata") not in (None, {"encoding": "UTF-8"}):
            return False
    names = set(schema.names)
    for col in info.get("columns", []):
        field = col.get("field_name")
        if field not in names:
            continue
        numpy_type = str(col.get("numpy_type"))
        kind = supported_type(schema.field(field).type)
        if kind == "float" and numpy_type not in ("float16", "float32", "float64"):
            return False  # a pandas Float64 column comes back as one
        if kind == "timestamp" and not numpy_type.startswith("datetime64"):
            return False
        if kind in ("date", "list", "struct", "null") and numpy_type != "object":
            return False
        if col.get("pandas_type") in ("categorical",) and kind != "category":
            return False
    return True


# --------------------------------------------------------------------------- tables

class ArrowTable:
    """A ``columns.Table`` over an Arrow table or record batch (see the module); it duck-types as
    ``small_csv.TextTable`` for ``load.load_table`` and ``batches.BatchReader``."""

    def __init__(self, names: list[str], data: dict[str, ArrowColumn], n: int, source: Any = None) -> None:
        self.names = names
        self.data = data
        self.n = n
        self.source = source  # the Arrow table or batch (for ``pandas_frame``)

    @property
    def columns(self) -> list[str]:
        return list(self.names)

    def __len__(self) -> int:
        return self.n

    def column(self, name: str) -> ArrowColumn:
        return self.data[name]

    def attr_values(self, name: str, keep: list[int]) -> tuple[list[Any], str | None]:
        """The plain values of the kept rows of an attribute column, as the pandas path makes
        them (``values.column_values`` of the kept rows)."""
        return self.data[name].values_at(np.asarray(keep, dtype=np.intp))

    def pandas_frame(self) -> Any:
        """The pandas reading of this table (``formats.arrow_to_pandas``), for a caller whose
        rules met a value this module is unsure of."""
        from engine.events.formats import arrow_to_pandas

        return arrow_to_pandas(self.source)


def read_arrow_table(table: Any) -> ArrowTable | None:
    """An Arrow table (or record batch) as an ``ArrowTable``; None when a column or the pandas
    note is not one this module reads exactly (see the module)."""
    if not _plain_pandas_note(table.schema):
        return None
    names = [str(n) for n in table.schema.names]
    data: dict[str, ArrowColumn] = {}
    for k, name in enumerate(names):
        col = _column(table.column(k))
        if col is None:
            return None
        data.setdefault(name, col)  # a repeated name: the rules refuse the table
    return ArrowTable(names=names, data=data, n=table.num_rows, source=table)


def arrow_batch_table(batch: Any) -> ArrowTable | None:
    """One Arrow record batch (``ParquetFile.iter_batches``) as the table ``BatchReader``'s
    Arrow batches carry; None: read this batch with pandas (``formats.arrow_to_pandas``)."""
    return read_arrow_table(batch)
