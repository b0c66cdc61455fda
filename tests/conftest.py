"""Shared fixtures. The Spark session is started once for the whole test run (local[2],
UI off, 4 shuffle partitions) and only by tests that ask for it."""
from __future__ import annotations

import os

import pytest


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
