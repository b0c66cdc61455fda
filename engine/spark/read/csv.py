"""Reading CSV and TSV: every column read as text, then each column typed over the whole file
the way pandas types it (ints, floats, booleans, else text), so that Spark and the in-process
reader see the same values."""
from __future__ import annotations

import csv
import io as _io
from pathlib import Path
from typing import Any

from engine.events import DataError
from engine.spark.read.columns import _BLOCK, _BOOL_STRINGS, _CORRUPT, _DATE_RE, _FILE, _FLOAT_RE, _INT_RE, NA_STRINGS, _with_segment
from engine.spark.read.errors import _spark_error


def _csv_source(spark: Any, path: Path, sep: str) -> tuple[Any, list[str], dict[str, str], dict[str, Any]]:
    """Read CSV as text and decide each column's type over the whole file the way pandas
    does (ints, floats, booleans, else text). Returns the typed frame (with segment
    columns), the column names, a decision per column and aggregate counts."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    what = "CSV" if sep == "," else "TSV"
    reader = (spark.read.option("header", True).option("sep", sep).option("escape", '"')
              .option("mode", "PERMISSIVE").option("encoding", "UTF-8"))
    try:
        columns = reader.csv(str(path)).columns
    except Exception as e:  # noqa: BLE001
        raise _spark_error(path, what, e) from None
    if not columns:
        raise DataError(f"'{path.name}' is empty: no header and no rows")
    schema = T.StructType([T.StructField(c, T.StringType(), True) for c in columns]
                          + [T.StructField(_CORRUPT, T.StringType(), True)])
    raw = (reader.schema(schema).option("columnNameOfCorruptRecord", _CORRUPT).csv(str(path)))
    raw = _with_segment(raw)
    na = F.array(*[F.lit(s) for s in NA_STRINGS])
    clean = {c: F.when(F.array_contains(na, F.col(f"`{c}`")), F.lit(None)).otherwise(F.col(f"`{c}`"))
             for c in columns}
    aggs = [F.count(F.col(_CORRUPT)).alias("__corrupt"), F.count(F.lit(1)).alias("__n")]
    for i, c in enumerate(columns):
        e = clean[c]
        aggs += [F.count(e).alias(f"n{i}"),
                 F.sum(F.when(e.rlike(_INT_RE), 1).otherwise(0)).alias(f"i{i}"),
                 F.sum(F.when(e.rlike(_FLOAT_RE), 1).otherwise(0)).alias(f"f{i}"),
                 F.sum(F.when(e.isin(_BOOL_STRINGS), 1).otherwise(0)).alias(f"b{i}"),
                 F.sum(F.when(e.rlike(_DATE_RE), 1)
                       .otherwise(0)).alias(f"d{i}")]
    # column pruning would hide lines with too many fields from the corrupt-record column
    prune_key = "spark.sql.csv.parser.columnPruning.enabled"
    prune = spark.conf.get(prune_key, "true")
    spark.conf.set(prune_key, "false")
    try:
        try:
            row = raw.agg(*aggs).collect()[0].asDict()
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, what, e) from None
        if row["__corrupt"]:
            # (Spark refuses a query of the raw file that uses only the corrupt-record column)
            bad = (raw.filter(F.col(_CORRUPT).isNotNull()).select(_CORRUPT, F.col(f"`{columns[0]}`"))
                   .limit(200).collect())
            for r in bad:  # more fields than the header, or fewer (Spark would fill them with nulls)
                if not r[0].strip():
                    continue  # a blank line: skipped, as the in-process readers do
                toks = next(csv.reader(_io.StringIO(r[0]), delimiter=sep), [])
                if len(toks) != len(columns):
                    raise DataError(f"cannot read '{path.name}' as {what}: expected {len(columns)} fields, "
                                    f"saw {len(toks)} in the line {r[0][:60]!r}")
    finally:
        spark.conf.set(prune_key, prune)
    decisions: dict[str, str] = {}
    counts: dict[str, Any] = {}
    for i, c in enumerate(columns):
        n, ni, nf, nb, nd = (row[f"n{i}"], row[f"i{i}"] or 0, row[f"f{i}"] or 0, row[f"b{i}"] or 0,
                             row[f"d{i}"] or 0)
        counts[c] = {"n": n, "num": nf, "dt": nd}
        if n and ni == n:
            decisions[c] = "long"
        elif n and nf == n:
            decisions[c] = "double"
        elif n and nb == n:
            decisions[c] = "boolean"
        elif nf:
            decisions[c] = "mixed"
        else:
            decisions[c] = "string"
    sel = []
    for c in columns:
        e = clean[c]
        d = decisions[c]
        if d == "long":
            e = F.trim(e).cast("long")
        elif d == "double":
            e = F.trim(e).cast("double")
        elif d == "boolean":
            e = e.cast("boolean")
        sel.append(e.alias(c))
    typed = raw.select(*sel, F.col(_FILE), F.col(_BLOCK))
    return typed, columns, decisions, counts
