"""The input table of a query, read with pyarrow (CSV, TSV, JSON Lines, Parquet; compressed files
too): column names in file order and the rows with exact values (integers stay Python ints,
timestamps datetimes). A NaN or an infinity in a float column is refused with its place."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from engine.engines.sql.rows import RowList
from engine.engines.sql.run import Table
from engine.events.file_formats import format_of


class TableError(ValueError):
    """The file cannot be read as a table; the message names the file and the cause."""


def format_name(path: str | Path) -> str:
    """csv, tsv, jsonl or parquet, from the file's name; TableError otherwise."""
    fmt = format_of(Path(path).name)
    if fmt is None:
        raise TableError(f"{path}: unknown file type; use .csv, .tsv, .jsonl or .parquet")
    return fmt


def read_table_schema(path: str | Path) -> Any:
    """The pyarrow schema :func:`read_table` gives the file (Spark reads the file with it)."""
    return _read(Path(path)).schema


def read_table(path: str | Path) -> Table:
    """The file as a :class:`Table` whose rows are a :class:`~engine.engines.sql.rows.RowList` over
    the pyarrow table (dicts made when read), checked column by column as the per-value check
    before it was (its parity test: tests/engines/sql/test_vector.py)."""
    p = Path(path)
    data = _read(p)
    columns = list(data.column_names)
    _check_columns(p, data, columns)
    return Table(columns, RowList(columns, data), arrow=data)


def _check_columns(p: Path, data: Any, columns: list[str]) -> None:
    """A nested or binary column with a value, or a NaN / infinity in a float column: TableError
    naming the first (in column order, then row order)."""
    import numpy as np
    import pyarrow as pa

    from engine.engines.sql.columnar import numpy_column

    for c in columns:
        column = data.column(c)
        kind = column.type
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind) \
                or pa.types.is_fixed_size_binary(kind):
            if column.null_count < len(column):
                raise TableError(f"{p}: column {c} holds nested or binary values; the studio reads scalars only")
            continue
        if not pa.types.is_floating(kind):
            continue
        got = numpy_column(column) if not pa.types.is_dictionary(column.type) else None
        if got is None:  # float16, a dictionary of floats: value by value
            for i, v in enumerate(column.to_pylist()):
                if isinstance(v, float) and not math.isfinite(v):
                    raise TableError(f"{p}: row {i + 1}, column {c}: {v!r} is not a finite number")
            continue
        values, null = got
        bad = ~np.isfinite(values)
        if null is not None:
            bad &= ~null
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise TableError(f"{p}: row {i + 1}, column {c}: {float(values[i])!r} is not a finite number")


def _read(p: Path) -> Any:
    import pyarrow as pa

    if not p.is_file():
        raise TableError(f"{p}: no such file")
    fmt = format_name(p)
    try:
        if fmt in ("csv", "tsv"):
            from pyarrow import csv

            data = csv.read_csv(p, parse_options=csv.ParseOptions(delimiter="\t" if fmt == "tsv" else ","))
        elif fmt == "jsonl":
            from pyarrow import json

            data = json.read_json(p)
        else:
            import pyarrow.parquet as pq

            data = pq.read_table(p)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as err:
        raise TableError(f"{p}: cannot read it as {fmt}: {str(err).splitlines()[0]}") from None
    columns = list(data.column_names)
    if len(set(c.upper() for c in columns)) != len(columns):
        raise TableError(f"{p}: two columns have the same name (names are case-insensitive in SQL)")
    return data
