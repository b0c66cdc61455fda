"""JSON Lines through Arrow (``engine.events.arrow_jsonl``) against the readers of before.

Random JSON Lines files (numbers written as integers, decimals, exponents, beyond 64 bits; strings
that look like time stamps; nested values; broken, blank, repeated-key and non-object lines; CRLF,
lone CR, byte-order marks) are read whole and in batches of 1-5 rows:

- whole: whenever the Arrow path reads a file, its events (values and their Python types, seq),
  rows, schema and report equal those of ``formats.read_jsonl`` (pyarrow handed to pandas where it
  can, else Python's ``json``) and those of Python's ``json`` reader alone (integers stay ints);
- batches: ``BatchReader`` through the Arrow batches equals ``BatchReader`` through the exact
  reader (``_arrow_jsonl`` forced off), batch by batch, issues, schema and report, or both stop
  with the same error.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.events import BatchReader, ColumnMapping, DataError, load_events
from engine.events import arrow_jsonl, formats
from engine.events.arrow_jsonl import arrow_jsonl_batches, load_jsonl_arrow
from engine.events.load import load_with_pandas
from tests.support import run_without_pandas
from tests.events.test_small_csv import _plain, _snapshot

# --------------------------------------------------------------------------- random files

_SMALL_INTS = st.integers(-10**6, 10**6).map(str)
_INT_TEXT = st.one_of(_SMALL_INTS, _SMALL_INTS, _SMALL_INTS, st.integers().map(str),
                      st.sampled_from(["-0", "9007199254740993", "-9007199254740993", "9223372036854775807",
                                       "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                                       "123456789012345678901234567890"]))
_REPR_FLOATS = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr)
# decimals of up to 50 digits (the nearest float: pyarrow's parser and Python's must agree)
_LONG_DECIMALS = st.from_regex(r"-?(0|[1-9][0-9]{0,24})\.[0-9]{1,25}([eE][-+]?[0-9]{1,3})?", fullmatch=True)
_FLOAT_TEXT = st.one_of(
    _REPR_FLOATS, _REPR_FLOATS, _REPR_FLOATS, _LONG_DECIMALS,
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-10**4, 10**4).map(lambda i: repr(float(i))),
    st.sampled_from(["1e2", "1E2", "-0.0", "2.5e+06", "1.5E-3", "1e400", "-1e400", "0.1", "1e22",
                     "NaN", "Infinity", "-Infinity"]),
)
_STRINGS = st.one_of(
    st.sampled_from(["A", "B", "C", "", " A", "B ", "  ", "1", "2.5", "True", "é", "x\u0001y", "\ud83d\ude00",
                     "2020-01-01", "2020-01-01T10:00:00", "2020-01-01 10:00:00", "2020-01-01T10:00:00Z",
                     "2020-01-01T10:00:00+02:00", "10:00", "2011-13-45", "nan", "null"]),
    st.text(max_size=6),
).map(lambda s: json.dumps(s))
_ODD_STRINGS = st.sampled_from(['"\\ud800"', '"a\\u0000b"', '"tab\there"', '"\\/x"'])
_SCALAR = st.one_of(_INT_TEXT, _FLOAT_TEXT, _STRINGS, st.sampled_from(["true", "false", "null"]))
_NESTED = st.sampled_from(["[1, 2]", "[]", '{"k": 1}', "{}", '["a"]', "[1.5, null]", '{"k": {"k": 1, "k": 2}}'])


_CLEAN_FLOATS = st.one_of(_REPR_FLOATS, _LONG_DECIMALS, st.integers(-10**4, 10**4).map(lambda i: repr(float(i))),
                          st.sampled_from(["1e2", "-0.0", "2.5e+06", "1.5E-3"]))


def _column_values(kind: str, clean: bool) -> st.SearchStrategy[str]:
    if clean and kind in ("int", "float"):  # (mostly: the odd numbers decline the whole file)
        return st.one_of(_SMALL_INTS if kind == "int" else _CLEAN_FLOATS, _INT_TEXT if kind == "int" else _FLOAT_TEXT)
    return {"int": _INT_TEXT, "float": _FLOAT_TEXT, "string": _STRINGS, "number": st.one_of(_INT_TEXT, _FLOAT_TEXT),
            "bool": st.sampled_from(["true", "false"]), "any": _SCALAR,
            "odd": st.one_of(_SCALAR, _NESTED, _ODD_STRINGS)}[kind]


_KEYS = ["type", "ts", "id", "x", "y", "name", "eid", "seq"]
_BROKEN_LINES = st.sampled_from(["[1, 2]", "3", '"x"', "null", "{", '{"type": "A",}', "{'type': 'A'}",
                                 '{"type": "A", "type": "B", "ts": 1}', "", "   ", "\t", "\x0c", "\u00a0",
                                 '{"type": "A", "ts": 1}{"type": "B", "ts": 2}', '{"type": "A", "ts":',
                                 '1}', "NaN", '{"type": "A", "ts": 1} x'])


@st.composite
def jsonl_files(draw: Any) -> tuple[bytes, ColumnMapping | None]:
    """A JSON Lines file (as bytes) and the mapping to read it with (None: guessed)."""
    clean = draw(st.integers(0, 2)) > 0  # columns of one JSON type, no broken line: the Arrow path's files
    column_kinds = ["int", "float", "string", "bool"] if clean else ["int", "float", "number", "string", "bool",
                                                                      "any", "odd"]
    kinds = {key: draw(st.sampled_from(column_kinds)) for key in _KEYS}
    kinds["type"] = draw(st.sampled_from(["string", "string", "string"] + ([] if clean else ["any", "int"])))
    kinds["ts"] = draw(st.sampled_from(["int", "int", "float", "string"] + ([] if clean else ["number", "any"])))
    kinds["id"] = draw(st.sampled_from(["int", "int", "string"] + ([] if clean else ["float", "any", "odd"])))
    keys = draw(st.lists(st.sampled_from(_KEYS[3:]), max_size=4, unique=True))
    keys = ["type", "ts"] + (["id"] if draw(st.booleans()) else []) + keys
    n = draw(st.integers(1, 12))
    lines: list[str] = []
    for _ in range(n):
        if not clean and draw(st.integers(0, 9)) == 0:
            lines.append(draw(_BROKEN_LINES))
            continue
        present = [k for k in keys if draw(st.integers(0, 11)) > 0]
        if draw(st.booleans()):
            present = draw(st.permutations(present))
        members = [f"{json.dumps(k)}{draw(st.sampled_from([':', ': ', ' : ']))}{draw(_column_values(kinds[k], clean))}"
                   for k in present]
        lines.append("{" + draw(st.sampled_from([",", ", "])).join(members) + "}")
    end = draw(st.sampled_from(["\n", "\n", "\n", "\r\n", "\n\n"] + ([] if clean else ["\r"])))
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    if not clean and draw(st.integers(0, 19)) == 0:
        text = "\ufeff" + text
    data = text.encode("utf-8", "surrogatepass")
    mapping = draw(st.sampled_from([None, None, None, ColumnMapping(id_col="eid"), ColumnMapping(id_col="x"),
                                    ColumnMapping(lower_col="ts", upper_col="x")]))
    return data, mapping


# --------------------------------------------------------------------------- comparing

def _whole(path: Path, mapping: ColumnMapping | None, read: Any) -> Any:
    try:
        res = read()
    except DataError as err:
        return ("DataError", str(err))
    return None if res is None else _snapshot(res)


def _exact(path: Path, mapping: ColumnMapping | None, monkeypatch: Any) -> Any:
    """The exact reader alone (Python's ``json``; no pyarrow table handed to pandas)."""
    with monkeypatch.context() as m:
        m.setattr(formats, "_read_jsonl_arrow", lambda p: None)
        return _whole(path, mapping, lambda: load_with_pandas(path, "jsonl", mapping))


def _batches(path: Path, mapping: ColumnMapping | None, batch_rows: int, arrow: bool,
             types: frozenset[str] | None = None, dup_window: int | None = None) -> Any:
    try:
        reader = BatchReader(path, mapping, batch_rows=batch_rows, types=types, dup_window=dup_window)
    except DataError as err:
        return ("DataError", str(err))
    if not arrow:
        reader._arrow_jsonl = lambda: None  # type: ignore[method-assign]
    out: list[Any] = []
    try:
        for b in reader:
            out.append(([(_plain(e.id), e.type, _plain(e.ts), e.seq, [(k, _plain(v)) for k, v in e.attrs.items()])
                         for e in b.events], b.rows, [i.model_dump() for i in b.issues], b.schema, b.seq_start))
    except DataError as err:
        out.append(("DataError", str(err)))
    return out, reader.report().model_dump(), reader.schema(), reader.time_is_datetime, reader.ids_are_rows


_SETTINGS = settings(max_examples=150, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@_SETTINGS
@given(jsonl_files(), st.sampled_from([None, 30, 100]))
def test_arrow_path_equals_the_readers_of_before(tmp_path: Path, monkeypatch: Any,
                                                 spec: tuple[bytes, ColumnMapping | None], sniff: int | None) -> None:
    """(``sniff``: the bytes whose parse names the time-stamp-like columns, made small so that these
    small files take that path too)"""
    data, mapping = spec
    path = tmp_path / "data.jsonl"
    path.write_bytes(data)
    if sniff is not None:
        monkeypatch.setattr(arrow_jsonl, "_SNIFF", sniff)
    mine = _whole(path, mapping, lambda: load_jsonl_arrow(path, mapping))
    event("declined" if mine is None else "DataError" if isinstance(mine, tuple) else "arrow path")
    if mine is None:
        return
    assert mine == _whole(path, mapping, lambda: load_with_pandas(path, "jsonl", mapping)), data
    assert mine == _exact(path, mapping, monkeypatch), data
    assert mine == _whole(path, mapping, lambda: load_events(path, mapping))


@_SETTINGS
@given(jsonl_files())
def test_the_whole_file_reader_keeps_what_the_exact_reader_reads(tmp_path: Path, monkeypatch: Any,
                                                                 spec: tuple[bytes, ColumnMapping | None]) -> None:
    """``read_jsonl``'s pyarrow path answers only where it reads what Python's parser reads: on a file
    the Arrow path declines (``1`` beside ``1.5``: pyarrow would give ``1.0``) it is the exact reader."""
    data, mapping = spec
    path = tmp_path / "data.jsonl"
    path.write_bytes(data)
    assert _whole(path, mapping, lambda: load_with_pandas(path, "jsonl", mapping)) == \
        _exact(path, mapping, monkeypatch), data


def test_a_whole_number_beside_a_decimal_stays_an_int(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"type":"A","ts":1,"x":1}\n{"type":"A","ts":2,"x":1.5}\n{"type":"A","ts":3,"x":-0}\n')
    for got in (load_events(path).events, load_with_pandas(path, "jsonl", None).events,
                [e for b in BatchReader(path, None, batch_rows=2) for e in b.events]):
        values = [e.attrs["x"] for e in got]
        assert values == [1, 1.5, 0] and [type(v) for v in values] == [int, float, int]


@_SETTINGS
@given(jsonl_files(), st.integers(1, 5), st.sampled_from([None, 30]), st.sampled_from([None, 1, 2, 3]))
def test_arrow_batches_equal_exact_batches(tmp_path: Path, monkeypatch: Any, spec: tuple[bytes, ColumnMapping | None],
                                           batch_rows: int, sniff: int | None, dup_window: int | None) -> None:
    """(``dup_window``: the ids remembered across batches; small, so that some are forgotten)"""
    data, mapping = spec
    path = tmp_path / "data.jsonl"
    path.write_bytes(data)
    if sniff is not None:
        monkeypatch.setattr(arrow_jsonl, "_SNIFF", sniff)
    assert _batches(path, mapping, batch_rows, True, dup_window=dup_window) == \
        _batches(path, mapping, batch_rows, False, dup_window=dup_window), data
    if arrow_jsonl_batches(path, batch_rows) is None:
        event("declined")
    else:
        event(f"{sum(b.table is not None for b in arrow_jsonl_batches(path, batch_rows)) > 0} arrow batches")


@pytest.mark.parametrize("read", ["whole", "batches"])
def test_a_run_on_a_json_lines_file_imports_no_pandas(tmp_path: Path, read: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": i, "type": "ABC"[i % 3], "ts": i, "x": i % 7 / 4, "name": f"n{i % 3}",
                                        "when": f"2020-01-01T00:00:{i % 60:02d}"}) + "\n"
                            for i in range(30_000)))
    args = ["run", "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 3", "--data", str(path), "--format", "count",
            "--read", read]
    assert int(run_without_pandas(args)) > 0


