"""The Arrow table path (``engine.events.arrow_table``, ``arrow_load``; no pandas) against the pandas path.

Random Arrow tables (every column type the module reads and some it declines; nulls, NaN, inf,
integers beyond 2**53, text that looks like numbers or date-times, time stamps with and without
a zone, lists, dictionary-encoded strings) are written to Parquet and loaded by both paths:
whenever the Arrow path reads one (it declines what it is unsure of), the events (values and
their Python types), the input rows, the schema and the report must be identical. The same
tables read in batches of a few rows (``parquet_batch_tables`` through ``BatchReader``) must give
the same batches as pandas' batches. The Arrow path must not import pandas.
"""
from __future__ import annotations

import datetime as dt
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, reject, settings
from hypothesis import strategies as st

from engine.events import BatchReader, ColumnMapping, DataError
from engine.events.arrow_load import load_arrow, parquet_batch_tables, read_parquet_arrow
from engine.events.arrow_table import arrow_batch_table, read_arrow_table
from engine.events.load import load_with_pandas
from tests.events.test_small_csv import _plain, _snapshot


def _both(path: Path, mapping: ColumnMapping | None) -> tuple[Any, Any] | None:
    """(Arrow path, pandas path) results or errors; None when the Arrow path declines."""
    try:
        res = load_arrow(read_parquet_arrow(path), mapping)
    except DataError as err:
        arrow: Any = ("DataError", str(err))
    else:
        if res is None:
            return None
        arrow = _snapshot(res)
    try:
        pandas: Any = _snapshot(load_with_pandas(path, "parquet", mapping))
    except DataError as err:
        pandas = ("DataError", str(err))
    return arrow, pandas


def _assert_same(path: Path, mapping: ColumnMapping | None = None) -> Any:
    """The Arrow path's result (a snapshot, or the ``DataError``), checked equal to the pandas
    path's; None when the Arrow path declines."""
    got = _both(path, mapping)
    if got is None:
        return None
    arrow, pandas = got
    if arrow != pandas:
        shown = pq.read_table(path).to_pydict()
        for key in (arrow if isinstance(arrow, dict) else {}):
            if isinstance(pandas, dict) and arrow[key] != pandas[key]:
                raise AssertionError(f"{key} differs for\n{shown!r}\narrow: {arrow[key]!r}\npandas: {pandas[key]!r}")
        raise AssertionError(f"differ for\n{shown!r}\narrow: {arrow!r}\npandas: {pandas!r}")
    return arrow


# --------------------------------------------------------------------------- random tables

_WORDS = ["A", "B", "C", "", " A", "B ", "  ", "1", "2.5", "True", "x\x01y", "é", "nan", "inf", "-0",
          "1e400", "2020-01-02", "2020-01-02T03:04:05+05:30", "12345678901234567890", " 5", "now"]
_TIME_TEXT = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.integers(-10**8, 10**8).map(lambda i: repr(i / 100)),
    st.datetimes(min_value=dt.datetime(1950, 1, 1), max_value=dt.datetime(2100, 1, 1)).flatmap(
        lambda d: st.sampled_from([d.isoformat(), d.strftime("%Y-%m-%d %H:%M:%S"), d.strftime("%Y-%m-%d"),
                                   d.isoformat() + "Z", d.strftime("%Y-%m-%dT%H:%M:%S") + "+05:30"])),
    st.sampled_from(["", " ", "abc", "2011-13-45", "inf", "nan", "-0", "1e400", "x"]))
_SMALL_INTS = st.integers(-5, 5)
_BIG_INTS = st.integers(-2**63, 2**63 - 1) | st.sampled_from([2**53 + 1, -(2**53) - 1, 2**62])
_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from([0.5, 2.0, -0.0, 1e16])
_STAMPS = st.integers(-2_000_000_000, 4_000_000_000)


def _values(draw: Any, n: int, elements: Any, nulls: bool) -> list[Any]:
    return [None if nulls and draw(st.integers(0, 5)) == 0 else draw(elements) for _ in range(n)]


