"""Reading events with Spark: CSV, JSON Lines and Parquet (DESIGN.md, "Spark", Readers).

``read_events(path, mapping)`` gives the same events, the same ``seq`` and the same
validation report as ``engine.events.load_events`` on the same file, but reads and checks
the data in Spark tasks:

1. ``spark.read`` (CSV with every column as text, then a global type decision so that a
   column is typed the way pandas types it for the whole file; JSON Lines as text lines
   parsed in Python exactly as the in-process reader parses them; Parquet as typed).
   Every row carries its *segment* (file, byte offset of the split) captured at read time;
   input order is (file path, split offset, position in the split).
2. ``mapInArrow`` runs ``engine.events.validate_frame`` on every Arrow batch with the row
   offset of the batch inside its segment, so bad rows are named exactly as in-process.
   The valid rows come out in canonical columns (``__cep_type``, ``__cep_ts``, ...); the
   issues and per-segment counts come out as side rows.
3. The driver turns segment-local row numbers into global ones (prefix sums in input
   order) and computes ``seq``, the position after a stable sort by ts (ties by input
   order): when the input is sorted it is the rank among valid rows, otherwise a range
   sort on (ts, row).

Attribute values: columns Spark can type (numbers, strings, booleans) stay Spark columns;
columns whose values have mixed kinds (JSON Lines; CSV text columns that also hold
numbers, which pandas turns back into numbers value by value) travel as one JSON object
per row in ``__cep_json`` and are decoded when events are built. ``build_events`` turns an
Arrow batch of canonical rows into ``Event`` objects with the values the in-process loader
produces.
"""
from __future__ import annotations

import csv
import io as _io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from ..events import (ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UPPER_COL, ColumnMapping,
                      DataError, Event, ValidationIssue, ValidationReport, arrow_to_pandas,
                      events_from_frame, guess_mapping, infer_schema, validate_frame)
# the loader's format table and rules, so both read the same files
from ..events.formats import FORMATS as _FORMATS
from ..events.formats import resolve_format as _loader_format
from ..events.formats import BadLine, check_csv_header, parse_json_line
from ..events.formats import loads as _json_loads
from ..events.lines import CsvLines, JsonlLines, LineIndex, with_lines

__all__ = ["SparkEvents", "read_events", "from_spark_frame", "build_events", "SEQ_COL", "JSON_COL",
           "KEY_COL", "NA_STRINGS"]

SEQ_COL = "__cep_seq"
JSON_COL = "__cep_json"
KEY_COL = "__cep_key"
_SEG = "__cep_seg"
_FILE = "__cep_file"
_BLOCK = "__cep_block"
_LVALID = "__cep_lvalid"
_KIND = "__cep_kind"
_INFO = "__cep_info"
_CORRUPT = "__cep_corrupt"
_LINE = "value"

# The cells that are missing values: only the empty one, as in the in-process reader ("NA",
# "null" and the like are text; docs/semantics.md, "Values are what the file says").
NA_STRINGS = [""]
_BOOL_STRINGS = ["True", "TRUE", "true", "False", "FALSE", "false"]
_INT_RE = r"^\s*[+-]?\d{1,18}\s*$"
_FLOAT_RE = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"
# ISO 8601 dates / date-times (only to decide whether a mixed time column holds mostly
# date-times; validate_frame does the actual parsing)
_DATE_RE = r"^\s*\d{4}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?\s*$"


# --------------------------------------------------------------------------- result

