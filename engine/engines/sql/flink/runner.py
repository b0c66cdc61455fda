"""Run Flink SQL queries in Apache Flink from the studio's own interpreter.

Flink lives in its own virtual environment (``.venv-flink``, made by ``make flink``) because
its py4j, pyarrow and cloudpickle pins conflict with pyspark 4. This module never imports
pyflink: it writes the jobs to a temporary JSON file, runs ``driver.py`` with the Flink
interpreter in a subprocess (one JVM for all the jobs of a call, a local mini-cluster bound
to 127.0.0.1, parallelism 1) and reads the results back.

Time attribute convention (see ``docs/flink.md``): the integer ordering column ``ts`` is
kept and a rowtime column ``ts_time = TO_TIMESTAMP_LTZ(ts, 3)`` with a watermark is added,
so the query must say ``ORDER BY ts_time`` and one unit of ``ts`` is one millisecond.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

ROOT = Path(__file__).resolve().parents[4]
DRIVER = Path(__file__).resolve().with_name("driver.py")
VENV = ".venv-flink"
ENV_VAR = "CEP_FLINK_PYTHON"
COLUMN_TYPES = ("BIGINT", "DOUBLE", "STRING", "BOOLEAN")
MODES = ("batch", "streaming")


class FlinkUnavailable(Exception):
    """Flink cannot be run here; ``reason`` says why (no .venv-flink, no java, a crash)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FlinkRefused(Exception):
    """Flink refused the query (or the job); ``message`` is Flink's most telling line."""

    def __init__(self, message: str, chain: Sequence[str] = (), kind: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.chain = list(chain)
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FlinkRefused) and other.message == self.message

    def __hash__(self) -> int:
        return hash(self.message)


@dataclass
class FlinkResult:
    """The rows Flink returned (keys = its column names, in order) and what it cost."""

    rows: list[dict[str, Any]]
    query_seconds: float
    version: str
    columns: list[str] = field(default_factory=list)
    startup_seconds: float = 0.0
    jvm_cpu_seconds: float | None = None  # the JVM's CPU seconds over the query (None: not known)


@dataclass
class FlinkJob:
    """One query over one table; ``rows`` are mappings (or sequences in column order) or a
    path to a JSONL/CSV file."""

    query: str
    table: str
    columns: Sequence[tuple[str, str]]
    rows: Iterable[Any] | Path
    order_column: str
    mode: str = "batch"
    order_scale: int = 1  # milliseconds per unit of the ordering column (1000: seconds)

    def to_json(self, ident: int) -> dict[str, Any]:
        """The job as the driver reads it."""
        columns = [(str(name), str(typ).upper()) for name, typ in self.columns]
        for name, typ in columns:
            if typ not in COLUMN_TYPES:
                raise ValueError(f"column {name}: type {typ} is not one of {COLUMN_TYPES}")
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r} is not one of {MODES}")
        job: dict[str, Any] = {"id": ident, "query": self.query, "table": self.table,
                               "columns": [list(c) for c in columns],
                               "order_column": self.order_column, "mode": self.mode,
                               "order_scale": self.order_scale}
        if isinstance(self.rows, Path):
            job["rows_file"] = str(self.rows.resolve())
        else:
            job["rows"] = [dict(row) if isinstance(row, Mapping) else list(row)
                           for row in self.rows]
        return job


def flink_python() -> Path | None:
    """The interpreter of ``.venv-flink`` (``$CEP_FLINK_PYTHON`` overrides), or None."""
    override = os.environ.get(ENV_VAR)
    if override:
        path = Path(override)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    path = ROOT / VENV / "bin" / "python"
    return path if path.is_file() else None


def unavailable_reason() -> str | None:
    """Why Flink cannot run here, or None when the interpreter and java are present."""
    python = flink_python()
    if python is None:
        where = os.environ.get(ENV_VAR) or str(ROOT / VENV / "bin" / "python")
        return f"no Flink interpreter at {where} (run `make flink`)"
    if not os.environ.get(ENV_VAR) and not list((ROOT / VENV).glob(".installed-*")):
        return f"{ROOT / VENV} is incomplete (`make flink` did not finish)"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no java on PATH (Flink needs Java 11 or 17)"
    return None


