"""A pattern over a plain local CSV on Spark, as columns from the read to the matcher.

The path of ``pipeline.run`` reads with Spark's JVM CSV reader, moves every row through the JVM
(the validation pass, the shuffle, the sort) and feeds each key group's matcher one ``Event`` at a
time; the planner there has no type rates, so it never picks the lazy chain. This path:

1. **Read** (``range_read``): one Python task per byte range of the file reads, types and
   checks its range with the in-process reader and rules, builds its events as columns and sends
   them on as Arrow IPC payloads, one per matching task: by the key's hash (``keyed``), or its
   whole range to the task of the same number plus its last ``2W`` to the next task
   (``time-chunked``: the file is sorted, so each range is a time chunk). One Spark job (its
   payloads persisted), one pass over the data.
2. **Decide** on the driver from the ranges' summaries: every range simple (no problem row,
   sorted, sure typing), the ranges in time order and their ids apart, every column typed the same
   in every range, each time chunk long enough for the next one's prefix. Else ``None``: the caller
   reads the file the usual Spark way, which reports exactly as in-process. The events per type
   (what ``cep run`` gives the planner) choose the engine; this path runs only where that is the
   lazy chain's columnar evaluation (``ColumnarSeq``): a fixed SEQ under skip-till-any-match.
3. **Match** (second job, the payloads shuffled to their task): each task joins its payloads in
   stream order (``seq`` made global by each range's offset) into one ``EventColumns`` and feeds it to
   one matcher in chunks (``feed_columns``). Keyed: one matcher over the task's keys (the chain
   joins on the key itself, and under skip-till-any-match the events of other keys change
   nothing). Time-chunked: the prefix is fed first and its matches dropped; the matches of the
   range's own events are those whose last event is in the range, so each match is found once.
4. **Deliver**: ``count_only`` sends one number per task (the chain counts without building
   matches, as ``cep run --format count`` does); else the match rows (``match_rows.MatchColumns``)
   as one Arrow payload per task, joined on the driver into the table ``pipeline.run(collect=True)``
   gives.

The workers read the file by its path: a local master, or a path every executor can read.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
import pyarrow as pa

from engine.match import Match
from engine.model import ANY_TYPE, Pattern, Window
from engine.spark.range_read import TAIL, RangeMeta, byte_ranges, decode, destinations, encode, read_range

__all__ = ["ColumnarRun", "run_columnar", "ranges_for"]


@dataclass
class ColumnarRun:
    """The result of ``run_columnar``: the mode, the match count, the match rows (``table``; None
    when only counted), the validation report, schema and events of the read, what happened."""

    mode: str
    count: int
    table: pa.Table | None
    pattern: Pattern
    report: Any
    schema: dict[str, dict[str, str]]
    events: int
    rates: dict[str, int]
    engine: str
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    in_stream_order: bool = False   # the table's rows are in ``cep run``'s order already

    def to_matches(self) -> list[Match]:
        """The matches in ``cep run``'s order where the table holds them so (the ranges layout: each
        task's matches in the chain's order, the tasks in stream order), else in canonical order (as
        ``SparkRunResult.to_matches``)."""
        from engine.spark.pipeline import matches_from_rows

        if self.table is None:
            raise ValueError("the matches were only counted")
        if not self.in_stream_order:
            return matches_from_rows(self.table.to_pylist(), self.pattern)
        return _matches_in_order(self.table, self.pattern)


def _matches_in_order(table: pa.Table, pattern: Pattern) -> list[Match]:
    """``matches_from_rows`` without the sort: the rows' own order."""
    import json

    order = [c.var for c in pattern.positive]
    loads = json.loads
    out = []
    cols = [table.column(c).to_pylist() for c in ("match", "start", "end", "start_seq", "end_seq")]
    for text, start, end, s0, s1 in zip(*cols):
        d = loads(text)
        out.append(Match(bindings=tuple((v, tuple(d.get(v, ()))) for v in order), start=start, end=end,
                         start_seq=s0, end_seq=s1))
    return out


def ranges_for(spark: Any) -> int:
    """Byte ranges (and matching tasks) of a run: one per core (at least two). Each range costs its
    window's prefix and a task's start: at 1e6 keyed events one range's CPU times the ranges came to
    3.15 s for four ranges, 2.5 s for two (``docs/benchmarks_spark.md``, "The columnar path")."""
    from engine.spark.session import parallelism

    return max(2, parallelism(spark))