@dataclass
class SparkEvents:
    """Validated events as a Spark DataFrame plus what the in-process ``LoadResult`` says.

    ``df`` columns: ``__cep_row`` (0-based input row), ``__cep_seq`` (stream position),
    ``__cep_type``, ``__cep_ts`` (float; seconds since the epoch for date-times),
    ``__cep_id``, ``__cep_lower``/``__cep_upper`` for interval events, the plain attribute
    columns under their own names, and ``__cep_json`` (a JSON object per row) when some
    attributes have mixed kinds. ``id_json``: ``__cep_id`` holds JSON text.
    """

    df: Any
    report: ValidationReport
    schema: dict[str, dict[str, str]]
    mapping: ColumnMapping
    time_is_datetime: bool
    attr_columns: list[str]           # plain (Spark-typed) attribute columns
    json_attrs: list[str]             # attributes carried in __cep_json
    id_json: bool = False
    ids_are_rows: bool = False
    promote: list[str] = field(default_factory=list)  # JSON attrs whose ints read as floats
    count: int = 0
    source: str = ""
    lines: LineIndex | None = None    # file line of each input row (a single CSV / JSON Lines file)
    ts_range: tuple[float, float] | None = None  # (min, max) ts when the validation pass knows them
    _cached: list[Any] = field(default_factory=list, repr=False)

    @property
    def has_json(self) -> bool:
        return JSON_COL in self.df.columns

    @property
    def is_interval(self) -> bool:
        return self.mapping.is_interval

    def seconds_to_ts(self, seconds: float) -> float:
        """A duration in seconds in the unit of ``ts`` (as ``LoadResult.seconds_to_ts``)."""
        if self.time_is_datetime:
            return float(seconds)
        return seconds / {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[self.mapping.ts_unit]

    def event_spec(self) -> "EventSpec":
        return EventSpec(attr_columns=list(self.attr_columns), has_json=self.has_json,
                         id_json=self.id_json, interval=self.is_interval,
                         promote=tuple(self.promote))

    def to_events(self) -> list[Event]:
        """All events, collected to the driver in stream order (small inputs: tests, the
        debugger's prefix)."""
        spec = self.event_spec()
        out: list[Event] = []
        for batch in _collect_batches(self.df.orderBy(SEQ_COL)):
            out.extend(build_events(batch, spec))
        return out

    def unpersist(self) -> None:
        for d in self._cached:
            try:
                d.unpersist()
            except Exception:  # noqa: BLE001 - session may be gone
                pass
        self._cached.clear()


@dataclass(frozen=True)
class EventSpec:
    """How to turn canonical Arrow rows into Events (shipped to the workers)."""

    attr_columns: list[str]
    has_json: bool
    id_json: bool
    interval: bool
    promote: tuple[str, ...] = ()


def _collect_batches(df: Any) -> list[pa.Table]:
    return [df.toArrow()]


def build_events(batch: pa.RecordBatch | pa.Table, spec: EventSpec,
                 frame: pd.DataFrame | None = None) -> list[Event]:
    """Events from a batch of canonical rows, with ``seq`` from ``__cep_seq``.

    Uses ``events_from_frame`` for the plain columns (the loader's own conversion) and
    ``json.loads`` for ``__cep_json`` / JSON ids, so values equal the in-process ones.
    """
    if frame is None:
        frame = arrow_to_pandas(batch)
    if len(frame) == 0:
        return []
    evs = events_from_frame(frame, spec.attr_columns)
    seqs = frame[SEQ_COL].tolist()
    for e, s in zip(evs, seqs):
        e.seq = s
    if spec.has_json:
        loads = json.loads
        for e, j in zip(evs, frame[JSON_COL].tolist()):
            if j is not None and j is not pd.NA and j != "{}":
                e.attrs.update(loads(j))
        for a in spec.promote:
            for e in evs:
                v = e.attrs.get(a)
                if type(v) is int:
                    e.attrs[a] = float(v)
    if spec.id_json:
        loads = json.loads
        for e in evs:
            e.id = loads(e.id) if isinstance(e.id, str) else e.id
    return evs


# --------------------------------------------------------------------------- helpers

def _resolve_format(path: Path, fmt: str | None) -> str:
    """The loader's format rules (``engine.events.formats.resolve_format``), plus Spark's
    directories: the one format their files share, else Parquet."""
    if fmt is None and path.is_dir():
        files = [p for p in path.iterdir() if p.is_file() and not p.name.startswith((".", "_"))]
        exts = {p.suffix.lower().lstrip(".") for p in files}
        kinds = {_FORMATS[e] for e in exts if e in _FORMATS}
        if len(kinds) == 1:
            return kinds.pop()
        if not files:
            raise DataError(f"'{path}' is an empty directory")
        return "parquet"
    return _loader_format(path, fmt)


def _spark_error(path: Path, what: str, e: Exception) -> DataError:
    text = str(e).strip().splitlines()
    first = text[0] if text else type(e).__name__
    return DataError(f"cannot read '{path.name}' as {what}: {first}")


def _with_segment(df: Any) -> Any:
    from pyspark.sql import functions as F

    return df.select("*", F.col("_metadata.file_path").alias(_FILE),
                     F.col("_metadata.file_block_start").alias(_BLOCK))


def _typed_kind(dt: Any) -> str:
    from pyspark.sql import types as T

    if isinstance(dt, T.BooleanType):
        return "bool"
    if isinstance(dt, T.NumericType):
        return "number"
    return "string"


def _expected_issues(columns: list[str], mapping: ColumnMapping) -> list[ValidationIssue]:
    """Raise DataError for a missing required column, exactly as load_events does, and
    return the issues about the input as a whole (row None): validate an empty frame."""
    empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})
    _, issues = validate_frame(empty, mapping)
    return [i for i in issues if i.row is None]


# --------------------------------------------------------------------------- the validation pass

@dataclass
class _Plan:
    """What the validation worker needs (pickled to the workers)."""

    kind: str                       # csv | tsv | jsonl | parquet | frame
    mapping: ColumnMapping
    columns: list[str]              # data columns as read (csv/parquet); [] for jsonl
    plain_attrs: list[str]          # attribute columns passed through as Spark columns
    json_attrs: list[str]           # attribute columns re-encoded into __cep_json (csv/parquet)
    id_mode: str                    # "long" | "string" | "json" | "rows"
    time_kinds: dict[str, str]
    text_source: bool
    mapped_present: list[str]       # jsonl: mapped columns known to exist globally


def _out_schema(plan: _Plan, attr_fields: list[Any]) -> Any:
    from pyspark.sql import types as T

    fields = [
        T.StructField(_KIND, T.ByteType(), False),
        T.StructField(_INFO, T.StringType(), True),
        T.StructField(_SEG, T.LongType(), True),
        T.StructField(ROW_COL, T.LongType(), True),
        T.StructField(_LVALID, T.LongType(), True),
        T.StructField(TYPE_COL, T.StringType(), True),
        T.StructField(TS_COL, T.DoubleType(), True),
        T.StructField(ID_COL, T.LongType() if plan.id_mode in ("long", "rows") else T.StringType(), True),
    ]
    if plan.mapping.is_interval:
        fields += [T.StructField(LOWER_COL, T.DoubleType(), True),
                   T.StructField(UPPER_COL, T.DoubleType(), True)]
    fields += [T.StructField(f.name, f.dataType, True) for f in attr_fields]
    if plan.json_attrs or plan.kind == "jsonl":
        fields.append(T.StructField(JSON_COL, T.StringType(), True))
    return T.StructType(fields)


class _SegState:
    __slots__ = ("seg", "file", "block", "rows", "valid", "first_ts", "last_ts", "sorted", "keys",
                 "schema", "id_seen", "kinds", "irregular", "ids_inc", "id_min", "id_max", "types")

    def __init__(self, seg: int, file: str, block: int):
        self.seg, self.file, self.block = seg, file, block
        self.rows = 0
        self.valid = 0
        self.first_ts: float | None = None
        self.last_ts: float | None = None
        self.sorted = True
        self.keys: dict[str, None] = {}
        self.schema: set[tuple[str, str, str]] = set()
        self.types: set[str] = set()           # event types of valid rows (in the schema even without attributes)
        self.id_seen = False
        self.kinds: dict[str, set[str]] = {}   # JSON Lines: Python types seen per key
        self.irregular = False                 # JSON Lines: a bad line or a nested value
        self.ids_inc = True                    # integer ids strictly increasing (no duplicates)
        self.id_min: int | None = None
        self.id_max: int | None = None

    def meta(self) -> dict[str, Any]:
        return {"meta": 1, "seg": self.seg, "file": self.file, "block": self.block, "rows": self.rows,
                "valid": self.valid, "first_ts": self.first_ts, "last_ts": self.last_ts,
                "sorted": self.sorted, "keys": list(self.keys), "schema": sorted(self.schema),
                "id_seen": self.id_seen, "irregular": self.irregular, "ids_inc": self.ids_inc,
                "id_min": self.id_min, "id_max": self.id_max,
                "kinds": {k: sorted(v) for k, v in self.kinds.items()}, "types": sorted(self.types)}


