"""The small-CSV path (``engine.events.small_csv``, no pandas) against the pandas path.

The same random files, broken ones included, go through both readers; whenever the small
path reads a file (it declines what it is unsure of), the events (values and their Python
types), the input rows, the schema and the report (every issue: row, line, column, code,
reason) must be identical. A declined file is read by pandas, so only time is at stake.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.events import ColumnMapping, DataError, load_events
from engine.events.lines import CsvLines
from engine.events.load import LoadResult, load_table, load_with_pandas
from engine.events.small_csv import read_small_csv

# --------------------------------------------------------------------------- comparing


def _plain(v: Any) -> tuple[str, str]:
    return type(v).__name__, repr(v)


def _snapshot(res: LoadResult) -> dict[str, Any]:
    return {
        "events": [(_plain(e.id), e.type, _plain(e.ts), e.seq,
                    sorted((k, _plain(v)) for k, v in e.attrs.items()), e.lower, e.upper)
                   for e in res.events],
        "attr_order": [list(e.attrs) for e in res.events],
        "rows": res.rows,
        "schema": res.schema,
        "schema_order": [(t, list(a)) for t, a in res.schema.items()],
        "report": res.report.model_dump(),
        "report_text": res.report.format(max_lines=1000),
        "mapping": res.mapping,
        "time_is_datetime": res.time_is_datetime,
        "ids_are_rows": res.ids_are_rows,
    }


def _both(path: Path, mapping: ColumnMapping | None = None, sep: str = ",",
          read: Any = read_small_csv) -> tuple[Any, Any] | None:
    """(``read``'s path, pandas path) results or errors; None when ``read`` declines."""
    kind = "csv" if sep == "," else "tsv"
    try:
        table = read(path, sep)
    except DataError as err:
        small: Any = ("DataError", str(err))
    else:
        if table is None:
            return None
        try:
            res = load_table(table, mapping, CsvLines(path, sep))
        except DataError as err:
            small = ("DataError", str(err))
        else:
            if res is None:
                return None
            small = _snapshot(res)
    try:
        big: Any = _snapshot(load_with_pandas(path, kind, mapping))
    except DataError as err:
        big = ("DataError", str(err))
    return small, big


def _assert_same(path: Path, mapping: ColumnMapping | None = None, sep: str = ",",
                 read: Any = read_small_csv) -> bool:
    got = _both(path, mapping, sep, read)
    if got is None:
        return False
    small, big = got
    if small != big:
        text = path.read_text(encoding="utf-8", errors="replace")
        for key in (small if isinstance(small, dict) else {}):
            if isinstance(big, dict) and small[key] != big[key]:
                raise AssertionError(f"{key} differs for\n{text!r}\n{read.__name__}: {small[key]!r}\npandas: {big[key]!r}")
        raise AssertionError(f"differ for\n{text!r}\n{read.__name__}: {small!r}\npandas: {big!r}")
    return True


# --------------------------------------------------------------------------- random files

_TYPES = st.sampled_from(["A", "B", "C", "", " A", "B ", "  ", "1", "2.5", "True", "x\x01y", "é"])
_INTS = st.integers(-10**6, 10**6).map(str)
_FLOATS = st.one_of(
    st.integers(-10**8, 10**8).map(lambda i: repr(i / 100)),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.6g}"),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.3f}"),
    st.sampled_from(["1.", ".5", "-0", "-0.0", "1e3", "1.5E-3", "007", "+5", "0.1", "1e22", "1e-22", "2.5e+06"]),
)
# values pandas may read differently from Python (more than 15 digits, out of range): declined
_LONG_NUMBERS = st.one_of(st.floats(allow_nan=False, allow_infinity=False).map(repr),
                          st.sampled_from(["1e400", "123456789012345678", "9223372036854775808"]))
