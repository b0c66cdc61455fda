"""A loopback Spark standalone cluster (a Master and two Workers) and a Spark Connect server,
started from the installed pyspark for the cluster tests and stopped at the end.

The workers and the Connect server run a Python that cannot import the project
(``worker_python``): a throwaway venv whose ``.pth`` file adds the main venv's site-packages.
Directories a ``.pth`` adds are not scanned for further ``.pth`` files, so pandas, pyarrow and
pyspark import there but the editable install of ``engine`` does not; the engine reaches the
workers only as the zip the session ships (``engine.spark.ship``).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent
START_TIMEOUT = 120.0
# short-lived JVMs on two cores: the client compiler only (far less JIT work), a serial collector;
# in JDK_JAVA_OPTIONS, which every java launched with that environment reads (the executors too)
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def free_port() -> int:
    """A port the OS says is free on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def worker_python(folder: Path) -> str:
    """A Python for the workers that has the main venv's packages but not the project."""
    venv = folder / "worker-venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
    (purelib / "main_venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return str(venv / "bin" / "python")


def cluster_env(python: str, folder: Path) -> dict[str, str]:
    """The environment of the cluster's JVMs: no PYTHONPATH (the project is not on it), the
    workers' Python, loopback only."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_REMOTE", "CEP_SPARK_MASTER",
                                                            "CEP_SPARK_REMOTE")}
    env.update(SPARK_HOME=str(SPARK_HOME), SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=python,
               JDK_JAVA_OPTIONS=QUICK_JVM, SPARK_DAEMON_MEMORY="256m",
               SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",  # no REST server on its fixed port
               PYSPARK_DRIVER_PYTHON=python, SPARK_LOG_DIR=str(folder / "logs"),
               SPARK_PID_DIR=str(folder / "pids"), SPARK_WORKER_DIR=str(folder / "work"))
    return env


@dataclass
class Process:
    """A JVM started in its own process group, its log a file."""

    name: str
    popen: subprocess.Popen
    log: Path

    def text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM to the whole group (the Worker's executors and their Python workers are in
        it), SIGKILL after a grace period."""
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        try:  # whatever is left of the group (executors outliving the Worker)
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass


def start(name: str, argv: list[str], env: dict[str, str], folder: Path) -> Process:
    log = folder / f"{name}.log"
    fh = open(log, "wb")
    popen = subprocess.Popen(argv, env=env, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True, cwd=folder)
    fh.close()
    return Process(name, popen, log)


def wait_for(what: str, ready, processes: list[Process], timeout: float = START_TIMEOUT) -> None:
    """Poll ``ready()`` until true; fail with the logs when a process died or time ran out."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ready():
            return
        dead = [p for p in processes if p.popen.poll() is not None]
        if dead:
            raise RuntimeError(f"{what}: {dead[0].name} exited:\n{dead[0].text()[-3000:]}")
        time.sleep(0.2)
    logs = "\n".join(f"--- {p.name}\n{p.text()[-2000:]}" for p in processes)
    raise RuntimeError(f"{what}: not ready after {timeout:.0f} s\n{logs}")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Cluster:
    """A standalone cluster being started: ``url`` is its master URL; ``python`` the workers'
    Python; ``wait()`` returns once the workers have registered."""

    url: str
    python: str
    folder: Path
    workers: int
    processes: list[Process] = field(default_factory=list)

    def wait(self) -> "Cluster":
        master = self.processes[0]
        wait_for("the workers", lambda: master.text().count("Registering worker") >= self.workers, self.processes)
        return self


def launch_cluster(folder: Path, stack: ExitStack, workers: int = 2) -> Cluster:
    """Start a Master and ``workers`` Workers (one core, 1 GiB each) on 127.0.0.1 without
    waiting for the workers to register (``Cluster.wait``); stopped by ``stack``."""
    folder.mkdir(parents=True, exist_ok=True)
    python = worker_python(folder)
    env = cluster_env(python, folder)
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    port = free_port()
    master = start("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                              "--port", str(port), "--webui-port", "0"], env, folder)
    stack.callback(master.stop)
    cluster = Cluster(f"spark://127.0.0.1:{port}", python, folder, workers, [master])
    for i in range(workers):  # a Worker retries its registration until the Master is up
        work = folder / f"work{i}"
        work.mkdir(exist_ok=True)
        w = start(f"worker{i}", [spark_class, "org.apache.spark.deploy.worker.Worker", cluster.url,
                                 "--host", "127.0.0.1", "--cores", "1", "--memory", "1g", "--webui-port", "0",
                                 "--work-dir", str(work)], env, folder)
        stack.callback(w.stop)
        cluster.processes.append(w)
    return cluster


@dataclass
class ConnectServer:
    """A Spark Connect server being started: ``url`` its ``sc://`` address; ``wait()``
    returns once it accepts connections."""

    url: str
    port: int
    python: str
    process: Process

    def wait(self) -> "ConnectServer":
        wait_for("the Spark Connect server", lambda: port_open(self.port), [self.process])
        return self


def launch_connect_server(folder: Path, stack: ExitStack, master: str = "local[2]") -> ConnectServer:
    """Start a Spark Connect server bound to 127.0.0.1 whose Python workers cannot import the
    project, without waiting for it (``ConnectServer.wait``); stopped by ``stack``."""
    folder.mkdir(parents=True, exist_ok=True)
    python = worker_python(folder)
    env = cluster_env(python, folder)
    env.pop("SPARK_DAEMON_MEMORY")  # a driver needs more than a Master or a Worker
    port = free_port()
    argv = [str(SPARK_HOME / "bin" / "spark-submit"), "--master", master, "--driver-memory", "1g",
            "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
            "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf", f"spark.connect.grpc.binding.port={port}",
            "--conf", "spark.ui.enabled=false",
            "--conf", "spark.driver.host=127.0.0.1",
            "--conf", "spark.driver.bindAddress=127.0.0.1",
            "--conf", f"spark.pyspark.python={python}"]
    jar = next(SPARK_HOME.glob("jars/spark-connect_*.jar"), None)
    if jar is not None:
        argv += ["--jars", str(jar)]
    server = start("connect", argv + ["spark-internal"], env, folder)
    stack.callback(server.stop)
    return ConnectServer(f"sc://127.0.0.1:{port}", port, python, server)