def _jsonl_frame(lines: list[Any], st: _SegState) -> tuple[pd.DataFrame, np.ndarray, list[ValidationIssue]]:
    """Parse JSON lines as ``events.formats.read_jsonl`` does: blank lines are not rows; a line that
    is not a JSON object, or repeats a key, is a rejected row with an issue. Rows are segment-local."""
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    issues: list[ValidationIssue] = []
    r = st.rows
    kinds = st.kinds
    for ln in lines:
        if ln is None or not ln.strip():
            continue
        item = parse_json_line(ln)
        if isinstance(item, BadLine):
            issues.append(ValidationIssue(row=r, column=None, code=item.code, reason=item.reason))
            st.irregular = True
            r += 1
            continue
        for k, v in item.items():
            tn = type(v).__name__
            ks = kinds.get(k)
            if ks is None:
                ks = kinds[k] = set()
            ks.add(tn)
            if tn in ("list", "dict"):
                st.irregular = True
        records.append(item)
        rows.append(r - st.rows)
        r += 1
    keys: dict[str, None] = {}
    for rec in records:
        for k in rec:
            if k not in keys:
                keys[k] = None
    st.keys.update(keys)
    cols = {}
    for k in keys:
        arr = np.empty(len(records), dtype=object)
        arr[:] = [rec.get(k) for rec in records]
        cols[k] = arr
    df = pd.DataFrame(cols, index=pd.RangeIndex(len(records)))
    st.rows = r
    return df, np.asarray(rows, dtype=np.int64), issues


