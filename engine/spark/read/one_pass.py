"""CSV and TSV in one Spark pass that types and validates.

Every column is read as text. In the same ``mapInArrow`` task, each Arrow batch is typed column by
column by the in-process CSV typing (``engine.events.arrow_csv._type_column``: int, float, bool
or text, as pandas types a chunk), validated by the in-process rules (``validate_frame``, through
``validate._validate_run``) and its valid rows go out in canonical columns, the attributes as the
text they were. Each task also reports, per segment, the kind every batch gave each column.

The driver then decides each column's type for the whole input from those kinds, as a whole read
types it: all ints: long; ints and floats: double; all booleans: boolean; text without numbers:
string; text holding numbers (in every batch): mixed, carried as JSON (the in-process reader turns
number-looking text into numbers value by value); and casts the text columns to those types (a
Spark cast of text each batch already certified). No second look at the data is needed when the
batches agree: an int batch in a double column reads the same values, as pandas' does.

Where the batches disagree in a way a cast cannot mend (a column int in one batch and text in
another, a mapped column typed two ways, a time column holding numbers in one batch and date-times
in another, a cell the Arrow typing is unsure of), ``read_csv_one_pass`` returns None and the
caller reads the file the older way (a typing scan over the whole file, then the validation pass):
those files need the whole file's types before any row can be validated. Interval data is always
read that way (exact bounds).
"""
from __future__ import annotations

import csv
import io as _io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pyarrow as pa

from engine.events import ColumnMapping, DataError, guess_mapping
from engine.events.lines import LineIndex
from engine.spark.read.assemble import _assemble, _expected_issues, _validation_job
from engine.spark.read.columns import _BLOCK, _CORRUPT, _FILE, _SEG, JSON_COL, NA_STRINGS, _with_segment
from engine.spark.read.errors import _spark_error
from engine.spark.read.events import SparkEvents
from engine.spark.read.validate import (_Local, _out_schema, _Plan, _SegState, _validate_run, info_batch, segment_runs,
                                        segment_state)

__all__ = ["read_csv_one_pass", "decide_kind"]

_MAX_CORRUPT = 200  # lines Spark could not split kept per segment (to name the first bad one)


