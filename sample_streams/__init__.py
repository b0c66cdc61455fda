"""Sample event streams, preset patterns and stream generators.

Every sample is a small CSV file in ``sample_streams/data/`` plus the preset patterns
written for it in ``sample_streams/presets/<sample>__<preset>.cep`` (DSL text, see
README.md). The samples reproduce the worked examples of the papers of
docs/papers.md, with a few extra events where the paper's stream is tiny::

    >>> from sample_streams import names, load, events
    >>> s = load("stocks_sase")
    >>> s.frame()                 # pandas DataFrame, columns as in the CSV
    >>> s.mapping                 # {"type_col": "type", "ts_col": "ts", "id_col": "id", ...}
    >>> s.presets["stock_trend"]  # DSL text
    >>> events("stocks_sase")     # list[engine.events.Event], sorted by ts

``mapping`` is a plain dict (type_col, ts_col, id_col, lower_col, upper_col); a key is
``None`` when the sample has no such column (point samples have no lower/upper,
interval samples have no ts: their ``ts`` is ``lower``). Date-time columns are parsed by
:meth:`Sample.frame` to ``datetime64``; :func:`events` turns them into seconds since the
epoch (naive times read as UTC), the engine's unit for date-times. Numeric time columns
are in seconds, so ``WITHIN 1 hour`` means 3600 of them.

Large synthetic streams come from :mod:`sample_streams.generators`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Sample", "names", "load", "events", "rows", "PRESET_DIR", "DATA_DIR"]

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
PRESET_DIR = HERE / "presets"


def _mapping(type_col: str = "type", ts_col: str | None = "ts", id_col: str | None = "id",
             lower_col: str | None = None, upper_col: str | None = None) -> dict[str, str | None]:
    return {"type_col": type_col, "ts_col": ts_col, "id_col": id_col,
            "lower_col": lower_col, "upper_col": upper_col}


# name -> (csv file, one-line description, mapping, date-time columns)
_REGISTRY: dict[str, tuple[str, str, dict[str, str | None], tuple[str, ...]]] = {
    "stocks_sase": (
        "stocks_sase.csv",
        "Eight GOOG stock ticks e1..e8, one a second (the SASE+ paper's Figure 3); the stock-trend pattern "
        "finds 3 matches under skip_till_next_match and 68 under skip_till_any_match.",
        _mapping(), ()),
    "rfid": (
        "rfid.csv",
        "RFID Shelf/Register/Exit readings by tag_id (ids 1..5 as in the SASE+ paper, then more "
        "tags); the shoplifting pattern alerts (2,5), (7,11), (14,15); tag 11 leaves after 13 h.",
        _mapping(), ("ts",)),
    "shipments": (
        "shipments.csv",
        "Alerts (type, site) and shipments (from, to), as in the SASE+ paper, plus a second "
        "contaminated site; the event-type column is `event` because Alert has a `type` attribute.",
        _mapping(type_col="event"), ()),
    "chemo": (
        "chemo.csv",
        "Chemotherapy records (PID, label L, value V, unit U, date T, July 2011) of the match-windows "
        "paper; the chemo pattern uses WITHIN 16 days because the paper's 15 days is inclusive (span <= 15 d) "
        "while WITHIN is strict and T is whole days; 10 matches.",
        _mapping(type_col="L", ts_col="T"), ("T",)),
    "trades": (
        "trades.csv",
        "NYSE-like trades (generated, seed 4): 400 trades of "
        "12 tickers in 0.8 s, ts in seconds, price a random walk per ticker; P_nyse and P_set presets.",
        _mapping(), ()),
    "cluster": (
        "cluster.csv",
        "Cluster monitoring with uncertainty intervals [lower, upper] in whole seconds (imprecise-timestamps "
        "Query 1): the certain example T6 (ids 1..5), then 3 nodes for 2 minutes: CPU load every 15 s with "
        "[t-7, t+7] (the 15 s period), task starts/finishes with [t, t+1]; made by sample_streams.cluster.",
        _mapping(ts_col=None, lower_col="lower", upper_col="upper"), ()),
    "clicks": (
        "clicks.csv",
        "Login clicks (TypeUsername, TypePassword, ClickSubmit by IP/user; a-seq Example 1 "
        "on 10.0.0.1) and Kindle/KindleCase/Stylus purchases by userId, for aggregation.",
        _mapping(), ()),
}


@dataclass(frozen=True)
class Sample:
    """One sample data set with its preset patterns.

    ``presets`` maps a preset name to its DSL text (read from
    ``presets/<name>__<preset>.cep``); ``path`` is the CSV file.
    """

    name: str
    description: str
    path: Path
    mapping: dict[str, str | None]
    presets: dict[str, str] = field(default_factory=dict)
    datetime_cols: tuple[str, ...] = ()

    def frame(self) -> pd.DataFrame:
        """The events as a DataFrame, in file order (which is ts order).

        Date-time columns are ``datetime64[ns]``; integer columns with gaps (an attribute
        that only some event types have) are nullable ``Int64``.
        """
        df = pd.read_csv(self.path, keep_default_na=False, na_values=[""])
        for col in self.datetime_cols:
            df[col] = pd.to_datetime(df[col])
        for col in df.columns:
            s = df[col]
            if s.dtype.kind == "f" and s.isna().any():
                v = s.dropna()
                if len(v) and bool((v == np.floor(v)).all()):
                    df[col] = s.astype("Int64")
        return df

    def events(self) -> list[Any]:
        """The events as ``engine.events.Event`` objects (see :func:`events`)."""
        return events(self.name)

    @property
    def is_interval(self) -> bool:
        return self.mapping.get("lower_col") is not None


def names() -> list[str]:
    """Names of the available samples."""
    return list(_REGISTRY)


def _presets(name: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in sorted(PRESET_DIR.glob(f"{name}__*.cep")):
        out[p.stem.split("__", 1)[1]] = p.read_text(encoding="utf-8").strip() + "\n"
    return out


class UnknownName(ValueError):
    """A sample or preset name that does not exist; the message lists the names and
    suggests the nearest ones."""


def suggest(name: str, known: list[str]) -> str:
    """``; did you mean 'x'?`` for the known names nearest ``name`` (prefixes first), or ``""``."""
    import difflib

    text = str(name)
    near = [k for k in known if text and (k.startswith(text) or text.startswith(k))]
    near += [k for k in difflib.get_close_matches(text, known, n=3, cutoff=0.6) if k not in near]
    if not near:
        return ""
    return "; did you mean " + " or ".join(repr(k) for k in near[:3]) + "?"


def load(name: str) -> Sample:
    """The sample called ``name``; an ``UnknownName`` (a ValueError) lists the available
    names and suggests the nearest otherwise."""
    try:
        file, desc, mapping, dt_cols = _REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownName(f"unknown sample {str(name)!r}; the samples are {', '.join(names())}"
                          f"{suggest(name, names())}") from None
    return Sample(name=name, description=desc, path=DATA_DIR / file, mapping=dict(mapping),
                  presets=_presets(name), datetime_cols=dt_cols)


def _plain(v: Any) -> Any:
    """A CSV cell as a plain Python value; None for a missing one."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, pd.Timestamp):
        return v.timestamp() if v.tzinfo else v.tz_localize("UTC").timestamp()
    if isinstance(v, np.generic):
        return v.item()
    return v


