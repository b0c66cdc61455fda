"""Arrow values made without pyarrow's pandas check.

pyarrow imports pandas the first time it converts a Python value (``pa.array``, ``pa.scalar``, a
Python scalar passed to a compute function) or turns an array into numpy (``to_numpy``): it asks
whether the object is a pandas one. Importing pandas is most of ``cep run``'s start-up, so the
columnar reader builds its constants from buffers and reads numbers through the buffer
protocol instead (``tests/events/test_arrow_csv.py`` checks that pandas stays out).
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["numbers_of", "scalar"]

_DTYPES = {"int64": np.int64, "int32": np.int32, "int8": np.int8, "float64": np.float64, "double": np.float64}


def scalar(value: str | int | float | bool) -> Any:
    """An Arrow scalar of ``value`` (string, int64, float64 or bool)."""
    import pyarrow as pa

    if isinstance(value, bool):
        return pa.Array.from_buffers(pa.bool_(), 1, [None, pa.py_buffer(np.packbits([value], bitorder="little"))])[0]
    if isinstance(value, int):
        return pa.Array.from_buffers(pa.int64(), 1, [None, pa.py_buffer(np.array([value], dtype=np.int64))])[0]
    if isinstance(value, float):
        return pa.Array.from_buffers(pa.float64(), 1, [None, pa.py_buffer(np.array([value], dtype=np.float64))])[0]
    data = value.encode("utf-8")
    offsets = np.array([0, len(data)], dtype=np.int32)
    return pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])[0]


def numbers_of(arr: Any) -> np.ndarray:
    """The values of an Arrow array of int64, int32, int8, float64 or bool without nulls, as a
    numpy array (a copy for bool; a view of the buffer otherwise)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if arr.null_count:
        raise ValueError("numbers_of: the array has nulls")
    if pa.types.is_boolean(arr.type):
        return numbers_of(pc.cast(arr, pa.int8())).astype(bool)
    dtype = np.dtype(_DTYPES[str(arr.type)])
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)
