"""Run MATCH_RECOGNIZE queries in Apache Flink (PyFlink) and print their rows as JSON.

A standalone script for the interpreter of ``.venv-flink`` (it imports only the standard
library and pyflink, never the studio's ``engine`` package). One process starts one JVM
(a local mini-cluster, parallelism 1, bound to 127.0.0.1) and runs every job it is given,
so the seconds of JVM start-up are paid once.

Time attribute convention: the integer ordering column (e.g. ``ts``) is kept as it is and
a computed column ``<order>_time`` (e.g. ``ts_time``) is added as
``TO_TIMESTAMP_LTZ(<order> * order_scale, 3)`` (a job's ``order_scale``: 1 by default, 1000 for the
studio's seconds, as ``cep verify`` and ``cep convert --to flink-sql`` write it) with ``WATERMARK FOR <order>_time AS <order>_time -
INTERVAL '0.001' SECOND``: one unit of the integer is one millisecond. The query must
already say ``ORDER BY ts_time`` (the driver rewrites nothing). Rows are stably sorted by
the ordering column before they are handed to Flink (ties keep file order).

Single job::

    driver.py --query-file Q.sql --table t --columns id:BIGINT,price:DOUBLE,ts:BIGINT \
        --order-column ts --rows rows.jsonl --mode batch [--out rows.out] [--summary s.json]

prints one JSON object per result row (keys = Flink's column names in order), then, unless
``--summary`` names a file, a last line ``{"__summary__": {...}}`` with ``query_seconds``,
``startup_seconds``, ``rows`` and ``version``. A query Flink refuses prints
``{"__error__": {"message": ..., "type": ..., "chain": [...]}}`` and exits with 2.

Many jobs::

    driver.py --jobs jobs.json --out results.jsonl

where ``jobs.json`` is ``{"jobs": [{"id", "query", "table", "columns": [[name, type]],
"order_column", "mode", "rows": [...] | "rows_file": path}, ...]}``; each output line is
``{"id", "columns", "rows": [[...]], "query_seconds", "version"}`` or ``{"id", "error": {...}}``.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable

TYPES = ("BIGINT", "DOUBLE", "STRING", "BOOLEAN")
REFUSED_EXIT = 2
USAGE_EXIT = 3


class JobError(Exception):
    """A job the driver cannot run (bad columns, rows or mode), reported like a refusal."""


# ---------------------------------------------------------------------------- input


def parse_columns(spec: Any) -> list[tuple[str, str]]:
    """Columns from ``"id:BIGINT,price:DOUBLE"`` or ``[["id", "BIGINT"], ...]``."""
    if isinstance(spec, str):
        pairs = [part.split(":", 1) for part in spec.split(",") if part.strip()]
    else:
        pairs = [list(p) if not isinstance(p, dict) else [p["name"], p["type"]] for p in spec]
    columns: list[tuple[str, str]] = []
    for pair in pairs:
        if len(pair) != 2:
            raise JobError(f"column {pair!r} is not name:TYPE")
        name, typ = pair[0].strip(), pair[1].strip().upper()
        if typ not in TYPES:
            raise JobError(f"column {name}: type {typ} is not one of {', '.join(TYPES)}")
        columns.append((name, typ))
    if not columns:
        raise JobError("no columns")
    return columns


def convert(value: Any, typ: str, column: str) -> Any:
    """One input value as the JSON value Flink's json format reads for ``typ`` (an empty
    text is NULL for the non-STRING types)."""
    if value is None or (typ != "STRING" and isinstance(value, str) and not value.strip()):
        return None
    try:
        if typ == "BIGINT":
            if isinstance(value, bool):
                raise ValueError(value)
            if isinstance(value, float):
                if not value.is_integer():
                    raise ValueError(value)
                return int(value)
            return int(value)
        if typ == "DOUBLE":
            number = float(value)
            if math.isnan(number) or math.isinf(number):
                return None
            return number
        if typ == "BOOLEAN":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "1", "t", "yes"):
                return True
            if text in ("false", "0", "f", "no"):
                return False
            raise ValueError(value)
        if isinstance(value, str):
            return value
        if isinstance(value, (list, dict, bool)):
            return json.dumps(value)
        return str(value)
    except (TypeError, ValueError) as exc:
        raise JobError(f"column {column}: {value!r} is not a {typ}") from exc


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file (``.jsonl``/``.json``/``.ndjson``) or a CSV file with a header
    (where an empty field is NULL)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        return [{key: (None if value == "" else value) for key, value in row.items()}
                for row in csv.DictReader(text.splitlines())]
    if path.suffix.lower() == ".json" and text.lstrip().startswith("["):
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def typed_rows(rows: Iterable[Any], columns: list[tuple[str, str]],
               order_column: str) -> list[dict[str, Any]]:
    """Rows typed per column and stably sorted by the ordering column."""
    names = [name for name, _ in columns]
    if order_column not in names:
        raise JobError(f"ordering column {order_column} is not among the columns {names}")
    if dict(columns)[order_column] != "BIGINT":
        raise JobError(f"ordering column {order_column} must be BIGINT")
    out = []
    for index, row in enumerate(rows):
        if isinstance(row, (list, tuple)):
            row = dict(zip(names, row))
        typed = {name: convert(row.get(name), typ, name) for name, typ in columns}
        if typed[order_column] is None:
            raise JobError(f"row {index + 1}: {order_column} is empty")
        out.append(typed)
    out.sort(key=lambda r: r[order_column])
    return out


# ---------------------------------------------------------------------------- output


def to_json(value: Any) -> Any:
    """A Flink result value as JSON: timestamps as integer milliseconds, NaN as null."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return int(round(value.timestamp() * 1000))
    if isinstance(value, _dt.date):
        return value.isoformat()
    if hasattr(value, "as_tuple") or type(value).__name__ == "Decimal":
        number = float(value)
        return int(number) if number.is_integer() and "." not in str(value) else number
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    return str(value)