def _validate_partition(plan: _Plan, schema: Any, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The mapInArrow worker: validate each batch, emit canonical valid rows, then issues
    and per-segment counts as info rows."""
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema)
    segs: dict[int, _SegState] = {}
    infos: list[str] = []
    time_kinds = dict(plan.time_kinds) if plan.time_kinds else None
    names = [f.name for f in arrow_schema]

    for rb in batches:
        if rb.num_rows == 0:
            continue
        seg_arr = rb.column(_SEG).to_numpy(zero_copy_only=False)
        # split the batch into runs of one segment (a batch rarely spans two)
        bounds = [0] + [int(i) + 1 for i in np.flatnonzero(seg_arr[1:] != seg_arr[:-1])] + [rb.num_rows]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            part = rb.slice(lo, hi - lo)
            seg = int(seg_arr[lo])
            st = segs.get(seg)
            if st is None:
                st = segs[seg] = _SegState(seg, part.column(_FILE)[0].as_py(),
                                           int(part.column(_BLOCK)[0].as_py()))
            yield from _validate_run(plan, arrow_schema, names, part, st, time_kinds, infos)
    for st in segs.values():
        infos.append(json.dumps(st.meta()))
    if infos:
        n = len(infos)
        cols = {nm: pa.nulls(n, type=arrow_schema.field(nm).type) for nm in names}
        cols[_KIND] = pa.array([1] * n, type=pa.int8())
        cols[_INFO] = pa.array(infos, type=pa.string())
        yield pa.RecordBatch.from_arrays([cols[nm] for nm in names], schema=arrow_schema)


def _bounds_doubles_hold(frame: pd.DataFrame, mapping: ColumnMapping, st: _SegState,
                         infos: list[str]) -> pd.DataFrame:
    """Spark holds interval bounds as doubles, exact below 2**53 only: a row with a bound of
    magnitude 2**53 or more (read exactly in-process) is an error for its row here, never
    a silently rounded bound."""
    limit = 2**53
    bad = [i for i, (lo, hi) in enumerate(zip(frame[LOWER_COL].tolist(), frame[UPPER_COL].tolist()))
           if abs(lo) >= limit or abs(hi) >= limit]
    if not bad:
        return frame
    rows = frame[ROW_COL].tolist()
    for i in bad:
        it = ValidationIssue(row=int(rows[i]), column=mapping.lower_col, code="inexact_bound",  # type: ignore[arg-type]
                             reason=("an interval bound of magnitude 2**53 or more: the Spark engines hold bounds as "
                                     "doubles, which cannot hold it exactly (run without --spark)"))
        infos.append(json.dumps({"seg": st.seg, "issue": it.model_dump()}))
    keep = np.ones(len(frame), dtype=bool)
    keep[bad] = False
    return frame[keep].reset_index(drop=True)


def _validate_run(plan: _Plan, arrow_schema: pa.Schema, names: list[str], part: pa.RecordBatch,
                  st: _SegState, time_kinds: dict[str, Any] | None,
                  infos: list[str]) -> Iterator[pa.RecordBatch]:
    mapping = plan.mapping
    pre: list[ValidationIssue] = []
    start = st.rows
    if plan.kind == "jsonl":
        df, rows, pre = _jsonl_frame(part.column(_LINE).to_pylist(), st)
        for c in plan.mapped_present:
            if c not in df.columns:
                df[c] = np.full(len(df), None, dtype=object)
        if mapping.id_col is not None and mapping.id_col in df.columns:
            st.id_seen = True
        vf, issues = validate_frame(df, mapping, row_offset=start, rows=rows,
                                    time_kinds=time_kinds)
    else:
        data = part.select(plan.columns)
        df = arrow_to_pandas(data)
        st.rows += part.num_rows
        vf, issues = validate_frame(df, mapping, row_offset=start, time_kinds=time_kinds,
                                    text_source=plan.text_source)
    for it in pre + issues:
        if it.row is None or it.code == "duplicate_id":  # whole-input issues / global check
            continue
        infos.append(json.dumps({"seg": st.seg, "issue": it.model_dump()}))
    frame = vf.frame
    if mapping.is_interval and len(frame):
        frame = _bounds_doubles_hold(frame, mapping, st, infos)
    n = len(frame)
    if n == 0:
        return
    ts = frame[TS_COL].to_numpy()
    if st.last_ts is not None and ts[0] < st.last_ts:
        st.sorted = False
    if n > 1 and np.any(ts[1:] < ts[:-1]):
        st.sorted = False
    if st.first_ts is None:
        st.first_ts = float(ts[0])
    st.last_ts = float(ts[-1])
    local_rows = frame[ROW_COL].to_numpy(dtype=np.int64)
    types = frame[TYPE_COL].to_numpy(dtype=object)
    st.types.update(pd.unique(types).tolist())
    cols: dict[str, pa.Array] = {
        _KIND: pa.array(np.zeros(n, dtype=np.int8)),
        _INFO: pa.nulls(n, type=pa.string()),
        _SEG: pa.array(np.full(n, st.seg, dtype=np.int64)),
        ROW_COL: pa.array(local_rows),
        _LVALID: pa.array(np.arange(st.valid, st.valid + n, dtype=np.int64)),
        TYPE_COL: pa.array(types.tolist(), type=pa.string()),
        TS_COL: pa.array(ts.astype(np.float64)),
    }
    st.valid += n
    id_type = arrow_schema.field(ID_COL).type
    if plan.id_mode == "rows" or vf.ids_are_rows:
        cols[ID_COL] = pa.array(local_rows) if plan.id_mode in ("rows", "long") else \
            pa.array([json.dumps(int(r)) for r in local_rows], type=pa.string())
    elif plan.id_mode == "json":
        dumps = json.dumps
        cols[ID_COL] = pa.array([dumps(i) for i in frame[ID_COL].tolist()], type=pa.string())
    else:
        ids = frame[ID_COL].tolist()
        cols[ID_COL] = pa.array(ids, type=id_type)
        if plan.id_mode == "long" and st.ids_inc:
            arr = np.asarray(ids, dtype=np.int64)
            if (st.id_max is not None and arr[0] <= st.id_max) or (n > 1 and np.any(arr[1:] <= arr[:-1])):
                st.ids_inc = False
            else:
                st.id_min = int(arr[0]) if st.id_min is None else st.id_min
                st.id_max = int(arr[-1])
    if mapping.is_interval:
        cols[LOWER_COL] = pa.array(frame[LOWER_COL].to_numpy(dtype=np.float64))
        cols[UPPER_COL] = pa.array(frame[UPPER_COL].to_numpy(dtype=np.float64))
    # plain attributes: the input Arrow columns at the kept positions (values untouched)
    if plan.plain_attrs:
        pos = pa.array(local_rows - start) if plan.kind != "jsonl" else None
        for c in plan.plain_attrs:
            arr = part.column(c).take(pos)
            cols[c] = arr
            present = np.asarray(arr.is_valid())
            kind = _arrow_kind(arr.type)
            for t in pd.unique(types[present]):
                st.schema.add((t, c, kind))
    json_cols = plan.json_attrs if plan.kind != "jsonl" else list(vf.attr_columns)
    if JSON_COL in names:
        if json_cols:
            sub = frame[[ROW_COL, TYPE_COL, TS_COL, ID_COL] + json_cols]
            evs = events_from_frame(sub, json_cols)
            for t, attrs in infer_schema(evs).items():
                for a, k in attrs.items():
                    st.schema.add((t, a, k))
            dumps = json.dumps
            cols[JSON_COL] = pa.array([dumps(e.attrs) if e.attrs else None for e in evs],
                                      type=pa.string())
        else:
            cols[JSON_COL] = pa.nulls(n, type=pa.string())
    yield pa.RecordBatch.from_arrays([cols[nm] if nm in cols else pa.nulls(n, arrow_schema.field(nm).type)
                                      for nm in names], schema=arrow_schema)


def _arrow_kind(t: pa.DataType) -> str:
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "number"
    return "string"


# --------------------------------------------------------------------------- readers

def _csv_source(spark: Any, path: Path, sep: str) -> tuple[Any, list[str], dict[str, str], dict[str, Any]]:
    """Read CSV as text and decide each column's type over the whole file the way pandas
    does (ints, floats, booleans, else text). Returns the typed frame (with segment
    columns), the column names, a decision per column and aggregate counts."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    what = "CSV" if sep == "," else "TSV"
    reader = (spark.read.option("header", True).option("sep", sep).option("escape", '"')
              .option("mode", "PERMISSIVE").option("encoding", "UTF-8"))
    try:
        columns = reader.csv(str(path)).columns
    except Exception as e:  # noqa: BLE001
        raise _spark_error(path, what, e) from None
    if not columns:
        raise DataError(f"'{path.name}' is empty: no header and no rows")
    schema = T.StructType([T.StructField(c, T.StringType(), True) for c in columns]
                          + [T.StructField(_CORRUPT, T.StringType(), True)])
    raw = (reader.schema(schema).option("columnNameOfCorruptRecord", _CORRUPT).csv(str(path)))
    raw = _with_segment(raw)
    na = F.array(*[F.lit(s) for s in NA_STRINGS])
    clean = {c: F.when(F.array_contains(na, F.col(f"`{c}`")), F.lit(None)).otherwise(F.col(f"`{c}`"))
             for c in columns}
    aggs = [F.count(F.col(_CORRUPT)).alias("__corrupt"), F.count(F.lit(1)).alias("__n")]
    for i, c in enumerate(columns):
        e = clean[c]
        aggs += [F.count(e).alias(f"n{i}"),
                 F.sum(F.when(e.rlike(_INT_RE), 1).otherwise(0)).alias(f"i{i}"),
                 F.sum(F.when(e.rlike(_FLOAT_RE), 1).otherwise(0)).alias(f"f{i}"),
                 F.sum(F.when(e.isin(_BOOL_STRINGS), 1).otherwise(0)).alias(f"b{i}"),
                 F.sum(F.when(e.rlike(_DATE_RE), 1)
                       .otherwise(0)).alias(f"d{i}")]
    # column pruning would hide lines with too many fields from the corrupt-record column
    prune_key = "spark.sql.csv.parser.columnPruning.enabled"
    prune = spark.conf.get(prune_key, "true")
    spark.conf.set(prune_key, "false")
    try:
        try:
            row = raw.agg(*aggs).collect()[0].asDict()
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, what, e) from None
        if row["__corrupt"]:
            # (Spark refuses a query of the raw file that uses only the corrupt-record column)
            bad = (raw.filter(F.col(_CORRUPT).isNotNull()).select(_CORRUPT, F.col(f"`{columns[0]}`"))
                   .limit(200).collect())
            for r in bad:  # more fields than the header, or fewer (Spark would fill them with nulls)
                if not r[0].strip():
                    continue  # a blank line: skipped, as the in-process readers do
                toks = next(csv.reader(_io.StringIO(r[0]), delimiter=sep), [])
                if len(toks) != len(columns):
                    raise DataError(f"cannot read '{path.name}' as {what}: expected {len(columns)} fields, "
                                    f"saw {len(toks)} in the line {r[0][:60]!r}")
    finally:
        spark.conf.set(prune_key, prune)
    decisions: dict[str, str] = {}
    counts: dict[str, Any] = {}
    for i, c in enumerate(columns):
        n, ni, nf, nb, nd = (row[f"n{i}"], row[f"i{i}"] or 0, row[f"f{i}"] or 0, row[f"b{i}"] or 0,
                             row[f"d{i}"] or 0)
        counts[c] = {"n": n, "num": nf, "dt": nd}
        if n and ni == n:
            decisions[c] = "long"
        elif n and nf == n:
            decisions[c] = "double"
        elif n and nb == n:
            decisions[c] = "boolean"
        elif nf:
            decisions[c] = "mixed"
        else:
            decisions[c] = "string"
    sel = []
    for c in columns:
        e = clean[c]
        d = decisions[c]
        if d == "long":
            e = F.trim(e).cast("long")
        elif d == "double":
            e = F.trim(e).cast("double")
        elif d == "boolean":
            e = e.cast("boolean")
        sel.append(e.alias(c))
    typed = raw.select(*sel, F.col(_FILE), F.col(_BLOCK))
    return typed, columns, decisions, counts


