"""A plain local CSV/TSV read in Python tasks, one byte range of the file per task.

The driver cuts the file into ranges at line starts (``byte_ranges``: it reads the header line
and a few bytes around each cut, never the records). Each task reads its range, puts the header
line in front of it and reads that with the in-process reader (``arrow_csv.arrow_csv_table``:
pyarrow's CSV reader, every column as text, then the in-process typing), checks it with the
in-process rules (``load.checked_order``) and builds its events as columns
(``load.table_events(lazy=True)``, only the types the pattern can bind). Its events leave the task
as Arrow IPC payloads (``encode`` / ``decode``), one per destination, with a summary of the range
(``RangeMeta``: rows, kinds of every column, first and last time, ids, schema, events per type).

The range's positions are local: ``seq`` and row numbers start at 0 in every range; the driver
adds each range's offset (the rows of the ranges before it) once every summary is in.

The task says the range is not simple (``RangeMeta.simple`` False) where a whole-file read could
answer differently: a row with a problem (the report needs the whole file's row and line
numbers), rows not sorted by time, a cell the typing is unsure of, bytes the Arrow reader does
not take (a quoted line break, a carriage return, a blank line), interval or date-time data, ids
that are row numbers. The driver then reads the file the usual Spark way, which reports exactly
as in-process (``columnar_run``).
"""
from __future__ import annotations

import math
import os
import pickle
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
import pyarrow as pa

__all__ = ["RangeMeta", "byte_ranges", "read_range", "read_prefix", "records_before", "destinations", "encode", "decode",
           "key_hash", "TAIL"]

#: the payload flag of a time chunk's prefix (the previous range's tail)
TAIL = 1


@dataclass
class RangeMeta:
    """What a task found in its byte range (see the module)."""

    index: int
    simple: bool
    why: str = ""
    rows: int = 0                                  # records in the range
    kinds: dict[str, str] = field(default_factory=dict)
    first: float | None = None                    # first and last coordinate (ts, or seq)
    last: float | None = None
    id_range: tuple[int, int] | None = None        # min and max id (int ids), for duplicates across ranges
    id_kind: str = ""
    schema: dict[str, dict[str, str]] = field(default_factory=dict)
    types: dict[str, int] = field(default_factory=dict)  # events built per type (the planner's rates)
    events: int = 0
    cpu: float = 0.0                               # the task's CPU seconds (read, build, payloads)


def byte_ranges(path: str, parts: int) -> tuple[bytes, list[tuple[int, int]]]:
    """The header line and ``parts`` byte ranges of the records (each starting at a line start;
    fewer for a small file)."""
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        header = fh.readline()
        start = fh.tell()
        cuts = [start]
        for k in range(1, parts):
            at = start + (size - start) * k // parts
            if at <= cuts[-1]:
                continue
            fh.seek(at - 1)
            fh.readline()  # to the end of the line holding ``at - 1``: the next line starts a range
            pos = fh.tell()
            if cuts[-1] < pos < size:
                cuts.append(pos)
    ends = cuts[1:] + [size]
    return header, [(a, b) for a, b in zip(cuts, ends) if b > a]


