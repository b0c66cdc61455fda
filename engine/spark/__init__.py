"""Spark execution. The only package of ``engine`` that imports pyspark; import its modules
explicitly (``from engine.spark import pipeline``). ``engine.spark.match`` (the lazy DataFrame
API, docs/spark_api.md) is loaded on first use, so importing this package imports no pyspark.

| module             | what it holds                                                              |
|--------------------|----------------------------------------------------------------------------|
| ``session``        | ``get_spark``: the local session and its settings                          |
| ``read/``          | ``read_events``: CSV, JSON Lines, Parquet read and validated on Spark      |
| ``io``             | the names of ``read/`` under their older module name                       |
| ``local_source``   | ``read_local``: a small file read on the driver, then parallelised         |
| ``keys``           | ``key_expr``: an event's partition key as normalised text                  |
| ``partition_runner`` | ``run_partition``: the per-group worker of every path; ``sort_by_group`` |
| ``match_rows``     | match rows built column-wise (``MatchColumns``), the ``events`` column     |
| ``pipeline``       | ``run``: matches on Spark (keyed, time-chunked, single-partition)          |
| ``aseq``           | ``run``: AGG rows (A-Seq) on Spark                                         |
| ``intervals``      | ``run_intervals``: interval data through the uncertain engines            |
| ``result``         | ``SparkResult``: what a run gives back                                     |
| ``errors``         | ``PipelineError``, ``task_error``: a matcher's failure in a task           |
| ``streaming``      | ``cep stream``: Structured Streaming over a directory                      |
| ``stream_files``   | what ``cep stream`` does with each file (no Spark)                         |
| ``daemon``         | the Python worker daemon that preloads the engine                          |
| ``lazy_match``     | ``match``: a pattern on a DataFrame as a transformation (no Spark job)     |
| ``lazy_events``    | ``lazy_events``: a DataFrame's events validated inside the tasks           |
| ``match_columns``  | the typed match rows of ``match`` (key columns, ids per variable, events)  |
| ``lazy_intervals`` | ``match`` over interval data (the interval plans, lazily)                  |
| ``stream_match``   | ``match`` on a Structured Streaming DataFrame (state across micro-batches) |
"""
from __future__ import annotations

from typing import Any

__all__ = ["match"]


def __getattr__(name: str) -> Any:
    """``match`` from ``lazy_match``, imported on first use (pyspark with it)."""
    if name == "match":
        from engine.spark.lazy_match import match

        return match
    raise AttributeError(f"module 'engine.spark' has no attribute {name!r}")