# --------------------------------------------------------------------------- chosen files

_ROWS = '{"id": 1, "type": "A", "ts": 1, "x": 1.5}\n{"id": 2, "type": "B", "ts": 2, "x": 2.25}\n'
CHOSEN: dict[str, tuple[str, bool]] = {  # name: (text, read through Arrow)
    "plain": (_ROWS, True),
    "floats written with .0": ('{"type": "A", "ts": 1, "x": 152.0}\n{"type": "B", "ts": 2, "x": 1e2}\n', True),
    "an integer beside decimals": ('{"type": "A", "ts": 1, "x": 1}\n{"type": "B", "ts": 2, "x": 1.5}\n', False),
    "minus zero": ('{"type": "A", "ts": 1, "x": -0}\n', True),
    "minus zero beside a decimal": ('{"type": "A", "ts": 1, "x": -0}\n{"type": "A", "ts": 2, "x": 0.5}\n', False),
    "beyond 64 bits": ('{"type": "A", "ts": 1, "x": 9223372036854775808}\n', False),
    "int64 at its largest": ('{"type": "A", "ts": 1, "x": 9223372036854775807}\n', True),
    "time stamps as text": ('{"type": "A", "ts": "2020-01-01T10:00:00"}\n{"type": "B", "ts": "2020-01-01T10:00:05Z"}\n',
                            True),
    "time stamps first seen late": ('{"type": "A", "ts": 1}\n{"type": "B", "ts": 2}\n{"type": "C", "ts": 3}\n'
                                    '{"when": "2020-01-01", "ts": 4, "type": "A"}\n{"type": "B", "ts": 5, "when": "x"}\n', True),
    "time stamps, then other keys first": ('{"ts": "2020-01-01T10:00:00", "type": "A"}\n{"x": 1, "type": "B", '
                                           '"ts": "2020-01-01T10:00:05", "day": "2020-01-02"}\n'
                                           '{"y": 2, "type": "B", "ts": "2020-01-01T10:00:06"}\n', True),
    "dates as attributes": ('{"type": "A", "ts": 1, "day": "2020-01-01"}\n', True),
    "CRLF and blank lines": ('{"type": "A", "ts": 2}\r\n\r\n  \n{"type": "B", "ts": 1}\r\n{"ts": 3}\r\n', True),
    "a lone CR": ('{"type": "A", "ts": 1}\r{"type": "B", "ts": 2}\n', False),
    "a byte-order mark": ('\ufeff{"type": "A", "ts": 1}\n', False),
    "two objects on a line": ('{"type": "A", "ts": 1}{"type": "B", "ts": 2}\n', False),
    "an object over two lines": ('{"type": "A",\n "ts": 1}\n', False),
    "not an object": ('{"type": "A", "ts": 1}\n[1, 2]\n', False),
    "a repeated key": ('{"type": "A", "ts": 1, "ts": 2}\n', False),
    "NaN": ('{"type": "A", "ts": 1, "x": NaN}\n', False),
    "nested values": ('{"type": "A", "ts": 1, "x": [1, 2]}\n', False),
    "decimal ids": ('{"id": 1.0, "type": "A", "ts": 1}\n{"id": 2.5, "type": "B", "ts": 2}\n', False),
    "repeated ids, unsorted, missing values": ('{"id": 7, "type": "A", "ts": 5}\n{"id": 7, "type": "B", "ts": 1}\n'
                                               '{"id": 8, "ts": 2}\n{"id": 9, "type": "", "ts": null}\n', True),
    "a control character": ('{"type": "A", "ts": 1, "name": "a\\u0001b"}\n', True),
    "a NUL character": ('{"type": "A", "ts": 1}\n{"type": "\\u0000", "ts": 2}\n{"type": "", "ts": 3}\n', False),
    "a key written with an escape": ('{"\\u0074ype": "A", "ts": 1}\n', True),
    "no time column": ('{"type": "A", "when": 1}\n', True),
    "numbers as text and text": ('{"type": "A", "ts": "5", "x": "1.5"}\n{"type": "B", "ts": "6", "x": "abc"}\n', True),
    "empty": ("\n\n", False),
}


