"""One cached SparkSession per process (docs/design.md, "Spark").

``get_spark()`` starts (or returns) the session: ``local[*]`` by default, a cluster with
``master=`` or ``CEP_SPARK_MASTER``; logs quiet (no log4j banner, no console progress
bars, so stdout stays clean for ``--format jsonl``); ``PYSPARK_PYTHON`` set to the running
interpreter so that workers import the same installed project. When Java is missing the
error says what to install instead of a Py4J stack trace.

``start_in_background()`` starts the session in a thread (the app calls it at start-up);
``get_spark()`` then waits for it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

__all__ = ["SparkUnavailable", "get_spark", "start_in_background", "stop_spark", "java_version",
           "default_master", "DEFAULT_CONF"]

MIN_JAVA = 17
JAVA_HINT = "Spark needs Java 17+: apt-get install openjdk-17-jre-headless"

# Settings every session gets (callers may override any of them through ``conf``).
DEFAULT_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "false",
    "spark.driver.memory": "2g",
    # small jobs dominate interactive use: keep shuffles narrow (raised for big inputs by
    # the pipeline, which repartitions explicitly)
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.adaptive.enabled": "true",
    "spark.python.worker.reuse": "true",
    # workers forked with pandas, pyarrow and the engine imported (engine/spark/daemon.py)
    "spark.python.daemon.module": "engine.spark.daemon",
    "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
}

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.py4j.name = py4j
logger.py4j.level = error
logger.spark.name = org.apache.spark
logger.spark.level = error
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.parquet.name = org.apache.parquet
logger.parquet.level = error
"""


class SparkUnavailable(RuntimeError):
    """Spark cannot start (no Java, too old a Java, no pyspark); the message says what to do."""


_lock = threading.Lock()
_session: Any = None
_master: str | None = None
_bg: threading.Thread | None = None
_bg_error: BaseException | None = None


def default_master() -> str:
    """``CEP_SPARK_MASTER`` when set, else ``local[*]``."""
    return os.environ.get("CEP_SPARK_MASTER") or "local[*]"


def _java_bin() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        cand = Path(home) / "bin" / "java"
        if cand.exists():
            return str(cand)
    return shutil.which("java")


def java_version() -> int | None:
    """The major version of the ``java`` Spark will use, or None when there is none."""
    java = _java_bin()
    if java is None:
        return None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stderr + out.stdout
    m = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if not m:
        return None
    major = int(m.group(1))
    if major == 1 and m.group(2):  # "1.8.0_x"
        major = int(m.group(2))
    return major


def _check_java() -> None:
    v = java_version()
    if v is None:
        raise SparkUnavailable(f"no Java found (JAVA_HOME / PATH). {JAVA_HINT}")
    if v < MIN_JAVA:
        raise SparkUnavailable(f"found Java {v}. {JAVA_HINT}")


def _log4j_file() -> str:
    d = Path(tempfile.gettempdir()) / "cep-spark"
    d.mkdir(parents=True, exist_ok=True)
    p = d / "log4j2.properties"
    if not p.exists() or p.read_text() != _LOG4J:
        tmp = p.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_LOG4J)
        os.replace(tmp, p)
    return str(p)


def _build(master: str, conf: dict[str, str] | None, app_name: str) -> Any:
    _check_java()
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:  # pragma: no cover - pyspark is a dependency
        raise SparkUnavailable(f"pyspark is not installed ({e}); pip install -e .") from None
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "resolves to a loopback" warning
    log4j = _log4j_file()
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} -Dlog4j.configurationFile=file:{log4j}"
    settings = dict(DEFAULT_CONF)
    settings["spark.driver.extraJavaOptions"] = java_opts
    settings["spark.executor.extraJavaOptions"] = java_opts
    settings["spark.pyspark.python"] = sys.executable
    settings.update(conf or {})
    builder = SparkSession.builder.master(master).appName(app_name)
    for k, v in settings.items():
        builder = builder.config(k, v)
    try:
        spark = builder.getOrCreate()
    except Exception as e:  # Py4J / gateway failures: one readable line
        text = str(e)
        if "JAVA_HOME" in text or "Java gateway" in text or "java" in text.lower():
            raise SparkUnavailable(f"Spark could not start: {text.splitlines()[0] if text else e!r}. "
                                   f"{JAVA_HINT}") from None
        raise
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def get_spark(master: str | None = None, conf: dict[str, str] | None = None,
              app_name: str = "cep-studio") -> Any:
    """The process's SparkSession, started on first use.

    ``master``: a Spark master URL (``local[2]``, ``spark://host:7077``); default
    ``CEP_SPARK_MASTER`` or ``local[*]``. A second call with a different master stops the
    first session and starts a new one (one session per process). ``conf`` is applied only
    when the session starts.
    """
    global _session, _master
    _wait_background()
    want = master or default_master()
    with _lock:
        if _session is not None:
            alive = _session.sparkContext._jsc is not None
            if alive and (master is None or want == _master):
                return _session
            if alive:
                _session.stop()
            _session = None
        _session = _build(want, conf, app_name)
        _master = want
        return _session


def _wait_background() -> None:
    global _bg, _bg_error
    t = _bg
    if t is not None and t is not threading.current_thread():
        t.join()
        _bg = None
        err, _bg_error = _bg_error, None
        if err is not None and not isinstance(err, SparkUnavailable):
            raise err


def start_in_background(master: str | None = None, conf: dict[str, str] | None = None) -> threading.Thread:
    """Start the session in a daemon thread (JVM start-up takes seconds); ``get_spark()``
    waits for it. Errors surface at the next ``get_spark()``."""
    global _bg

    def work() -> None:
        global _bg_error
        try:
            get_spark(master, conf)
        except BaseException as e:  # noqa: BLE001 - reported by get_spark()
            _bg_error = e

    with _lock:
        if _bg is None and _session is None:
            _bg = threading.Thread(target=work, name="cep-spark-start", daemon=True)
            _bg.start()
        return _bg or threading.current_thread()


def stop_spark() -> None:
    """Stop the session (tests and the CLI call it at exit)."""
    global _session, _master
    _wait_background()
    with _lock:
        if _session is not None:
            _session.stop()
        _session = None
        _master = None
