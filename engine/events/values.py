"""Value conversion: pandas columns to plain Python values (int, float, str, bool; None
for missing), the schema kind they share, and CSV's number-looking text to numbers.
"""
from __future__ import annotations

import datetime as _dt
import json
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from engine.events.numbers import plain_kind, text_number

_NONE_TYPE = type(None)

__all__ = ["normalize", "column_values", "object_values", "coerce_numeric_text"]


def normalize(v: Any) -> Any:
    """A plain Python value (int/float/str/bool) or None for missing (None, NaN, NA, NaT)."""
    t = type(v)
    if t is str or t is int or t is bool:
        return v
    if t is float:
        return None if v != v else v
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.datetime64):
        return None if np.isnat(v) else pd.Timestamp(v).isoformat()
    if isinstance(v, np.timedelta64):
        return None if np.isnat(v) else pd.Timedelta(v).total_seconds()
    if isinstance(v, np.generic):
        return normalize(v.item())
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return v.isoformat()
    if isinstance(v, _dt.timedelta):
        return v.total_seconds()
    if isinstance(v, Decimal):
        return None if v.is_nan() else float(v)
    if isinstance(v, float):  # float subclasses
        return None if v != v else float(v)
    if isinstance(v, (int, str)):
        return v
    if isinstance(v, (list, tuple, dict, np.ndarray)):
        if isinstance(v, np.ndarray):
            v = v.tolist()
        return json.dumps(v, default=str)
    return str(v)



def object_values(raw: list[Any]) -> tuple[list[Any], str | None]:
    """Normalize the values of an object column; fast when they are already plain."""
    tset = frozenset(map(type, raw))
    if tset <= {str, int, bool, _NONE_TYPE}:
        values = raw
    elif tset <= {str, int, float, bool, _NONE_TYPE}:
        values = [None if v != v else v for v in raw]  # NaN -> None
    else:
        values = [normalize(v) for v in raw]
        tset = frozenset(map(type, values))
    return values, plain_kind(tset)


def column_values(s: pd.Series) -> tuple[list[Any], str | None]:
    """Convert a column to plain Python values (None for missing), efficiently.

    Returns the values and the kind shared by all of them when the dtype determines it
    ("number", "bool", "string"), else None (object columns: the kind is per value).
    """
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        s = s.astype(object)
        dt = s.dtype
    if isinstance(dt, np.dtype):
        if dt.kind in "iu":
            return s.tolist(), "number"
        if dt.kind == "b":
            return s.tolist(), "bool"
        if dt.kind == "f":
            arr = s.to_numpy()
            out = arr.tolist()
            for i in np.flatnonzero(np.isnan(arr)):
                out[i] = None
            return out, "number"
        if dt.kind in "mM":
            return [normalize(v) for v in s.to_numpy()], None
        return object_values(s.tolist())
    if pd.api.types.is_datetime64_any_dtype(dt):  # tz-aware
        return [None if v is pd.NaT else v.isoformat() for v in s.tolist()], "string"
    # Extension dtypes (Int64, Float64, boolean, string, Arrow...)
    if isinstance(dt, (pd.Float64Dtype, pd.Float32Dtype)):  # NaN may exist apart from NA
        return column_values(pd.Series(s.to_numpy(dtype="float64", na_value=np.nan)))
    out = s.to_numpy(dtype=object, na_value=None).tolist()
    if isinstance(dt, (pd.Int64Dtype, pd.Int32Dtype, pd.Int16Dtype, pd.Int8Dtype,
                       pd.UInt64Dtype, pd.UInt32Dtype, pd.UInt16Dtype, pd.UInt8Dtype)):
        return out, "number"
    if isinstance(dt, pd.BooleanDtype):
        return out, "bool"
    if isinstance(dt, pd.StringDtype):
        return out, "string"
    return object_values(out)  # Arrow and other extension types


def coerce_numeric_text(s: pd.Series) -> pd.Series:
    """Text formats (CSV) have no types: in a column that pandas kept as text because some
    values are not numbers, turn the values that look like numbers back into numbers
    (int when the text is an integer). Works on the distinct values only."""
    if not (s.dtype == object or isinstance(s.dtype, pd.StringDtype)):
        return s
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    uvals = np.asarray(uniques, dtype=object)
    changed = False
    for i, v in enumerate(uvals):
        number = text_number(v)
        if number is not v:
            uvals[i] = number
            changed = True
    if not changed:
        return s
    out = np.append(uvals, None)[codes]  # code -1 (missing) -> None
    return pd.Series(out, index=s.index, dtype=object, name=s.name)