@pytest.mark.parametrize("sniff", [None, 30])
@pytest.mark.parametrize("name", sorted(CHOSEN))
def test_chosen_files(tmp_path: Path, monkeypatch: Any, name: str, sniff: int | None) -> None:
    text, through_arrow = CHOSEN[name]
    if sniff is not None:
        monkeypatch.setattr(arrow_jsonl, "_SNIFF", sniff)
    path = tmp_path / "data.jsonl"
    path.write_bytes(text.encode("utf-8"))
    mine = _whole(path, None, lambda: load_jsonl_arrow(path, None))
    assert (mine is not None) == through_arrow
    if mine is not None:
        assert mine == _whole(path, None, lambda: load_with_pandas(path, "jsonl", None))
        assert mine == _exact(path, None, monkeypatch)
    assert _whole(path, None, lambda: load_events(path)) == _whole(path, None, lambda: load_with_pandas(path, "jsonl", None))
    for batch_rows in (1, 2, 100):
        assert _batches(path, None, batch_rows, True) == _batches(path, None, batch_rows, False)


def test_issues_name_the_file_lines(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(CHOSEN["repeated ids, unsorted, missing values"][0].replace("\n", "\n\n", 1))
    res = load_jsonl_arrow(path, None)
    assert res is not None
    text = res.report.format(max_lines=100)
    assert "line 3 (data row 2), column id: duplicate id 7 (first on line 1)" in text
    assert "line 4 (data row 3), column type: missing event type" in text
    assert "line 5 (data row 4), column ts: missing value" in text


def test_types_keep_seq_and_rows_of_the_whole_stream(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps({"id": i, "type": t, "ts": ts, "x": i * 1.5}) + "\n"
                            for i, (t, ts) in enumerate([("A", 1), ("B", 2), ("C", 2), ("A", 3), ("C", 4), ("B", 5)])))
    whole = load_events(path)
    some = load_events(path, types=frozenset({"A", "B"}))
    assert [(e.id, e.seq, e.ts, e.attrs) for e in some.events] == \
        [(e.id, e.seq, e.ts, e.attrs) for e in whole.events if e.type in "AB"]
    assert some.events_skipped == 2 and some.rows == whole.rows
    every = [e for b in BatchReader(path, batch_rows=2) for e in b.events]
    picked = [e for b in BatchReader(path, batch_rows=2, types=frozenset({"A", "B"})) for e in b.events]
    assert [(e.id, e.seq) for e in picked] == [(e.id, e.seq) for e in every if e.type in "AB"]


