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
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.events import BatchReader, ColumnMapping, DataError, load_events
from engine.events import formats
from engine.events.arrow_jsonl import arrow_jsonl_batches, load_jsonl_arrow
from engine.events.load import load_with_pandas
from tests.events.test_small_csv import _plain, _snapshot

# --------------------------------------------------------------------------- random files

_SMALL_INTS = st.integers(-10**6, 10**6).map(str)
_INT_TEXT = st.one_of(_SMALL_INTS, _SMALL_INTS, _SMALL_INTS, st.integers().map(str),
                      st.sampled_from(["-0", "9007199254740993", "-9007199254740993", "9223372036854775807",
                                       "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                                       "123456789012345678901234567890"]))
_REPR_FLOATS = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(repr)
_FLOAT_TEXT = st.one_of(
    _REPR_FLOATS, _REPR_FLOATS, _REPR_FLOATS,
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


def _column_values(kind: str) -> st.SearchStrategy[str]:
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
    clean = draw(st.booleans())  # columns of one JSON type, no broken line: the Arrow path's files
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
        members = [f"{json.dumps(k)}{draw(st.sampled_from([':', ': ', ' : ']))}{draw(_column_values(kinds[k]))}"
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
             types: frozenset[str] | None = None) -> Any:
    try:
        reader = BatchReader(path, mapping, batch_rows=batch_rows, types=types)
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


_SETTINGS = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@_SETTINGS
@given(jsonl_files())
def test_arrow_path_equals_the_readers_of_before(tmp_path: Path, monkeypatch: Any,
                                                 spec: tuple[bytes, ColumnMapping | None]) -> None:
    data, mapping = spec
    path = tmp_path / "data.jsonl"
    path.write_bytes(data)
    mine = _whole(path, mapping, lambda: load_jsonl_arrow(path, mapping))
    event("declined" if mine is None else "DataError" if isinstance(mine, tuple) else "arrow path")
    if mine is None:
        return
    assert mine == _whole(path, mapping, lambda: load_with_pandas(path, "jsonl", mapping)), data
    assert mine == _exact(path, mapping, monkeypatch), data
    assert mine == _whole(path, mapping, lambda: load_events(path, mapping))


@_SETTINGS
@given(jsonl_files(), st.integers(1, 5))
def test_arrow_batches_equal_exact_batches(tmp_path: Path, spec: tuple[bytes, ColumnMapping | None],
                                           batch_rows: int) -> None:
    data, mapping = spec
    path = tmp_path / "data.jsonl"
    path.write_bytes(data)
    assert _batches(path, mapping, batch_rows, True) == _batches(path, mapping, batch_rows, False), data
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
    code = ("import sys; from engine.commands.cli import main; "
            f"rc = main({args!r}); "
            "print('pandas' in sys.modules, 'pyarrow' in sys.modules, file=sys.stderr); sys.exit(rc)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stderr.split() == ["False", "True"], run.stderr
    assert int(run.stdout) > 0
