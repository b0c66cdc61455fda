"""Partition keys as Spark columns: the key of every event as normalised text, so that
values Python treats as equal (1 and 1.0, "1" and 1, True and 1) land in one partition.
Shared by the match pipeline, A-Seq and the interval engines on Spark."""
from __future__ import annotations

from typing import Any

from engine.events import BUILTIN_FIELDS, ID_COL, LOWER_COL, TS_COL, TYPE_COL, UPPER_COL
from engine.model import Strategy
from engine.partition import PartitionKey
from engine.spark.io import _FLOAT_RE, _INT_RE, JSON_COL, SEQ_COL, SparkEvents

__all__ = ["key_expr"]


def _norm_number(e: Any) -> Any:
    """A double as key text: integral values as integers (1.0 and 1 are equal in Python)."""
    from pyspark.sql import functions as F

    return (F.when(F.isnan(e), F.lit(None))
            .when((e == F.floor(e)) & (F.abs(e) < F.lit(9.0e18)), e.cast("long").cast("string"))
            .otherwise(e.cast("string")))


def _norm_text(e: Any) -> Any:
    """Text as key text: number-like text as the number, true/false as 1/0. Merging values
    that Python may tell apart only makes a partition coarser, which is safe: the matcher
    still checks every predicate; splitting equal values would lose matches."""
    from pyspark.sql import functions as F

    low = F.lower(F.trim(e))
    return (F.when(e.rlike(_INT_RE), F.trim(e).cast("long").cast("string"))
            .when(e.rlike(_FLOAT_RE), _norm_number(F.trim(e).cast("double")))
            .when(low == "true", F.lit("1")).when(low == "false", F.lit("0"))
            .otherwise(e))


def _attr_key_expr(attr: str, ev: SparkEvents) -> Any:
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    df = ev.df
    if attr in ev.attr_columns:
        col = F.col(f"`{attr}`")
        dt = df.schema[attr].dataType
        if isinstance(dt, T.BooleanType):
            return col.cast("int").cast("string")
        if isinstance(dt, (T.FloatType, T.DoubleType, T.DecimalType)):
            return _norm_number(col.cast("double"))
        if isinstance(dt, T.NumericType):
            return col.cast("string")
        if isinstance(dt, T.StringType):
            return _norm_text(col)
        return col.cast("string")
    if attr in ev.json_attrs and JSON_COL in df.columns:
        path = "$['" + attr.replace("\\", "\\\\").replace("'", "\\'") + "']"
        return _norm_text(F.get_json_object(F.col(JSON_COL), path))
    builtin = {"ts": TS_COL, "id": ID_COL, "type": TYPE_COL, "seq": SEQ_COL,
               "lower": LOWER_COL, "upper": UPPER_COL}
    if attr in BUILTIN_FIELDS and builtin[attr] in df.columns:
        c = F.col(builtin[attr])
        if attr == "id" and ev.id_json:
            return _norm_text(c)
        return _norm_number(c.cast("double")) if attr in ("ts", "lower", "upper") else c.cast("string")
    return F.lit(None).cast("string")


def key_expr(key: PartitionKey, ev: SparkEvents, strategy: Strategy) -> Any:
    """The partition key of every event as a string column: JSON array of the normalised
    key values (one value: the value itself); null for events in no partition."""
    from pyspark.sql import functions as F

    def for_attrs(attrs: tuple[str, ...]) -> Any:
        parts = [_attr_key_expr(a, ev) for a in attrs]
        if len(parts) == 1:
            return F.coalesce(parts[0], F.lit("null"))
        return F.to_json(F.array(*parts))

    by_type = key.by_type
    other = key.default
    if other is None and strategy in (Strategy.PARTITION, Strategy.STRICT):
        other = key.uniform  # contiguity: same-key events of other types break runs
    expr = None
    for t, attrs in sorted(by_type.items()):
        cond = F.col(TYPE_COL) == F.lit(t)
        expr = F.when(cond, for_attrs(attrs)) if expr is None else expr.when(cond, for_attrs(attrs))
    rest = for_attrs(other) if other is not None else F.lit(None).cast("string")
    return rest if expr is None else expr.otherwise(rest)