_DATETIMES = st.one_of(
    st.datetimes(min_value=__import__("datetime").datetime(1950, 1, 1),
                 max_value=__import__("datetime").datetime(2100, 1, 1)).flatmap(
        lambda d: st.sampled_from([d.isoformat(), d.strftime("%Y-%m-%d %H:%M:%S"), d.strftime("%Y-%m-%d"),
                                   d.strftime("%Y-%m-%dT%H:%M"), d.isoformat() + "Z",
                                   d.strftime("%Y-%m-%dT%H:%M:%S") + "+05:30",
                                   d.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "-02:00"])),
    st.sampled_from(["2011-13-45", "2011-02-30", "2011-01-01T25:00:00", "2011-01-01T10:61", "1850-01-01",
                     "2011-01-01T10:00:00+16:00", "20110101", "2011"]),
)
_WEIRD = st.sampled_from(["", " ", "abc", "nan", "NaN", "inf", "-inf", "now", "NA", "null", "True", "false",
                          "FALSE", " 5", "5 ", "1_000", "0x10", "٣", "a\x1bb", "tab\there", "x;y", "1e", "--1",
                          "+", ".", "e5", "١٢"]) | _LONG_NUMBERS
_TEXT = st.text(alphabet=st.characters(blacklist_characters='",\t\n\r\x00', blacklist_categories=("Cs",)),
                max_size=6)

_FLAVOURS = {
    "int": _INTS,
    "float": st.one_of(_FLOATS, _INTS, _FLOATS),
    "time": st.one_of(_INTS, _FLOATS, _DATETIMES, _DATETIMES),
    "datetime": st.one_of(_DATETIMES, _DATETIMES, _DATETIMES, _INTS),
    "bool": st.sampled_from(["True", "False", "true", "FALSE", ""]),
    "text": st.one_of(_TEXT, _WEIRD, _INTS, _FLOATS),
    "id": st.one_of(st.integers(0, 8).map(str), st.sampled_from(["", "a", "b", "1.0", "2.0", "x\x02"])),
}


@st.composite
def csv_files(draw: Any) -> tuple[str, str, ColumnMapping | None]:
    sep = draw(st.sampled_from([",", ",", "\t"]))
    attrs = draw(st.lists(st.sampled_from(["x", "y", "name", "flag", "seq", "price"]), max_size=3, unique=True))
    with_id = draw(st.booleans())
    names = ["type", "ts"] + (["id"] if with_id else []) + attrs
    names = draw(st.permutations(names))
    flavour = {"type": None, "ts": draw(st.sampled_from(["int", "float", "time", "datetime"])),
               "id": draw(st.sampled_from(["id", "int", "float", "text"]))}
    for a in attrs:
        flavour[a] = draw(st.sampled_from(["int", "float", "bool", "text"]))
    n = draw(st.integers(1, 12))
    noise = draw(st.sampled_from([0, 1, 3]))  # in 20: how often a cell is an odd value
    lines = [sep.join(names)]
    for _ in range(n):
        cells = []
        for name in names:
            f = flavour[name]
            odd = draw(st.integers(0, 19)) < noise
            cells.append(draw(_WEIRD if odd else _TYPES if f is None else _FLAVOURS[f]))
        cut = draw(st.integers(1, 12))
        if cut < len(cells) and draw(st.integers(0, 9)) == 0:
            cells = cells[:cut]  # a short record: declined (the pandas path refuses it)
        line = sep.join(c.replace(sep, " ") for c in cells)
        lines.append(line)
    if draw(st.integers(0, 14)) == 0:
        lines.insert(draw(st.integers(1, len(lines))), "")  # a blank line: declined
    if draw(st.integers(0, 14)) == 0:
        lines.append(sep.join(["A"] * (len(names) + 1)))  # too many fields: declined
    mapping = draw(st.sampled_from([None, None, ColumnMapping(), ColumnMapping(id_col="eid"),
                                    ColumnMapping(ts_col="time"), ColumnMapping(ts_unit="ms")]))
    return sep, "\n".join(lines) + draw(st.sampled_from(["\n", ""])), mapping


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(csv_files())
def test_small_path_equals_pandas_path(tmp_path: Path, spec: tuple[str, str, ColumnMapping | None]) -> None:
    sep, text, mapping = spec
    path = tmp_path / ("data.csv" if sep == "," else "data.tsv")
    path.write_text(text, encoding="utf-8")
    read = _assert_same(path, mapping, sep)
    event("small path" if read else "declined: read with pandas")


# --------------------------------------------------------------------------- chosen files