def _header(files: list[Path], sep: str) -> list[str] | None:
    """The header's names of the first file (Python's CSV reader, as Spark splits a line); None
    when some name is one Spark would rename (empty) or the header is not plain UTF-8 text."""
    if not files:
        return None
    try:
        with files[0].open("r", encoding="utf-8", newline="") as fh:
            names = next(csv.reader(fh, delimiter=sep), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    if not names or any(not n for n in names) or names[0].startswith("\ufeff"):
        return None  # (a byte-order mark: the older reader's header read decides)
    return names


def read_csv_one_pass(spark: Any, path: Path, files: list[Path], sep: str, mapping: ColumnMapping | None,
                      lines: LineIndex | None) -> SparkEvents | None:
    """Read, type and validate a CSV/TSV file, directory or glob in one Spark job (see the
    module); None where the file needs the whole file's types first (the caller reads it the
    older way). Raises ``DataError`` as the older reader does."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    what = "CSV" if sep == "," else "TSV"
    columns = _header(files, sep)
    if columns is None:
        return None
    if mapping is None:
        mapping = guess_mapping(columns)
    whole = _expected_issues(columns, mapping)  # a missing required column: DataError, as in-process
    if mapping.is_interval or mapping.pmf_col is not None:
        return None
    schema = T.StructType([T.StructField(c, T.StringType(), True) for c in columns]
                          + [T.StructField(_CORRUPT, T.StringType(), True)])
    reader = (spark.read.option("header", True).option("sep", sep).option("escape", '"')
              .option("mode", "PERMISSIVE").option("encoding", "UTF-8").option("enforceSchema", True))
    raw = _with_segment(reader.schema(schema).option("columnNameOfCorruptRecord", _CORRUPT).csv(str(path)))
    na = F.array(*[F.lit(s) for s in NA_STRINGS])
    clean = [F.when(F.array_contains(na, F.col(f"`{c}`")), F.lit(None)).otherwise(F.col(f"`{c}`")).alias(c)
             for c in columns]
    src = raw.select(*clean, F.col(_CORRUPT), F.col(_FILE), F.col(_BLOCK),
                     F.xxhash64(F.col(_FILE), F.col(_BLOCK)).alias(_SEG))
    mapped = mapping.mapped_columns()
    id_present = mapping.id_col is not None and mapping.id_col in columns
    attrs = [c for c in columns if c not in mapped or (c == mapping.id_col and not id_present)]
    plan = _Plan(kind="csv" if sep == "," else "tsv", mapping=mapping, columns=columns, plain_attrs=attrs,
                 json_attrs=[], id_mode="text" if id_present else "rows", time_kinds={}, text_source=True,
                 mapped_present=[])
    attr_fields = [T.StructField(c, T.StringType(), True) for c in attrs]
    out_schema = _out_schema(replace(plan, json_attrs=["?"]), attr_fields)  # (always a JSON column)

    def worker(batches: Iterator[pa.RecordBatch], plan: _Plan = plan, schema: Any = out_schema) -> Iterator[pa.RecordBatch]:
        return _one_pass_partition(plan, schema, batches)

    # column pruning would hide lines with too many fields from the corrupt-record column
    prune_key = "spark.sql.csv.parser.columnPruning.enabled"
    prune = spark.conf.get(prune_key, "true")
    spark.conf.set(prune_key, "false")
    try:
        try:
            validated, infos = _validation_job(src, worker, out_schema)
        except DataError:
            raise
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, what, e) from None
    finally:
        spark.conf.set(prune_key, prune)
    csv_infos = [i for i in infos if "csv" in i]
    try:
        _check_corrupt(csv_infos, columns, sep, f"'{path.name}' as {what}")
        decided = _decide(csv_infos, mapping, columns, attrs)
    except BaseException:
        validated.unpersist()
        raise
    if decided is None:
        validated.unpersist()
        return None
    kinds, time_kinds, id_mode = decided
    mixed = [c for c in attrs if kinds[c] == "mixed"]
    plain = [c for c in attrs if kinds[c] != "mixed"]
    final = replace(plan, plain_attrs=plain, json_attrs=mixed, id_mode=id_mode, time_kinds=time_kinds)

    def project(data: Any) -> Any:
        sel = []
        for c in data.columns:
            col = F.col(f"`{c}`")
            kind = kinds.get(c) if c in attrs else None
            if c == "__cep_id" and id_mode == "long":
                sel.append(col.cast("long").alias(c))
            elif c == JSON_COL and not mixed:
                continue
            elif kind == "mixed":
                continue
            elif kind == "long":
                sel.append(F.trim(col).cast("long").alias(c))
            elif kind == "double":
                sel.append(F.trim(col).cast("double").alias(c))
            elif kind == "boolean":
                sel.append(col.cast("boolean").alias(c))
            else:
                sel.append(col)
        return data.select(*sel)

    return _assemble(spark, validated, infos, final, whole, columns, str(path), lines,
                     "datetime" in time_kinds.values(), project=project)


def decide_kind(kinds: set[str]) -> str | None:
    """An attribute column's type over the whole input from its batches' kinds (see the module);
    None when no cast can make the batches agree."""
    k = kinds - {"none"}
    if not k or k == {"text"}:
        return "string"
    if k == {"int"}:
        return "long"
    if k <= {"int", "float"}:
        return "double"
    if k == {"bool"}:
        return "boolean"
    if k == {"mixed"}:
        return "mixed"
    return None


def _decide(csv_infos: list[dict[str, Any]], mapping: ColumnMapping, columns: list[str],
            attrs: list[str]) -> tuple[dict[str, str], dict[str, str], str] | None:
    """Each column's type, the time kinds and the id mode for the whole input; None where the
    batches disagree (see the module)."""
    seen: dict[str, set[str]] = {c: set() for c in columns}
    times: dict[str, set[str]] = {}
    for info in csv_infos:
        if info["unsure"]:
            return None
        for c, ks in info["kinds"].items():
            seen[c].update(ks)
        for c, ks in info["time_kinds"].items():
            times.setdefault(c, set()).update(ks)
    if any(len(ks) > 1 for ks in times.values()):
        return None
    kinds: dict[str, str] = {}
    for c in attrs:
        d = decide_kind(seen[c])
        if d is None:
            return None
        kinds[c] = d
    for c in columns:
        if c in kinds:
            continue
        k = seen[c] - {"none"}
        if c in mapping.time_columns and k <= {"int", "float"}:
            continue
        if len(k) > 1:
            return None
    id_mode = "rows"
    if mapping.id_col is not None and mapping.id_col in columns:
        k = seen[mapping.id_col] - {"none"}
        id_mode = "long" if k == {"int"} else "string" if k <= {"text"} else "json"
    return kinds, {c: next(iter(ks)) for c, ks in times.items()}, id_mode


def _check_corrupt(csv_infos: list[dict[str, Any]], columns: list[str], sep: str, what: str) -> None:
    """A record with more or fewer fields than the header: the ``DataError`` of the older reader
    (Spark would fill a short one with nulls)."""
    bad = [t for info in sorted(csv_infos, key=lambda i: (i["file"], i["block"])) for t in info["corrupt"]]
    for text in bad:
        if not text.strip():
            continue  # a blank line: skipped, as the in-process readers do
        toks = next(csv.reader(_io.StringIO(text), delimiter=sep), [])
        if len(toks) != len(columns):
            raise DataError(f"cannot read {what}: expected {len(columns)} fields, "
                            f"saw {len(toks)} in the line {text[:60]!r}")


# --------------------------------------------------------------------------- the worker

class _Kinds:
    """Per segment: the kinds each batch gave each column, the time kinds, corrupt lines."""

    def __init__(self, st: _SegState) -> None:
        self.st = st
        self.kinds: dict[str, set[str]] = {}
        self.time_kinds: dict[str, set[str]] = {}
        self.unsure = False
        self.corrupt: list[str] = []

    def info(self) -> str:
        st = self.st
        return json.dumps({"csv": 1, "seg": st.seg, "file": st.file, "block": st.block, "unsure": self.unsure,
                           "kinds": {c: sorted(k) for c, k in self.kinds.items()},
                           "time_kinds": {c: sorted(k) for c, k in self.time_kinds.items()},
                           "corrupt": self.corrupt})


def _typed(part: pa.RecordBatch, columns: list[str]) -> tuple[pa.RecordBatch, dict[str, str]] | None:
    """The batch's columns typed by the in-process CSV typing, and the kind of each; None when
    the typing is unsure of a cell (pandas would decide)."""
    import pyarrow.compute as pc

    from engine.events.arrow_csv import _type_column
    from engine.events.small_csv import Unsure

    arrays = []
    kinds: dict[str, str] = {}
    for c in columns:
        arr = part.column(c)
        if arr.null_count == len(arr):
            kinds[c] = "none"
            arrays.append(arr)
            continue
        try:
            tc = _type_column(pc.fill_null(arr, ""))
        except Unsure:
            return None
        kinds[c] = tc.kind
        exact = getattr(tc, "ints", None)  # (int64 values, 0 where missing, where the typing keeps them)
        if tc.kind == "int" and exact is not None and tc.numbers is not None:
            arrays.append(pa.array(exact, mask=np.isnan(tc.numbers), type=pa.int64()))
        elif tc.kind == "int":
            arrays.append(pa.array(tc.cells, type=pa.int64()))
        elif tc.kind == "float":
            values = np.asarray(tc.numbers, dtype=np.float64)
            arrays.append(pa.array(values, mask=np.isnan(values), type=pa.float64()))
        elif tc.kind == "bool":
            arrays.append(pa.array(tc.cells, type=pa.bool_()))
        else:
            arrays.append(arr)
    return pa.RecordBatch.from_arrays(arrays, names=columns), kinds


def _one_pass_partition(plan: _Plan, schema: Any, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The mapInArrow worker: type each batch, validate it, emit its canonical valid rows; then the
    issues, the per-segment counts and the per-segment kinds as info rows."""
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema)
    names = [f.name for f in arrow_schema]
    segs: dict[int, _Kinds] = {}
    infos: list[str] = []
    for seg, part in segment_runs(batches):
        ks = segs.get(seg)
        if ks is None:
            ks = segs[seg] = _Kinds(segment_state(seg, part))
        corrupt = part.column(_CORRUPT)
        if corrupt.null_count < len(corrupt) and len(ks.corrupt) < _MAX_CORRUPT:
            ks.corrupt.extend(t for t in corrupt.to_pylist() if t is not None)
            del ks.corrupt[_MAX_CORRUPT:]
        typed = None if ks.unsure else _typed(part, plan.columns)
        if typed is None:  # the driver reads the file the older way: skip the rest cheaply
            ks.unsure = True
            ks.st.rows += part.num_rows
            continue
        table, kinds = typed
        local = _Local(text=part, kinds=kinds)
        yield from _validate_run(plan, arrow_schema, names, table, ks.st, None, infos, local)
        for c, k in local.kinds.items():
            ks.kinds.setdefault(c, set()).add(k)
        for c, k in (local.time_kinds or {}).items():
            ks.time_kinds.setdefault(c, set()).add(k)
    for ks in segs.values():
        infos.append(json.dumps(ks.st.meta()))
        infos.append(ks.info())
    if infos:
        yield info_batch(infos, names, arrow_schema)
