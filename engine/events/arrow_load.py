"""Loading Parquet files and Arrow tables without pandas, through ``arrow_table.ArrowTable``.

``load_arrow`` is ``load.load_events`` of an Arrow table (a whole Parquet file read by
``read_parquet_arrow``, or a table handed in); ``parquet_batch_tables`` gives the batches of
``formats.read_parquet_batches`` as ``ArrowTable`` s for ``batches.BatchReader``. Each says when
it is unsure (None): the caller then takes the pandas path, which gives the same result.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any


from engine.events.arrow_table import ArrowTable, arrow_batch_table, read_arrow_table

__all__ = ["load_arrow", "parquet_batch_tables", "read_parquet_arrow"]


def parquet_batch_tables(path: Path, batch_rows: int) -> Iterator[tuple[int, ArrowTable | None, Any]]:
    """``formats.read_parquet_batches`` without pandas: per batch its first input row, its
    ``ArrowTable`` (None: this module declines it; read the batch, the third item, with
    ``formats.arrow_to_pandas``) and the Arrow record batch. The same batches and the same
    ``DataError`` as that reader."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.events.report import DataError
    from engine.events.sources import parquet_files, short_error

    offset = 0
    # (``parquet_files`` imports ``pyarrow.dataset``, which imports pandas: only for a directory)
    for name in parquet_files(path) if path.is_dir() else [str(path)]:
        try:
            with pq.ParquetFile(name) as pf:
                for batch in pf.iter_batches(batch_size=batch_rows):
                    yield offset, arrow_batch_table(batch), batch
                    offset += batch.num_rows
        except (pa.ArrowException, OSError, ValueError, OverflowError) as e:
            raise DataError(f"cannot read '{path.name}' as Parquet: {short_error(e)}") from None


def load_arrow(table: Any, mapping: Any = None, lines: Any = None,
               types: frozenset[str] | None = None) -> Any:
    """``load.load_events`` of an Arrow table without pandas (a ``LoadResult``); None when this
    module or the rules are unsure of a value, and for interval events (read with pandas: the
    result would be the same).

    ``load.load_table`` over the table's typed Arrow columns: the same events, rows and report,
    which ``tests/events/test_arrow_table.py`` checks against the pandas path."""
    from engine.events.load import load_table

    read = read_arrow_table(table)
    if read is None:
        return None
    return load_table(read, mapping, lines, types)


def read_parquet_arrow(path: Any) -> Any:
    """A Parquet file (or directory) as an Arrow table; ``DataError`` as ``formats.read_parquet``.

    A file is read with ``ParquetFile`` (``pq.read_table`` goes through ``pyarrow.dataset``,
    which imports pandas); a directory, or a file that reader refuses, with ``pq.read_table``
    (the same table, and the same message for a broken file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from engine.events.report import DataError
    from engine.events.sources import short_error

    try:
        if Path(path).is_file():
            with pq.ParquetFile(path) as pf:
                return pf.read()
    except (pa.ArrowException, OSError, ValueError):
        pass
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as e:
        raise DataError(f"cannot read '{path.name}' as Parquet: {short_error(e)}") from None
