"""The Spark readers under their older name: everything lives in ``engine.spark.read``
(see its modules there); this module re-exports the names its callers import."""
from __future__ import annotations

from engine.spark.read import (_FLOAT_RE, _INT_RE, JSON_COL, KEY_COL, NA_STRINGS, SEQ_COL, EventSpec, SparkEvents,
                   build_events, from_spark_frame, read_events)

__all__ = ["SparkEvents", "read_events", "from_spark_frame", "build_events", "SEQ_COL", "JSON_COL",
           "KEY_COL", "NA_STRINGS"]