def run_flink(query: str, table: str, columns: Sequence[tuple[str, str]],
              rows: Iterable[Any] | Path, order_column: str, mode: str = "batch",
              timeout: float = 300.0) -> FlinkResult:
    """Run one query in a fresh Flink process; raises FlinkRefused or FlinkUnavailable."""
    job = FlinkJob(query, table, columns, rows, order_column, mode)
    result = run_flink_many([job], timeout=timeout)[0]
    if isinstance(result, FlinkRefused):
        raise result
    return result


def run_flink_many(jobs: Sequence[FlinkJob],
                   timeout: float = 600.0) -> list[FlinkResult | FlinkRefused]:
    """Run every job in one Flink process (one JVM start-up), results in job order.

    A query Flink refuses gives a FlinkRefused in its place; FlinkUnavailable is raised
    when Flink is missing, crashes or does not finish within ``timeout`` seconds.
    """
    reason = unavailable_reason()
    if reason:
        raise FlinkUnavailable(reason)
    if not jobs:
        return []
    python = flink_python()
    assert python is not None
    with tempfile.TemporaryDirectory(prefix="cep-flink-run-") as tmp:
        jobs_file = Path(tmp) / "jobs.json"
        out_file = Path(tmp) / "results.jsonl"
        payload = {"jobs": [job.to_json(index) for index, job in enumerate(jobs)]}
        jobs_file.write_text(json.dumps(payload), encoding="utf-8")
        command = [str(python), str(DRIVER), "--jobs", str(jobs_file), "--out", str(out_file)]
        code, stderr = _run(command, timeout, Path(tmp))
        lines = out_file.read_text(encoding="utf-8").splitlines() if out_file.exists() else []
    if code != 0:
        failure = next((json.loads(line)["__error__"]["message"] for line in lines
                        if line.startswith('{"__error__"')), None)
        raise FlinkUnavailable(f"the Flink driver exited with {code}: "
                               f"{failure or _tail(stderr)}")
    return _collect(lines, len(jobs), stderr)


def _driver_env(tmp: Path) -> dict[str, str]:
    """The environment of the driver: ours without the project's Python paths."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["TMPDIR"] = str(tmp)
    env["_python_worker_execution_mode"] = "process"
    return env


def _run(command: list[str], timeout: float, tmp: Path) -> tuple[int, str]:
    """Run the driver in its own process group (the JVM goes with it on timeout); its exit
    code and standard error."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, env=_driver_env(tmp), cwd=tmp,
                               start_new_session=True)
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.communicate()
        raise FlinkUnavailable(f"Flink did not finish within {timeout:g} s") from None
    except BaseException:
        _kill_group(process)
        raise
    finally:
        if process.poll() is None:
            _kill_group(process)
    return process.returncode, err.decode("utf-8", "replace")


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the driver's process group (the driver and its JVM)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def _tail(text: str, lines: int = 8) -> str:
    """The last lines of a stderr text, for a reason."""
    kept = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(kept[-lines:]) if kept else "(no output)"


def _collect(lines: list[str], count: int, stderr: str) -> list[FlinkResult | FlinkRefused]:
    """The driver's output lines as results in job order."""
    by_id: dict[int, FlinkResult | FlinkRefused] = {}
    for line in lines:
        record = json.loads(line)
        if "__error__" in record:
            raise FlinkUnavailable(f"the Flink driver failed: {record['__error__']['message']}")
        ident = int(record["id"])
        if "error" in record:
            error = record["error"]
            by_id[ident] = FlinkRefused(error.get("message", ""), error.get("chain", ()),
                                        error.get("type", ""))
            continue
        columns = list(record["columns"])
        by_id[ident] = FlinkResult(rows=[dict(zip(columns, row)) for row in record["rows"]],
                                   query_seconds=float(record["query_seconds"]),
                                   version=str(record["version"]), columns=columns,
                                   startup_seconds=float(record.get("startup_seconds", 0.0)),
                                   jvm_cpu_seconds=record.get("jvm_cpu_seconds"))
    missing = [index for index in range(count) if index not in by_id]
    if missing:
        raise FlinkUnavailable(f"the Flink driver gave no result for jobs {missing}: "
                               f"{_tail(stderr)}")
    return [by_id[index] for index in range(count)]


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.engines.sql.flink.runner``: say whether Flink can run here."""
    reason = unavailable_reason()
    print(reason or f"Flink interpreter: {flink_python()}")
    return 1 if reason else 0


if __name__ == "__main__":
    sys.exit(main())
