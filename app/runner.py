"""Data sources and runs for the Run page.

``run_spark`` runs a pattern on Spark through ``engine.spark.pipeline.run`` in a worker
thread while the calling (script) thread polls Spark's status tracker for a progress
callback; ``run_local`` feeds the in-process matcher. Both return a :class:`Outcome`.
Errors are raised as :class:`RunError` with a message for a person (never a stack).
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from engine.dsl import DslError
from engine.events import ColumnMapping, DataError, LoadResult, guess_mapping, load_events
from engine.events.file_formats import FORMATS
from engine.match import EngineUnsupported, Match, StateExplosion, sort_matches
from engine.memory import MemoryGuard, RunStopped
from engine.model import Pattern, PatternError, Window

from .limits import message_of, upload_problem

UPLOAD_TYPES = list(FORMATS)  # the extensions of engine.events.file_formats, in its order
REPLAY_LIMIT = 50_000  # in-process replay for the runs-peak statistic of a Spark run
IN_PROCESS_LIMIT = 50_000  # up to this many events the Run page runs in-process by default
LIVE_EVERY = 64  # events between two updates of a run's live progress


class RunError(RuntimeError):
    """A run that could not be done; the message says why and what to do."""


@dataclass(frozen=True)
class Source:
    kind: str                  # sample | upload | path
    label: str                 # what to show
    path: str
    fmt: str | None            # csv | tsv | jsonl | parquet (None: from the extension)

    @property
    def key(self) -> str:
        p = Path(self.path)
        try:
            st = p.stat()
            stamp = f"{st.st_mtime_ns}:{st.st_size}"
        except OSError:
            stamp = "missing"
        return f"{self.kind}:{self.path}:{self.fmt}:{stamp}"


@dataclass
class Outcome:
    matches: list[Any]         # Match (uncertain ones add range, confidence), or A-Seq rows for AGG

    engine: str                # "spark" | "in-process"
    mode: str                  # Spark mode (keyed, time-chunked, single-partition) or the matcher
    seconds: float
    events: int
    warnings: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    stopped: str | None = None  # why the run stopped early (its guard); the matches are those found before
    skipped_rows: int = 0       # bad rows the person chose to skip

    @property
    def is_aggregate(self) -> bool:
        """True when the results are AGG rows ``(ts, event, group, value)``, not matches."""
        return bool(self.matches) and not hasattr(self.matches[0], "bindings")

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0


# --------------------------------------------------------------------------- sources

def format_of(name: str) -> str | None:
    suffixes = [s.lower().lstrip(".") for s in Path(name).suffixes]
    if suffixes and suffixes[-1] in ("gz", "bz2", "xz", "zst"):
        suffixes = suffixes[:-1]
    return FORMATS.get(suffixes[-1]) if suffixes else None


def save_upload(name: str, data: bytes) -> str:
    """Keep an uploaded file on disk (Spark reads paths) in the session's upload directory
    (``app.uploads``: one current upload per session, removed with the session); same
    content, same path. A file over a cap (app.limits) is refused with a message."""
    from . import sessions, uploads

    problem = upload_problem(name, len(data))
    if problem:
        raise RunError(problem)
    try:
        return uploads.save(sessions.record(), name, data)
    except uploads.UploadRefused as err:
        raise RunError(str(err)) from None


def read_preview(path: str, fmt: str | None, n: int = 20, name: str | None = None) -> pd.DataFrame:
    """The first ``n`` rows as they are in the file (no validation). A file that is empty,
    binary, not UTF-8 or malformed is a RunError saying so in plain words (``app.uploads``);
    ``name``: the file's name as the person knows it (default the path's)."""
    from . import uploads

    p = Path(path)
    if not p.exists():
        raise RunError(f"file not found: {path}")
    kind = fmt or format_of(p.name)
    shown = name or p.name
    problem = uploads.file_problem(p, kind, shown) if kind is not None else None
    if problem:
        raise RunError(problem)
    try:
        if kind in ("csv", "tsv"):
            return pd.read_csv(p, sep="," if kind == "csv" else "\t", nrows=n)
        if kind == "jsonl":
            with open(p, encoding="utf-8") as fh:
                head = fh.read(1)
                while head and head.isspace():
                    head = fh.read(1)
            if head == "[":
                return pd.read_json(p).head(n)
            return pd.read_json(p, lines=True, nrows=n)
        if kind == "parquet":
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(p)
            for batch in pf.iter_batches(batch_size=n):
                return batch.to_pandas()
            return pf.schema_arrow.empty_table().to_pandas()
    except Exception as e:  # noqa: BLE001 - shown as a message
        raise RunError(uploads.read_error(shown, kind, e, p)) from None
    raise RunError(f"cannot tell the format of '{p.name}'; use .csv, .tsv, .jsonl/.json or .parquet")


def numbered_preview(frame: pd.DataFrame, fmt: str | None, name: str = "") -> pd.DataFrame:
    """The preview with the numbers the validation report uses: ``row`` is the 1-based data
    row (a CSV header is not a row); for CSV/TSV ``line`` is the file line (the header is
    line 1, so line = row + 1 = 0-based row + 2)."""
    kind = fmt or format_of(name)
    out = frame.copy()
    n = len(out)
    front: dict[str, Any] = {}
    if kind in ("csv", "tsv"):
        front["line"] = range(2, n + 2)
    front["row"] = range(1, n + 1)
    for k, (col, vals) in enumerate(front.items()):
        name_ = col if col not in out.columns else f"{col} #"
        out.insert(k, name_, list(vals))
    return out


def default_mapping(columns: list[str], hint: dict[str, Any] | None = None) -> ColumnMapping:
    if hint:
        try:
            return mapping_from(hint)
        except ValueError:
            pass
    return guess_mapping(columns)


def mapping_from(d: dict[str, Any]) -> ColumnMapping:
    clean = {k: v for k, v in d.items() if v is not None or k in ("id_col", "lower_col", "upper_col")}
    if clean.get("ts_col") is None:
        clean.pop("ts_col", None)
    return ColumnMapping(**clean)


def load(src: Source, mapping: ColumnMapping) -> LoadResult:
    """Load and validate in-process (preview, report, timeline, in-process runs)."""
    try:
        return load_events(src.path, mapping, src.fmt)
    except DataError as err:
        raise RunError(str(err)) from None
    except Exception as err:  # noqa: BLE001 - any engine error is a message, never a traceback
        raise RunError(message_of(err)) from None


def scale_window(pattern: Pattern, seconds_to_ts: Callable[[float], float]) -> Pattern:
    """``WITHIN 1 hour`` in the unit of ts (as the Spark pipeline does)."""
    w = pattern.window
    if w is None or w.is_count or w.unit is None:
        return pattern
    size = seconds_to_ts(w.size)
    if size == w.size:
        return pattern
    return pattern.model_copy(update={"window": Window(value=size, unit=None)})


# --------------------------------------------------------------------------- runs

def _message(err: BaseException) -> str:
    if isinstance(err, DslError):
        return str(err)
    text = str(err).strip() or type(err).__name__
    return text


def is_interval(loaded: LoadResult) -> bool:
    """True when the loaded events carry uncertainty intervals (lower, upper)."""
    return bool(loaded.events) and getattr(loaded.events[0], "lower", None) is not None


def run_local(pattern: Pattern, loaded: LoadResult, engine: str = "auto", guard: MemoryGuard | None = None,
              events: list[Any] | None = None, live: Any = None) -> Outcome:
    """Feed the in-process matcher that ``cep run`` uses (``engine.run_choice``: match windows
    for event-set patterns, else the planner's choice for point or interval data), so point
    matches keep ``cep run``'s order and numbers; the state guard's error becomes a RunError.
    An AGG pattern gives A-Seq rows, not matches. ``guard`` (``engine.memory.MemoryGuard``)
    is ticked per event and per match: when it stops the run (memory, time limit, Stop) the
    outcome keeps the matches found so far and says why in ``stopped``. ``events``: the
    events to run (default all of ``loaded``). ``live`` (``app.run_progress.LiveProgress``):
    events read, matches and live runs, updated every ``LIVE_EVERY`` events."""
    from .run_progress import runs_alive

    from engine.run_choice import choose_run
    from engine.trace import type_rates

    pat = scale_window(pattern, loaded.seconds_to_ts)
    interval = is_interval(loaded)
    stream = loaded.events if events is None else events
    t0 = time.perf_counter()
    out: list[Any] = []
    stopped: str | None = None
    m: Any = None
    try:
        info = choose_run(pat, engine, "auto", rates=None if interval else type_rates(engine, stream),
                          interval=interval)
        m = info.build(pat, guard=guard)  # the engine's inner loops tick the guard too
        if live is not None:
            live.total = len(stream)
        read = 0
        try:
            if guard is None and live is None:
                for e in stream:
                    out.extend(m.feed(e))
                out.extend(m.close())
            else:
                tick = guard.tick if guard is not None else (lambda: None)
                feed = m.feed
                for e in stream:
                    found = feed(e)
                    if found:
                        out.extend(found)
                        for _ in found:
                            tick()
                    tick()
                    read += 1
                    if live is not None and not read % LIVE_EVERY:
                        live.update(read, len(out), runs_alive(m))
                if guard is not None:
                    guard.check()
                if live is not None:
                    live.update(read, len(out), runs_alive(m))
                    live.phase = "finishing the last runs"
                for found_match in m.close():
                    out.append(found_match)
                    tick()
        except RunStopped as err:
            stopped = str(err)
            if live is not None:
                live.update(read, len(out), runs_alive(m))
    except (StateExplosion, EngineUnsupported, PatternError, ValueError) as err:
        raise RunError(_message(err)) from None
    except Exception as err:  # noqa: BLE001 - RecursionError, OverflowError, ...: a message, never a traceback
        raise RunError(message_of(err)) from None
    secs = time.perf_counter() - t0
    if out and hasattr(out[0], "bindings"):
        if interval:
            out = sort_matches(out)
    else:
        out.sort(key=lambda r: (getattr(r, "seq", -1), str(getattr(r, "group", ""))))
    stats = m.stats.as_dict() if hasattr(getattr(m, "stats", None), "as_dict") else {}
    return Outcome(matches=out, engine="in-process", mode=info.engine, seconds=secs,
                   events=len(stream), stats=stats, stopped=stopped)


def replay_stats(pattern: Pattern, loaded: LoadResult, guard: MemoryGuard | None = None) -> dict[str, Any]:
    """Matcher statistics (runs peak ...) from an in-process replay, for small inputs (none
    when the guard stopped the replay)."""
    if len(loaded.events) > REPLAY_LIMIT:
        return {}
    try:
        out = run_local(pattern, loaded, guard=guard)
    except RunError:
        return {}
    return {} if out.stopped else out.stats


# On a cluster the app reads every file it offers on the driver, up to this size (uploads are at most
# 100 MiB): the files are on the app's machine, which the cluster's executors may not see.
CLUSTER_LOCAL_BYTES = 1 << 30


def spark_partitions(rows: int, parallelism: int) -> int:
    """Few partitions for small inputs: each task costs a Python worker's start-up
    (``engine.spark.pipeline.partitions_for``, which the background warm-up uses too)."""
    from engine.spark.pipeline import partitions_for

    return partitions_for(rows, parallelism)


def run_spark(pattern: Pattern, src: Source, mapping: ColumnMapping, rows: int = 0,
              on_progress: Callable[[float, str], None] | None = None, poll: float = 0.1,
              guard: MemoryGuard | None = None, engine: str = "auto", live: Any = None) -> Outcome:
    """Run on Spark (``engine.spark.pipeline.run``) with progress from the status tracker.
    A file up to ``LOCAL_BYTES`` is read on the driver and the matches come back in one
    Spark action (``collect``): a sample answers in about a second on a warm session.
    On a cluster or a Spark Connect server given at ``cep serve`` every file is read on the
    driver (the app's files are on the app's machine, which the cluster may not see).
    ``guard`` (time limit, Stop, memory) is checked while the run is polled; when it stops
    the run, the run's Spark jobs are cancelled (``engine.spark.progress.RunTracker``: a job
    group, or a Spark Connect tag) and a RunError says why.
    ``engine``: the matcher each partition runs (the planner's names); ``live``
    (``app.run_progress.LiveProgress``): stages and tasks done (``engine.spark.progress``)."""
    progress = on_progress or (lambda f, s: None)
    try:
        from engine.spark.local_source import LOCAL_BYTES
        from engine.spark.pipeline import PipelineError, run
        from engine.spark.progress import RunTracker
        from engine.spark.session import SparkUnavailable, describe, get_spark, is_local, master_of, parallelism
    except ImportError as err:
        raise RunError(f"Spark is not available: {err}") from None
    progress(0.02, "starting Spark (the first start takes a while)…")
    try:
        spark = get_spark()
    except SparkUnavailable as err:
        raise RunError(str(err)) from None
    except Exception as err:  # noqa: BLE001
        raise RunError(f"Spark did not start: {_message(err)}") from None
    local = is_local(master_of(spark))
    where = "" if local else describe(spark)
    n = spark_partitions(rows, parallelism(spark))
    box: dict[str, Any] = {}
    tracker = RunTracker(spark, f"cep-run-{time.time_ns()}")

    def work() -> None:
        try:
            tracker.begin()
            box["result"] = run(pattern, src.path, engine=engine, mapping=mapping, data_format=src.fmt, spark=spark,
                                partitions=n, collect=True, local_bytes=LOCAL_BYTES if local else CLUSTER_LOCAL_BYTES)
            r = box["result"]
            box["matches"] = r.to_matches()
        except BaseException as e:  # noqa: BLE001 - re-raised on the caller's thread
            box["error"] = e
        finally:
            tracker.end()

    t = threading.Thread(target=work, name="cep-studio-spark-run", daemon=True)
    t0 = time.perf_counter()
    t.start()
    on = f" on {where}" if where else ""
    best = 0.05
    progress(best, f"reading and validating the data{on}…")
    if live is not None:
        live.where, live.phase = "spark", "reading and validating the data"
        live.cluster = where
    while t.is_alive():
        t.join(poll)
        if guard is not None:
            try:
                guard.check()
            except RunStopped as err:
                tracker.cancel()
                raise RunError(f"stopped: {err}") from None
        now = tracker.progress()
        done, total = now.tasks_done, now.tasks
        if live is not None:
            live.spark = now
            if now.stages:
                live.phase = "matching"
        frac = 0.05 + 0.9 * (done / total if total else 0.0) * (1 - 0.5 ** max(1, now.stages))
        best = max(best, min(frac, 0.97))
        progress(best, f"Spark{on}: {now.stages} stage(s), {done}/{total} tasks done…")
    secs = time.perf_counter() - t0
    err = box.get("error")
    if err is not None:
        if isinstance(err, (DataError, DslError, PatternError, PipelineError, EngineUnsupported,
                            StateExplosion, SparkUnavailable, ValueError)):
            raise RunError(_message(err)) from None
        raise RunError(f"the run failed: {type(err).__name__}: {_message(err).splitlines()[0]}") from None
    r = box["result"]
    matches: list[Match] = box["matches"]
    out = Outcome(matches=matches, engine="spark", mode=r.mode, seconds=secs, events=int(r.events.count),
                  warnings=list(r.warnings), info={**r.info, "spark_seconds": round(r.seconds, 3),
                                                   "partitions_requested": n, **({"cluster": where} if where else {})})
    rep = r.events.report
    if rep is not None and getattr(rep, "rows_rejected", 0):
        out.warnings.append(f"Spark rejected {rep.rows_rejected} row(s): {rep.summary()}")
    try:
        r.unpersist()
    except Exception:  # noqa: BLE001
        pass
    progress(1.0, f"done: {len(matches)} match(es) in {secs:.1f} s")
    return out


def mapping_json(m: ColumnMapping) -> str:
    return json.dumps(m.model_dump(), sort_keys=True)