def _plain_csv(path: Any) -> str | None:
    """The separator of a plain local CSV/TSV file this path reads, or None."""
    if not isinstance(path, (str, os.PathLike)):
        return None
    p = os.fspath(path)
    low = p.lower()
    if not os.path.isfile(p) or not (low.endswith(".csv") or low.endswith(".tsv")):
        return None
    return "," if low.endswith(".csv") else "\t"


def run_columnar(pattern: Pattern | str, source: Any, spark: Any, engine: str = "auto", mapping: Any = None,
                 count_only: bool = False, parts: int | None = None, max_runs: int | None = None,
                 layout: str = "ranges") -> ColumnarRun | None:
    """Run ``pattern`` over the CSV/TSV file ``source`` on ``spark`` this way (see the module), or
    None where this path does not apply (the caller runs ``pipeline.run``). ``layout``: ``ranges``
    (one job, each task matches its own time range) or ``shuffle`` (two jobs, the events shuffled
    to key or chunk tasks)."""
    from engine.dsl import parse
    from engine.events import guess_mapping
    from engine.events.report import ValidationReport
    from engine.spark.pipeline import plan_mode
    from engine.type_filter import bindable_types

    t0 = time.perf_counter()
    if isinstance(pattern, str):
        pattern = parse(pattern)
    sep = _plain_csv(source)
    if sep is None or pattern.aggregate is not None or any(c.type == ANY_TYPE for c in pattern.components()):
        return None
    plan = plan_mode(pattern)
    if plan.mode not in ("keyed", "time-chunked") or pattern.window is None:
        return None
    path = os.fspath(source)
    header, ranges = byte_ranges(path, parts or ranges_for(spark))
    try:
        names = header.decode("utf-8").rstrip("\n").split(sep)
    except UnicodeDecodeError:
        return None
    if '"' in header.decode("utf-8", "replace") or len(set(names)) < len(names):
        return None  # (quoted or repeated header names: the usual read names the problem)
    if mapping is None:
        mapping = guess_mapping(names)
    elif isinstance(mapping, dict):
        from engine.events import ColumnMapping

        mapping = ColumnMapping(**{k: v for k, v in mapping.items() if v is not None or k != "ts_col"})
    if mapping.is_interval or mapping.pmf_col is not None or not ranges:
        return None
    if pattern.window.unit is not None and not pattern.window.is_count:  # WITHIN 1 hour: ts in seconds?
        from engine.events.mapping import UNIT_SECONDS

        pattern = pattern.model_copy(update={"window": Window(
            value=pattern.window.size / UNIT_SECONDS[mapping.ts_unit], unit=None)})
    window = float(pattern.window.size)
    count_window = bool(pattern.window.is_count)
    key_attrs = None
    if plan.mode == "keyed":
        assert plan.key is not None
        key_attrs = {c.type: plan.key.attrs_for(c.type) for c in pattern.components()}
        if any(v is None for v in key_attrs.values()):
            return None
    n = len(ranges)
    types = bindable_types(pattern)
    from engine.run_choice import choose_run

    options = {} if max_runs is None else {"max_runs": max_runs}
    # the choice with rates (any: the counts only order the chain's evaluation), checked here
    choice = choose_run(pattern, engine, "auto", rates={c.type: 1 for c in pattern.components()},
                        count_only=count_only)
    probe = choice.build(pattern, **options)
    if choice.windows or getattr(probe, "_columnar_plan", None) is None:  # only the chain's columnar path
        return None
    chunk = getattr(probe, "feed_chunk", 16384)
    if layout == "ranges":
        return _run_ranges(pattern, path, header, ranges, spark, sep, mapping, types, engine, count_only, options,
                           chunk, plan, t0)
    sc = spark.sparkContext

    def read(split: int, it: Iterator[Any]) -> Iterator[Any]:
        for index, start, stop in it:
            c0 = time.process_time()
            meta, events = read_range(path, header, start, stop, index, sep, mapping, types)
            if events is None:
                yield ("meta", meta)
                continue
            tail_from = None
            if plan.mode == "time-chunked" and index + 1 < n and len(events):
                last = float(events.seqs[-1] if count_window else events.ts[-1])
                tail_from = last - 2 * window
            where = list(destinations(events, plan.mode, key_attrs, n, index, tail_from, count_window))
            for (task, flag, _), payload in zip(where, encode(events, [pick for _, _, pick in where])):
                yield ("data", task, (index, flag, payload))
            meta.cpu = time.process_time() - c0
            yield ("meta", meta)

    from pyspark import StorageLevel

    read_rdd = sc.parallelize([(i, a, b) for i, (a, b) in enumerate(ranges)], n).mapPartitionsWithIndex(read)
    read_rdd.persist(StorageLevel.MEMORY_ONLY)
    try:
        metas = sorted((m for tag, m in read_rdd.filter(lambda r: r[0] == "meta").collect()), key=lambda m: m.index)
        t_read = time.perf_counter() - t0
        decided = _decide(metas, plan.mode, window, count_window)
        if decided is not None or not _numbers_only(metas, pattern):
            return None
        rates = _rates(metas)
        choice = choose_run(pattern, engine, "auto", rates=rates, count_only=count_only)
        offsets = np.cumsum([0] + [m.rows for m in metas]).tolist()

        def match(it: Iterator[Any]) -> Iterator[Any]:
            yield from _match_task(list(it), offsets, choice, pattern, options, chunk, count_only)

        shuffled = read_rdd.filter(lambda r: r[0] == "data").map(lambda r: (r[1], r[2])).partitionBy(n, lambda k: k)
        t1 = time.perf_counter()
        results = shuffled.mapPartitions(match).collect()
        t_match = time.perf_counter() - t1
    finally:
        read_rdd.unpersist()
    count = sum(r[0] for r in results)
    table = None
    if not count_only:
        batches = [b for _, payload, _ in results if payload is not None for b in _batches(payload)]
        table = pa.Table.from_batches(batches) if batches else _empty_table()
    rows = offsets[-1]
    report = ValidationReport(issues=[], rows_read=rows, rows_loaded=rows, rows_rejected=0, sorted_by_ts=True)
    schema: dict[str, dict[str, str]] = {}
    for m in metas:
        for t, attrs in m.schema.items():
            schema.setdefault(t, {}).update(attrs)
    return ColumnarRun(mode=plan.mode, count=count, table=table, pattern=pattern, report=report, schema=schema,
                       events=rows, rates=rates, engine=choice.engine, seconds=time.perf_counter() - t0,
                       info={"partitions": n, "read": "python-ranges", "read_seconds": round(t_read, 3),
                             "match_seconds": round(t_match, 3),
                             "read_task_cpu": round(sum(m.cpu for m in metas), 3),
                             "match_task_cpu": round(sum(r[2] for r in results), 3)}, warnings=list(plan.warnings))