def _time_kinds_from_counts(mapping: ColumnMapping, counts: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for col in mapping.time_columns:
        c = counts.get(col)
        if not c or not (c["num"] or c["dt"]):
            continue
        out[col] = "datetime" if c["dt"] > c["num"] else "number"
    return out


def read_events(source: str | os.PathLike[str] | Any, mapping: ColumnMapping | dict | None = None,
                fmt: str | None = None, spark: Any = None) -> SparkEvents:
    """Read and validate events with Spark (CSV, TSV, JSON Lines, Parquet; a file, a
    directory or a glob; or a Spark DataFrame). Same mapping rules and report as
    ``load_events``: rows with errors are left out and listed, never dropped silently.
    Raises ``DataError`` when the input as a whole is unusable.
    """
    from .session import get_spark

    spark = spark or get_spark()
    if isinstance(mapping, dict):
        mapping = ColumnMapping(**{k: v for k, v in mapping.items() if v is not None or k != "ts_col"})
    if isinstance(source, pd.DataFrame):  # input order = row order (Arrow slices in order)
        return from_spark_frame(spark.createDataFrame(source), mapping)
    if not isinstance(source, (str, os.PathLike)):
        return from_spark_frame(source, mapping)
    path = Path(source)
    is_glob = any(ch in str(source) for ch in "*?[")
    if not is_glob and not path.exists():
        raise DataError(f"file not found: '{path}'")
    kind = _resolve_format(path if not is_glob else Path(str(source).rstrip("*")), fmt)
    if kind == "jsonl" and path.is_file():
        from ..events.formats import check_json_depth

        check_json_depth(path)  # deep nesting refused with its line before any parser sees it
    if kind == "jsonl" and path.is_file() and _starts_with_bracket(path):
        return _read_json_array(spark, path, mapping)
    if kind in ("csv", "tsv"):
        sep = "," if kind == "csv" else "\t"
        for f in _files(path, str(source), is_glob):
            check_csv_header(f, sep)
        typed, columns, decisions, counts = _csv_source(spark, path, sep)
        if mapping is None:
            mapping = guess_mapping(columns)
        whole = _expected_issues(columns, mapping)
        return _finish(spark, typed, kind, mapping, columns, decisions, counts, whole, str(path),
                       lines=CsvLines(path, sep) if path.is_file() else None)
    if kind == "parquet":
        try:
            raw = spark.read.parquet(str(path))
            columns = raw.columns
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, "Parquet", e) from None
        if mapping is None:
            mapping = guess_mapping(columns)
        whole = _expected_issues(columns, mapping)
        typed = _with_segment(raw)
        decisions = {f.name: _spark_decision(f.dataType) for f in raw.schema.fields}
        counts = _string_time_counts(typed, mapping, decisions)
        return _finish(spark, typed, kind, mapping, columns, decisions, counts, whole, str(path))
    return _read_jsonl(spark, path, mapping, str(path), lines=JsonlLines(path) if path.is_file() else None)


def _files(path: Path, source: str, is_glob: bool) -> list[Path]:
    """The data files of a file, a directory or a glob."""
    if is_glob:
        import glob

        return [Path(p) for p in sorted(glob.glob(source)) if Path(p).is_file()]
    if path.is_dir():
        return [p for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith((".", "_"))]
    return [path]


