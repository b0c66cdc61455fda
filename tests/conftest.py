"""Shared fixtures. The Spark session is started once for the whole test run (local[2],
UI off, 4 shuffle partitions) and only by tests that ask for it.

Under pytest-xdist (``make test`` runs all but the browser tests with ``-n 2 --dist
loadgroup``, then the browser tests alone) the tests that start a JVM or a browser run one
after another in one worker, a group per kind (``serial_group``): "spark" (one SparkSession),
"flink" (one Flink process for the session) and "browser" (chromium and the app, when they run
under xdist too). xdist hands the largest groups out first, one to each worker (Spark to one,
Flink to the other), and the pure-Python tests fill both workers' remaining time."""
from __future__ import annotations

import os

import pytest

# Tests that start a JVM or a browser, by where they are: (nodeid prefix, group).
GROUP_PREFIXES = (("tests/app/browser/", "browser"), ("tests/spark/", "spark"),
                  ("tests/engines/sql/flink/", "flink"))


def serial_group(nodeid: str) -> str | None:
    """The group a test runs in, one after another with the others of its kind, or None. The
    Spark tests outside tests/spark say so in their module's or their own name (a few other
    tests with "spark" in their name join them: harmless)."""
    for prefix, group in GROUP_PREFIXES:
        if nodeid.startswith(prefix):
            return group
    if "spark" in nodeid.lower():
        return "spark"
    return None


def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN001, ANN201 - xdist's types
    """``--dist loadgroup`` with the groups of ``serial_group``: xdist's own loadgroup reads
    ``xdist_group`` marks through a nodeid suffix that pytest 9 no longer lets it set, so the
    groups are told from the nodeids here."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class SerialGroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            group = serial_group(nodeid)
            return f"group:{group}" if group is not None else super()._split_scope(nodeid)

    return SerialGroupScheduling(config, log)


@pytest.fixture
def no_spark_warmup(monkeypatch):
    """The app's pages start no Spark warm-up thread in the test process (AppTest modules use
    it with ``pytestmark = pytest.mark.usefixtures("no_spark_warmup")``)."""
    monkeypatch.setenv("CEP_SPARK_WARMUP", "0")


@pytest.fixture(scope="session")
def spark():
    from engine.spark.session import SparkUnavailable, get_spark, stop_spark

    try:
        session = get_spark("local[2]", conf={
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
        })
    except SparkUnavailable as err:
        if os.environ.get("CI"):  # CI has Java 17: a missing Spark there is a failure
            raise
        pytest.skip(str(err))
    yield session
    stop_spark()


@pytest.fixture
def small_batches(spark):
    """Arrow batches of 7 rows, so that keys and chunks span many batches (the matcher's
    state must be carried from batch to batch)."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    old = spark.conf.get(key)
    spark.conf.set(key, "7")
    yield 7
    spark.conf.set(key, old)


@pytest.fixture
def split_files(spark):
    """Tiny file splits, so that one file is read by several tasks (row numbers and seq
    must still follow the file)."""
    keys = {"spark.sql.files.maxPartitionBytes": "400", "spark.sql.files.openCostInBytes": "1"}
    old = {k: spark.conf.get(k) for k in keys}
    for k, v in keys.items():
        spark.conf.set(k, v)
    yield
    for k, v in old.items():
        spark.conf.set(k, v)