def _numbers_only(metas: list[RangeMeta], pattern: Pattern) -> bool:
    """Every attribute the pattern compares as a number is a column of numbers (else ``cep run``
    reports the values that are not, which the usual read does)."""
    wanted = {a for attrs in pattern.numeric_attrs().values() for a in attrs}
    return all(m.kinds.get(a, "int") in ("int", "float", "none") for m in metas for a in wanted)


def _rates(metas: list[RangeMeta]) -> dict[str, int]:
    """Events per type over the ranges (what ``cep run`` gives the planner)."""
    rates: dict[str, int] = {}
    for m in metas:
        for t, c in m.types.items():
            rates[t] = rates.get(t, 0) + c
    return rates


def _run_ranges(pattern: Pattern, path: str, header: bytes, ranges: list[tuple[int, int]], spark: Any, sep: str,
                mapping: Any, types: Any, engine: str, count_only: bool, options: dict[str, Any], chunk: int,
                plan: Any, t0: float) -> ColumnarRun | None:
    """One Spark job, no shuffle: each task reads its byte range and the events just before it that
    a match ending in the range can start from (``range_read.read_prefix``; the file is sorted, so a
    byte range is a time range), feeds the prefix to a matcher and drops its matches, then its own
    events, and keeps theirs: each match is found by the task holding its last event. The task plans
    with its own range's type counts: the global counts exist only after the read, and the counts
    order the chain's evaluation, never its matches. ``seq`` is global: each task counts the records
    before its range."""
    from engine.events.report import ValidationReport
    from engine.spark.range_read import read_prefix, records_before

    window = float(pattern.window.size)  # type: ignore[union-attr]
    count_window = bool(pattern.window.is_count)  # type: ignore[union-attr]
    first = len(header)
    n = len(ranges)

    def task(it: Iterator[Any]) -> Iterator[Any]:
        from engine.run_choice import choose_run

        for index, start, stop in it:
            c0 = time.process_time()
            try:  # a read that fails here (a missing column, ...) fails the usual read with its message
                offset = records_before(path, first, start)
                meta, own = read_range(path, header, start, stop, index, sep, mapping, types, seq_start=offset)
                why, prefix = "", None
                if own is not None and len(own) and start > first:
                    need = (offset - window) if count_window else (float(own.ts[0]) - window)
                    why, prefix = read_prefix(path, header, first, start, sep, mapping, types, offset, need,
                                              count_window, meta.kinds)
            except Exception as err:  # noqa: BLE001
                yield (RangeMeta(index, False, f"{type(err).__name__}: {err}"), 0, None)
                continue
            if own is None or not len(own):
                yield (meta, 0, None)
                continue
            if why:
                meta.simple, meta.why = False, why
                yield (meta, 0, None)
                continue
            rates = {t: c * n for t, c in meta.types.items()}
            choice = choose_run(pattern, engine, "auto", rates=rates, count_only=count_only)
            count, payload = _feed_parts(choice.build(pattern, **options), prefix, own, chunk, count_only)
            meta.cpu = time.process_time() - c0
            yield (meta, count, payload)

    from engine.spark.partition_runner import matcher_errors

    with matcher_errors():  # a matcher's error in a task: a PipelineError with its own message
        results = spark.sparkContext.parallelize([(i, a, b) for i, (a, b) in enumerate(ranges)], n) \
            .mapPartitions(task).collect()
    metas = sorted((r[0] for r in results), key=lambda m: m.index)
    if _decide(metas, "keyed", 0.0, False) is not None or not _numbers_only(metas, pattern):
        return None  # (the ranges' own checks; no prefix rule here)
    count = sum(r[1] for r in results)
    table = None
    if not count_only:
        batches = [b for _, _, payload in results if payload is not None for b in _batches(payload)]
        table = pa.Table.from_batches(batches) if batches else _empty_table()
    rows = sum(m.rows for m in metas)
    report = ValidationReport(issues=[], rows_read=rows, rows_loaded=rows, rows_rejected=0, sorted_by_ts=True)
    schema: dict[str, dict[str, str]] = {}
    for m in metas:
        for t, attrs in m.schema.items():
            schema.setdefault(t, {}).update(attrs)
    seconds = time.perf_counter() - t0
    return ColumnarRun(mode="time-chunked", count=count, table=table, pattern=pattern, report=report, schema=schema,
                       events=rows, rates=_rates(metas), engine="lazy-chain", seconds=seconds, in_stream_order=True,
                       info={"partitions": n, "read": "python-ranges", "layout": "ranges", "plan": plan.mode,
                             "task_cpu": round(sum(m.cpu for m in metas), 3)}, warnings=list(plan.warnings))