def _starts_with_bracket(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError:
        return False
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:].lstrip()
    return head.startswith(b"[")


def _read_json_array(spark: Any, path: Path, mapping: ColumnMapping | None) -> SparkEvents:
    """A JSON array of objects (accepted by load_events too): rewritten as JSON Lines in a
    temporary file (rows keep their array index) and read as such."""
    import tempfile

    try:
        data = _json_loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataError(f"cannot read '{path.name}' as JSON: {e.msg} at line {e.lineno}, "
                        f"column {e.colno}") from None
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as JSON Lines: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except RecursionError:
        raise DataError(f"cannot read '{path.name}' as JSON: nested too deeply") from None
    tmp = Path(tempfile.mkdtemp(prefix="cep-jsonarr-")) / (path.stem + ".jsonl")
    with open(tmp, "w", encoding="utf-8") as f:
        for item in data if isinstance(data, list) else [data]:
            f.write(_array_item_line(item) + "\n")
    return _read_jsonl(spark, tmp, mapping, str(path), lines=None)


def _array_item_line(item: Any) -> str:
    """An array item as one JSON line; an object that repeated a key repeats it again, so
    the line is rejected with the same message as in-process."""
    text = json.dumps(item)
    dup = getattr(item, "duplicate", "") if isinstance(item, dict) else ""
    if dup:
        text = text[:-1] + ", " + json.dumps(dup) + ": null}"
    return text


def _spark_decision(dt: Any) -> str:
    from pyspark.sql import types as T

    if isinstance(dt, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return "long"
    if isinstance(dt, (T.DoubleType, T.FloatType, T.DecimalType)):
        return "double"
    if isinstance(dt, T.BooleanType):
        return "boolean"
    if isinstance(dt, T.StringType):
        return "string"
    if isinstance(dt, (T.TimestampType, T.TimestampNTZType, T.DateType)):
        return "datetime"
    return "other"


def _string_time_counts(df: Any, mapping: ColumnMapping, decisions: dict[str, str]) -> dict[str, Any]:
    """Counts of number-like and date-time-like values of string time columns (to decide a
    mixed column's kind once for the whole input)."""
    from pyspark.sql import functions as F

    cols = [c for c in mapping.time_columns if decisions.get(c) == "string"]
    if not cols:
        return {}
    aggs = []
    for i, c in enumerate(cols):
        e = F.col(f"`{c}`")
        aggs += [F.sum(F.when(e.rlike(_FLOAT_RE), 1).otherwise(0)).alias(f"f{i}"),
                 F.sum(F.when(e.rlike(_DATE_RE), 1)
                       .otherwise(0)).alias(f"d{i}")]
    row = df.agg(*aggs).collect()[0]
    return {c: {"n": None, "num": row[f"f{i}"] or 0, "dt": row[f"d{i}"] or 0} for i, c in enumerate(cols)}


def _read_jsonl(spark: Any, path: Path, mapping: ColumnMapping | None, name: str,
                lines: LineIndex | None = None) -> SparkEvents:
    from pyspark.sql import functions as F

    try:
        raw = _with_segment(spark.read.text(str(path)))
    except Exception as e:  # noqa: BLE001
        raise _spark_error(path, "JSON Lines", e) from None
    if mapping is None:  # guess from every key of every object, as load_events does
        try:
            keys_seen = [r[0] for r in raw.select(F.explode(F.expr("json_object_keys(value)")).alias("k"))
                         .distinct().collect()]
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, "JSON Lines", e) from None
        mapping = guess_mapping(sorted(keys_seen))
    # which mapped keys occur at all, and the kinds of time values (one scan, in the JVM)
    probe_map = mapping
    keys = [probe_map.type_col, *probe_map.time_columns] + ([probe_map.id_col] if probe_map.id_col else [])
    aggs = [F.count(F.lit(1)).alias("__n"),
            F.sum(F.when(F.trim(F.col(_LINE)) != "", 1).otherwise(0)).alias("__nonblank")]
    for i, k in enumerate(keys):
        present = F.col(_LINE).rlike(_key_regex(k))
        aggs.append(F.max(F.when(present, 1).otherwise(0)).alias(f"p{i}"))
    for i, c in enumerate(probe_map.time_columns):
        v = F.get_json_object(F.col(_LINE), _json_path(c))
        aggs += [F.sum(F.when(v.rlike(_FLOAT_RE), 1).otherwise(0)).alias(f"f{i}"),
                 F.sum(F.when(v.rlike(_DATE_RE), 1).otherwise(0)).alias(f"d{i}")]
    try:
        row = raw.agg(*aggs).collect()[0].asDict()
    except Exception as e:  # noqa: BLE001
        raise _spark_error(path, "JSON Lines", e) from None
    if not row["__nonblank"]:
        raise DataError(f"'{path.name}' is empty: no rows")
    counts = {c: {"n": None, "num": row[f"f{i}"] or 0, "dt": row[f"d{i}"] or 0}
              for i, c in enumerate(probe_map.time_columns)}
    present = [k for i, k in enumerate(keys) if row[f"p{i}"]]
    m = mapping
    plan = _Plan(kind="jsonl", mapping=m, columns=[], plain_attrs=[], json_attrs=[],
                 id_mode="json", time_kinds=_time_kinds_from_counts(m, counts), text_source=False,
                 mapped_present=[k for k in present if k in m.mapped_columns()])
    return _run_validation(spark, raw, plan, [], [], name, lines)


def _key_regex(key: str) -> str:
    import re

    return '"' + re.escape(json.dumps(key)[1:-1]) + r'"\s*:'


def _json_path(key: str) -> str:
    return "$['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"