@st.composite
def _column(draw: Any, n: int, role: str) -> pa.Array:
    """A random column; ``role``: "type", "ts", "id" or "attr"."""
    kinds = {
        "type": ["string", "string", "large_string", "dictionary", "int", "bool", "null", "float"],
        "ts": ["int", "float", "timestamp", "timestamp", "date", "time_text", "bool", "null", "big_int", "decimal"],
        "id": ["int", "big_int", "whole_float", "float", "string", "list_int", "list_int_null", "dictionary",
               "decimal", "struct"],
        "attr": ["int", "int8", "uint64", "big_int", "float", "float32", "whole_float", "bool", "string",
                 "large_string", "dictionary", "timestamp", "date", "date64", "null", "list_int", "list_str",
                 "list_float", "list_int_null", "list_bool_null", "struct", "decimal", "time_text"],
    }[role]
    kind = draw(st.sampled_from(kinds))
    nulls = draw(st.booleans())
    words = st.sampled_from(["A", "B", "C"]) if role == "type" and draw(st.booleans()) else st.sampled_from(_WORDS)
    if kind in ("string", "large_string", "dictionary"):
        arr = pa.array(_values(draw, n, words, nulls), pa.string() if kind != "large_string" else pa.large_string())
        return arr.dictionary_encode() if kind == "dictionary" else arr
    if kind == "time_text":
        return pa.array(_values(draw, n, _TIME_TEXT, nulls), pa.string())
    if kind in ("int", "int8"):
        return pa.array(_values(draw, n, _SMALL_INTS if role != "ts" else st.integers(-100, 100), nulls),
                        pa.int64() if kind == "int" else pa.int8())
    if kind == "uint64":
        return pa.array(_values(draw, n, st.integers(0, 2**64 - 1), nulls), pa.uint64())
    if kind == "big_int":
        return pa.array(_values(draw, n, _BIG_INTS, nulls), pa.int64())
    if kind in ("float", "float32"):
        return pa.array(_values(draw, n, _FLOATS, nulls), pa.float64() if kind == "float" else pa.float32())
    if kind == "whole_float":
        return pa.array(_values(draw, n, st.integers(-10, 10).map(float) | st.sampled_from([2.0**60, 0.5]), nulls),
                        pa.float64())
    if kind == "bool":
        return pa.array(_values(draw, n, st.booleans(), nulls), pa.bool_())
    if kind == "timestamp":
        unit = draw(st.sampled_from(["s", "ms", "us", "ns"]))
        tz = draw(st.sampled_from([None, None, "UTC", "+05:30", "-03:00", "Europe/Paris", "America/New_York",
                                   "Asia/Kolkata", "Australia/Lord_Howe"]))
        scale = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}[unit]
        ticks = st.integers(-2_000_000_000 * scale, 4_000_000_000 * scale) | _STAMPS.map(lambda s: s * scale) \
            | st.integers(-10**6, 10**6).map(lambda k: k * scale // 1000)
        return pa.array(_values(draw, n, ticks, nulls), pa.timestamp(unit, tz=tz))
    if kind in ("date", "date64"):
        days = _values(draw, n, st.integers(-30000, 80000), nulls)
        if kind == "date":
            return pa.array(days, pa.date32())
        return pa.array([None if d is None else d * 86_400_000 for d in days], pa.date64())
    if kind == "null":
        return pa.nulls(n)
    if kind == "list_int":
        return pa.array(_values(draw, n, st.lists(_BIG_INTS, max_size=3), nulls), pa.list_(pa.int64()))
    if kind == "list_int_null":
        return pa.array(_values(draw, n, st.lists(st.none() | _BIG_INTS, max_size=3), nulls), pa.list_(pa.int64()))
    if kind == "list_bool_null":
        return pa.array(_values(draw, n, st.lists(st.none() | st.booleans(), max_size=3), nulls), pa.list_(pa.bool_()))
    if kind == "list_str":
        return pa.array(_values(draw, n, st.lists(st.none() | st.sampled_from(_WORDS), max_size=3), nulls),
                        pa.list_(pa.string()))
    if kind == "list_float":
        return pa.array(_values(draw, n, st.lists(st.none() | _FLOATS, max_size=3), nulls), pa.list_(pa.float64()))
    if kind == "struct":
        return pa.array(_values(draw, n, st.fixed_dictionaries({"a": st.none() | _BIG_INTS, "b": st.none() | _FLOATS,
                                                                 "c": st.none() | st.booleans(),
                                                                 "d": st.none() | st.sampled_from(_WORDS)}), nulls),
                        pa.struct([("a", pa.int64()), ("b", pa.float64()), ("c", pa.bool_()), ("d", pa.string())]))
    assert kind == "decimal"
    scale = draw(st.integers(0, 20))
    return pa.array(_values(draw, n, st.integers(-10**25, 10**25).map(lambda i: Decimal(i).scaleb(-scale)), nulls),
                    pa.decimal128(38, scale))


@st.composite
def parquet_tables(draw: Any) -> tuple[pa.Table, ColumnMapping | None]:
    n = draw(st.integers(0, 10) | st.integers(1, 4))
    id_name = draw(st.sampled_from(["id", "eid", None]))
    attrs = draw(st.lists(st.sampled_from(["x", "y", "name", "seq", "price"]), max_size=3, unique=True))
    names = ["type", "ts"] + ([id_name] if id_name else []) + attrs
    names = draw(st.permutations(names))
    columns = {}
    for name in names:
        role = {"type": "type", "ts": "ts", "id": "id", "eid": "id"}.get(name, "attr")
        columns[name] = draw(_column(n, role))
    table = pa.table(columns)
    mapping = draw(st.sampled_from([None, ColumnMapping(), ColumnMapping(id_col="eid"),
                                    ColumnMapping(ts_unit="ms"), ColumnMapping(id_col="nope")]))
    return table, mapping


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(parquet_tables(), st.integers(1, 4), st.sampled_from(["arrow", "arrow", "pandas"]))
def test_arrow_path_equals_pandas_path(tmp_path: Path, spec: tuple[pa.Table, ColumnMapping | None],
                                       row_group: int, writer: str) -> None:
    table, mapping = spec
    path = tmp_path / "data.parquet"
    if writer == "pandas":  # a file pandas wrote (its schema note, its types: NaN for a missing int ...)
        from engine.events.formats import arrow_to_pandas

        try:
            arrow_to_pandas(table).to_parquet(path, row_group_size=row_group)
        except (pa.ArrowException, ValueError, TypeError):
            reject()
        event("written by pandas")
    else:
        pq.write_table(table, path, row_group_size=row_group)
    arrow = _assert_same(path, mapping)
    if arrow is None:
        event("declined: read with pandas")
    elif isinstance(arrow, dict):
        event("arrow path")
        event("events loaded" if arrow["events"] else "no event loaded")
        event("some row rejected" if arrow["report"]["rows_rejected"] else "no row rejected")
    else:
        event("arrow path: refused as a whole (DataError)")


# --------------------------------------------------------------------------- chosen tables

def _write(tmp_path: Path, table: pa.Table) -> Path:
    path = tmp_path / "data.parquet"
    pq.write_table(table, path)
    return path


CHOSEN: dict[str, pa.Table] = {
    "plain": pa.table({"type": ["A", "B", "A"], "ts": [3, 1, 2], "id": [1, 2, 3], "x": [1.5, None, float("nan")]}),
    "bad rows": pa.table({"type": ["A", None, "", " B "], "ts": pa.array([1.0, float("inf"), None, 2.0]),
                          "id": ["a", "b", None, "a"], "x": pa.array([1.0, 2.0, 3.0, float("-inf")])}),
    "big ints": pa.table({"type": ["A", "B"], "ts": [1, 2], "id": [2**53 + 1, 2**63 - 1],
                          "x": pa.array([2**64 - 1, 0], pa.uint64())}),
    "whole float ids": pa.table({"type": ["A", "B", "C"], "ts": [1, 2, 3], "id": [1.0, None, 3.0]}),
    "infinite id": pa.table({"type": ["A", "B"], "ts": [1, 2], "id": [float("inf"), 1.0]}),
    "nested ids": pa.table({"type": ["A", "B", "C"], "ts": [1, 2, 3], "id": pa.array([[1, 2], None, []])}),
    "duplicate ids": pa.table({"type": ["A", "B", "C"], "ts": [1, 2, 3], "id": ["k", "k", "j"]}),
    "date-times with a zone": pa.table({"type": ["A", "B"], "ts": pa.array([1_600_000_000_123, 1_500_000_000_000],
                                                                           pa.timestamp("ms", tz="+05:30"))}),
    "naive nanoseconds": pa.table({"type": ["A", "B", "C"], "ts": pa.array([1, 1_500, 5_000], pa.timestamp("ns")),
                                   "when": pa.array([5, None, 7_000], pa.timestamp("ns"))}),
    "time text": pa.table({"type": ["A", "B", "C", "D"], "ts": ["2020-01-01T00:00:00Z", "5", "abc", ""]}),
    "bool time": pa.table({"type": ["A", "B"], "ts": [True, None]}),
    "control characters": pa.table({"type": ["A", "B"], "ts": [1, 2], "note": ["x\x1by", "fine"]}),
    "dictionary strings": pa.table({"type": pa.array(["A", "B", None, "A"]).dictionary_encode(),
                                    "ts": [1, 2, 3, 4], "note": pa.array(["x", None, "y", "x"]).dictionary_encode()}),
    "dates and lists": pa.table({"type": ["A", "B"], "ts": pa.array([18000, 18001], pa.date32()),
                                 "tags": pa.array([["a", None], None]), "nums": pa.array([[1.5, float("nan")], []])}),
    "decimals": pa.table({"type": ["A", "B", "C"], "ts": pa.array([Decimal("1.50"), Decimal("-0.25"), None]),
                          "id": pa.array([Decimal("1.0"), Decimal("2.0"), Decimal("3.5")]),
                          "x": pa.array([Decimal("12345678901234567890.123"), None, Decimal("-0.000")])}),
    "a null in a list of ints": pa.table({"type": ["A", "B"], "ts": [1, 2], "id": pa.array([[2**60], [3, None]]),
                                          "x": pa.array([[1, 2], [None]]), "y": pa.array([[True, None], []])}),
    "named zones": pa.table({"type": ["A", "B", "C"], "ts": [1, 2, 3],
                             "at": pa.array([0, 1_700_000_000_123_456, None], pa.timestamp("us", tz="America/New_York"))}),
    "float types": pa.table({"type": [-0.0, 0.0, float("nan"), 1.5, float("inf"), None, 2.0], "ts": [1, 2, 3, 4, 5, 6, 7]}),
    "structs": pa.table({"type": ["A", "B", "C"], "ts": [1, 2, 3],
                         "id": pa.array([{"k": 1}, {"k": 2**60}, {"k": 3}]),
                         "x": pa.array([{"a": 1.5, "b": "x"}, {"a": None, "b": None}, None])}),
    "built-in name": pa.table({"type": ["A"], "ts": [1], "seq": [7]}),
    "no rows": pa.table({"type": pa.array([], pa.string()), "ts": pa.array([], pa.int64())}),
    "missing column": pa.table({"type": ["A"], "time": [1]}),
    "reserved name": pa.table({"type": ["A"], "ts": [1], "__cep_ts": [1]}),
}


@pytest.mark.parametrize("name", sorted(CHOSEN))
def test_chosen_tables_take_the_arrow_path_and_match(tmp_path: Path, name: str) -> None:
    assert _assert_same(_write(tmp_path, CHOSEN[name])) is not None, f"{name}: the Arrow path declined"


@pytest.mark.parametrize("table", [
    pa.table({"type": ["A"], "ts": [1], "x": pa.array([{"a": [1]}])}),                     # a list in a struct
    pa.table({"type": ["A", "B"], "ts": [1, 2], "x": pa.array([{"a": 1}, {"a": None}])}),  # a null int field
    pa.table({"type": ["A"], "ts": pa.array([1], pa.timestamp("s", tz="Mars/Olympus"))}),  # an unknown zone
    pa.table({"type": ["A"], "ts": pa.array([10**11], pa.timestamp("s"))}),                # beyond nanoseconds
    pa.table({"type": ["A"], "ts": [1], "x": pa.array([b"\x00"])}),                        # bytes
])
def test_declines_what_it_is_unsure_of(table: pa.Table) -> None:
    assert read_arrow_table(table) is None


def test_unsure_time_text_declines(tmp_path: Path) -> None:
    table = pa.table({"type": ["A", "B"], "ts": ["-0", "1.5"]})  # pandas' sign of -0 depends on the other cells
    assert read_arrow_table(table) is not None
    assert load_arrow(table) is None


def test_a_file_pandas_wrote_matches(tmp_path: Path) -> None:
    import pandas as pd

    path = tmp_path / "data.parquet"
    pd.DataFrame({"type": ["A", "B", None], "ts": [1.5, 2.5, 3.0], "id": pd.array([1, None, 3], dtype="Int64"),
                  "x": ["a", None, "c"]}).to_parquet(path)
    assert _assert_same(path) is not None
    indexed = tmp_path / "indexed.parquet"
    pd.DataFrame({"type": ["A"], "ts": [1]}, index=pd.Index(["r"], name="k")).to_parquet(indexed)
    assert read_arrow_table(pq.read_table(indexed)) is None  # an index column: pandas reads it as the index


def test_types_build_only_those_events() -> None:
    table = pa.table({"id": [1, 2, 3, 4], "type": ["A", "B", "C", "A"], "ts": [1, 2, 2, 3], "x": [5, 6, 7, 8]})
    whole = load_arrow(table)
    some = load_arrow(table, types=frozenset({"A"}))
    assert [(e.id, e.seq, e.attrs) for e in some.events] == [(e.id, e.seq, e.attrs) for e in whole.events
                                                               if e.type == "A"]
    assert some.events_skipped == 2 and some.report.rows_loaded == 4


def test_a_record_batch_reads_as_the_whole_table() -> None:
    table = CHOSEN["bad rows"]
    batch = table.to_batches()[0]
    one, two = arrow_batch_table(batch), read_arrow_table(table)
    assert one is not None and two is not None and one.columns == two.columns and len(one) == len(two)
    for name in one.columns:
        assert one.column(name).values() == two.column(name).values()
        assert one.attr_values(name, [2, 0]) == two.attr_values(name, [2, 0])


def test_the_arrow_path_imports_no_pandas(tmp_path: Path) -> None:
    path = _write(tmp_path, pa.table({
        "id": list(range(6)), "type": pa.array(["A", "B", "C"] * 2).dictionary_encode(),
        "ts": pa.array([1, 2, 3, 4, 5, None], pa.timestamp("ms")), "x": [1.5, None, 2.0, 3.0, 4.0, 5.0],
        "n": [1, None, 3, 4, 5, 6], "s": ["a", None, "b", "c", "d", "e"], "f": [True, False, None, True, True, True],
        "l": pa.array([[1], [], None, [2], [3], [4]]), "d": pa.array([1, 2, 3, 4, 5, 6], pa.date32()),
        "t": ["2020-01-01", "5", None, "x", "2021-01-01T00:00:00Z", "7"]}))
    code = ("import sys; from pathlib import Path; "
            "from engine.events.arrow_load import load_arrow, parquet_batch_tables, read_parquet_arrow; "
            f"res = load_arrow(read_parquet_arrow(Path({str(path)!r}))); "
            f"tables = [t for _, t, _ in parquet_batch_tables(Path({str(path)!r}), 4)]; "
            "print(res is not None, len(res.events), res.report.rows_rejected, None not in tables, len(tables), "
            "'pandas' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "5", "1", "True", "2", "False"], run.stdout


# --------------------------------------------------------------------------- batches

class _ArrowBatches(BatchReader):
    """``BatchReader`` with Parquet batches given as ``arrow_batch_table`` tables (how the
    reader would carry them), each one it declines read by pandas."""

    def _frames(self) -> Any:
        from engine.events.batches import _Frame
        from engine.events.formats import arrow_to_pandas

        for offset, table, batch in parquet_batch_tables(self.path, self.batch_rows):
            if table is None:
                yield _Frame(df=arrow_to_pandas(batch), offset=offset)
            else:
                yield _Frame(df=None, offset=offset, table=table)  # type: ignore[arg-type]

    def _as_frame(self, raw: Any) -> Any:
        from engine.events.batches import _Frame

        return _Frame(df=raw.table.pandas_frame(), offset=raw.offset)


def _batches(reader: BatchReader) -> Any:
    out: list[Any] = []
    try:
        for b in reader:
            out.append(([(_plain(e.id), e.type, _plain(e.ts), e.seq, sorted((k, _plain(v)) for k, v in e.attrs.items()))
                         for e in b.events], b.rows, [i.model_dump() for i in b.issues], b.schema, b.seq_start))
    except DataError as err:
        out.append(("DataError", str(err)))
    return out, reader.report().model_dump(), reader.schema(), reader.time_is_datetime, reader.ids_are_rows


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(parquet_tables(), st.integers(1, 4))
def test_arrow_batches_equal_pandas_batches(tmp_path: Path, spec: tuple[pa.Table, ColumnMapping | None],
                                            batch_rows: int) -> None:
    table, mapping = spec
    if not len(table):
        return
    path = tmp_path / "data.parquet"
    pq.write_table(table, path)
    arrow = _batches(_ArrowBatches(path, mapping, batch_rows=batch_rows))
    pandas = _batches(BatchReader(path, mapping, batch_rows=batch_rows))
    assert arrow == pandas, table.to_pydict()
    event("arrow batches" if read_arrow_table(table) is not None else "declined: pandas batches")


@settings(max_examples=150, deadline=None)
@given(parquet_tables(), st.sampled_from([frozenset({"A"}), frozenset({"A", "B"}), frozenset({"Z"})]))
def test_types_build_the_events_of_those_types_only(spec: tuple[pa.Table, ColumnMapping | None],
                                                    types: frozenset[str]) -> None:
    table, mapping = spec
    try:
        whole, some = load_arrow(table, mapping), load_arrow(table, mapping, types=types)
    except DataError:
        return
    if whole is None:
        assert some is None
        return
    assert [(e.id, e.type, e.ts, e.seq, e.attrs) for e in some.events] == \
        [(e.id, e.type, e.ts, e.seq, e.attrs) for e in whole.events if e.type in types]
    assert some.rows == whole.rows and some.report.rows_loaded == whole.report.rows_loaded
    assert some.events_skipped == len(whole.events) - len(some.events)


def test_broken_files_give_the_same_error(tmp_path: Path) -> None:
    from engine.events.formats import read_parquet, read_parquet_batches

    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(DataError) as arrow:
        read_parquet_arrow(path)
    with pytest.raises(DataError) as pandas:
        read_parquet(path)
    assert str(arrow.value) == str(pandas.value)
    with pytest.raises(DataError) as arrow:
        list(parquet_batch_tables(path, 10))
    with pytest.raises(DataError) as pandas:
        list(read_parquet_batches(path, 10))
    assert str(arrow.value) == str(pandas.value)


def test_a_parquet_directory_matches(tmp_path: Path) -> None:
    folder = tmp_path / "data.parquet"
    folder.mkdir()
    pq.write_table(pa.table({"type": ["A", "B"], "ts": [1, 5], "x": [1.5, None]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"type": ["C", None], "ts": [3, 4], "x": [2.5, 3.5]}), folder / "part-1.parquet")
    assert _assert_same(folder) is not None
