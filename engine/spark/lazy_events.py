"""Events of a Spark DataFrame validated lazily: a transformation, no Spark job.

``engine.spark.read.from_spark_frame`` validates a DataFrame with Spark actions (it collects
the counts of every input partition to number rows and positions globally). This module
builds the same canonical columns (``__cep_type``, ``__cep_ts``, ``__cep_id``, the attribute
columns, ``__cep_json``) as a plain ``mapInArrow`` step over the caller's DataFrame, with the
read package's own worker (``read.validate._validate_partition``, which runs
``engine.events.validate_frame`` on every Arrow batch), and decides everything else from the
schema alone:

- ``__cep_seq`` holds the *input position* ``partition << 33 | row in partition``: sorting by
  ``(ts, __cep_seq)`` is the in-process stable sort by ts (ties in input order). The match
  workers renumber it in feed order (``renumber``), so an engine sees positions that follow
  the stream. A count window (``WITHIN n events``) needs the dense global position: then
  ``dense_seq=True`` numbers the valid rows with a window over the whole input (lazy too, but
  that window runs in one task).
- Without an id column, ids are the 0-based input rows, as in-process: a window over the
  whole input numbers them (lazy, one task; give the data an id column to avoid it).
- A row that fails validation is refused when the job runs (``bad_rows="fail"``: the task
  raises ``DataError`` naming the input partition, the row in it and the reason), or left out
  (``bad_rows="drop"``). A missing required column is refused at once (from the schema).
- A string time column is read per Arrow batch as numbers or date-times (the in-process
  loader decides once for the whole input); give the column a type to avoid the difference.

Example (nothing runs until an action)::

    ev = lazy_events(df, ColumnMapping(type_col="kind"))
    ev.df.filter("__cep_type = 'A'")          # still a transformation
"""
from __future__ import annotations

import json
from typing import Any, Iterator

import numpy as np
import pyarrow as pa

from engine.events import ROW_COL, TS_COL, ColumnMapping, DataError
from engine.events import ValidationReport, guess_mapping
from engine.spark.read.assemble import _expected_issues
from engine.spark.read.columns import _BLOCK, _FILE, _INFO, _KIND, _SEG, SEQ_COL
from engine.spark.read.events import SparkEvents
from engine.spark.read.kinds import _spark_decision
from engine.spark.read.validate import _out_schema, _Plan, _validate_partition

__all__ = ["lazy_events", "renumber", "ROW_ID_COL", "BAD_ROWS"]

#: the column of 0-based input rows added when the data has no id column
ROW_ID_COL = "__cep_row_id"
#: what to do with a row that fails validation
BAD_ROWS = ("fail", "drop")
_MONO = "__cep_mono"
_SHIFT = 33  # input position = partition << 33 | row in the partition (as monotonically_increasing_id)


def _mapping(columns: list[str], mapping: ColumnMapping | dict | None) -> ColumnMapping:
    if isinstance(mapping, dict):
        mapping = ColumnMapping(**{k: v for k, v in mapping.items() if v is not None or k != "ts_col"})
    return mapping if mapping is not None else guess_mapping(columns)


