"""CSV batches read by pyarrow's streaming reader (``arrow_batches``) against pandas' chunks.

The random files of ``test_small_csv`` (broken and unsorted ones included; quoted as well) are
read by ``BatchReader`` twice, in batches of a few rows: through the Arrow batches and through
pandas' reader (``_arrow_names`` forced to None). Events (values and their Python types, seq),
rows, issues per batch, the schema and the report must be identical, or both readers must stop
with the same error.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.events import BatchReader, ColumnMapping, DataError
from engine.events.arrow_batches import IdMemory, plain_header
from tests.events.test_arrow_csv import _quoted
from tests.events.test_small_csv import BROKEN, _plain, csv_files


def _read(path: Path, mapping: ColumnMapping | None, batch_rows: int, arrow: bool,
          types: frozenset[str] | None = None) -> Any:
    reader = BatchReader(path, mapping, batch_rows=batch_rows, types=types)
    if not arrow:
        reader._arrow_names = lambda sep: None  # type: ignore[method-assign]
    out: list[Any] = []
    try:
        for b in reader:
            out.append(([(_plain(e.id), e.type, _plain(e.ts), e.seq, sorted((k, _plain(v)) for k, v in e.attrs.items()))
                         for e in b.events], b.rows, [i.model_dump() for i in b.issues], b.schema, b.seq_start))
    except DataError as err:
        out.append(("DataError", str(err)))
    return out, reader.report().model_dump(), reader.schema(), reader.time_is_datetime, reader.ids_are_rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(csv_files(), st.booleans(), st.integers(1, 5))
def test_arrow_batches_equal_pandas_batches(tmp_path: Path, spec: tuple[str, str, ColumnMapping | None],
                                            quote: bool, batch_rows: int) -> None:
    sep, text, mapping = spec
    if quote:
        text = _quoted(text, sep)
    path = tmp_path / ("data.csv" if sep == "," else "data.tsv")
    path.write_text(text, encoding="utf-8")
    plain = plain_header(path, sep) is not None
    arrow = _read(path, mapping, batch_rows, True)
    pandas = _read(path, mapping, batch_rows, False)
    assert arrow == pandas, text
    event("arrow batches" if plain else "not plain: pandas")


@pytest.mark.parametrize("name", sorted(BROKEN))
@pytest.mark.parametrize("batch_rows", [1, 2, 100])
def test_chosen_broken_files_give_the_same_batches(tmp_path: Path, name: str, batch_rows: int) -> None:
    path = tmp_path / "data.csv"
    path.write_text(BROKEN[name], encoding="utf-8")
    assert plain_header(path, ",") is not None
    mapping = ColumnMapping(id_col="eid") if name == "no id column named" else None
    assert _read(path, mapping, batch_rows, True) == _read(path, mapping, batch_rows, False)


def test_types_keep_seq_and_rows_of_the_whole_stream(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("id,type,ts,x\n1,A,1,5\n2,B,2,6\n3,C,2,7\n4,A,3,8\n5,C,4,x\n6,B,5,9\n")
    whole, _, _, _, _ = _read(path, None, 2, True)
    some, _, _, _, _ = _read(path, None, 2, True, types=frozenset({"A", "B"}))
    assert [e for b in some for e in b[0]] == [e for b in whole for e in b[0] if e[1] in "AB"]
    assert [b[1] for b in some] == [b[1] for b in whole] and [b[4] for b in some] == [0, 2, 4]


@pytest.mark.parametrize("text", ['type,ts\n"A\nB",1\n', 'type,ts\nA,1\r\n', 'type,ts\nA,1\n\nB,2\n',
                                  'type,ts\nA,"1"x\n', '\ufefftype,ts\nA,1\n'])
def test_what_is_not_plain_goes_to_pandas(tmp_path: Path, text: str) -> None:
    path = tmp_path / "data.csv"
    path.write_bytes(text.encode())
    assert plain_header(path, ",") is None


# --------------------------------------------------------------------------- the duplicate-id memory

_IDS = st.one_of(st.integers(-3, 12), st.sampled_from([2**63 - 1, -2**63, 2**53 + 1, 10**12]))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.lists(_IDS, max_size=12), st.booleans(), st.booleans()), max_size=8),
       st.integers(1, 6))
def test_numpy_id_memory_equals_the_dicts(batches: list[tuple[list[int], bool, bool]], window: int) -> None:
    """``IdMemory`` through numpy (integer batches) against the same memory held in dicts, batch
    by batch; a batch without integer typing (``typed`` False) turns both to dicts from then on."""
    numeric, reference = IdMemory(window), IdMemory(window)
    reference._to_dicts()
    row = 0
    for ids, typed, with_lines in batches:
        rows = np.arange(row, row + len(ids), dtype=np.int64) * 2 + 1  # (rows need not be positions)
        lines = rows * 3 + 2 if with_lines else None
        line_of = (lambda r: r * 3 + 2) if with_lines else None
        ints = np.asarray(ids, dtype=np.int64) if typed else None
        got = numeric.find(None if typed and numeric.numeric else list(ids), rows, lines, ints, line_of)
        want = reference.find(list(ids), rows, lines, None, line_of)
        assert got == want, (ids, window)
        row += len(ids)


def test_numpy_id_memory_is_used_and_forgets_as_the_dicts_do() -> None:
    memory = IdMemory(3)
    rows = np.arange(5, dtype=np.int64)
    # 1, 2, 3 fill the window and become the old generation: 1 is still remembered
    assert memory.find(None, rows, None, np.array([1, 2, 3, 4, 1], dtype=np.int64)) == [(4, 0, None)]
    assert memory.numeric
    # 9 repeats within the batch; 7 fills the window again: the old 1, 2, 3 are forgotten
    assert memory.find(None, rows + 5, None, np.array([4, 2, 9, 9, 7], dtype=np.int64)) == \
        [(0, 3, None), (1, 1, None), (3, 7, None)]
    assert memory.find(None, rows + 10, None, np.array([1, 4], dtype=np.int64)) == [(1, 3, None)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(csv_files(), st.integers(1, 5), st.integers(1, 4))
def test_batch_reader_duplicates_equal_with_the_dict_memory(tmp_path: Path, spec: tuple[str, str, ColumnMapping | None],
                                                            batch_rows: int, window: int) -> None:
    sep, text, mapping = spec
    path = tmp_path / ("data.csv" if sep == "," else "data.tsv")
    path.write_text(text, encoding="utf-8")

    def read(dicts: bool) -> Any:
        reader = BatchReader(path, mapping, batch_rows=batch_rows, dup_window=window)
        if dicts:
            reader._ids._to_dicts()
        out: list[Any] = []
        try:
            for b in reader:
                out.append([i.model_dump() for i in b.issues])
        except DataError as err:
            out.append(("DataError", str(err)))
        return out, reader.report().model_dump()

    assert read(False) == read(True)