def _key_value(v: Any) -> Any:
    """A key value as Python's equality groups it: 1, 1.0 and True are one value."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        if v != v:
            return None  # NaN equals nothing: any task may hold it
        if v.is_integer():
            return int(v)
    return v


def key_hash(values: tuple[Any, ...], parts: int) -> int:
    """The task of a key (the same in every worker process: no string hash randomisation)."""
    h = 0
    for v in values:
        v = _key_value(v)
        if isinstance(v, int):
            x = v & 0xFFFFFFFFFFFF
        elif isinstance(v, float):
            x = zlib.crc32(repr(v).encode())
        elif v is None:
            x = 0
        else:
            x = zlib.crc32(str(v).encode("utf-8", "surrogatepass"))
        h = (h * 1_000_003 + x) & 0xFFFFFFFFFFFF
    return h % parts


def _arrow_column(values: list[Any], whole: bool = False) -> pa.Array | None:
    """A column of Python values as Arrow, typed only where the values come back equal (ints
    stay ints, floats floats); anything else travels pickled in the column's first cell (``whole``:
    None instead, the caller pickles each payload's part)."""
    kinds = set(map(type, values)) - {type(None)}
    if kinds <= {int}:
        try:
            return pa.array(values, pa.int64())
        except (OverflowError, pa.ArrowInvalid):
            pass
    elif kinds == {float}:
        return pa.array(values, pa.float64())
    elif kinds == {str}:
        return pa.array(values, pa.string())
    elif kinds == {bool}:
        return pa.array(values, pa.bool_())
    if whole:
        return None
    cells: list[bytes | None] = [None] * len(values)
    if values:
        cells[0] = pickle.dumps(values, protocol=5)
    return pa.array(cells, pa.binary())


def _python_column(arr: pa.Array) -> list[Any]:
    """``_arrow_column`` undone."""
    if pa.types.is_binary(arr.type):
        return pickle.loads(arr[0].as_py()) if len(arr) else []
    if pa.types.is_integer(arr.type) and not arr.null_count:
        return arr.to_numpy().tolist()
    return arr.to_pylist()


def encode(columns: Any, picks: list[np.ndarray | None]) -> list[bytes]:
    """The events ``picks[k]`` (positions, None: all) of an ``EventColumns`` as Arrow IPC payloads,
    one per pick: ids, types, ts, seqs and every attribute column. The columns become Arrow once and
    each payload takes its rows (``RecordBatch.take``); a column of mixed values travels pickled,
    per payload."""
    plain: list[pa.Array | None] = [_arrow_column(list(columns.ids), whole=True),
                                    pa.array(list(columns.types), pa.string()),
                                    pa.array(columns.ts, pa.float64()), pa.array(columns.seqs, pa.int64())]
    plain += [_arrow_column(values, whole=True) for values in columns.values]
    raw = [columns.ids, None, None, None] + list(columns.values)
    names = ["id", "type", "ts", "seq"] + [f"a{k}" for k in range(len(columns.names))]
    meta = {b"names": pickle.dumps(list(columns.names))}
    out = []
    for pick in picks:
        arrays = []
        for arr, values in zip(plain, raw):
            if arr is not None:
                arrays.append(arr if pick is None else arr.take(pa.array(pick)))
            else:  # mixed values: this payload's, pickled
                arrays.append(_arrow_column(values if pick is None else [values[k] for k in pick.tolist()]))
        schema = pa.schema([pa.field(x, a.type) for x, a in zip(names, arrays)], metadata=meta)
        batch = pa.RecordBatch.from_arrays(arrays, schema=schema)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        out.append(sink.getvalue().to_pybytes())
    return out


def decode(payload: bytes, seq_offset: int) -> tuple[list[Any], list[str], list[float], list[int], list[str],
                                                    list[list[Any]]]:
    """``encode``'s columns back as Python lists: ids, types, ts, seqs (+ ``seq_offset``), the
    attribute names and their values."""
    with pa.ipc.open_stream(pa.BufferReader(payload)) as reader:
        batch = reader.read_next_batch()
    names = pickle.loads(batch.schema.metadata[b"names"])
    seqs = (batch.column(3).to_numpy() + seq_offset).tolist()
    return (_python_column(batch.column(0)), batch.column(1).to_pylist(), batch.column(2).to_numpy().tolist(), seqs,
            names, [_python_column(batch.column(4 + k)) for k in range(len(names))])


