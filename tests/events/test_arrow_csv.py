"""The Arrow CSV path (``engine.events.arrow_csv``) against the pandas path and the small path.

The random files of ``test_small_csv`` (broken ones included), and the same files with their
text cells quoted, go through pyarrow's reader and through pandas: whenever the Arrow path reads
a file (it declines what it is unsure of), the events (values and their Python types), the
input rows, the schema and the report must be identical; where the small path reads it too, the
two column typings must agree cell for cell.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.events import ColumnMapping, load_events
from engine.events.arrow_csv import read_arrow_csv
from engine.events.load import load_with_pandas
from engine.events.small_csv import SMALL_BYTES, read_small_csv
from tests.support import run_without_pandas
from tests.events.test_small_csv import BROKEN, _snapshot, csv_files
from tests.events.test_small_csv import _assert_same as _same_as_pandas


def _assert_same(path: Path, mapping: ColumnMapping | None = None, sep: str = ",") -> bool:
    if not _same_as_pandas(path, mapping, sep, read_arrow_csv):
        return False
    small = read_small_csv(path, sep) if path.suffix in (".csv", ".tsv") else None
    if small is not None:
        table = read_arrow_csv(path, sep)
        assert table is not None, "the small path read a file the Arrow path declined"
        for name in small.names:
            a, b = table.column(name), small.column(name)
            assert (a.kind, [repr(c) for c in a.cells]) == (b.kind, [repr(c) for c in b.cells]), name
    return True


def _quoted(text: str, sep: str) -> str:
    """Every cell that is not empty wrapped in quotes (as pyarrow and pandas write text)."""
    lines = text.split("\n")
    return "\n".join(sep.join(f'"{c}"' if c and '"' not in c else c for c in line.split(sep)) if line else line
                     for line in lines)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(csv_files(), st.booleans())
def test_arrow_path_equals_pandas_path(tmp_path: Path, spec: tuple[str, str, ColumnMapping | None],
                                       quote: bool) -> None:
    sep, text, mapping = spec
    if quote:
        text = _quoted(text, sep)
    path = tmp_path / ("data.csv" if sep == "," else "data.tsv")
    path.write_text(text, encoding="utf-8")
    read = _assert_same(path, mapping, sep)
    event(("quoted, " if quote else "") + ("arrow path" if read else "declined: read with pandas"))


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_chosen_broken_files_take_the_arrow_path_and_match(tmp_path: Path, name: str) -> None:
    path = tmp_path / "data.csv"
    path.write_text(BROKEN[name], encoding="utf-8")
    mapping = ColumnMapping(id_col="eid") if name == "no id column named" else None
    assert _assert_same(path, mapping), f"{name}: the Arrow path declined"


@pytest.mark.parametrize("text", [
    'type,ts,x\nA,1,"a""b"\n',          # an escaped quote
    'type,ts,x\nA,1,a"b\n',             # a quote inside a cell
    'type,ts,x\nA,1,"a\nb"\n',          # a line break inside quotes
    'type,ts,x\nA,1,5\n\nB,2,6\n',      # a blank line
    'type,ts,x\nA,1,5\n  \nB,2,6\n',    # a line of blanks
    'type,ts,x\nA,1,5\nB,2\n',          # a short record
    'type,ts,x\r\nA,1,5\r\n',           # carriage returns
    'type,ts,x\nA,1, 5\nB,2,5\n',       # a number pandas may read otherwise
])
def test_declines_what_it_is_unsure_of(tmp_path: Path, text: str) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode())
    assert read_arrow_csv(path) is None


def test_quoted_cells_with_separators_are_one_cell(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text('"type","ts","note"\n"A",1,"x,y"\n"B",2,"z"\n')
    assert _assert_same(path)
    assert read_arrow_csv(path).column("note").cells == ["x,y", "z"]  # type: ignore[union-attr]


def test_a_file_above_the_small_size_loads_through_arrow_with_the_same_events(tmp_path: Path) -> None:
    rows = ["id,type,ts,price,name"] + [f"{i},{'AB'[i % 2]},{i // 3},{i * 7 % 1000 / 8},n{i % 5}"
                                       for i in range(60_000)]
    path = tmp_path / "big.csv"
    path.write_text("\n".join(rows) + "\n")
    assert path.stat().st_size > SMALL_BYTES
    assert read_arrow_csv(path) is not None
    assert _assert_same(path)
    assert _snapshot(load_events(path)) == _snapshot(load_with_pandas(path, "csv", None))


def test_types_build_only_those_events_and_keep_their_stream_positions(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("id,type,ts,x\n1,A,1,5\n2,B,2,6\n3,C,2,7\n4,A,3,8\n5,B,0,9\n")
    whole = load_events(path)
    some = load_events(path, types=frozenset({"A", "B"}))
    assert [(e.id, e.seq, e.ts, e.attrs) for e in some.events] == \
        [(e.id, e.seq, e.ts, e.attrs) for e in whole.events if e.type in "AB"]
    assert some.events_skipped == 1 and some.rows == whole.rows
    assert some.report.rows_loaded == whole.report.rows_loaded == 5


def test_a_run_on_a_file_read_by_arrow_imports_no_pandas(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("id,type,ts,x,name\n" + "".join(f'{i},"{"ABC"[i % 3]}",{i},{i % 7 / 4},n{i % 3}\n'
                                                   for i in range(60_000)))
    assert path.stat().st_size > SMALL_BYTES
    args = ["run", "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 3", "--data", str(path), "--format", "count"]
    assert int(run_without_pandas(args)) > 0


def test_a_small_file_with_quoted_text_is_read_by_arrow_without_pandas(tmp_path: Path) -> None:
    """The small-file reader declines quotes; Arrow's reader takes such a file at any size (pandas'
    import alone costs more than the whole run): the same events as the pandas path."""
    from engine.events.load import load_with_pandas

    path = tmp_path / "r.csv"
    path.write_text('"id","type","ts","x"\n' + "".join(f'{i},"{"AB"[i % 2]}",{i},{i % 7 / 4}\n' for i in range(100)))
    assert read_small_csv(path) is None
    args = ["run", "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 3", "--data", str(path), "--format", "count"]
    assert int(run_without_pandas(args)) > 0
    assert [(e.id, e.type, e.ts, e.attrs) for e in load_events(path).events] == \
        [(e.id, e.type, e.ts, e.attrs) for e in load_with_pandas(path, "csv", None).events]


@pytest.mark.parametrize("cells", [
    ["0.0009262069381373861", "0.7447351298199736", "1.2345678901234567e-05"],  # as repr writes floats
    ["9007199254740993", "0.5"],                     # an integer a float64 would round, beside a decimal
    ["12345678901234567.5", "1"],
])
def test_long_decimals_are_the_nearest_float_in_both_paths(tmp_path: Path, cells: list[str]) -> None:
    path = tmp_path / "data.csv"
    path.write_text("type,ts,x\n" + "".join(f"A,{k},{c}\n" for k, c in enumerate(cells)))
    _assert_same(path)
    values = [e.attrs["x"] for e in load_with_pandas(path, "csv", None).events]
    assert values == [int(c) if c.isdigit() and abs(int(c)) >= 2**53 else float(c) for c in cells]


def test_repr_floats_with_small_exponents_take_the_arrow_path(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("type,ts,y\nA,1,1.9789738814335323e-07\nA,2,3.8871548723062865e-05\nA,3,0.5\n")
    assert read_arrow_csv(path) is not None
    assert _assert_same(path)