def _feed_parts(matcher: Any, prefix: Any, own: Any, chunk: int, count_only: bool) -> tuple[int, bytes | None]:
    """Feed ``prefix`` (its matches dropped) then ``own`` (their matches kept) in chunks: the count,
    and the match rows as Arrow IPC unless ``count_only``."""
    from engine.spark.partition_runner import _collections_paced

    with _collections_paced():  # (the other Spark workers' collector pacing: no full scans per match)
        return _feed_paced(matcher, prefix, own, chunk, count_only)


def _feed_paced(matcher: Any, prefix: Any, own: Any, chunk: int, count_only: bool) -> tuple[int, bytes | None]:
    from engine.spark.match_rows import MatchColumns

    sink = MatchColumns(ints=True, single=True)  # (the columnar path: single-event variables, int ids)
    counted = 0
    for columns, keep in ((prefix, False), (own, True)):
        if columns is None:
            continue
        before = matcher.counted if count_only else 0
        for lo in range(0, len(columns), chunk):
            found: list[Match] = []
            matcher.feed_columns(columns, lo, min(len(columns), lo + chunk), found)
            if keep and found:
                sink.add(found, None)
        if keep and count_only:
            counted += matcher.counted - before
    found = list(matcher.close())
    if found:
        sink.add(found, None)
    if count_only:
        return counted, None
    batch = sink.batch()
    out = pa.BufferOutputStream()
    with pa.ipc.new_stream(out, batch.schema) as writer:
        writer.write_batch(batch)
    return batch.num_rows, out.getvalue().to_pybytes()