BROKEN = {
    "missing and empty types": "type,ts,id,x\nA,1,1,5\n,2,2,6\n  ,3,3,7\nB,4,4,8\n",
    "bad, missing and mixed times": "type,ts,id\nA,1,1\nB,abc,2\nA,,3\nB,2011-01-01T00:00:00,4\nA,5,5\n",
    "impossible dates": "type,ts\nA,2011-01-01\nB,2011-13-45\nA,2011-02-30T10:00\nB,2011-01-02 10:00:00Z\n",
    "duplicate and missing ids": "type,ts,id\nA,1,7\nB,2,7\nA,3,\nB,4,a\nA,5,a\n",
    "whole-float ids": "type,ts,id\nA,1,1.0\nB,2,\nA,3,3.0\n",
    "control characters": "type,ts,id,note\nA,1,1,ok\nB,2,2,bad\x1bvalue\nA\x01,3,3,x\n",
    "unsorted": "type,ts,id,x\nA,5,1,1\nB,3,2,2.5\nA,3,3,abc\nB,1,4,\n",
    "number text in a text column": "type,ts,x\nA,1,5\nB,2,five\nA,3,2.5\nB,4,-0\n",
    "empty trailing cells": "type,ts,id,x,y\nA,1,1,2,3\nB,2,2,,\nA,3,,,\n",
    "bools and builtin names": "type,ts,seq,flag\nA,1,9,True\nB,2,8,false\nA,3,7,\n",
    "no id column named": "type,ts,x\nA,1,1\nB,2,2\n",
    "a record of empty cells": "type,ts,id,x\nA,1,1,2\n,,,\nB,2,2,\n",
    "date-times with and without offsets": ("type,ts\nA,2000-01-01T00:00:00+05:30\nB,2000-01-01T00:00:00\n"
                                            "A,2000-01-01 01:00Z\nB,2000-01-01\nA,1999-12-31T23:59:59.5-01:00\n"),
    "all-empty attribute column": "type,ts,x\nA,1,\nB,2,\n",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_chosen_broken_files_take_the_small_path_and_match(tmp_path: Path, name: str) -> None:
    path = tmp_path / "data.csv"
    path.write_text(BROKEN[name], encoding="utf-8")
    mapping = ColumnMapping(id_col="eid") if name == "no id column named" else None
    assert _assert_same(path, mapping), f"{name}: the small path declined"


def test_chosen_files_report_what_they_should(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text(BROKEN["bad, missing and mixed times"], encoding="utf-8")
    res = load_events(path)
    codes = [(i.line, i.code) for i in res.report.issues]
    assert codes == [(3, "bad_time"), (4, "missing_time"), (5, "mixed_time")]
    assert res.report.issues[0].format() == "line 3 (data row 2), column ts: cannot parse 'abc' as a number or ISO date-time"
    assert [e.id for e in res.events] == [1, 5]


def test_declines_what_it_is_unsure_of(tmp_path: Path) -> None:
    cases = {
        "quoted.csv": 'type,ts\n"A",1\n',
        "blank.csv": "type,ts\nA,1\n\nB,2\n",
        "spaced_number.csv": "type,ts,x\nA,1, 5\n",
        "infinite.csv": "type,ts\nA,inf\n",
        "wide.csv": "type,ts\nA,1,2\n",
        "header_only.csv": "type,ts\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert read_small_csv(path) is None, name
        if name == "wide.csv":
            with pytest.raises(DataError, match="expected 2 fields in line 2, saw 3"):
                load_events(path)
        else:
            assert load_events(path).report.rows_read == text.count("\n") - 1 - (name == "blank.csv")


def test_duplicate_header_is_the_same_error(tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("type,ts,x,x\nA,1,2,3\n", encoding="utf-8")
    with pytest.raises(DataError, match="duplicate column 'x' in the header"):
        read_small_csv(path)
    assert _assert_same(path)


def test_small_csv_run_imports_no_pandas(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("type,ts,id,x\n" + "".join(f"{'AB'[i % 2]},{i},{i},{i % 7}\n" for i in range(100)))
    args = ["run", "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 10", "--data", str(path), "--format", "count"]
    code = ("import sys; from engine.commands.cli import main; "
            f"rc = main({args!r} + sys.argv[1:]); "
            "bad = [m for m in ('pandas', 'pyarrow') if m in sys.modules]; "
            "print(','.join(bad), file=sys.stderr); sys.exit(rc)")
    small = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert small.returncode == 0 and small.stderr.strip() == "", small.stderr
    batches = subprocess.run([sys.executable, "-c", code, "--read", "batches"], capture_output=True, text=True)
    assert batches.returncode == 0 and "pandas" not in batches.stderr  # (pyarrow streams the batches)
    assert int(small.stdout) == int(batches.stdout) > 0