def _finish(spark: Any, typed: Any, kind: str, mapping: ColumnMapping, columns: list[str],
            decisions: dict[str, str], counts: dict[str, Any], whole: list[ValidationIssue],
            name: str, lines: LineIndex | None = None) -> SparkEvents:
    mapped = mapping.mapped_columns()
    id_present = mapping.id_col is not None and mapping.id_col in columns
    attrs = [c for c in columns if c not in mapped or (c == mapping.id_col and not id_present)]
    plain = [c for c in attrs if decisions.get(c) in ("long", "double", "boolean", "string", "datetime")]
    json_attrs = [c for c in attrs if c not in plain]
    if not id_present:
        id_mode = "rows"
    else:
        id_mode = {"long": "long", "string": "string"}.get(decisions.get(mapping.id_col, ""), "json")
    plan = _Plan(kind=kind, mapping=mapping, columns=columns, plain_attrs=plain, json_attrs=json_attrs,
                 id_mode=id_mode, time_kinds=_time_kinds_from_counts(mapping, counts),
                 text_source=kind in ("csv", "tsv"), mapped_present=[])
    return _run_validation(spark, typed, plan, whole, columns, name, lines)


def from_spark_frame(df: Any, mapping: ColumnMapping | None = None) -> SparkEvents:
    """Validate an existing Spark DataFrame (typed columns) as an event source. Input
    order is the order of its partitions."""
    from pyspark.sql import functions as F

    columns = df.columns
    if mapping is None:
        mapping = guess_mapping(columns)
    whole = _expected_issues(columns, mapping)
    typed = df.select("*", F.lit("frame").alias(_FILE),
                      F.spark_partition_id().cast("long").alias(_BLOCK))
    decisions = {f.name: _spark_decision(f.dataType) for f in df.schema.fields}
    counts = _string_time_counts(typed, mapping, decisions)
    return _finish(df.sparkSession, typed, "frame", mapping, columns, decisions, counts, whole, "frame")


def _run_validation(spark: Any, typed: Any, plan: _Plan, whole: list[ValidationIssue],
                    columns: list[str], name: str, lines: LineIndex | None = None) -> SparkEvents:
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    src = typed.withColumn(_SEG, F.xxhash64(F.col(_FILE), F.col(_BLOCK)))
    attr_fields = [f for f in typed.schema.fields if f.name in plan.plain_attrs]
    out_schema = _out_schema(plan, attr_fields)

    def worker(batches: Iterator[pa.RecordBatch], plan=plan, schema=out_schema) -> Iterator[pa.RecordBatch]:
        return _validate_partition(plan, schema, batches)

    validated = src.mapInArrow(worker, out_schema).persist(StorageLevel.MEMORY_AND_DISK)
    cached = [validated]
    infos = [json.loads(r[0]) for r in validated.filter(F.col(_KIND) == 1).select(_INFO).collect()]
    metas = sorted((i for i in infos if "meta" in i), key=lambda m: (m["file"], m["block"]))
    mapping = plan.mapping
    # JSON Lines: the columns are the keys seen anywhere (first-seen order)
    if plan.kind == "jsonl":
        keys: dict[str, None] = {}
        for m in metas:
            for k in m["keys"]:
                keys.setdefault(k, None)
        columns = list(keys)
        whole = _expected_issues(columns, mapping)
        promote = _jsonl_promotions(metas, mapping)
    else:
        promote = []
    row_off: dict[int, int] = {}
    valid_off: dict[int, int] = {}
    r = v = 0
    prev_last: float | None = None
    in_order = True
    schema_pairs: dict[str, dict[str, set[str]]] = {}
    for m in metas:
        row_off[m["seg"]] = r
        valid_off[m["seg"]] = v
        r += m["rows"]
        v += m["valid"]
        in_order &= bool(m["sorted"])
        if m["first_ts"] is not None:
            if prev_last is not None and m["first_ts"] < prev_last:
                in_order = False
            prev_last = m["last_ts"]
        for t, a, k in m["schema"]:
            schema_pairs.setdefault(t, {}).setdefault(a, set()).add(k)
        for t in m["types"]:
            schema_pairs.setdefault(t, {})
    issues: list[ValidationIssue] = list(whole)
    for i in infos:
        if "issue" in i:
            it = ValidationIssue(**i["issue"])
            issues.append(it.model_copy(update={"row": it.row + row_off[i["seg"]]}))
    rows_read = r
    rows_loaded = v
    data = validated.filter(F.col(_KIND) == 0)
    seg_rows = F.create_map(*[x for s, o in row_off.items() for x in (F.lit(s), F.lit(o))]) if row_off else None
    row_expr = (F.element_at(seg_rows, F.col(_SEG)) + F.col(ROW_COL)) if seg_rows is not None else F.col(ROW_COL)
    ids_are_rows = plan.id_mode == "rows" or (plan.kind == "jsonl" and mapping.id_col is not None
                                               and mapping.id_col not in columns) or mapping.id_col is None
    id_json = plan.id_mode == "json"
    data = data.withColumn(ROW_COL, row_expr)
    if ids_are_rows:
        data = data.withColumn(ID_COL, F.col(ROW_COL) if not id_json else F.col(ROW_COL).cast("string"))
    if in_order:
        seg_valid = F.create_map(*[x for s, o in valid_off.items() for x in (F.lit(s), F.lit(o))]) \
            if valid_off else None
        seq_expr = (F.element_at(seg_valid, F.col(_SEG)) + F.col(_LVALID)) if seg_valid is not None \
            else F.col(_LVALID)
        data = data.withColumn(SEQ_COL, seq_expr)
    else:
        data = _global_seq(spark, data, cached)
    # duplicate ids: a warning per later row with an id seen before (global, as in-process)
    if not ids_are_rows and rows_loaded and not _ids_surely_unique(plan, metas):
        issues.extend(_duplicate_ids(data, mapping, id_json))
    keep = [ROW_COL, SEQ_COL, TYPE_COL, TS_COL, ID_COL]
    if mapping.is_interval:
        keep += [LOWER_COL, UPPER_COL]
    keep += [f"`{c}`" for c in plan.plain_attrs]
    if JSON_COL in data.columns:
        keep.append(JSON_COL)
    data = data.select(*keep)
    if not in_order:
        issues.append(ValidationIssue(
            row=None, column=mapping.lower_col if mapping.is_interval else mapping.ts_col,
            severity="warning", code="unsorted",
            reason=(f"input was not sorted by ts; sorted {rows_loaded} rows stably, ties keep "
                    f"file order")))
    issues.sort(key=lambda i: -1 if i.row is None else i.row)
    issues = with_lines(issues, lines)
    report = ValidationReport(issues=issues, rows_read=rows_read, rows_loaded=rows_loaded,
                              rows_rejected=rows_read - rows_loaded, sorted_by_ts=in_order)
    schema: dict[str, dict[str, str]] = {}
    attr_order = [c for c in columns if c in set(plan.plain_attrs) | set(plan.json_attrs)] \
        if plan.kind != "jsonl" else columns
    for t in schema_pairs:
        kinds = schema_pairs[t]
        schema[t] = {c: (next(iter(kinds[c])) if len(kinds[c]) == 1 else "mixed")
                     for c in attr_order if c in kinds}
    time_is_datetime = "datetime" in plan.time_kinds.values() or any(
        _spark_is_datetime(typed, c) for c in mapping.time_columns)
    json_attrs = plan.json_attrs if plan.kind != "jsonl" else [c for c in columns if c not in mapping.mapped_columns()]
    # sorted input: the first and last valid ts of the segments in input order are the range
    firsts = [m["first_ts"] for m in metas if m["first_ts"] is not None]
    lasts = [m["last_ts"] for m in metas if m["last_ts"] is not None]
    ts_range = (float(firsts[0]), float(lasts[-1])) if in_order and firsts else None
    return SparkEvents(df=data, report=report, schema=schema, mapping=mapping,
                       time_is_datetime=time_is_datetime, attr_columns=list(plan.plain_attrs),
                       json_attrs=json_attrs, id_json=id_json, ids_are_rows=ids_are_rows,
                       promote=promote, count=rows_loaded, source=name, lines=lines, ts_range=ts_range,
                       _cached=cached)


