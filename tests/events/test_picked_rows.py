"""Events built only from the picked rows (``load.table_events`` with ``types``) against converting
every row (``table_events`` without ``types``, which converts each row's attribute columns).

Random tables, as Arrow tables (ints with nulls, big ints, unsigned ints beyond 2**63, floats with
NaN and null, bools, strings that look like numbers, dictionary-encoded strings, time stamps,
decimals, an all-null column) and as CSV files read by both CSV readers (ints, floats, big ints,
bools, text, empty cells, columns mixing numbers and text), with several event types, unsorted
times and patterns whose components filter on one attribute or on two. For each: every picked
event equals the event converting every row builds for that row (its id, type, time, position
and each value with its Python type), the rows left out are rows no component can take (by the
engines' own compiled filter on the fully built event), exactly those where every filter reads one
attribute column, and the schema is the schema of every row of the bound types (``columns_schema``
of the converted rows), keys in the same order.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.dsl import parse
from engine.engines.lazy.conditions import compile_local
from engine.events.arrow_csv import read_arrow_csv
from engine.events.arrow_table import read_arrow_table
from engine.events.event_columns import EventColumns
from engine.events.load import _type_codes, _type_column_codes, checked_order, table_events
from engine.events.mapping import guess_mapping
from engine.events.records import BUILTIN_FIELDS, Event, columns_schema
from engine.events.small_csv import read_small_csv
from engine.expr import Ref
from engine.type_filter import Bindable, _text_equality, bindable

PATTERNS = [
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.name = 'n1' AND b.x > 2 WITHIN 5",
    "PATTERN AND(A a, B b, C c) WHERE skip_till_any_match AND a.name = 'n1' AND b.name = 'x' AND c.name = '1' WITHIN 5",
    "PATTERN SEQ(A a, A b) WHERE skip_till_any_match AND a.name = 'n1' AND b.name = 'n2' WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x != 3 AND b.name != 'n1' WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x * 2 > 3 AND b.x >= 0 WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND (a.x < 2 OR a.name = 'n2') AND b.y = 'n1' WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.name = 'n1' AND a.x > 1 WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.x = 'n1' AND 'n2' = b.name WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.flag = true AND b.y = 1 WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.name = a.y AND b.x > a.x WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.ts > 2 AND b.name = 'type' WITHIN 5",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match AND a.missing = 'n1' AND b.name = '' WITHIN 5",
]

TYPES = ["A", "B", "C", "D", " A", "A "]


def _value_key(v: Any) -> tuple[str, str]:
    return type(v).__name__, repr(v)


def _event_key(e: Event) -> tuple[Any, ...]:
    return (_value_key(e.id), e.type, _value_key(e.ts), e.seq,
            tuple((k, _value_key(v)) for k, v in e.attrs.items()))


def _can_bind(b: Bindable, e: Event) -> bool:
    """The engines' compiled filters on the built event: some component of its type takes it."""
    if e.type not in b.types:
        return False
    per = b.local.get(e.type, ())
    if not per:
        return True
    return any(not conj or bool(compile_local(list(conj))(e)) for conj in per)  # type: ignore[misc]


def _exact(b: Bindable, table: Any) -> bool:
    """Whether the loader is exact for ``b`` on ``table``: every filter reads one attribute column."""
    for per in b.local.values():
        for conj in per:
            for e in conj:
                attrs = {n.attr for n in e.walk() if isinstance(n, Ref)}
                if len(attrs) != 1 or not attrs <= set(table.columns) or attrs & set(BUILTIN_FIELDS):
                    return False
    return True


def check_picked(table: Any, types: Any, seq_start: int = 0) -> bool:
    """``table_events`` with ``types`` against converting every row (see the module); False when
    the rules leave the table to the pandas path (nothing to compare)."""
    checked = checked_order(table, guess_mapping(table.columns))
    if checked is None:
        return False
    chk, order, _ = checked
    column = _type_column_codes(chk, order)  # the types by the type column's codes, as by comparing names
    by_name = _type_codes(chk.types[order], types)
    if column is not None:
        by_code = _type_codes(chk.types[order], types, column)
        assert by_code[0].tolist() == by_name[0].tolist() and by_code[1] == by_name[1]
    ts = chk.ts[order].tolist()
    every, _ = table_events(table, chk, order, ts, None, seq_start=seq_start)
    got, schema = table_events(table, chk, order, ts, types, seq_start=seq_start)
    lazy, lazy_schema = table_events(table, chk, order, ts, types, seq_start=seq_start, lazy=True)
    assert isinstance(lazy, EventColumns)
    assert [_event_key(e) for e in lazy] == [_event_key(e) for e in got] and lazy_schema == schema
    by_seq = {e.seq: e for e in every}
    assert [e.seq for e in every] == list(range(seq_start, seq_start + len(order)))
    for e in got:
        assert _event_key(e) == _event_key(by_seq[e.seq])
    names = chk.attr_columns
    typed = [k for k, t in enumerate(chk.types[order].tolist()) if t in types]
    rows = order[typed].tolist()
    expected_schema = columns_schema([chk.types[order][k] for k in typed], names,
                                     [table.attr_values(c, rows) for c in names])
    assert schema == expected_schema
    assert [list(v) for v in schema.items()] == [list(v) for v in expected_schema.items()]
    assert [list(v) for v in schema.values()] == [list(v) for v in expected_schema.values()]
    picked = {e.seq for e in got}
    if isinstance(types, Bindable):
        should = {e.seq for e in every if _can_bind(types, e)}
        assert should <= picked
        assert picked <= {seq_start + k for k in typed}
        if _exact(types, table):
            assert picked == should
    else:
        assert picked == {seq_start + k for k in typed}
    return True


