"""A loopback standalone cluster (Master + two Workers) and a Spark Connect server, started
once per test session and stopped at the end, even on failure. To keep the cost low on two
cores, both start at once, the in-process outputs are computed while the JVMs start, and the
two backends' runs (one subprocess each) overlap: ``loopback_runs`` gives each backend's
outcome (or the error that stopped it), which its test module checks."""
from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest

from engine.spark.session import java_version
from tests.spark.cluster import cases
from tests.spark.cluster.cluster_support import QUICK_JVM, launch_cluster, launch_connect_server


@dataclass
class Outcome:
    """One backend's runs: its address, the workers' Python, the outputs by case, the
    report of ``run_many.py`` and its stderr; or the error that stopped it."""

    url: str = ""
    python: str = ""
    got: Any = None
    report: Any = None
    stderr: str = ""
    error: BaseException | None = None

    def check(self) -> "Outcome":
        if self.error is not None:
            raise self.error
        return self


def _need_java() -> None:
    version = java_version()
    if version is None or version < 17:
        if os.environ.get("CI"):  # CI has Java 17: a missing Spark there is a failure
            raise RuntimeError("Java 17+ is needed for the cluster tests")
        pytest.skip("Spark needs Java 17+")


@pytest.fixture(scope="session")
def loopback_runs(tmp_path_factory):
    """``{"standalone": Outcome, "connect": Outcome, "want": in-process outputs by case}``."""
    _need_java()
    folder = tmp_path_factory.mktemp("spark-cluster")
    outcomes = {"standalone": Outcome(), "connect": Outcome()}
    with ExitStack() as stack:
        server = launch_connect_server(folder / "connect", stack)
        cluster = launch_cluster(folder / "standalone", stack)
        outcomes["connect"].url, outcomes["connect"].python = server.url, server.python
        outcomes["standalone"].url, outcomes["standalone"].python = cluster.url, cluster.python
        data_folder = folder / "data"
        data_folder.mkdir()
        data = cases.write_data(data_folder)
        want = cases.expected(data_folder, data)
        started = {}
        try:
            server.wait()
            started["connect"] = cases.start_runs("connect", data_folder, data, ["--remote", server.url],
                                                  {"CEP_SPARK_MASTER": server.url})
        except Exception as err:  # noqa: BLE001 - reported by the connect test
            outcomes["connect"].error = err
        try:
            cluster.wait()
            started["standalone"] = cases.start_runs(
                "standalone", data_folder, data, ["--master", cluster.url],
                {"PYSPARK_PYTHON": cluster.python, "SPARK_LOCAL_IP": "127.0.0.1", "CEP_SPARK_MASTER": cluster.url,
                 # a failing task is not retried (the failure case would cost four attempts)
                 "PYSPARK_SUBMIT_ARGS": "--conf spark.task.maxFailures=1 --conf spark.executor.memory=512m pyspark-shell",
                 "JDK_JAVA_OPTIONS": QUICK_JVM})
        except Exception as err:  # noqa: BLE001 - reported by the standalone test
            outcomes["standalone"].error = err
        for backend, runs in started.items():
            stack.callback(runs.process.kill)
        for backend, runs in started.items():
            try:
                outcomes[backend].got, outcomes[backend].report, outcomes[backend].stderr = runs.finish()
            except Exception as err:  # noqa: BLE001
                outcomes[backend].error = err
        yield {**outcomes, "want": want}