_ARROW_KINDS = [{"int"}, {"float"}, {"int", "float"}, {"bool"}, {"str"}, set()]


def _jsonl_promotions(metas: list[dict[str, Any]], mapping: ColumnMapping) -> list[str]:
    """``load_events`` reads a regular JSON Lines file (every line an object, no nested
    values, one kind per key, ints and floats counting as one) with pyarrow, which reads a
    key holding both ints and floats as floats. Return those keys (attributes only)."""
    if any(m["irregular"] for m in metas):
        return []
    kinds: dict[str, set[str]] = {}
    for m in metas:
        for k, ks in m["kinds"].items():
            kinds.setdefault(k, set()).update(ks)
    for ks in kinds.values():
        if (ks - {"NoneType"}) not in _ARROW_KINDS:
            return []
    mapped = mapping.mapped_columns()
    return [k for k, ks in kinds.items() if (ks - {"NoneType"}) == {"int", "float"} and k not in mapped]


def _ids_surely_unique(plan: _Plan, metas: list[dict[str, Any]]) -> bool:
    """Integer ids increasing inside every segment, segments' id ranges disjoint: no
    duplicates, so the global check (a shuffle) can be skipped."""
    if plan.id_mode != "long":
        return False
    ranges = []
    for m in metas:
        if not m["ids_inc"]:
            return False
        if m["id_min"] is not None:
            ranges.append((m["id_min"], m["id_max"]))
    ranges.sort()
    return all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))


def _spark_is_datetime(df: Any, col: str) -> bool:
    if col not in df.columns:
        return False
    return _spark_decision(df.schema[col].dataType) == "datetime"


def _global_seq(spark: Any, data: Any, cached: list[Any]) -> Any:
    """``seq`` for unsorted input: range-sort by (ts, row), then position = offset of the
    sorted partition + position inside it."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    n = max(1, spark.sparkContext.defaultParallelism)
    srt = (data.repartitionByRange(n, F.col(TS_COL), F.col(ROW_COL))
           .sortWithinPartitions(TS_COL, ROW_COL)
           .withColumn("__cep_pid", F.spark_partition_id())
           .withColumn("__cep_mid", F.monotonically_increasing_id())
           .persist(StorageLevel.MEMORY_AND_DISK))
    cached.append(srt)
    counts = sorted((r[0], r[1]) for r in srt.groupBy("__cep_pid").count().collect())
    off, acc = {}, 0
    for pid, c in counts:
        off[pid] = acc
        acc += c
    mp = F.create_map(*[x for p, o in off.items() for x in (F.lit(p), F.lit(o))])
    local = F.col("__cep_mid").bitwiseAND(F.lit((1 << 33) - 1))
    return srt.withColumn(SEQ_COL, F.element_at(mp, F.col("__cep_pid")) + local) \
        .drop("__cep_pid", "__cep_mid")


def _duplicate_ids(data: Any, mapping: ColumnMapping, id_json: bool) -> list[ValidationIssue]:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    dup_keys = data.groupBy(ID_COL).count().filter(F.col("count") > 1).select(ID_COL)
    if not dup_keys.take(1):
        return []
    rows = (data.join(dup_keys, on=ID_COL, how="inner")
            .select(ID_COL, ROW_COL)
            .withColumn("__first", F.min(ROW_COL).over(Window.partitionBy(ID_COL)))
            .filter(F.col(ROW_COL) != F.col("__first"))
            .orderBy(ROW_COL).limit(10_000).collect())
    out = []
    for r in rows:
        v = json.loads(r[0]) if id_json else r[0]
        text = str(v)
        if len(text) > 40:
            text = text[:37] + "..."
        shown = f"'{text}'" if isinstance(v, str) else text
        out.append(ValidationIssue(row=int(r[1]), column=mapping.id_col, severity="warning",
                                   code="duplicate_id", reason=f"duplicate id {shown}",
                                   first_row=int(r[2])))
    return out
