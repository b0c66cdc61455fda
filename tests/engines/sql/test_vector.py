"""The columnar paths equal the row paths: the columnar matcher (engine/engines/sql/vector.py)
against the thread matcher and the oracle on random fixed-length queries over random typed
tables (NULLs, ints and floats, partitions, descending orders); the columnar PARTITION BY /
ORDER BY (columnar.py) against binding.partitions; read_table's column checks against the
per-value check they replace."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.engines.sql.binding import bind, partitions
from engine.engines.sql.columnar import partition_indices
from engine.engines.sql.output import json_row
from engine.engines.sql.parser import parse_query
from engine.engines.sql.rows import RowList
from engine.engines.sql.run import Table, run_query
from engine.engines.sql.table_io import TableError, read_table
from engine.engines.sql.vector import plan_query
from engine.json_text import json_text

CONDITIONS = [
    "{v}.x > A.x", "{v}.x <= A.x", "{v}.y > PREV({v}.y)", "x < PREV(x, 2)", "NEXT(x) IS NOT NULL AND NEXT(x) > x",
    "{v}.x >= LAST(B.x)", "x < FIRST(C.x)", "x > FIRST(A.x, 1)", "x > LAST(B.y, 1)", "x = 1", "x <> 1",
    "y > 1.5", "y < -0.5", "NOT (x > 2)", "x IS NULL OR x > 0", "(x > 1 OR y < 1) AND NOT y = 2",
    "g > x", "true", "x > C.x", "PREV(y) IS NULL", "big > x", "big > y", "x = 2.0",
    "count(A.*) < 3", "CLASSIFIER() = '{v}'", "x IN (1, 3)", "x + 1 > y",  # declined: the thread matcher runs
]
MEASURES = ["A.x AS ax", "LAST(B.y) AS lb", "FIRST(C.x) AS fc", "MATCH_NUMBER() AS m", "CLASSIFIER() AS k",
            "count(*) AS n", "PREV(A.x) AS pa", "x AS cx", "NEXT(B.id, 2) AS nb", "FIRST(B.id, 1) AS fb",
            "LAST(g, 1) AS lg", "(B.ts) AS bt", "LAST(A.big) AS ab"]
PATTERNS = ["A", "A B", "A B C", "A B{2} C", "B{3}", "A B C A", "(A B){2}", "A{2} B C{1}", "C B A B",
            "A B+ C", "A B* C", "A B+? C", "A B{2,} C", "A B{1,3} C", "A B+", "B+ C", "A B{0,2}? C", "A B+ B C",
            "A C*", "B* C A", "A B+ C A", "B{2,}?"]


@st.composite
def tables(draw: Any) -> Table:
    n = draw(st.integers(0, 14))
    ints = st.one_of(st.none(), st.integers(-3, 3)) if draw(st.booleans()) else st.integers(-3, 3)
    floats = st.one_of(st.none(), st.sampled_from([-1.0, -0.5, 0.0, 1.5, 2.0, 3.25])) if draw(st.booleans()) \
        else st.sampled_from([-1.0, 0.0, 1.5, 2.0])
    data = {
        "id": list(range(1, n + 1)),
        "g": [draw(st.sampled_from(["p", "q", "r"])) for _ in range(n)],
        "ts": [draw(st.integers(0, 6)) for _ in range(n)],
        "x": [draw(ints) for _ in range(n)],
        "y": [draw(floats) for _ in range(n)],
        "big": [draw(st.sampled_from([2 ** 60, 2 ** 60 + 1, 1])) for _ in range(n)],
    }
    schema = pa.schema([("id", pa.int64()), ("g", pa.string()), ("ts", pa.int64()), ("x", pa.int64()),
                        ("y", pa.float64()), ("big", pa.int64())])
    arrow = pa.table(data, schema=schema)
    columns = list(data)
    return Table(columns, RowList(columns, arrow), arrow=arrow)


@st.composite
def queries(draw: Any) -> str:
    pattern = draw(st.sampled_from(PATTERNS))
    present = [v for v in "ABC" if v in pattern]
    defines = []
    for v in present:
        if draw(st.booleans()):
            conds = [c.format(v=v) for c in draw(st.lists(st.sampled_from(CONDITIONS), min_size=1, max_size=2))]
            defines.append(f"{v} AS {' AND '.join(conds)}")
    measures = [m for m in draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3, unique=True))
                if all(f"{v}." not in m or v in present for v in "ABC")] or ["count(*) AS n"]
    rows = draw(st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS"]))
    skip = draw(st.sampled_from(["PAST LAST ROW", "PAST LAST ROW", "TO NEXT ROW"]
                                + [f"TO {w}{v}" for v in present for w in ("", "FIRST ", "LAST ")]))
    partition = draw(st.sampled_from(["", "PARTITION BY g", "PARTITION BY g, x"]))
    order = draw(st.sampled_from(["ts", "ts DESC", "ts, id DESC", "y DESC, ts"]))
    return (f"SELECT * FROM t MATCH_RECOGNIZE ({partition} ORDER BY {order} MEASURES {', '.join(measures)} {rows} "
            f"AFTER MATCH SKIP {skip} PATTERN ({pattern})"
            + (f" DEFINE {', '.join(defines)}" if defines else "") + ")")


def outcome(sql: str, table: Table, engine: str = "sql") -> Any:
    try:
        result = run_query(parse_query(sql), table, engine)
    except Exception as err:  # the same refusal either way
        return ("error", type(err).__name__, str(err))
    return [json_text(json_row(r)) for r in result.rows], result.stats.get("matcher")


TAKEN: list[bool] = []


def row_table(table: Table) -> Table:
    return Table(table.columns, list(table.rows))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(queries(), tables())
def test_columnar_matcher_equals_thread_matcher_and_oracle(sql: str, table: Table) -> None:
    got = outcome(sql, table)
    rows = outcome(sql, row_table(table))
    if got[0] == "error" or rows[0] == "error":
        assert got == rows
        return
    assert got[0] == rows[0], sql
    TAKEN.append(got[1] == "columnar")
    oracle = outcome(sql, row_table(table), "sql-oracle")
    assert got[0] == oracle[0], sql


def test_the_random_queries_took_the_columnar_matcher_often() -> None:
    if len(TAKEN) >= 100:  # after the hypothesis test above, in the same run
        assert sum(TAKEN) >= len(TAKEN) // 5


def test_the_benchmark_queries_take_the_columnar_matcher() -> None:
    table = _prices([5, 6, 7, 4, 5, 6, 7, 8, 1, 2])
    for pattern, define in (("A B C", "B AS B.price > A.price, C AS C.price > B.price"),
                            ("A B C D E", "B AS B.price > A.price, C AS C.price > B.price, D AS D.price > C.price, "
                                          "E AS E.price > D.price"),
                            ("A B{3} C", "B AS B.price > A.price, C AS C.price < A.price")):
        sql = (f"SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES A.ts AS a_ts "
               f"ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ({pattern}) DEFINE {define})")
        got = outcome(sql, table)
        assert got[1] == "columnar"
        assert got[0] == outcome(sql, row_table(table))[0] == outcome(sql, row_table(table), "sql-oracle")[0]
    assert outcome("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES A.ts AS a "
                   "ONE ROW PER MATCH PATTERN (A B) DEFINE B AS B.price > A.price)", table)[0] == [
        '{"symbol": "S", "a": 0}', '{"symbol": "S", "a": 3}', '{"symbol": "S", "a": 5}', '{"symbol": "S", "a": 8}']


def test_a_partition_with_too_long_runs_goes_to_the_thread_matcher(monkeypatch: Any) -> None:
    import engine.engines.sql.vector_kleene as kleene

    table = _prices([5, 6, 7, 8, 9, 10, 4, 5, 6, 3, 9, 8])
    sql = ("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES A.ts AS a, LAST(B.ts) AS b, "
           "C.ts AS c ONE ROW PER MATCH PATTERN (A B+ C) DEFINE B AS B.price > A.price, C AS C.price <= A.price)")
    want = outcome(sql, row_table(table))[0]
    assert outcome(sql, table) == (want, "columnar")
    monkeypatch.setattr(kleene, "MAX_STEPS", 2)
    assert outcome(sql, table) == (want, "columnar")  # the stats say columnar; the partition ran threads
    assert want == outcome(sql, row_table(table), "sql-oracle")[0] and len(want) == 2


def test_mixed_integer_and_float_beyond_2_53_is_declined() -> None:
    arrow = pa.table({"ts": [1, 2], "big": [2 ** 60, 2 ** 60 + 1], "y": [1.0, 2.0]})
    q = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS a ONE ROW PER MATCH "
                    "PATTERN (A B) DEFINE B AS B.big > A.y)")
    assert plan_query(bind(q, ["ts", "big", "y"]), arrow) is None
    q = parse_query("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS a ONE ROW PER MATCH "
                    "PATTERN (A B) DEFINE B AS B.big > A.big)")
    assert plan_query(bind(q, ["ts", "big", "y"]), arrow) is not None


def _prices(values: list[float]) -> Table:
    arrow = pa.table({"symbol": ["S"] * len(values), "ts": list(range(len(values))), "price": values})
    return Table(arrow.column_names, RowList(arrow.column_names, arrow), arrow=arrow)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(tables(), st.sampled_from(["", "PARTITION BY g", "PARTITION BY g, x", "PARTITION BY x"]),
       st.sampled_from(["ts", "ts DESC", "ts, id DESC", "y DESC, ts", "x", "id DESC"]))
def test_columnar_partitions_equal_row_partitions(table: Table, partition: str, order: str) -> None:
    import engine.engines.sql.columnar as columnar

    for encode_from in (10 ** 9, 0):  # by a dict over the values; by Arrow's dictionary encoding
        columnar.ENCODE_FROM = encode_from
        try:
            _partitions_equal(table, partition, order)
        finally:
            columnar.ENCODE_FROM = 500_000


def _partitions_equal(table: Table, partition: str, order: str) -> None:
    q = parse_query(f"SELECT * FROM t MATCH_RECOGNIZE ({partition} ORDER BY {order} MEASURES A.ts AS a "
                    "ONE ROW PER MATCH PATTERN (A))")
    bound = bind(q, table.columns)
    got = partition_indices(bound, table.arrow)
    want = partitions(bound, list(table.rows))
    if got is None:  # a NULL to place: declined
        assert any(table.arrow.column(c).null_count for c, _, _ in bound.order_by)
        return
    rows = list(table.rows)
    assert [(k, [rows[i] for i in index.tolist()]) for k, index in got] == want


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([pa.int64(), pa.int32(), pa.uint8(), pa.float64(), pa.float32(), pa.int16()]),
       st.lists(st.lists(st.one_of(st.none(), st.integers(0, 100)), max_size=9), min_size=1, max_size=3),
       st.integers(0, 3))
def test_numpy_column_reads_the_buffers_as_to_pylist(kind: Any, chunks: list[list[Any]], cut: int) -> None:
    from engine.engines.sql.columnar import numpy_column

    data = pa.chunked_array([pa.array(c, type=kind) for c in chunks], type=kind)
    data = data.slice(min(cut, len(data)), len(data))  # offsets into the buffers
    values, null = numpy_column(data)
    want = data.to_pylist()
    got = [None if null is not None and null[i] else v for i, v in enumerate(values.tolist())]
    assert got == want
    assert (null is None) == (data.null_count == 0)


def _old_check(path: Path) -> None:
    """read_table's per-value check before the columnar one."""
    data = read_table(path).arrow
    for c in data.column_names:
        for i, v in enumerate(data.column(c).to_pylist()):
            if isinstance(v, float) and not math.isfinite(v):
                raise TableError(f"{path}: row {i + 1}, column {c}: {v!r} is not a finite number")
            if isinstance(v, (dict, list, bytes)):
                raise TableError(f"{path}: column {c} holds nested or binary values; the studio reads scalars only")