def _decide(metas: list[RangeMeta], mode: str, window: float, count_window: bool) -> str | None:
    """Why the ranges cannot be matched this way (see the module), or None when they can."""
    for m in metas:
        if not m.simple:
            return m.why
    kinds = {tuple(sorted(m.kinds.items())) for m in metas if m.rows}
    if len(kinds) > 1:
        return "columns typed differently in different parts of the file"
    schemas: dict[str, dict[str, str]] = {}
    for m in metas:
        for t, attrs in m.schema.items():
            have = schemas.setdefault(t, {})
            for a, k in attrs.items():
                if have.setdefault(a, k) != k:
                    return "an attribute typed differently in different parts of the file"
    seen = [m for m in metas if m.first is not None]
    for a, b in zip(seen, seen[1:]):
        if b.first < a.last:  # type: ignore[operator]
            return "rows not sorted by time across the parts of the file"
    if any(m.id_kind != "int" for m in metas if m.rows):
        return "ids that are not integers"
    spans = sorted(m.id_range for m in metas if m.id_range is not None)
    if any(b[0] <= a[1] for a, b in zip(spans, spans[1:])):
        return "ids of different parts of the file overlap"
    if mode == "time-chunked" and not count_window:
        for a, b in zip(seen, seen[1:]):
            if b.first - window <= a.first:  # type: ignore[operator]
                return "a part of the file shorter than the window"
    if mode == "time-chunked" and count_window:
        for m in metas[:-1]:
            if m.events <= 2 * window + 1:
                return "a part of the file shorter than the window"
    return None


def _match_task(payloads: list[tuple[int, tuple[int, int, bytes]]], offsets: list[int], choice: Any,
                pattern: Pattern, options: dict[str, Any], chunk: int, count_only: bool) -> Iterator[Any]:
    """One matching task of the shuffled layout (see the module): ``(count, match rows as Arrow IPC
    or None, CPU seconds)``."""
    c0 = time.process_time()
    if not payloads:
        yield (0, None, 0.0)
        return
    parts = sorted((index, flag, data) for _, (index, flag, data) in payloads)
    prefix = [_joined_part(p, offsets) for p in parts if p[1] == TAIL]
    own = [_joined_part(p, offsets) for p in parts if p[1] != TAIL]
    count, payload = _feed_parts(choice.build(pattern, **options), _joined(prefix) if prefix else None,
                                 _joined(own) if own else None, chunk, count_only)
    yield (count, payload, time.process_time() - c0)


def _joined_part(part: tuple[int, int, bytes], offsets: list[int]) -> tuple:
    index, _, data = part
    return decode(data, offsets[index])


def _joined(decoded: list[tuple]) -> Any:
    """Several payloads' columns (in stream order, the same attribute names) as one ``EventColumns``."""
    from engine.events.event_columns import EventColumns

    if len(decoded) == 1:
        ids, types, ts, seqs, names, values = decoded[0]
        return EventColumns(ids, types, ts, seqs, names, values)
    names = decoded[0][4]
    ids: list[Any] = []
    types: list[str] = []
    ts: list[float] = []
    seqs: list[int] = []
    values: list[list[Any]] = [[] for _ in names]
    for d in decoded:
        ids += d[0]
        types += d[1]
        ts += d[2]
        seqs += d[3]
        for k, v in enumerate(d[5]):
            values[k] += v
    if len(decoded) > 1 and any(a > b for a, b in zip(seqs, seqs[1:])):
        order = np.argsort(np.asarray(seqs), kind="stable").tolist()  # (payloads of one task interleave in time)
        ids, types, ts, seqs = ([x[k] for k in order] for x in (ids, types, ts, seqs))
        values = [[v[k] for k in order] for v in values]
    return EventColumns(ids, types, ts, seqs, names, values)


def _batches(payload: bytes) -> list[pa.RecordBatch]:
    with pa.ipc.open_stream(pa.BufferReader(payload)) as reader:
        return list(reader)


def _empty_table() -> pa.Table:
    from engine.spark.match_rows import empty_batch

    return pa.Table.from_batches([empty_batch()])