# --------------------------------------------------------------------------- Arrow tables

_ARROW_COLUMNS = {
    "int": (st.one_of(st.none(), st.integers(-3, 4), st.integers(-2**63, 2**63 - 1)), pa.int64()),
    "uint": (st.one_of(st.none(), st.integers(0, 4), st.integers(2**63, 2**64 - 1)), pa.uint64()),
    "float": (st.one_of(st.none(), st.sampled_from([0.0, 1.5, 2.0, 3.0, -1.0, float("nan"), 1e300])), pa.float64()),
    "bool": (st.one_of(st.none(), st.booleans()), pa.bool_()),
    "string": (st.one_of(st.none(), st.sampled_from(["n1", "n2", "x", "1", "2.5", "", "true", "type"])), pa.string()),
    "dictionary": (st.one_of(st.none(), st.sampled_from(["n1", "n2", "x", "1"])), None),
    "timestamp": (st.one_of(st.none(), st.integers(0, 10**12)), pa.timestamp("ms")),
    "decimal": (st.one_of(st.none(), st.sampled_from([Decimal("1.5"), Decimal("2"), Decimal("-3.25")])), pa.decimal128(6, 2)),
    "null": (st.none(), pa.null()),
}


@st.composite
def arrow_tables(draw: st.DrawFn) -> Any:
    n = draw(st.integers(1, 25))
    data: dict[str, Any] = {
        "type": pa.array(draw(st.lists(st.sampled_from(TYPES), min_size=n, max_size=n)), pa.string()),
        "ts": pa.array(draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), pa.int64()),
    }
    if draw(st.booleans()):
        data["id"] = pa.array(list(range(100, 100 + n)), pa.int64())
    for name in draw(st.lists(st.sampled_from(["x", "name", "y", "flag"]), min_size=1, max_size=4, unique=True)):
        kind = draw(st.sampled_from(sorted(_ARROW_COLUMNS)))
        values, typ = _ARROW_COLUMNS[kind]
        cells = draw(st.lists(values, min_size=n, max_size=n))
        data[name] = pa.array(cells, pa.string()).dictionary_encode() if typ is None else pa.array(cells, typ)
    table = read_arrow_table(pa.table(data))
    assume(table is not None)
    return table


def _types(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return frozenset(draw(st.lists(st.sampled_from(["A", "B", "C"]), min_size=1, max_size=3)))
    b = bindable(parse(draw(st.sampled_from(PATTERNS))))
    assert b is not None
    return b


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_arrow_tables_build_the_picked_rows_as_every_row(data: st.DataObject) -> None:
    table = data.draw(arrow_tables())
    assume(check_picked(table, _types(data.draw), data.draw(st.sampled_from([0, 7]))))


# --------------------------------------------------------------------------- CSV files

CELLS = ["0", "1", "2", "3", "-2", "1.5", "", "12345678901234567890", "9007199254740993", "true", "false",
         "n1", "n2", "x", "1e3", "type"]


@st.composite
def csv_texts(draw: st.DrawFn) -> str:
    n = draw(st.integers(1, 25))
    attrs = draw(st.lists(st.sampled_from(["x", "name", "y", "flag"]), min_size=1, max_size=4, unique=True))
    columns: dict[str, list[str]] = {}
    for a in attrs:  # a column of one kind of cell, or any cells (numbers and text mixed)
        pool = draw(st.sampled_from([CELLS, ["0", "1", "2", "3", "", "-2"], ["1.5", "2", "", "0.25"],
                                     ["true", "false", ""], ["n1", "n2", "x", ""], ["1", "n1", "2.5", "true"]]))
        columns[a] = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    lines = [",".join(["type", "ts", "id", *attrs])]
    times = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    types = draw(st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=n, max_size=n))
    for k in range(n):
        lines.append(",".join([types[k], str(times[k]), str(k + 1), *(columns[a][k] for a in attrs)]))
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), st.sampled_from(["small", "arrow"]))
def test_csv_files_build_the_picked_rows_as_every_row(tmp_path: Path, data: st.DataObject, reader: str) -> None:
    path = tmp_path / "d.csv"
    path.write_text(data.draw(csv_texts()))
    table = read_small_csv(path, ",") if reader == "small" else read_arrow_csv(path, ",")
    assume(table is not None)
    assume(check_picked(table, _types(data.draw), data.draw(st.sampled_from([0, 7]))))