def lazy_events(df: Any, mapping: ColumnMapping | dict | None = None, *, bad_rows: str = "fail",
                dense_seq: bool = False, streaming: bool = False) -> SparkEvents:
    """``df`` (a Spark DataFrame of events) validated as a transformation (see the module).

    The result's ``report`` holds only the issues about the input as a whole (from the
    schema), its ``count`` is 0 (unknown until a job runs). ``streaming``: the input is a
    Structured Streaming DataFrame (no whole-input windows there: it needs an id column and
    a time window)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if bad_rows not in BAD_ROWS:
        raise ValueError(f"bad_rows must be one of {', '.join(BAD_ROWS)}, not {bad_rows!r}")
    columns = list(df.columns)
    mapping = _mapping(columns, mapping)
    whole = _expected_issues(columns, mapping)  # a missing required column: DataError now
    decisions = {f.name: _spark_decision(f.dataType) for f in df.schema.fields}
    id_present = mapping.id_col is not None and mapping.id_col in columns
    if not id_present:
        if streaming:
            raise DataError("a stream needs an id column: ids that are input row numbers need the whole input "
                            f"(no column {mapping.id_col or 'id'!r} in {', '.join(columns)})")
        rows = df.withColumn(_MONO, F.monotonically_increasing_id())
        df = (rows.withColumn(ROW_ID_COL, F.row_number().over(Window.orderBy(_MONO)) - F.lit(1))
              .drop(_MONO))
        if mapping.id_col is not None:  # an absent id column stays an attribute of nobody
            columns = [c for c in columns if c != mapping.id_col]
        mapping = mapping.model_copy(update={"id_col": ROW_ID_COL})
        columns.append(ROW_ID_COL)
        decisions[ROW_ID_COL] = "long"
    mapped = mapping.mapped_columns()
    attrs = [c for c in columns if c not in mapped]
    plain = [c for c in attrs if decisions.get(c) in ("long", "double", "boolean", "string", "datetime")]
    json_attrs = [c for c in attrs if c not in plain]
    id_mode = {"long": "long", "string": "string"}.get(decisions.get(mapping.id_col or "", ""), "json")
    plan = _Plan(kind="frame", mapping=mapping, columns=columns, plain_attrs=plain, json_attrs=json_attrs,
                 id_mode=id_mode, time_kinds={}, text_source=False, mapped_present=[])
    # the segment is the task's input partition, set in the task: ``spark_partition_id()`` here
    # could be folded into a local relation on the driver (0 for every row)
    typed = df.select(*[F.col(f"`{c}`") for c in columns], F.lit("frame").alias(_FILE),
                      F.lit(0).cast("long").alias(_BLOCK), F.lit(0).cast("long").alias(_SEG))
    attr_fields = [f for f in typed.schema.fields if f.name in plain]
    inner = _out_schema(plan, attr_fields)
    keep = [f for f in inner.fields if f.name not in (_KIND, _INFO, _SEG, "__cep_lvalid")]
    from pyspark.sql import types as T

    out_schema = T.StructType([T.StructField(ROW_COL, T.LongType(), True), T.StructField(SEQ_COL, T.LongType(), True)]
                              + [f for f in keep if f.name != ROW_COL])
    fail = bad_rows == "fail"

    def worker(batches: Iterator[pa.RecordBatch], plan: _Plan = plan, inner: Any = inner,
               out: Any = out_schema) -> Iterator[pa.RecordBatch]:
        return _checked(plan, inner, out, batches, fail)

    data = typed.mapInArrow(worker, out_schema)
    if dense_seq:
        data = data.withColumn(SEQ_COL, F.row_number().over(Window.orderBy(TS_COL, SEQ_COL)) - F.lit(1))
    report = ValidationReport(issues=whole)
    time_is_datetime = any(decisions.get(c) == "datetime" for c in mapping.time_columns)
    return SparkEvents(df=data, report=report, schema={}, mapping=mapping, time_is_datetime=time_is_datetime,
                       attr_columns=plain, json_attrs=json_attrs, id_json=id_mode == "json",
                       ids_are_rows=not id_present, source="frame")


def _checked(plan: _Plan, inner: Any, out: Any, batches: Iterator[pa.RecordBatch],
             fail: bool) -> Iterator[pa.RecordBatch]:
    """The validation worker's valid rows with their input position in ``__cep_seq``; its
    issues refused (``fail``) or dropped."""
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = to_arrow_schema(out)
    for rb in _validate_partition(plan, inner, _in_partition(batches)):
        kinds = rb.column(_KIND).to_numpy(zero_copy_only=False)
        if fail and (kinds == 1).any():
            for text in rb.column(_INFO).filter(pa.array(kinds == 1)).to_pylist():
                info = json.loads(text)
                issue = info.get("issue")
                if issue is not None and issue.get("severity", "error") == "error":
                    raise DataError(_refusal(info["seg"], issue))
        if not (kinds == 0).any():
            continue
        data = rb.filter(pa.array(kinds == 0))
        seg = data.column(_SEG).to_numpy(zero_copy_only=False).astype(np.int64)
        rows = data.column(ROW_COL).to_numpy(zero_copy_only=False).astype(np.int64)
        cols = {ROW_COL: pa.array(rows), SEQ_COL: pa.array((seg << _SHIFT) | rows)}
        arrays = [cols[f.name] if f.name in cols else data.column(f.name) for f in schema]
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def _in_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The batches with the task's input partition as their segment and block."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    part = ctx.partitionId() if ctx is not None else 0
    for rb in batches:
        n = rb.num_rows
        column = pa.array(np.full(n, part, dtype=np.int64))
        for name in (_BLOCK, _SEG):
            rb = rb.set_column(rb.schema.get_field_index(name), name, column)
        yield rb


def _refusal(partition: int, issue: dict[str, Any]) -> str:
    where = f"input partition {partition}, data row {int(issue['row']) + 1} of that partition"
    if issue.get("column"):
        where += f", column {issue['column']}"
    return f"a row of the events is not valid ({where}): {issue['reason']}"


def renumber(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``__cep_seq`` as the position in feed order (the batches of a task, already sorted by
    group, ts and input position): what an engine compares to order events."""
    start = 0
    for rb in batches:
        n = rb.num_rows
        if n == 0:
            continue
        i = rb.schema.get_field_index(SEQ_COL)
        yield rb.set_column(i, SEQ_COL, pa.array(np.arange(start, start + n, dtype=np.int64)))
        start += n
