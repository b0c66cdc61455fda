"""``FrameTable``: the ``columns.Table`` of the validation rules over a pandas DataFrame."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from engine.events.times import parse_time
from engine.events.values import column_values

__all__ = ["FrameTable", "SeriesColumn"]


@dataclass
class SeriesColumn:
    """A ``columns.Column`` over a pandas Series."""

    s: pd.Series

    @property
    def is_object(self) -> bool:
        return bool(self.s.dtype == object)

    @property
    def is_text(self) -> bool:
        return bool(self.s.dtype == object or isinstance(self.s.dtype, pd.StringDtype))

    @property
    def is_float(self) -> bool:
        return bool(pd.api.types.is_float_dtype(self.s.dtype))

    def raw(self, i: int) -> Any:
        return self.s.iloc[i]

    def objects(self) -> np.ndarray:
        return self.s.to_numpy(dtype=object)

    def values(self) -> tuple[list[Any], str | None]:
        return column_values(self.s)

    def infinite(self) -> np.ndarray:
        if pd.api.types.is_float_dtype(self.s.dtype):
            return np.isinf(self.s.to_numpy(dtype="float64", na_value=np.nan))
        if self.s.dtype == object:
            return np.fromiter((isinstance(v, float) and v - v != 0.0 and v == v for v in self.s.tolist()),
                               dtype=bool, count=len(self.s))
        return np.zeros(len(self.s), dtype=bool)

    def factorize(self) -> tuple[np.ndarray, list[Any]]:
        # few distinct values (event types): factorize first, convert the distinct ones
        codes, uniques = pd.factorize(self.s, use_na_sentinel=True)
        names, _ = column_values(pd.Series(uniques))
        return codes, names

    def parse_time(self) -> tuple[np.ndarray, np.ndarray]:
        return parse_time(self.s)


@dataclass
class FrameTable:
    """A ``columns.Table`` over a DataFrame whose column names are strings."""

    df: pd.DataFrame
    _columns: dict[str, SeriesColumn] = field(default_factory=dict, init=False, repr=False)

    @property
    def columns(self) -> list[str]:
        return list(self.df.columns)

    def __len__(self) -> int:
        return len(self.df)

    def column(self, name: str) -> SeriesColumn:
        col = self._columns.get(name)
        if col is None:
            col = self._columns[name] = SeriesColumn(self.df[name])
        return col
