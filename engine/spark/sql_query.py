"""MATCH_RECOGNIZE on Spark: the table is read by Spark with the schema pyarrow reads locally (so
every value has the type it has in process), keyed by the PARTITION BY columns, and each partition
is matched whole in one task by the same code as in process (engine/engines/sql: sort by ORDER BY
with ties in input order, the thread matcher, AFTER MATCH SKIP, the output rows). The driver puts
the partitions back in order of first appearance and applies SELECT and ORDER BY. The rows equal
the in-process run's."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from engine.engines.sql.binding import bind
from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.output import project
from engine.engines.sql.parser import parse_query
from engine.engines.sql.query import Query
from engine.engines.sql.run import SqlResult
from engine.spark.errors import task_error

__all__ = ["run_query_on_spark"]


def _schema(path: Path) -> Any:
    """The file's pyarrow schema as the local reader sees it, and Spark's equivalent."""
    import pyarrow as pa
    from pyspark.sql import types as T

    from engine.engines.sql.table_io import read_table_schema

    arrow = read_table_schema(path)
    fields = []
    for f in arrow:
        t = f.type
        if pa.types.is_integer(t):
            st: Any = T.LongType()
        elif pa.types.is_floating(t):
            st = T.DoubleType()
        elif pa.types.is_boolean(t):
            st = T.BooleanType()
        elif pa.types.is_timestamp(t):
            st = T.TimestampNTZType()
        elif pa.types.is_date(t):
            st = T.DateType()
        elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t):
            st = T.StringType()
        else:
            raise SqlRunError(f"{path}: column {f.name} has type {t}, which the studio does not run on Spark")
        fields.append(T.StructField(f.name, st, True))
    return arrow, T.StructType(fields)


def _match_group(text: str, columns: list[str], item: tuple[Any, Iterable[tuple[int, dict[str, Any]]]]
                 ) -> list[tuple[int, list[dict[str, Any]]]]:
    """In a task: one partition's output rows, with the partition's first input index."""
    from engine.engines.sql.binding import sort_rows
    from engine.engines.sql.matcher import ThreadMatcher
    from engine.engines.sql.output import match_rows
    from engine.engines.sql.search import match_partition

    key, indexed = item
    ordered = sorted(indexed, key=lambda p: p[0])
    first = ordered[0][0]
    query = parse_query(text)
    bound = bind(query, columns)
    rows = sort_rows([r for _i, r in ordered], bound.order_by, query.source)
    matcher = ThreadMatcher(bound)
    where = " in partition " + ", ".join(f"{c}={v!r}" for c, v in zip(bound.partition_by, key)) \
        if bound.partition_by else ""
    matcher.bind_partition(rows, where)
    matches, unmatched = match_partition(len(rows), matcher.find, query.after_match, bound.members, where)
    return [(first, match_rows(bound, key, rows, matches, unmatched, where))]


def run_query_on_spark(query: Query, path: str | Path, master: str | None = None,
                       partitions: int | None = None) -> SqlResult:
    from engine.engines.sql.table_io import format_name
    from engine.spark.session import get_spark

    path = Path(path)
    arrow, schema = _schema(path)
    columns = list(arrow.names)
    bound = bind(query, columns)  # errors of the query before Spark starts
    spark = get_spark(master)
    reader = spark.read.schema(schema)
    fmt = format_name(path)
    if fmt in ("csv", "tsv"):
        df = reader.option("header", True).option("sep", "\t" if fmt == "tsv" else ",").csv(str(path))
    elif fmt == "jsonl":
        df = reader.json(str(path))
    else:
        df = spark.read.parquet(str(path))
    keys = bound.partition_by
    text = query.source

    def keyed(pair: tuple[Any, int]) -> tuple[tuple[Any, ...], tuple[int, dict[str, Any]]]:
        row, index = pair
        d = row.asDict()
        return tuple(d[k] for k in keys), (index, d)

    n = partitions or max(2, spark.sparkContext.defaultParallelism)
    rdd = df.rdd.zipWithIndex().map(keyed).groupByKey(numPartitions=n)
    try:
        groups = rdd.flatMap(lambda item: _match_group(text, columns, item)).collect()
    except Exception as err:  # a matcher's error comes back through Py4J: its own message
        text = str(task_error(err))
        for name in ("SqlRunError: ", "StateExplosion: "):
            if text.startswith(name):
                text = text[len(name):]
        raise SqlRunError(text) from None
    groups.sort(key=lambda g: g[0])
    out = [r for _first, rows in groups for r in rows]
    names, rows_out = project(bound, out)
    return SqlResult(names, rows_out, [], {"partitions": len(groups), "output_rows": len(rows_out), "engine": "sql",
                                           "spark": True})
