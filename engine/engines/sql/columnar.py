"""PARTITION BY and ORDER BY over pyarrow columns: the row indices of each partition in ORDER BY
order, as :func:`engine.engines.sql.binding.partitions` gives the rows themselves (partitions in
order of first appearance, a stable sort, ties in input order). Inlines ``partitions`` and
``sort_rows`` for typed columns without NULLs in the ORDER BY; anything else (a NULL to place,
strings to order) is declined (None) and the row path runs. The partition keys are grouped on
their Python values, as the row path groups them. The parity test: tests/engines/sql/test_vector.py."""
from __future__ import annotations

from typing import Any, Callable

from engine.engines.sql.binding import BoundQuery

_INT64_MIN = -(2 ** 63)
#: from this many rows, one string or integer partition column is grouped by Arrow's dictionary
#: encoding (0.06 s for 1.5M rows, with importing pyarrow.compute) instead of a dict over its Python
#: values (0.18 s there; under 0.02 s for 150k rows, less than the import)
ENCODE_FROM = 500_000


def partition_indices(bound: BoundQuery, arrow: Any, values_of: Callable[[str], list[Any]] | None = None
                      ) -> list[tuple[tuple[Any, ...], Any]] | None:
    """[(key, indices)] with ``indices`` a numpy int64 array of row numbers in ORDER BY order, or
    None. ``values_of(column)``: the column's Python values (the partition keys are grouped on
    them, as binding.partitions groups)."""
    import numpy as np

    n = arrow.num_rows
    group = np.zeros(n, dtype=np.int64)
    keys: list[tuple[Any, ...]] = [()]
    if bound.partition_by:
        found = _encoded_groups(bound, arrow) if n >= ENCODE_FROM else None
        group, keys = found or _groups(bound, values_of or (lambda c: arrow.column(c).to_pylist()))
    order_keys = [np.arange(n, dtype=np.int64)]
    for column, descending, _nulls_first in reversed(bound.order_by):
        values = _sort_key(arrow.column(column), descending)
        if values is None:
            return None
        order_keys.append(values)
    order_keys.append(group)
    perm = np.lexsort(order_keys) if n else np.zeros(0, dtype=np.int64)
    sorted_groups = group[perm]
    cuts = np.flatnonzero(np.diff(sorted_groups)) + 1
    bounds = [0, *cuts.tolist(), n]
    return [(keys[int(sorted_groups[a])], perm[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]


def _groups(bound: BoundQuery, values_of: Callable[[str], list[Any]]) -> tuple[Any, list[tuple[Any, ...]]]:
    """(group number per row, numbered by first appearance; the key of each group)."""
    import numpy as np

    numbers: dict[Any, int] = {}
    columns = [values_of(c) for c in bound.partition_by]
    if len(columns) == 1:
        ids = [numbers.setdefault(v, len(numbers)) for v in columns[0]]
        keys = [(k,) for k in numbers]
    else:
        ids = [numbers.setdefault(k, len(numbers)) for k in zip(*columns)]
        keys = list(numbers)
    return np.asarray(ids, dtype=np.int64), keys


def _encoded_groups(bound: BoundQuery, arrow: Any) -> tuple[Any, list[tuple[Any, ...]]] | None:
    """:func:`_groups` for one string or integer column without NULLs, by its dictionary encoding
    (whose indices number the values in order of first appearance, as the dict does; equality of
    strings and of integers is the same in Arrow and in Python). None for anything else."""
    import numpy as np
    import pyarrow as pa

    if len(bound.partition_by) != 1:
        return None
    data = arrow.column(bound.partition_by[0])
    kind = data.type
    if data.null_count or not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                               or pa.types.is_integer(kind)):
        return None
    encoded = data.combine_chunks().dictionary_encode()
    got = numpy_column(encoded.indices)
    if got is None:
        return None
    return got[0].astype(np.int64), [(k,) for k in encoded.dictionary.to_pylist()]


def numpy_column(data: Any) -> tuple[Any, Any] | None:
    """(values, NULL mask or None) of an integer, float, date, time-stamp or duration column, read
    from its buffers (``to_numpy`` would import pandas, most of a run's start-up); the values under
    a NULL are undefined. None for any other type."""
    import numpy as np
    import pyarrow as pa

    kind = data.type
    if pa.types.is_integer(kind):
        dtype = np.dtype(f"{'i' if pa.types.is_signed_integer(kind) else 'u'}{kind.bit_width // 8}")
    elif pa.types.is_float32(kind) or pa.types.is_float64(kind):
        dtype = np.dtype(f"f{kind.bit_width // 8}")
    elif pa.types.is_timestamp(kind) or pa.types.is_date(kind) or pa.types.is_duration(kind):
        dtype = np.dtype(f"i{kind.bit_width // 8}")
    else:
        return None
    chunks = data.chunks if hasattr(data, "chunks") else [data]
    values, nulls = [], []
    any_null = False
    for chunk in chunks:
        size = len(chunk)
        if size == 0:
            continue
        validity, buffer = chunk.buffers()[:2]
        values.append(np.frombuffer(buffer, dtype=dtype)[chunk.offset:chunk.offset + size])
        if chunk.null_count:
            any_null = True
            bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
            nulls.append(~bits[chunk.offset:chunk.offset + size].astype(bool))
        else:
            nulls.append(np.zeros(size, dtype=bool))
    if not values:
        return np.zeros(0, dtype=dtype), None
    return np.concatenate(values), np.concatenate(nulls) if any_null else None


def _sort_key(data: Any, descending: bool) -> Any:
    """The column as a numpy array that sorts ascending in the wanted order, or None."""
    import numpy as np
    import pyarrow as pa

    if data.null_count:
        return None
    kind = data.type
    if pa.types.is_timestamp(kind) and kind.tz is not None:
        return None
    got = numpy_column(data)
    if got is None:
        return None
    values = got[0]
    if values.dtype.kind == "u":
        if len(values) and int(values.max()) >= 2 ** 63:
            return None
        values = values.astype(np.int64)
    if not descending:
        return values
    if values.dtype.kind == "i":
        values = values.astype(np.int64)
        if len(values) and int(values.min()) == _INT64_MIN:
            return None
    return -values