@pytest.mark.parametrize("text", [
    '{"type": "A", "ts": 1}\n{"type": "A", "ts": 2}\n\n{"type": "B", "ts": 3, "id": null}\n{"type": "B", "ts": 4, "id": 5}\n',
    '{"type": "A", "ts": 1, "id": 1}\n{"type": "A", "ts": 2, "id": 2}\n{"ts": 3, "x": 1}\n{"ts": 4, "y": "a"}\n',
])
def test_keys_first_seen_in_a_later_batch(tmp_path: Path, text: str) -> None:
    """An id key that first appears after the first batch is refused naming its line; a required
    key missing from a whole later batch is a missing value per record; later keys are attributes."""
    path = tmp_path / "data.jsonl"
    path.write_text(text)
    for mapping in (None, ColumnMapping()):
        got = _batches(path, mapping, 2, True)
        assert got == _batches(path, mapping, 2, False)
    assert "first appears on line 5" in str(_batches(path, ColumnMapping(), 2, True)[0]) or "x" in text


def test_lazy_events_are_the_events(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(_ROWS + '{"id": 3, "type": "A", "ts": 0, "x": 7.5}\n')
    eager = load_events(path)
    lazy = load_events(path, lazy=True)
    assert type(lazy.events).__name__ == "EventColumns"
    assert [(e.id, e.type, e.ts, e.seq, e.attrs) for e in lazy.events] == \
        [(e.id, e.type, e.ts, e.seq, e.attrs) for e in eager.events]
