"""The validation rules of interval events (imprecise timestamps, docs/semantics.md
"Exact numbers" and "Imprecise timestamps"): bounds read exactly (``exact_bounds``: ints of
any size, exact decimals, refused beyond the limits of ``numbers``), then compared exactly
(order, whole instants, ``U_max``, pmf cells, the arrival assumption). ``validation.RULES``
runs them with the other rules; each takes the shared ``validation.FrameCheck``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from engine.events.columns import T_BAD, T_INFINITE, T_NUMBER, Column
from engine.events.frame_check import FrameCheck
from engine.events.mapping import UNIT_SECONDS
from engine.events.numbers import NUMBER_TEXT, NumberLimit, exact_number, short_number
from engine.events.report import show_value


__all__ = ["exact_number_text", "exact_bounds", "convert_time_unit", "check_interval_order",
           "check_interval_instants", "check_u_max", "check_pmf", "check_arrival_order"]


def exact_number_text(raw: Column, values: np.ndarray, codes: np.ndarray) -> None:
    """Interval bounds: number text that float64 cannot hold (an integer beyond 1e308, or
    one whose exponent is past the limit) is a number all the same; ``exact_bounds`` reads
    it exactly or refuses it with the reason. Its float value here is ±inf (a placeholder:
    the interval rules use the exact values)."""
    for i in np.flatnonzero((codes == T_BAD) | (codes == T_INFINITE)):
        cell = raw.raw(int(i))
        if type(cell) is not str:
            continue
        try:
            x = exact_number(cell)
        except NumberLimit:
            x = -1 if cell.strip().startswith("-") else 1
        except ValueError:
            continue
        try:
            values[i] = float(x)
        except OverflowError:
            values[i] = math.inf if x > 0 else -math.inf
        codes[i] = T_NUMBER


def exact_bounds(chk: FrameCheck) -> None:
    """Interval events: the exact value of every usable bound (``chk.exact``: an object
    array of ints and Fractions, None where unusable), read from the cell itself and not
    from its float64 reading: an integer of any size stays an int, decimal text is the exact
    decimal, a float is its exact value (a whole float of magnitude 2**53 or more is refused,
    as is a number beyond ``numbers.MAX_NUMBER_DIGITS`` digits: neither is known exactly).
    Date-times are whole or fractional seconds since the epoch."""
    m = chk.mapping
    if not m.is_interval:
        return
    for col in m.time_columns:
        raw = chk.col(col)
        values = chk.parsed[col]
        cells = raw.objects()
        out = np.full(chk.n, None, dtype=object)
        reasons: dict[int, str] = {}
        datetime_col = chk.time_kinds.get(col) == "datetime"
        what = "lower bound" if col == m.lower_col else "upper bound"
        rows = np.flatnonzero(~np.isnan(values))
        if not datetime_col:
            rows = _plain_ints(cells, rows, out)
        for i in rows:
            cell = cells[i]
            try:
                out[i] = exact_number(values[i] if datetime_col else cell, what)
            except NumberLimit as err:
                reasons[int(i)] = str(err)
            except (TypeError, ValueError):  # a cell pandas reads as a number and this reader does not
                try:
                    out[i] = exact_number(float(values[i]), what)
                except NumberLimit as err:
                    reasons[int(i)] = str(err)
        if reasons:
            mask = np.zeros(chk.n, dtype=bool)
            mask[list(reasons)] = True
            out[mask] = None
            chk.add(mask, col, "inexact_bound", lambda i: reasons[i])
        chk.exact[col] = out


def _plain_ints(cells: np.ndarray, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The fast path of ``exact_bounds``: cells of ``rows`` that are Python ints, or text of
    at most 18 digits, go to ``out`` as ints at once; returns the rows left to read one by one."""
    sub = cells[rows]
    kinds = set(map(type, sub))
    if kinds <= {int}:
        out[rows] = sub
        return rows[:0]
    if kinds <= {str}:
        text = _object_series(sub)
        plain = text.str.fullmatch(r"\s*[+-]?[0-9]{1,18}\s*").to_numpy(dtype=bool)
        if plain.any():
            out[rows[plain]] = text[plain].astype("int64").to_numpy().astype(object)
        return rows[~plain]
    return rows


def _object_series(values: np.ndarray) -> Any:
    import pandas as pd

    return pd.Series(values, dtype=object)


_UNIT_EXACT = {"s": Fraction(1), "ms": Fraction(1, 10**3), "us": Fraction(1, 10**6), "ns": Fraction(1, 10**9)}


def convert_time_unit(chk: FrameCheck) -> None:
    """Numeric time columns next to date-time ones are converted from ``ts_unit`` to seconds
    (exactly, for interval bounds)."""
    if "datetime" not in chk.time_kinds.values():
        return
    factor = UNIT_SECONDS[chk.mapping.ts_unit]
    for col in chk.mapping.time_columns:
        if chk.time_kinds.get(col) == "number" and factor != 1.0:
            chk.parsed[col] = chk.parsed[col] * factor
            if col in chk.exact:
                unit = _UNIT_EXACT[chk.mapping.ts_unit]
                chk.exact[col] = np.array([None if v is None else _whole(v * unit) for v in chk.exact[col]],
                                          dtype=object)


def _whole(v: Fraction) -> int | Fraction:
    return v.numerator if v.denominator == 1 else v


def _bound_text(v: Any) -> str:
    """A bound as the file wrote it (CSV bounds are read as text: shown without quotes)."""
    if isinstance(v, str) and NUMBER_TEXT.fullmatch(v):
        return short_number(v.strip())
    return show_value(v)


