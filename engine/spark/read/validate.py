"""The validation pass on the workers: the ``mapInArrow`` function that runs
``engine.events.validate_frame`` on every Arrow batch with the row offset of the batch inside
its segment, emits the valid rows in canonical columns, then the issues and per-segment counts
as info rows. ``_Plan`` is what it is told (pickled to the workers); ``_SegState`` what it
keeps per segment; ``_jsonl_frame`` parses JSON lines as the in-process reader does.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa

from engine.events import (ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UPPER_COL, ColumnMapping,
                       ValidationIssue, arrow_to_pandas, events_from_frame, infer_schema, validate_frame)
from engine.events.formats import BadLine, parse_json_line
from engine.spark.read.columns import _BLOCK, _FILE, _INFO, _KIND, _LINE, _LVALID, _SEG, JSON_COL
from engine.spark.read.kinds import _arrow_kind


@dataclass
class _Plan:
    """What the validation worker needs (pickled to the workers)."""

    kind: str                       # csv | tsv | jsonl | parquet | frame
    mapping: ColumnMapping
    columns: list[str]              # data columns as read (csv/parquet); [] for jsonl
    plain_attrs: list[str]          # attribute columns passed through as Spark columns
    json_attrs: list[str]           # attribute columns re-encoded into __cep_json (csv/parquet)
    id_mode: str                    # "long" | "string" | "json" | "rows" | "text" (one_pass: ids as text)
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

    for seg, part in segment_runs(batches):
        st = segs.get(seg)
        if st is None:
            st = segs[seg] = segment_state(seg, part)
        yield from _validate_run(plan, arrow_schema, names, part, st, time_kinds, infos)
    for st in segs.values():
        infos.append(json.dumps(st.meta()))
    if infos:
        yield info_batch(infos, names, arrow_schema)


def segment_runs(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[int, pa.RecordBatch]]:
    """The runs of one input segment in a task's batches (a batch rarely spans two): (segment,
    its rows); empty batches are skipped."""
    for rb in batches:
        if rb.num_rows == 0:
            continue
        seg_arr = rb.column(_SEG).to_numpy(zero_copy_only=False)
        bounds = [0] + [int(i) + 1 for i in np.flatnonzero(seg_arr[1:] != seg_arr[:-1])] + [rb.num_rows]
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            yield int(seg_arr[lo]), rb.slice(lo, hi - lo)


def segment_state(seg: int, part: pa.RecordBatch) -> _SegState:
    """The state of a segment first met in ``part`` (its file and block)."""
    return _SegState(seg, part.column(_FILE)[0].as_py(), int(part.column(_BLOCK)[0].as_py()))


def info_batch(infos: list[str], names: list[str], arrow_schema: pa.Schema) -> pa.RecordBatch:
    """The batch of a task's reports (``_INFO`` rows of kind 1, every other column null)."""
    n = len(infos)
    cols = {nm: pa.nulls(n, type=arrow_schema.field(nm).type) for nm in names}
    cols[_KIND] = pa.array([1] * n, type=pa.int8())
    cols[_INFO] = pa.array(infos, type=pa.string())
    return pa.RecordBatch.from_arrays([cols[nm] for nm in names], schema=arrow_schema)


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


@dataclass
class _Local:
    """One-pass CSV (``one_pass``): a batch typed on its own. ``text`` holds the batch's cells as
    text (the plain attributes go out as that text, cast on the driver once every batch's type is
    known); ``kinds`` the batch's kind per column (int, float, bool, text, none); the text columns
    holding numbers go out in ``__cep_json`` (``json_cols``, decided after validation); ids go
    out as text (``repr`` of an int, the string, else JSON)."""

    text: pa.RecordBatch
    kinds: dict[str, str]
    json_cols: list[str] | None = None
    time_kinds: dict[str, str] | None = None


def _validate_run(plan: _Plan, arrow_schema: pa.Schema, names: list[str], part: pa.RecordBatch,
                  st: _SegState, time_kinds: dict[str, Any] | None,
                  infos: list[str], local: _Local | None = None) -> Iterator[pa.RecordBatch]:
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
        if local is not None:
            local.time_kinds = dict(vf.time_kinds)
            local.json_cols = [c for c in vf.attr_columns if local.kinds.get(c) == "text"
                               and _holds_numbers(vf.frame[c].tolist())]
            for c in local.json_cols:
                local.kinds[c] = "mixed"
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
    if local is not None and plan.id_mode == "text" and not vf.ids_are_rows:
        ids = frame[ID_COL].tolist()
        cols[ID_COL] = pa.array(_id_texts(ids, local.kinds.get(mapping.id_col or "", "none")), type=pa.string())
        if local.kinds.get(mapping.id_col or "") == "int" and st.ids_inc:
            _ids_increasing(st, np.asarray(ids, dtype=np.int64))
    elif plan.id_mode == "rows" or vf.ids_are_rows:
        cols[ID_COL] = pa.array(local_rows) if plan.id_mode in ("rows", "long") else \
            pa.array([json.dumps(int(r)) for r in local_rows], type=pa.string())
    elif plan.id_mode == "json":
        dumps = json.dumps
        cols[ID_COL] = pa.array([dumps(i) for i in frame[ID_COL].tolist()], type=pa.string())
    else:
        ids = frame[ID_COL].tolist()
        cols[ID_COL] = pa.array(ids, type=id_type)
        if plan.id_mode == "long" and st.ids_inc:
            _ids_increasing(st, np.asarray(ids, dtype=np.int64))
    if mapping.is_interval:
        cols[LOWER_COL] = pa.array(frame[LOWER_COL].to_numpy(dtype=np.float64))
        cols[UPPER_COL] = pa.array(frame[UPPER_COL].to_numpy(dtype=np.float64))
    # plain attributes: the input Arrow columns at the kept positions (values untouched)
    if plan.plain_attrs:
        pos = pa.array(local_rows - start) if plan.kind != "jsonl" else None
        source = local.text if local is not None else part
        in_json = set(local.json_cols or ()) if local is not None else set()
        for c in plan.plain_attrs:
            arr = source.column(c).take(pos)
            cols[c] = arr
            if c in in_json:
                continue
            present = np.asarray(arr.is_valid())
            kind = _arrow_kind(part.column(c).type)
            for t in pd.unique(types[present]):
                st.schema.add((t, c, kind))
    if local is not None:
        json_cols = list(local.json_cols or ())
    else:
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


def _ids_increasing(st: _SegState, arr: np.ndarray) -> None:
    """Keep ``st.ids_inc`` (integer ids strictly increasing through the segment) and the range."""
    if (st.id_max is not None and arr[0] <= st.id_max) or (len(arr) > 1 and np.any(arr[1:] <= arr[:-1])):
        st.ids_inc = False
    else:
        st.id_min = int(arr[0]) if st.id_min is None else st.id_min
        st.id_max = int(arr[-1])


def _id_texts(ids: list[Any], kind: str) -> list[str]:
    """Ids as text for the one-pass reader: the digits of an int (cast back to long on the
    driver), a string as it is, anything else as JSON."""
    if kind == "int":
        return [str(i) for i in ids]
    if kind == "text":
        return ids
    dumps = json.dumps
    return [dumps(i) for i in ids]


def _holds_numbers(values: list[Any]) -> bool:
    """A text column's valid values hold a number (``coerce_numeric_text`` turned its text
    into one): it travels as JSON, as a mixed column does."""
    for v in values:
        if v is None or type(v) is str:
            continue
        if isinstance(v, float) and v != v:
            continue
        if v is pd.NA:
            continue
        return True
    return False