def test_one_type_many_values_and_a_picked_few(tmp_path: Path) -> None:
    """The benchmark's shape: one type, a text column of many values, a few of them bound."""
    rng = np.random.default_rng(3)
    n = 3000
    names = [f"T{k}" for k in rng.integers(0, 120, n)]
    table = read_arrow_table(pa.table({"id": pa.array(range(n)), "type": ["Trade"] * n,
                                       "ts": pa.array(np.sort(rng.random(n))),
                                       "ticker": names, "price": pa.array(rng.random(n))}))
    assert table is not None
    b = bindable(parse("PATTERN AND(Trade v1, Trade v2, Trade v3) WHERE v1.ticker = 'T1' AND v2.ticker = 'T7' "
                       "AND v3.ticker = 'T99' WITHIN 5"))
    assert b is not None and b.filters_rows
    assert check_picked(table, b)
    checked = checked_order(table, guess_mapping(table.columns))
    assert checked is not None
    chk, order, _ = checked
    got, _ = table_events(table, chk, order, chk.ts[order].tolist(), b)
    assert 0 < len(got) < n // 10 and {e.attrs["ticker"] for e in got} == {"T1", "T7", "T99"}
    path = tmp_path / "d.csv"
    path.write_text("id,type,ts,ticker,price\n" + "".join(
        f"{k},Trade,{k},{names[k]},{k % 7}\n" for k in range(n)))
    for text_table in (read_small_csv(path, ","), read_arrow_csv(path, ",")):
        assert text_table is not None
        assert check_picked(text_table, b)


@pytest.mark.parametrize("values", [
    ["n1", "n2", 1, 1.0, True, None, "", "1"],
    ["n1"],
    [],
    [0, 2.5, False],
])
@pytest.mark.parametrize("text", ["n1", "1", "", "n3"])
@pytest.mark.parametrize("flipped", [False, True])
def test_text_equality_is_the_closure(values: list[Any], text: str, flipped: bool) -> None:
    """``_text_equality`` (the dictionary of text values) against the compiled comparison on an
    event holding each value, and on one without the attribute."""
    where = f"'{text}' = a.name" if flipped else f"a.name = '{text}'"
    e = parse(f"PATTERN SEQ(A a) WHERE {where} WITHIN 5").where[0]
    got = _text_equality(e, "name", values, {})
    f = compile_local([e])
    assert f is not None
    events = [Event(id=0, type="A", ts=0.0, seq=0, attrs={} if v is None else {"name": v}) for v in values]
    events.append(Event(id=0, type="A", ts=0.0, seq=0))
    assert got is not None and got.tolist() == [bool(f(ev)) for ev in events]


def test_text_equality_declines_a_str_subclass_and_other_filters() -> None:
    class Shown(str):
        pass

    e = parse("PATTERN SEQ(A a) WHERE a.name = 'n1' WITHIN 5").where[0]
    assert _text_equality(e, "name", ["n1", Shown("n1")], {}) is None
    for other in ("a.name != 'n1'", "a.name = 1", "a.name < 'n1'"):
        assert _text_equality(parse(f"PATTERN SEQ(A a) WHERE {other} WITHIN 5").where[0], "name", ["n1"], {}) is None


def test_timestamps_and_dates_keep_their_text() -> None:
    """Columns read as text values (time stamps, dates): converted, and the same as every row's."""
    table = read_arrow_table(pa.table({
        "type": ["A", "B", "A"], "ts": [1, 2, 3],
        "name": pa.array([dt.datetime(2020, 1, 1), None, dt.datetime(2021, 5, 6)], pa.timestamp("s")),
        "x": pa.array([dt.date(2020, 1, 1), dt.date(2020, 1, 2), None], pa.date32())}))
    assert table is not None
    assert check_picked(table, bindable(parse("PATTERN SEQ(A a, B b) WHERE a.name = '2020-01-01 00:00:00' WITHIN 5")))
    assert check_picked(table, frozenset({"A"}))