def _parse(data: bytes, sep: str, mapping: Any, types: Any, seq_start: int) -> tuple[str, Any]:
    """Header + records as checked events (``EventColumns``, seqs from ``seq_start``) with the table's
    kinds and checks: ``("", (chk, table, events, schema))``, or why not simple."""
    from engine.events.arrow_csv import _plain_quotes, arrow_csv_table
    from engine.events.load import checked_order, table_events

    if b"\r" in data or b"\x00" in data or b"\n\n" in data or data.startswith(b"\n") \
            or data.startswith(b"\xef\xbb\xbf") or not _plain_quotes(data, sep):
        return "bytes the column reader does not take", None
    table = arrow_csv_table(data, sep)
    if table is None:
        return "a cell or record the column reader is unsure of", None
    checked = checked_order(table, mapping)
    if checked is None:
        return "a time value the column reader is unsure of", None
    chk, order, was_sorted = checked
    if not was_sorted:
        return "rows not sorted by time", None
    if chk.issues or bool(np.any(chk.bad)):
        return "rows with problems", None
    if chk.ids_are_rows or "datetime" in chk.time_kinds.values():
        return "ids from row numbers or date-time times", None
    events, schema = table_events(table, chk, order, chk.ts[order].tolist(), types, seq_start=seq_start, lazy=True)
    return "", (chk, table, events, schema)


def _meta(index: int, found: tuple) -> RangeMeta:
    chk, table, events, schema = found
    meta = RangeMeta(index, True, rows=int(chk.n), kinds={c: table.data[c].kind for c in table.names},
                     schema=schema, types=dict(Counter(events.types)), events=len(events))
    if chk.n:
        meta.first, meta.last = float(chk.ts[0]), float(chk.ts[chk.n - 1])
    ids = chk.ids.tolist()
    meta.id_kind = "int" if set(map(type, ids)) <= {int} else "other"
    if meta.id_kind == "int" and ids:
        meta.id_range = (min(ids), max(ids))
    return meta


def read_range(path: str, header: bytes, start: int, stop: int, index: int, sep: str, mapping: Any,
               types: Any, seq_start: int = 0) -> tuple[RangeMeta, Any]:
    """One task's range read, typed, checked and built as columns (see the module): its summary and
    its events (an ``EventColumns``, seqs from ``seq_start``; None when not simple)."""
    with open(path, "rb") as fh:
        fh.seek(start)
        body = fh.read(stop - start)
    why, found = _parse(header + body, sep, mapping, types, seq_start)
    if found is None:
        return RangeMeta(index, False, why), None
    return _meta(index, found), found[2]


def records_before(path: str, first: int, start: int) -> int:
    """Records (lines) in the bytes ``first:start`` of a file (``start`` at a line start)."""
    count = 0
    with open(path, "rb") as fh:
        fh.seek(first)
        left = start - first
        while left > 0:
            block = fh.read(min(left, 1 << 24))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count


def _from(events: Any, need_from: float, count_window: bool) -> Any:
    """The events from the coordinate ``need_from`` on (less a margin for the window test's float
    rounding: an event more does no harm, an event less loses matches)."""
    from bisect import bisect_left

    from engine.events.event_columns import EventColumns

    coord = events.seqs if count_window else events.ts
    k = bisect_left(coord, need_from - 1e-9 * (1.0 + abs(need_from)) - 1.0 * count_window)
    if k == 0:
        return events
    return EventColumns(events.ids[k:], events.types[k:], events.ts[k:], events.seqs[k:], events.names,
                        [v[k:] for v in events.values])