def _pairs(chk: FrameCheck) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact lower and upper bounds and the rows where both are known and not bad."""
    m = chk.mapping
    lo, hi = chk.exact[m.lower_col], chk.exact[m.upper_col]  # type: ignore[index]
    known = np.fromiter((a is not None and b is not None for a, b in zip(lo, hi)), dtype=bool, count=chk.n)
    return lo, hi, known & ~chk.bad


def check_interval_order(chk: FrameCheck) -> None:
    """Interval events: ``lower <= upper``."""
    m = chk.mapping
    if not m.is_interval:
        return
    lo, hi, known = _pairs(chk)
    lraw, uraw = chk.col(m.lower_col), chk.col(m.upper_col)  # type: ignore[arg-type]
    after = np.zeros(chk.n, dtype=bool)
    for i in np.flatnonzero(known):
        after[i] = lo[i] > hi[i]
    chk.add(after, m.lower_col, "lower_gt_upper",  # type: ignore[arg-type]
            lambda i: (f"lower bound {_bound_text(lraw.raw(i))} is after upper bound "
                       f"{_bound_text(uraw.raw(i))} (column {m.upper_col})"))


def check_interval_instants(chk: FrameCheck) -> None:
    """Interval events (imprecise timestamps, docs/semantics.md): bounds are whole instants
    of the time unit (date-times: whole seconds)."""
    m = chk.mapping
    if not m.is_interval:
        return
    for col, what in ((m.lower_col, "lower"), (m.upper_col, "upper")):
        v = chk.exact[col]  # type: ignore[index]
        raw = chk.col(col)  # type: ignore[arg-type]
        frac = np.fromiter((x is not None and not isinstance(x, int) for x in v), dtype=bool, count=chk.n)
        unit = "second" if chk.time_kinds.get(col) == "datetime" else "instant"  # type: ignore[arg-type]
        chk.add(frac & ~chk.bad, col, "not_instant",  # type: ignore[arg-type]
                lambda i, raw=raw, what=what, unit=unit: (
                    f"{what} bound {_bound_text(raw.raw(i))} is not a whole {unit}: interval bounds are integer "
                    f"instants (write them in a finer unit, e.g. tenths of a second as integers)"))


def check_u_max(chk: FrameCheck) -> None:
    """Interval events: ``upper - lower <= u_max`` when the mapping gives ``u_max``."""
    m = chk.mapping
    if not m.is_interval or m.u_max is None:
        return
    lo, hi, known = _pairs(chk)
    wide = np.zeros(chk.n, dtype=bool)
    for i in np.flatnonzero(known):
        wide[i] = hi[i] - lo[i] > m.u_max
    chk.add(wide, m.upper_col, "wider_than_u_max",  # type: ignore[arg-type]
            lambda i: (f"interval [{short_number(lo[i])}, {short_number(hi[i])}] is wider than "
                       f"U_max = {m.u_max} "
                       "(upper - lower must be at most U_max)"))


def check_pmf(chk: FrameCheck) -> None:
    """Interval events: a pmf cell holds one non-negative weight per instant of the interval."""
    m = chk.mapping
    if not m.is_interval or m.pmf_col is None or m.pmf_col not in chk.columns:
        return
    import pandas as pd  # pd.isna: every missing value a reader may give

    from engine.events.pmf_column import PmfError, parse_pmf

    lo, hi, known = _pairs(chk)
    cells = chk.col(m.pmf_col).objects()
    reasons: dict[int, str] = {}
    for i in np.flatnonzero(known):
        cell = cells[i]
        if cell is None or (not isinstance(cell, (str, list, tuple, np.ndarray)) and pd.isna(cell)):
            continue  # an empty cell: uniform
        try:
            parse_pmf(cell, lo[i], hi[i])
        except PmfError as err:
            reasons[int(i)] = str(err)
        except (TypeError, ValueError, OverflowError):
            continue
    mask = np.zeros(chk.n, dtype=bool)
    mask[list(reasons)] = True
    chk.add(mask, m.pmf_col, "bad_pmf", lambda i: reasons[i])


def check_arrival_order(chk: FrameCheck) -> None:
    """Interval events in file (arrival) order: an event seen before another has
    ``lower <= the other's upper`` (imprecise-timestamps §1.3); the error names the earlier row.
    Compared exactly (bounds of any size)."""
    m = chk.mapping
    if not m.is_interval or chk.n < 2:
        return
    lo, hi, known = _pairs(chk)
    late = np.zeros(chk.n, dtype=bool)
    prev: list[Any] = [None] * chk.n   # the largest lower bound of a usable row before each row
    first: list[int] = [0] * chk.n     # the row holding it
    best, best_at = None, 0
    for i in range(chk.n):
        prev[i], first[i] = best, best_at
        if not known[i]:
            continue
        if best is not None and hi[i] < best:
            late[i] = True
        if best is None or lo[i] > best:
            best, best_at = lo[i], i
    if not late.any():
        return

    def reason(i: int) -> str:
        return (f"upper bound {short_number(hi[i])} is before the lower bound {short_number(prev[i])} of an event "
                f"seen earlier (data row "
                f"{int(chk.row_numbers[first[i]]) + 1}): the arrival assumption (an event seen before another has "
                "lower <= the other's upper) does not hold; reorder the file or widen the intervals")

    chk.add(late, m.upper_col, "arrival_order", reason)  # type: ignore[arg-type]