def error_info(exc: BaseException) -> dict[str, Any]:
    """Flink's refusal as data: the most telling line, the exception type and the cause chain.

    PyFlink's exceptions (and py4j's Py4JJavaError) carry the Java stack trace as their text;
    the chain is its header line and every ``Caused by:`` (or ``: ``) line, without the
    class names.
    """
    text = str(exc) or type(exc).__name__
    heads: list[tuple[str, str]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        marker = next((m for m in ("Caused by: ", ": ") if line.startswith(m)), None)
        if number == 0 or marker:
            body = line[len(marker):] if marker else line
            typ, message = split_exception(body)
            if not message and number == 0:
                message = next((ln.strip() for ln in lines[1:] if ln.strip()
                                and not ln.startswith("\t")), "")
            heads.append((typ, message))
    chain = [message for _, message in heads if message]
    return {"message": pick_message(chain) if chain else text.splitlines()[0],
            "type": heads[-1][0] if heads else type(exc).__name__, "chain": chain}


def split_exception(line: str) -> tuple[str, str]:
    """``"a.b.FooException: msg"`` (possibly nested) -> ``("FooException", "msg")``."""
    typ = ""
    while True:
        head, sep, rest = line.partition(": ")
        word = head.strip()
        if sep and " " not in word and (word.endswith(("Exception", "Error"))
                                          or word.endswith("Throwable")):
            typ = word.rsplit(".", 1)[-1]
            line = rest
            continue
        return typ, line.strip()


def pick_message(chain: list[str]) -> str:
    """The first useful line: the deepest cause that is not a generic wrapper."""
    generic = ("SQL validation failed.", "Error while applying rule", "Unable to",
               "Cannot generate a valid execution plan", "From line ",
               "An error occurred while calling")
    for line in reversed(chain):
        if not line.startswith(generic):
            return line
    return chain[-1]


# ---------------------------------------------------------------------------- flink


class Flink:
    """One JVM with a batch and a streaming TableEnvironment, created on first use."""

    def __init__(self) -> None:
        started = time.perf_counter()
        # No Python UDFs run here: 'process' mode keeps PyFlink from starting its loopback
        # worker server (a gRPC server bound to every interface) in this process.
        os.environ["_python_worker_execution_mode"] = "process"
        self.workdir = Path(tempfile.mkdtemp(prefix="cep-flink-"))
        # The JVM's log goes with the temporary folder unless FLINK_LOG_DIR keeps it.
        os.environ.setdefault("FLINK_LOG_DIR", str(self.workdir))
        from pyflink.table import EnvironmentSettings, TableEnvironment  # noqa: F401
        self._envs: dict[str, Any] = {}
        self.version = flink_version()
        self.startup_seconds = time.perf_counter() - started
        self._tables = 0

    def env(self, mode: str) -> Any:
        """The table environment of ``mode`` (batch or streaming), parallelism 1, loopback."""
        if mode not in ("batch", "streaming"):
            raise JobError(f"mode {mode!r} is not batch or streaming")
        if mode not in self._envs:
            started = time.perf_counter()
            from pyflink.table import EnvironmentSettings, TableEnvironment
            settings = (EnvironmentSettings.in_batch_mode() if mode == "batch"
                        else EnvironmentSettings.in_streaming_mode())
            env = TableEnvironment.create(settings)
            config = env.get_config()
            for key, value in LOCAL_CONFIG.items():
                config.set(key, value)
            self._envs[mode] = env
            self.startup_seconds += time.perf_counter() - started
        return self._envs[mode]

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        """Register the job's table, run its query and collect the rows."""
        columns = parse_columns(job["columns"])
        order = job["order_column"]
        time_column = job.get("time_column") or f"{order}_time"
        if "rows_file" in job:
            raw = read_rows(Path(job["rows_file"]))
        else:
            raw = job.get("rows", [])
        rows = typed_rows(raw, columns, order)
        env = self.env(job.get("mode", "batch"))
        self._tables += 1
        data = self.workdir / f"t{self._tables}"
        data.mkdir()
        with open(data / "rows.json", "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        table = job["table"]
        env.execute_sql(f"DROP TEMPORARY TABLE IF EXISTS {quote(table)}")
        env.execute_sql(table_ddl(table, columns, order, time_column, data, int(job.get("order_scale", 1))))
        started = time.perf_counter()
        cpu_before = jvm_cpu_seconds()
        table_result, names, stamps = timestamps_as_text(env.sql_query(job["query"]))
        result = table_result.execute()
        out_rows = []
        with result.collect() as results:
            for row in results:
                out_rows.append([stamp_ms(v) if i in stamps else to_json(v)
                                 for i, v in enumerate(row)])
        seconds = time.perf_counter() - started
        cpu_after = jvm_cpu_seconds()
        shutil.rmtree(data, ignore_errors=True)
        return {"columns": names, "rows": out_rows, "query_seconds": seconds, "version": self.version,
                "jvm_cpu_seconds": None if cpu_before is None or cpu_after is None else cpu_after - cpu_before}

    def close(self) -> None:
        """Remove the temporary data folder."""
        shutil.rmtree(self.workdir, ignore_errors=True)


LOCAL_CONFIG = {
    "parallelism.default": "1",
    "table.exec.resource.default-parallelism": "1",
    "table.local-time-zone": "UTC",
    "rest.bind-address": "127.0.0.1",
    "rest.address": "127.0.0.1",
    "jobmanager.bind-host": "127.0.0.1",
    "taskmanager.bind-host": "127.0.0.1",
    "taskmanager.host": "127.0.0.1",
}


def jvm_cpu_seconds() -> float | None:
    """User and system CPU seconds of this process's child processes (the JVM PyFlink started),
    from /proc; None where /proc cannot tell."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        pending = [os.getpid()]
        seen = set()
        while pending:
            pid = pending.pop()
            for task in Path(f"/proc/{pid}/task").iterdir():
                for child in (task / "children").read_text().split():
                    if int(child) not in seen:
                        seen.add(int(child))
                        pending.append(int(child))
        for pid in seen:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / ticks if seen else None
    except (OSError, ValueError):
        return None


def quote(name: str) -> str:
    """A Flink SQL identifier in backquotes."""
    return "`" + name.replace("`", "``") + "`"


def table_ddl(table: str, columns: list[tuple[str, str]], order: str, time_column: str,
              folder: Path, scale: int = 1) -> str:
    """CREATE TEMPORARY TABLE over a JSON-lines folder with the event-time attribute (``scale``
    milliseconds per unit of the ordering column: 1, or 1000 when it counts seconds)."""
    cols = [f"{quote(name)} {typ}" for name, typ in columns]
    scaled = quote(order) if scale == 1 else f"{quote(order)} * {scale}"
    cols.append(f"{quote(time_column)} AS TO_TIMESTAMP_LTZ({scaled}, 3)")
    cols.append(f"WATERMARK FOR {quote(time_column)} AS {quote(time_column)}"
                " - INTERVAL '0.001' SECOND")
    return (f"CREATE TEMPORARY TABLE {quote(table)} (\n  " + ",\n  ".join(cols) + "\n) WITH ("
            f"'connector' = 'filesystem', 'path' = '{folder.as_uri()}', 'format' = 'json')")


def timestamps_as_text(table: Any) -> tuple[Any, list[str], set[int]]:
    """The query's table with every TIMESTAMP column cast to STRING (PyFlink cannot hand
    TIMESTAMP_LTZ values to Python), its column names and the positions of those columns."""
    from pyflink.table import DataTypes
    from pyflink.table.expressions import col
    schema = table.get_resolved_schema()
    names = list(schema.get_column_names())
    kinds = [str(t).upper() for t in schema.get_column_data_types()]
    stamps = {i for i, kind in enumerate(kinds) if "TIMESTAMP" in kind}
    if not stamps:
        return table, names, stamps
    exprs = [col(name).cast(DataTypes.STRING()).alias(name) if i in stamps else col(name)
             for i, name in enumerate(names)]
    return table.select(*exprs), names, stamps


def stamp_ms(text: Any) -> int | None:
    """``'1970-01-01 00:00:00.010'`` (UTC, the session time zone) as 10 milliseconds."""
    if text is None:
        return None
    value = str(text).strip().replace("T", " ")
    if value.endswith("Z"):
        value = value[:-1]
    head, dot, fraction = value.partition(".")
    value = f"{head}.{fraction[:6]}" if dot else head  # fromisoformat takes microseconds
    moment = _dt.datetime.fromisoformat(value).replace(tzinfo=_dt.timezone.utc)
    epoch = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (moment - epoch) // _dt.timedelta(milliseconds=1)


def flink_version() -> str:
    """The installed apache-flink version."""
    try:
        from importlib.metadata import version
        return version("apache-flink")
    except Exception:  # noqa: BLE001
        return "unknown"


def is_java_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an exception raised in the JVM (a refusal or a failed job), not a
    broken gateway."""
    from py4j.protocol import Py4JJavaError
    from pyflink.util.exceptions import JavaException
    return isinstance(exc, (JavaException, Py4JJavaError))


def run_jobs(jobs: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """Each job's result or error, in order, in one JVM."""
    flink = Flink()
    try:
        for index, job in enumerate(jobs):
            ident = job.get("id", index)
            try:
                result = flink.run(job)
            except JobError as exc:
                yield {"id": ident, "error": {"message": str(exc), "type": "JobError",
                                              "chain": [str(exc)]}}
                continue
            except Exception as exc:  # noqa: BLE001 - Flink's refusal, reported as data
                if not is_java_error(exc):
                    raise  # the gateway or the JVM is gone: no later job can run
                yield {"id": ident, "error": error_info(exc)}
                continue
            result["id"] = ident
            result["startup_seconds"] = flink.startup_seconds
            yield result
    finally:
        flink.close()


# ---------------------------------------------------------------------------- cli


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=Path, help="a JSON file of jobs (many-job mode)")
    parser.add_argument("--query", help="the Flink SQL query text")
    parser.add_argument("--query-file", type=Path, help="a file with the query")
    parser.add_argument("--table", help="the table name the query reads")
    parser.add_argument("--columns", help="name:TYPE,... (BIGINT, DOUBLE, STRING, BOOLEAN)")
    parser.add_argument("--order-column", help="the integer column that becomes event time")
    parser.add_argument("--rows", type=Path, help="the rows: JSONL or CSV with a header")
    parser.add_argument("--mode", default="batch", choices=("batch", "streaming"))
    parser.add_argument("--out", type=Path, help="write output here instead of stdout")
    parser.add_argument("--summary", type=Path, help="write the summary JSON here")
    args = parser.parse_args(argv)
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        if args.jobs:
            jobs = json.loads(args.jobs.read_text(encoding="utf-8"))["jobs"]
            for result in run_jobs(jobs):
                out.write(json.dumps(result) + "\n")
                out.flush()
            return 0
        query = args.query if args.query is not None else (
            args.query_file.read_text(encoding="utf-8") if args.query_file else None)
        missing = [flag for flag, value in (("--query", query), ("--table", args.table),
                                            ("--columns", args.columns),
                                            ("--order-column", args.order_column),
                                            ("--rows", args.rows)) if value is None]
        if missing:
            out.write(json.dumps({"__error__": {"message": f"missing {', '.join(missing)}",
                                                "type": "usage", "chain": []}}) + "\n")
            return USAGE_EXIT
        job = {"id": 0, "query": query, "table": args.table, "columns": args.columns,
               "order_column": args.order_column, "rows_file": str(args.rows),
               "mode": args.mode}
        result = next(iter(run_jobs([job])))
        if "error" in result:
            out.write(json.dumps({"__error__": result["error"]}) + "\n")
            return REFUSED_EXIT
        for row in result["rows"]:
            out.write(json.dumps(dict(zip(result["columns"], row))) + "\n")
        summary = {"query_seconds": result["query_seconds"],
                   "startup_seconds": result["startup_seconds"],
                   "rows": len(result["rows"]), "version": result["version"]}
        if args.summary:
            args.summary.write_text(json.dumps(summary) + "\n", encoding="utf-8")
        else:
            out.write(json.dumps({"__summary__": summary}) + "\n")
        return 0
    except Exception as exc:  # noqa: BLE001 - never a bare traceback
        out.write(json.dumps({"__error__": {"message": str(exc) or type(exc).__name__,
                                            "type": type(exc).__name__, "chain": []}}) + "\n")
        return REFUSED_EXIT
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    sys.exit(main())