def read_prefix(path: str, header: bytes, first: int, start: int, sep: str, mapping: Any, types: Any,
                seq_end: int, need_from: float, count_window: bool, kinds: dict[str, str],
                block: int = 1 << 18) -> tuple[str, Any]:
    """The events just before the byte ``start`` back to the coordinate ``need_from`` (ts, or seq for
    a count window) or the first record (``first``), as an ``EventColumns`` whose seqs end at
    ``seq_end``: ``("", events)``, or why they cannot be read so (typed otherwise than the range)."""
    size = block
    with open(path, "rb") as fh:
        while True:
            at = max(first, start - size)
            fh.seek(at)
            body = fh.read(start - at)
            if at > first:  # from the first line start inside the block
                cut = body.find(b"\n")
                body = body[cut + 1:] if cut >= 0 else b""
            records = body.count(b"\n")
            why, found = _parse(header + body, sep, mapping, types, seq_end - records) if records else ("", None)
            if why:
                return why, None
            if found is not None:
                chk, table, events, _ = found
                head = float(seq_end - records) if count_window else (float(chk.ts[0]) if chk.n else math.inf)
                if at == first or head < need_from:
                    if any(table.data[c].kind != k for c, k in kinds.items() if k != "none"
                           and table.data[c].kind != "none"):
                        return "the rows before the range typed otherwise", None
                    return "", _from(events, need_from, count_window)
            elif at == first:
                return "", None
            size *= 4
def destinations(events: Any, mode: str, key_attrs: dict[str, tuple[str, ...]] | None, parts: int,
                 index: int, tail_from: float | None, count_window: bool) -> Iterator[tuple[int, int, np.ndarray | None]]:
    """Where a range's events go: ``(task, flag, positions)``. Keyed: by ``key_hash`` of each
    event's key (``key_attrs``: the key's attributes per type). Time-chunked: the whole range to its
    own task, and its tail (coordinates from ``tail_from`` on) to the next task as a prefix."""
    n = len(events)
    if mode == "time-chunked":
        yield index, 0, None
        if tail_from is not None and n:
            coord = np.asarray(events.seqs if count_window else events.ts, dtype=np.float64)
            lo = int(np.searchsorted(coord, tail_from, side="left"))
            if lo < n:
                yield index + 1, TAIL, np.arange(lo, n)
        return
    assert key_attrs is not None
    attrs = sorted({a for xs in key_attrs.values() for a in xs})
    cols = {a: events.attribute(a, 0, n) for a in attrs}
    types = events.types
    dest = _int_key_tasks(cols, key_attrs, types, parts)
    if dest is None:
        dest = _key_tasks(cols, key_attrs, types, parts)
    order = np.argsort(dest, kind="stable")
    bounds = np.searchsorted(dest[order], np.arange(parts + 1))
    for task in range(parts):
        lo, hi = int(bounds[task]), int(bounds[task + 1])
        if hi > lo:
            yield task, 0, order[lo:hi]


def _int_key_tasks(cols: dict[str, list[Any]], key_attrs: dict[str, tuple[str, ...]], types: list[str],
                   parts: int) -> np.ndarray | None:
    """``key_hash`` of every event, vectorised, for a key of one attribute, the same for every type,
    holding ints only; None otherwise. (Inlines ``key_hash`` of one int: ``(v & 2**48-1) % parts``.)"""
    if len(cols) != 1 or any(len(xs) != 1 for xs in key_attrs.values()):
        return None
    (values,) = cols.values()
    if set(types) - set(key_attrs) or set(map(type, values)) - {int}:
        return None
    try:
        arr = np.asarray(values, dtype=np.int64)
    except OverflowError:
        return None
    return (arr & 0xFFFFFFFFFFFF) % parts


def _key_tasks(cols: dict[str, list[Any]], key_attrs: dict[str, tuple[str, ...]], types: list[str],
               parts: int) -> np.ndarray:
    """``key_hash`` of every event's key values."""
    n = len(types)
    dest = np.empty(n, dtype=np.int64)
    cache: dict[Any, int] = {}
    for k in range(n):
        names = key_attrs.get(types[k])
        values = tuple(cols[a][k] for a in names) if names else (None,)
        try:
            d = cache.get(values)
            if d is None:
                d = cache[values] = key_hash(values, parts)
        except TypeError:  # an unhashable value
            d = key_hash(values, parts)
        dest[k] = d
    return dest
