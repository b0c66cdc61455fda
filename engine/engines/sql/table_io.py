"""The input table of a query, read with pyarrow (CSV, TSV, JSON Lines, Parquet; compressed files
too): column names in file order and the rows with exact values (integers stay Python ints,
timestamps datetimes). A NaN or an infinity in a float column is refused with its place."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from engine.engines.sql.run import Table
from engine.events.file_formats import format_of


class TableError(ValueError):
    """The file cannot be read as a table; the message names the file and the cause."""


def read_table(path: str | Path) -> Table:
    import pyarrow as pa

    p = Path(path)
    if not p.is_file():
        raise TableError(f"{p}: no such file")
    fmt = format_of(p.name)
    try:
        if fmt in ("csv", "tsv"):
            from pyarrow import csv

            parse = csv.ParseOptions(delimiter="\t" if fmt == "tsv" else ",")
            data = csv.read_csv(p, parse_options=parse)
        elif fmt == "jsonl":
            from pyarrow import json

            data = json.read_json(p)
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            data = pq.read_table(p)
        else:
            raise TableError(f"{p}: unknown file type; use .csv, .tsv, .jsonl or .parquet")
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as err:
        raise TableError(f"{p}: cannot read it as {fmt}: {str(err).splitlines()[0]}") from None
    columns = list(data.column_names)
    if len(set(c.upper() for c in columns)) != len(columns):
        raise TableError(f"{p}: two columns have the same name (names are case-insensitive in SQL)")
    lists = {c: data.column(c).to_pylist() for c in columns}
    for c, values in lists.items():
        for i, v in enumerate(values):
            if isinstance(v, float) and not math.isfinite(v):
                raise TableError(f"{p}: row {i + 1}, column {c}: {v!r} is not a finite number")
            if isinstance(v, (dict, list, bytes)):
                raise TableError(f"{p}: column {c} holds nested or binary values; the studio reads scalars only")
    rows: list[dict[str, Any]] = [dict(zip(columns, vals)) for vals in zip(*(lists[c] for c in columns))]
    return Table(columns, rows)
