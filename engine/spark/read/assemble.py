"""The driver side of the validation pass: run the workers (``validate``), then turn
segment-local row numbers into global ones (prefix sums in input order), compute ``seq`` (the
rank among valid rows when the input is sorted, else a range sort on (ts, row)), find duplicate
ids, and build the report, the schema and the ``SparkEvents``.
"""
from __future__ import annotations

import json
from typing import Any, Iterator

import pandas as pd
import pyarrow as pa

from engine.events import (ID_COL, LOWER_COL, ROW_COL, TS_COL, TYPE_COL, UPPER_COL, ColumnMapping,
                       ValidationIssue, ValidationReport, validate_frame)
from engine.events.lines import LineIndex, with_lines
from engine.events.report import unsorted_issue
from engine.spark.read.columns import _BLOCK, _FILE, _INFO, _KIND, _LVALID, _SEG, JSON_COL, SEQ_COL
from engine.spark.read.events import SparkEvents
from engine.spark.read.kinds import _spark_is_datetime, _time_kinds_from_counts
from engine.spark.read.validate import _out_schema, _Plan, _validate_partition


def _expected_issues(columns: list[str], mapping: ColumnMapping) -> list[ValidationIssue]:
    """Raise DataError for a missing required column, exactly as load_events does, and
    return the issues about the input as a whole (row None): validate an empty frame."""
    empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})
    _, issues = validate_frame(empty, mapping)
    return [i for i in issues if i.row is None]


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


def _run_validation(spark: Any, typed: Any, plan: _Plan, whole: list[ValidationIssue],
                    columns: list[str], name: str, lines: LineIndex | None = None) -> SparkEvents:
    from pyspark.sql import functions as F

    src = typed.withColumn(_SEG, F.xxhash64(F.col(_FILE), F.col(_BLOCK)))
    attr_fields = [f for f in typed.schema.fields if f.name in plan.plain_attrs]
    out_schema = _out_schema(plan, attr_fields)

    def worker(batches: Iterator[pa.RecordBatch], plan=plan, schema=out_schema) -> Iterator[pa.RecordBatch]:
        return _validate_partition(plan, schema, batches)

    validated, infos = _validation_job(src, worker, out_schema)
    time_is_datetime = "datetime" in plan.time_kinds.values() or any(
        _spark_is_datetime(typed, c) for c in plan.mapping.time_columns)
    return _assemble(spark, validated, infos, plan, whole, columns, name, lines, time_is_datetime)


def _validation_job(src: Any, worker: Any, out_schema: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The one Spark job over the input: ``worker`` (a ``mapInArrow`` function) validates every
    row; its output is persisted and its info rows (issues, per-segment counts) collected."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    validated = src.mapInArrow(worker, out_schema).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        infos = [json.loads(r[0]) for r in validated.filter(F.col(_KIND) == 1).select(_INFO).collect()]
    except BaseException:
        validated.unpersist()
        raise
    return validated, infos


def _assemble(spark: Any, validated: Any, infos: list[dict[str, Any]], plan: _Plan, whole: list[ValidationIssue],
              columns: list[str], name: str, lines: LineIndex | None, time_is_datetime: bool,
              project: Any = None) -> SparkEvents:
    """The driver side after the validation job: global rows, ``seq``, duplicate ids, the report
    and the schema. ``project(data)``: the valid rows' columns as the engines read them (the one-pass
    CSV reader casts its text columns there)."""
    from pyspark.sql import functions as F

    cached = [validated]
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
    if project is not None:
        data = project(data)
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
        issues.append(unsorted_issue(mapping.lower_col if mapping.is_interval else mapping.ts_col, rows_loaded))
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


def _global_seq(spark: Any, data: Any, cached: list[Any]) -> Any:
    """``seq`` for unsorted input: range-sort by (ts, row), then position = offset of the
    sorted partition + position inside it."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from engine.spark.session import parallelism

    n = parallelism(spark)
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
