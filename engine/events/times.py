"""Parsing time columns: numbers stay numbers, ISO date-times become float seconds since
the epoch (tz-naive = UTC); each row gets an outcome code (``T_NUMBER``, ``T_BAD`` ...)
that the validation rules turn into issues.
"""
from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal

import numpy as np
import pandas as pd

from engine.events.columns import T_BAD, T_DATETIME, T_INFINITE, T_MISSING, T_NUMBER

__all__ = ["parse_time", "T_MISSING", "T_NUMBER", "T_DATETIME", "T_BAD", "T_INFINITE"]


def _datetime_seconds(s: pd.Series) -> np.ndarray:
    """Float seconds since the epoch of a datetime64 Series (tz-naive = UTC); NaN for NaT."""
    if getattr(s.dt, "tz", None) is None:
        s = s.dt.tz_localize("UTC")
    return ((s - pd.Timestamp(0, tz="UTC")) / pd.Timedelta(seconds=1)).to_numpy(
        dtype="float64", na_value=np.nan)


def parse_time(s: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Parse a time column: numbers stay numbers, ISO date-times become seconds since the
    epoch. Returns (values as float64 with NaN where unusable, per-row outcome codes)."""
    n = len(s)
    codes = np.full(n, T_MISSING, dtype=np.int8)
    values = np.full(n, np.nan)
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        s = s.astype(object)
        dt = s.dtype
    if pd.api.types.is_bool_dtype(dt):
        codes[s.notna().to_numpy()] = T_BAD
        return values, codes
    if pd.api.types.is_numeric_dtype(dt):
        arr = s.to_numpy(dtype="float64", na_value=np.nan)
        finite = np.isfinite(arr)
        codes[finite] = T_NUMBER
        codes[np.isinf(arr)] = T_INFINITE
        values[finite] = arr[finite]
        return values, codes
    if pd.api.types.is_datetime64_any_dtype(dt):
        secs = _datetime_seconds(s)
        ok = ~np.isnan(secs)
        codes[ok] = T_DATETIME
        values[ok] = secs[ok]
        return values, codes
    # Object / string columns: classify by Python type (a handful of distinct types), then
    # parse each class vectorised.
    arr = s.to_numpy(dtype=object)
    types = list(map(type, arr))
    category = {t: _time_category(t) for t in set(types)}
    cat = np.fromiter(map(category.__getitem__, types), dtype=np.int8, count=n)
    num_mask = cat == _C_NUM
    if num_mask.any():
        num = pd.to_numeric(pd.Series(arr[num_mask], dtype=object), errors="coerce").to_numpy(
            dtype="float64", na_value=np.nan)
        _set_numbers(codes, values, num_mask, num)
    dto_mask = cat == _C_DATETIME
    if dto_mask.any():
        parsed = pd.to_datetime(pd.Series(arr[dto_mask], dtype=object), utc=True,
                                errors="coerce")
        secs = _datetime_seconds(pd.Series(parsed))
        ok = ~np.isnan(secs)
        idx = np.flatnonzero(dto_mask)[ok]
        codes[idx] = T_DATETIME
        values[idx] = secs[ok]
    str_mask = cat == _C_STR
    if str_mask.any():
        str_idx = np.flatnonzero(str_mask)
        strs = pd.Series(arr[str_mask], dtype=object)
        # Date-times first (fast); strings that fail, or that parsed but have no '-' or ':'
        # (pandas reads '2011' and '2011.5' as dates), are tried as numbers.
        secs = _iso_seconds(strs)
        is_dt = ~np.isnan(secs)
        try_num = ~is_dt
        if is_dt.any():
            dt_strs = strs[is_dt]
            plain = ~(dt_strs.str.contains("-", regex=False)
                      | dt_strs.str.contains(":", regex=False)).to_numpy(dtype=bool)
            try_num[np.flatnonzero(is_dt)[plain]] = True
        num = np.full(len(strs), np.nan)
        if try_num.any():
            num[try_num] = pd.to_numeric(strs[try_num], errors="coerce").to_numpy(
                dtype="float64", na_value=np.nan)
        is_num = ~np.isnan(num)
        dt_ok = is_dt & ~is_num
        codes[str_idx[dt_ok]] = T_DATETIME
        values[str_idx[dt_ok]] = secs[dt_ok]
        sub_codes = np.full(len(strs), T_MISSING, dtype=np.int8)
        sub_values = np.full(len(strs), np.nan)
        _set_numbers(sub_codes, sub_values, is_num, num[is_num])
        codes[str_idx[is_num]] = sub_codes[is_num]
        values[str_idx[is_num]] = sub_values[is_num]
        failed = ~is_num & ~is_dt
        if failed.any():
            blank = (strs[failed].str.strip() == "").to_numpy(dtype=bool)
            fidx = str_idx[failed]
            codes[fidx[~blank]] = T_BAD
    codes[cat == _C_BAD] = T_BAD
    return values, codes


# a date-time with a time of day and a UTC offset (or Z) at its end
_WITH_OFFSET = r"\d[T ]\d{2}.*(?:Z|[+-]\d{2}(?::?\d{2})?)\s*$"
_MINUS_AFTER_TIME = re.compile(r"\d[T ]\d\d[^\n]*-")


def _iso_seconds(strs: pd.Series) -> np.ndarray:
    """Seconds since the epoch of ISO date-time strings (NaN where not one; tz-naive = UTC).

    pandas (2.3) gives a tz-naive string that comes after one with a UTC offset that offset
    (``['2000-01-01T00:00+05:30', '2000-01-01T00:00']`` parse to the same instant), so
    strings with an offset and strings without one are parsed apart."""
    def parse(part: pd.Series) -> np.ndarray:
        return _datetime_seconds(pd.Series(pd.to_datetime(part, format="ISO8601", utc=True, errors="coerce")))

    joined = "\n".join(strs.tolist())
    if "Z" not in joined and "+" not in joined and _MINUS_AFTER_TIME.search(joined) is None:
        return parse(strs)  # no string can carry an offset
    aware = strs.str.contains(_WITH_OFFSET, regex=True).to_numpy(dtype=bool)
    if aware.all() or not aware.any():
        return parse(strs)
    secs = np.full(len(strs), np.nan)
    secs[aware] = parse(strs[aware])
    secs[~aware] = parse(strs[~aware])
    return secs


_C_MISSING, _C_NUM, _C_STR, _C_DATETIME, _C_BAD = 0, 1, 2, 3, 4


def _time_category(t: type) -> int:
    """How a time value of Python type ``t`` is parsed."""
    if t is type(None) or t is type(pd.NA) or t is type(pd.NaT):
        return _C_MISSING
    if issubclass(t, (bool, np.bool_)):
        return _C_BAD
    if issubclass(t, str):
        return _C_STR
    if issubclass(t, (_dt.date, np.datetime64)):
        return _C_DATETIME
    if issubclass(t, (int, float, np.number, Decimal)):
        return _C_NUM
    return _C_BAD


def _set_numbers(codes: np.ndarray, values: np.ndarray, mask: np.ndarray,
                 num: np.ndarray) -> None:
    """Record parsed numbers (NaN = missing, inf = not finite) at the rows of ``mask``."""
    idx = np.flatnonzero(mask)
    finite = np.isfinite(num)
    codes[idx[finite]] = T_NUMBER
    values[idx[finite]] = num[finite]
    codes[idx[np.isinf(num)]] = T_INFINITE