def rows(name: str) -> list[dict[str, Any]]:
    """The sample's rows as dicts with keys ``type``/``ts``/``id``/``lower``/``upper``
    replaced by the mapped columns' values; missing attributes are left out, date-times
    become epoch seconds. The mapped type column keeps its own name (an attribute may be
    called ``type``, as in ``shipments``); use ``load(name).mapping["type_col"]``."""
    s = load(name)
    m = s.mapping
    df = s.frame()
    out: list[dict[str, Any]] = []
    for rec in df.astype(object).to_dict("records"):
        r = {k: _plain(v) for k, v in rec.items()}
        r = {k: v for k, v in r.items() if v is not None}
        if m.get("lower_col"):
            r["lower"] = r.pop(m["lower_col"])
            r["upper"] = r.pop(m["upper_col"])
        out.append(r)
    return out


def events(name: str) -> list[Any]:
    """The sample as a sorted ``list[engine.events.Event]`` (via ``make_stream``).

    Interval samples get ``ts == lower``; date-times are epoch seconds.
    """
    from engine.events import make_stream

    m = load(name).mapping
    ts_key = m["ts_col"] or "lower"
    out = make_stream(rows(name), type_key=m["type_col"], ts_key=ts_key, id_key=m["id_col"])
    if m.get("lower_col"):
        for e in out:  # the bounds are Event fields, not attributes
            e.attrs.pop("lower", None)
            e.attrs.pop("upper", None)
    return out
