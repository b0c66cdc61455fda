"""``spark=``: the same request on Spark (``cep run --spark``'s path) gives the in-process result,
on the test run's shared Spark session (the ``spark`` fixture, local[2]). AGG rows, interval data
and the plans are compared with in-process by tests/spark/; here the API's path to them."""
from __future__ import annotations

import pytest

import engine
from tests.api.conftest import SAMPLES

pytestmark = pytest.mark.spark


def test_spark_equals_in_process(spark):
    text = (SAMPLES / "presets" / "stocks_sase__stock_trend.cep").read_text(encoding="utf-8")
    local = engine.run(text, "sample:stocks_sase")
    on_spark = engine.run(text, "sample:stocks_sase", spark="local[2]")
    assert len(local) > 0
    assert sorted(on_spark.to_jsonl().splitlines()) == sorted(local.to_jsonl().splitlines())
    assert on_spark.kind == "matches" and "spark mode" in on_spark.stats
