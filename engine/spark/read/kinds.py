"""Column kinds: the type decision for a Spark column, the kind of an Arrow column in the
schema, and whether a time column holds numbers or date-times (decided once for the whole input)."""
from __future__ import annotations

from typing import Any

import pyarrow as pa

from engine.events import ColumnMapping
from engine.spark.read.columns import _DATE_RE, _FLOAT_RE


def _typed_kind(dt: Any) -> str:
    from pyspark.sql import types as T

    if isinstance(dt, T.BooleanType):
        return "bool"
    if isinstance(dt, T.NumericType):
        return "number"
    return "string"


def _arrow_kind(t: pa.DataType) -> str:
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "number"
    return "string"


def _spark_decision(dt: Any) -> str:
    from pyspark.sql import types as T

    if isinstance(dt, (T.LongType, T.IntegerType, T.ShortType, T.ByteType)):
        return "long"
    if isinstance(dt, (T.DoubleType, T.FloatType, T.DecimalType)):
        return "double"
    if isinstance(dt, T.BooleanType):
        return "boolean"
    if isinstance(dt, T.StringType):
        return "string"
    if isinstance(dt, (T.TimestampType, T.TimestampNTZType, T.DateType)):
        return "datetime"
    return "other"


def _string_time_counts(df: Any, mapping: ColumnMapping, decisions: dict[str, str]) -> dict[str, Any]:
    """Counts of number-like and date-time-like values of string time columns (to decide a
    mixed column's kind once for the whole input)."""
    from pyspark.sql import functions as F

    cols = [c for c in mapping.time_columns if decisions.get(c) == "string"]
    if not cols:
        return {}
    aggs = []
    for i, c in enumerate(cols):
        e = F.col(f"`{c}`")
        aggs += [F.sum(F.when(e.rlike(_FLOAT_RE), 1).otherwise(0)).alias(f"f{i}"),
                 F.sum(F.when(e.rlike(_DATE_RE), 1)
                       .otherwise(0)).alias(f"d{i}")]
    row = df.agg(*aggs).collect()[0]
    return {c: {"n": None, "num": row[f"f{i}"] or 0, "dt": row[f"d{i}"] or 0} for i, c in enumerate(cols)}


def _time_kinds_from_counts(mapping: ColumnMapping, counts: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for col in mapping.time_columns:
        c = counts.get(col)
        if not c or not (c["num"] or c["dt"]):
            continue
        out[col] = "datetime" if c["dt"] > c["num"] else "number"
    return out


def _spark_is_datetime(df: Any, col: str) -> bool:
    if col not in df.columns:
        return False
    return _spark_decision(df.schema[col].dataType) == "datetime"
