"""One cached SparkSession per process (docs/design.md, "Spark").

``get_spark()`` starts (or returns) the session: ``local[*]`` by default, a cluster with
``master=`` or ``CEP_SPARK_MASTER``; logs quiet (no log4j banner, no console progress
bars, so stdout stays clean for ``--format jsonl``). When Java is missing the error says what
to install instead of a Py4J stack trace.

Three kinds of master:

- ``local[...]``: Python workers run the driver's interpreter (``PYSPARK_PYTHON`` set to it)
  and fork from ``engine.spark.daemon``, which has the engine imported already;
- a cluster (``spark://``, ``yarn``, ``k8s://``, ...): the workers' Python is the cluster's
  (``PYSPARK_PYTHON`` / ``spark.pyspark.python`` when set, else Spark's default), the daemon
  is pyspark's own (the engine is not installed there: ``engine.spark.daemon`` could not even
  start), and the engine is shipped to the workers as a zip (``engine.spark.ship``);
- Spark Connect (``sc://host:port``): a client session (no JVM here); the SQL settings of
  ``DEFAULT_CONF`` are set on it and the engine is shipped as an artifact.

pyspark decides per process whether its functions (``pyspark.sql.functions``) build classic or
Connect expressions (the ``SPARK_CONNECT_MODE_ENABLED`` environment variable), so a process
runs one kind at a time: asking for a Connect session stops the classic one, and the other
way round.

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
           "default_master", "DEFAULT_CONF", "is_connect", "is_local", "is_remote", "parallelism",
           "master_of", "describe", "running_session", "session_settings"]

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
_remote: dict[str, Any] = {}


def default_master() -> str:
    """``CEP_SPARK_MASTER`` when set (a master URL or an ``sc://`` address), else ``local[*]``."""
    return os.environ.get("CEP_SPARK_MASTER") or "local[*]"


def is_remote(master: str) -> bool:
    """Is ``master`` a Spark Connect address (``sc://host:port``)?"""
    return master.strip().lower().startswith("sc://")


def is_local(master: str) -> bool:
    """Does ``master`` run in this process (``local``, ``local[N]``, ``local[*]``)?"""
    return master.strip().lower().startswith("local")


def is_connect(spark: Any) -> bool:
    """Is ``spark`` a Spark Connect session (no SparkContext, no JVM in this process)?"""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def master_of(spark: Any) -> str:
    """The master URL of a classic session, the ``sc://`` address of a Connect one."""
    if is_connect(spark):
        for url, session in _remote.items():
            if session is spark:
                return url
        return "Spark Connect"
    try:
        return str(spark.sparkContext.master)
    except Exception:  # noqa: BLE001 - a stopped session
        return "stopped"


def describe(spark: Any) -> str:
    """Where ``spark`` runs, for people: ``local[2]``, ``spark://h:7077 (2 executors)``, or the
    ``sc://`` address of a Connect server."""
    master = master_of(spark)
    if is_connect(spark) or is_local(master):
        return master
    try:  # the driver counts as one "executor" in this map
        n = int(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()) - 1
    except Exception:  # noqa: BLE001 - a stopped session
        return master
    return f"{master} ({n} executor{'s' if n != 1 else ''})"


def running_session() -> Any:
    """The session started in this process (classic, else a Connect one), or None; never
    starts one."""
    if _session is not None:
        return _session
    for session in _remote.values():
        return session
    return None


def parallelism(spark: Any) -> int:
    """The default parallelism: the SparkContext's on a classic session; on Spark Connect
    (no SparkContext) ``spark.default.parallelism`` when the server has it, else the
    session's shuffle partitions."""
    if not is_connect(spark):
        return max(1, int(spark.sparkContext.defaultParallelism))
    for key in ("spark.default.parallelism", "spark.sql.shuffle.partitions"):
        try:
            value = spark.conf.get(key, None)
        except Exception:  # noqa: BLE001 - not set on the server
            value = None
        if value:
            try:
                return max(1, int(value))
            except ValueError:
                continue
    return 2


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


def session_settings(master: str, conf: dict[str, str] | None = None, log4j: str | None = None) -> dict[str, str]:
    """The settings a classic session on ``master`` starts with: ``DEFAULT_CONF``, then per
    kind of master (see the module), then ``conf``."""
    settings = dict(DEFAULT_CONF)
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} -Dlog4j.configurationFile=file:{log4j}" if log4j else ""
    if java_opts:
        settings["spark.driver.extraJavaOptions"] = java_opts
    if is_local(master):
        if java_opts:
            settings["spark.executor.extraJavaOptions"] = java_opts
        settings["spark.pyspark.python"] = sys.executable
    else:
        # the cluster's Python, which has not got the engine installed: pyspark's own daemon
        # (engine.spark.daemon could not even be imported), the engine shipped as a zip (ship.py)
        del settings["spark.python.daemon.module"]
        if os.environ.get("PYSPARK_PYTHON"):
            settings["spark.pyspark.python"] = os.environ["PYSPARK_PYTHON"]
    settings.update(conf or {})
    return settings


