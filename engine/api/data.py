"""What :func:`engine.api.runner` accepts as data, made into what ``cep run`` reads.

- a path (``str`` or ``os.PathLike``: CSV, TSV, JSON Lines, Parquet) or ``"sample:NAME"``: read
  exactly as ``cep run --data`` reads it (the same loader, batches for a big file);
- a pandas DataFrame: validated by the same rules (``engine.events.load_events`` takes it);
- a pyarrow Table (or RecordBatch): converted as the Parquet reader converts a file;
- an iterable of dicts (records): a frame of objects, as a JSON Lines file is read.

Messages name the data as ``cep run`` names a file: the path, ``sample:NAME``, or ``<DataFrame>``,
``<pyarrow Table>``, ``<records>`` for data in memory.

>>> from engine.api.data import data_source
>>> source = data_source([{"type": "A", "ts": 1}, {"type": "B", "ts": 2}])
>>> source.label, len(source.data), source.in_memory
('<records>', 2, True)
>>> data_source(42)
Traceback (most recent call last):
...
TypeError: data must be a path, 'sample:NAME', a pandas DataFrame, a pyarrow Table or an iterable of dicts, not int
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.commands.arguments import CommandError

__all__ = ["DataSource", "data_source"]


@dataclass
class DataSource:
    """``data``: the path ``cep run`` reads, or a pandas DataFrame; ``label``: the data's name
    in messages; ``hint``: a sample's own column mapping; ``in_memory``: not a file."""

    data: Any
    label: str
    hint: dict[str, Any] | None = None
    in_memory: bool = False


def _module_of(value: Any) -> str:
    return type(value).__module__.split(".")[0]


def data_source(data: Any) -> DataSource:
    """The :class:`DataSource` of ``data`` (see the module)."""
    if isinstance(data, (str, os.PathLike)):
        from engine.commands.arguments import resolve_data

        path, hint = resolve_data(str(data))
        return DataSource(path, str(data), hint)
    if isinstance(data, (bytes, Mapping)):
        raise TypeError(_refusal(data))
    module = _module_of(data)
    if module == "pandas":
        import pandas as pd

        if isinstance(data, pd.DataFrame):
            return DataSource(data, "<DataFrame>", in_memory=True)
    if module == "pyarrow":
        import pyarrow as pa

        if isinstance(data, (pa.Table, pa.RecordBatch)):
            from engine.events import arrow_to_pandas

            try:
                frame = arrow_to_pandas(data)
            except (pa.ArrowException, ValueError, OverflowError) as err:
                raise CommandError(f"<pyarrow Table>: cannot convert it: {err}") from None
            return DataSource(frame, "<pyarrow Table>", in_memory=True)
    if module == "pyspark":
        raise TypeError("a Spark DataFrame is matched on Spark: use engine.spark.match(df, pattern)")
    if isinstance(data, Iterable):
        import pandas as pd

        records = list(data)
        for k, r in enumerate(records, 1):
            if not isinstance(r, Mapping):
                raise CommandError(f"<records>: record {k} is a {type(r).__name__}, not a dict")
        if not records:
            raise CommandError("<records>: no rows")
        return DataSource(_records_frame([dict(r) for r in records]), "<records>", in_memory=True)
    raise TypeError(_refusal(data))


def _records_frame(records: list[dict[str, Any]]) -> Any:
    """Records as the JSON Lines reader makes a file of them: typed columns (pyarrow) when every
    column holds numbers, booleans or strings of one kind, else a frame of objects (exact values)."""
    import pandas as pd
    import pyarrow as pa

    from engine.events import arrow_to_pandas

    try:
        names = list(dict.fromkeys(k for r in records for k in r))  # every record's keys, in order met
        table = pa.Table.from_pydict({k: [r.get(k) for r in records] for k in names})
        plain = all(pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_boolean(f.type)
                    or pa.types.is_string(f.type) or pa.types.is_null(f.type) for f in table.schema)
        mixed = any(pa.types.is_floating(f.type) and any(isinstance(r.get(f.name), int) for r in records)
                    for f in table.schema)
        if plain and not mixed and table.num_columns:
            return arrow_to_pandas(table)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        pass
    return pd.DataFrame(records, dtype=object)  # pandas takes every record's keys


def _refusal(data: Any) -> str:
    return ("data must be a path, 'sample:NAME', a pandas DataFrame, a pyarrow Table or an iterable of dicts, "
            f"not {type(data).__name__}")