@pytest.mark.parametrize("text", ["a,b\n1,2.5\n2,nan\n", "a,b\n1,inf\n2,-inf\n", "a,b\n1,2\n", "a,b\n,\n1,nan\n",
                                  "b,a\n1.5,x\n-inf,y\n"])
def test_read_table_refuses_non_finite_numbers_as_before(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text)
    try:
        table = read_table(path)
    except TableError as err:
        got = str(err)
    else:
        got = None
        assert list(table.rows) == [dict(zip(table.columns, r)) for r in zip(*(table.arrow.column(c).to_pylist()
                                                                              for c in table.columns))]
    import engine.engines.sql.table_io as table_io
    saved = table_io._check_columns
    table_io._check_columns = lambda *a: None
    try:
        _old_check(path)
        want = None
    except TableError as err:
        want = str(err)
    finally:
        table_io._check_columns = saved
    assert got == want


def test_read_table_refuses_nested_values(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1, "b": [1, 2]}\n')
    with pytest.raises(TableError, match="column b holds nested or binary values"):
        read_table(path)
    path.write_text('{"a": 1, "b": null}\n{"a": 2, "b": null}\n')
    assert list(read_table(path).rows) == [{"a": 1, "b": None}, {"a": 2, "b": None}]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False),
    st.dates(), st.datetimes(), st.lists(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.dates()), max_size=2))))
def test_json_row_equals_json_value_per_value(row: dict[str, Any]) -> None:
    from engine.engines.sql import values as V

    got = json_row(row)
    assert got == {k: V.json_value(v) for k, v in row.items()}
    assert [type(v) for v in got.values()] == [type(V.json_value(v)) for v in row.values()]