def _build(master: str, conf: dict[str, str] | None, app_name: str) -> Any:
    _check_java()
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:  # pragma: no cover - pyspark is a dependency
        raise SparkUnavailable(f"pyspark is not installed ({e}); pip install -e .") from None
    local = is_local(master)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if local:
        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "resolves to a loopback" warning
    settings = session_settings(master, conf, _log4j_file())
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
    if not local:
        from engine.spark.ship import ship

        ship(spark)
    return spark


def _build_remote(url: str, conf: dict[str, str] | None, app_name: str) -> Any:
    """A Spark Connect session on ``url`` with the SQL settings of ``DEFAULT_CONF`` (and
    ``conf``'s), the engine shipped as an artifact."""
    try:
        from pyspark.sql.connect.session import SparkSession as RemoteSession
    except ImportError as e:
        raise SparkUnavailable(f"the Spark Connect client is not installed ({e}); pip install -e .") from None
    _reachable(url)
    try:
        spark = RemoteSession.builder.remote(url).appName(app_name).create()
    except Exception as e:  # noqa: BLE001 - a malformed address, a missing package
        raise SparkUnavailable(f"could not connect to Spark Connect at {url}: {_first_line(e)}") from None
    settings = {k: v for k, v in DEFAULT_CONF.items() if k.startswith("spark.sql.") and "streaming" not in k}
    settings.update(conf or {})
    try:
        for k, v in settings.items():
            spark.conf.set(k, v)
        from engine.spark.ship import ship

        ship(spark)
    except Exception as e:  # noqa: BLE001 - the server does not answer
        try:
            spark.stop()
        except Exception:  # noqa: BLE001
            pass
        raise SparkUnavailable(f"Spark Connect at {url} did not answer: {_first_line(e)}") from None
    return spark


CONNECT_PORT = 15002  # Spark Connect's default port
CONNECT_TIMEOUT = 10.0


def connect_address(url: str) -> tuple[str, int]:
    """``(host, port)`` of an ``sc://host[:port][/;params]`` address; raises ``SparkUnavailable``
    for a malformed one."""
    rest = url.strip()[len("sc://"):]
    hostport = rest.split("/", 1)[0]
    host, sep, port = hostport.rpartition(":") if not hostport.endswith("]") else (hostport, "", "")
    if not sep:
        host, port = hostport, str(CONNECT_PORT)
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SparkUnavailable(f"{url!r} is not a Spark Connect address (sc://HOST:PORT)")
    return host, int(port)


def _reachable(url: str) -> None:
    """Fail at once, with the reason, when nothing listens at the address (the Connect client
    itself retries for minutes)."""
    import socket

    host, port = connect_address(url)
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as err:
        raise SparkUnavailable(f"cannot reach the Spark Connect server at {host}:{port} "
                               f"({err.strerror or err})") from None


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def get_spark(master: str | None = None, conf: dict[str, str] | None = None,
              app_name: str = "cep-studio") -> Any:
    """The process's SparkSession, started on first use.

    ``master``: a Spark master URL (``local[2]``, ``spark://host:7077``, ``yarn``) or a Spark
    Connect address (``sc://host:15002``); default ``CEP_SPARK_MASTER`` or ``local[*]``. A
    second call with a different master stops the first classic session and starts a new one
    (one classic session per process); Connect sessions are kept per address. ``conf`` is
    applied only when the session starts.
    """
    global _session, _master
    _wait_background()
    want = (master or default_master()).strip()
    if is_remote(want):
        with _lock:
            session = _remote.get(want)
            if session is not None and not getattr(session, "is_stopped", False):
                return session
            session = _build_remote(want, conf, app_name)
            if _session is not None:  # one kind of session per process (see the module)
                _session.stop()
                _session, _master = None, None
            os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
            _remote[want] = session
            return session
    with _lock:
        if _remote:
            _stop_remote()
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


def stop_spark(master: str | None = None) -> None:
    """Stop the sessions of this process (tests and the CLI call it at exit); with an ``sc://``
    ``master``, close that Connect session only."""
    global _session, _master
    _wait_background()
    with _lock:
        if master is not None and is_remote(master):
            _stop_remote(master.strip())
            return
        if _remote:
            _stop_remote()
        if _session is not None:
            _session.stop()
        _session = None
        _master = None


def _stop_remote(url: str | None = None) -> None:
    """Close the Connect session of ``url`` (all when None); with none left, pyspark's
    functions build classic expressions again. The caller holds ``_lock``."""
    for key in [url] if url is not None else list(_remote):
        session = _remote.pop(key, None)
        if session is not None:
            try:
                session.stop()
            except Exception:  # noqa: BLE001 - the server is gone already
                pass
    if not _remote:
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
