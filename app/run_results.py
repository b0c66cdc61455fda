"""Results of the Run page with their data: what a run was computed on, the match table with
the partition key and attributes a person picks, the downloads with every variable's full
events, and the engines a pattern can run on.

No streamlit import here: the page shows what these functions build.

- :class:`ResultRecord`: a run's outcome, the pattern and data it ran on (``pattern_key``,
  ``data_key``) and the events its matches bound (``by_id``), so a table never looks the
  old match's ids up in another file's events. ``stale_reason`` says whether the pattern or
  the data changed since (the page then clears the results).
- :func:`throughput_shown`: events per second means something only for a run of at least
  ``THROUGHPUT_MIN_EVENTS`` events that took at least ``THROUGHPUT_MIN_SECONDS``.
- :func:`match_table`, :func:`events_csv`, :func:`events_json`, :func:`download_stem`.
- :func:`engine_choices`: auto, the engines that run the pattern, and the others with the
  planner's reason.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

import pandas as pd

from engine.json_text import json_text

__all__ = ["THROUGHPUT_MIN_EVENTS", "THROUGHPUT_MIN_SECONDS", "ResultRecord", "throughput_shown", "pattern_key",
           "attribute_options", "partition_key", "match_table", "events_csv", "events_json", "download_stem",
           "slug", "engine_choices", "EngineChoices", "matched_events", "plain_reason", "mentioned_attributes"]

THROUGHPUT_MIN_EVENTS = 1_000   # fewer events: the rate is the cost of starting, not of matching
THROUGHPUT_MIN_SECONDS = 0.2    # shorter runs: the clock's resolution and start-up dominate


def throughput_shown(events: int, seconds: float) -> bool:
    """True when events per second means something: at least ``THROUGHPUT_MIN_EVENTS`` events
    in at least ``THROUGHPUT_MIN_SECONDS`` seconds."""
    return events >= THROUGHPUT_MIN_EVENTS and seconds >= THROUGHPUT_MIN_SECONDS


def pattern_key(pattern: Any) -> str:
    """What identifies a pattern's meaning (its canonical text): reformatting it keeps results."""
    from engine.dsl import to_text

    try:
        return to_text(pattern)
    except Exception:  # noqa: BLE001 - a pattern that cannot be printed is compared by its model
        return pattern.model_dump_json()


def matched_events(matches: Sequence[Any], events: Sequence[Any]) -> dict[Any, Any]:
    """The events the matches bound, by id (what the results keep of their data)."""
    wanted = {i for m in matches if hasattr(m, "bindings") for _, ids in m.bindings for i in ids}
    return {e.id: e for e in events if e.id in wanted}


@dataclass
class ResultRecord:
    """A run's outcome with what it ran on."""

    outcome: Any                      # app.runner.Outcome
    pattern_key: str                  # canonical text of the pattern it ran
    pattern_text: str                 # the text as the person wrote it
    data_key: str                     # the data source and its column mapping
    data_label: str                   # the data's name as the page shows it
    engine: str                       # the engine asked for (auto or a name) and where it ran
    by_id: dict[Any, Any] = field(default_factory=dict)  # the events the matches bound
    cancelled_after: int | None = None  # events read before a person cancelled the run

    def stale_reason(self, pattern_key_now: str, data_key_now: str) -> str | None:
        """None when the results belong to this pattern and data; else what changed."""
        pattern_changed = pattern_key_now != self.pattern_key
        data_changed = data_key_now != self.data_key
        if pattern_changed and data_changed:
            return "the pattern and the data changed"
        if pattern_changed:
            return "the pattern changed"
        if data_changed:
            return "the data changed"
        return None


# --------------------------------------------------------------------------- values

def plain_value(value: Any) -> Any:
    """A value for a table or a file: numpy scalars as Python ones, an integral float time stamp
    as the integer it was read as."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()
        except (AttributeError, ValueError):
            pass
    return value


def time_value(ts: Any, is_datetime: bool) -> Any:
    """A time stamp: ISO text for date-time data, else the number (an integral float as an int)."""
    if ts is None:
        return None
    if is_datetime:
        return datetime.fromtimestamp(float(ts), tz=timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(ts, float) and ts.is_integer() and abs(ts) < 2 ** 53:
        return int(ts)
    return plain_value(ts)


def attribute_options(schema: dict[str, dict[str, str]]) -> list[str]:
    """Every attribute of the data's events (any type), in first-seen order."""
    out: list[str] = []
    for attrs in schema.values():
        for name in attrs:
            if name not in out:
                out.append(name)
    return out


def _event_value(event: Any, attr: str) -> Any:
    if event is None:
        return None
    return plain_value(event.attrs.get(attr)) if attr in event.attrs else None


def partition_key(equivalence: Sequence[str], match: Any, by_id: dict[Any, Any]) -> dict[str, Any]:
    """The match's values of the pattern's partition attributes (``[attr]``), from its first event."""
    first = next((by_id.get(i) for _, ids in match.bindings for i in ids if i in by_id), None)
    return {a: _event_value(first, a) for a in equivalence}


def _variables(matches: Sequence[Any], order: Sequence[str] | None) -> list[str]:
    names = list(order or [])
    for m in matches:
        for v, _ids in m.bindings:
            if v not in names:
                names.append(v)
    return names


def _cell(values: list[Any]) -> Any:
    """One variable's values in a table cell: the value of a single event, else them all."""
    if len(values) == 1:
        return values[0]
    return " ".join("" if v is None else str(v) for v in values)


def match_table(matches: Sequence[Any], by_id: dict[Any, Any], order: Sequence[str] | None,
                equivalence: Sequence[str], attributes: Sequence[str], is_datetime: bool = False,
                types: dict[str, str] | None = None, schema: dict[str, dict[str, str]] | None = None
                ) -> pd.DataFrame:
    """One row per match: ``#``, start, end, events, the partition key (one column per
    ``[attr]``), then per variable its event ids and, for each picked attribute its events
    carry (``types``: variable -> event type, ``schema``: type -> attributes), ``var.attr``."""
    variables = _variables(matches, order)
    uncertain = any(hasattr(m, "confidence") for m in matches)

    def carries(var: str, attr: str) -> bool:
        if not types or not schema or var not in types:
            return True
        return attr in schema.get(types[var], {})

    columns = ["#", "start", "end", "events", *(["confidence"] if uncertain else []), *equivalence]
    for v in variables:
        columns.append(v)
        columns.extend(f"{v}.{a}" for a in attributes if carries(v, a))
    rows = []
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        r: dict[str, Any] = {"#": k, "start": time_value(m.start, is_datetime),
                             "end": time_value(m.end, is_datetime),
                             "events": sum(len(d.get(v, [])) for v in variables)}
        if uncertain:
            r["confidence"] = float(getattr(m, "confidence", 1))
        r.update(partition_key(equivalence, m, by_id))
        for v in variables:
            ids = d.get(v, [])
            r[v] = " ".join(str(i) for i in ids)
            for a in attributes:
                if carries(v, a):
                    r[f"{v}.{a}"] = _cell([_event_value(by_id.get(i), a) for i in ids])
        rows.append(r)
    return pd.DataFrame(rows, columns=columns)


# --------------------------------------------------------------------------- downloads

def _event_record(event: Any, event_id: Any, is_datetime: bool) -> dict[str, Any]:
    if event is None:  # an id the results do not hold (should not happen): the id alone
        return {"id": plain_value(event_id)}
    out: dict[str, Any] = {"id": plain_value(event.id), "type": event.type, "ts": time_value(event.ts, is_datetime)}
    if getattr(event, "lower", None) is not None:
        out["lower"] = time_value(event.lower, is_datetime)
        out["upper"] = time_value(event.upper, is_datetime)
    for k, v in event.attrs.items():
        out[k] = plain_value(v)
    return out


def events_json(matches: Sequence[Any], by_id: dict[Any, Any], order: Sequence[str] | None,
                equivalence: Sequence[str] = (), is_datetime: bool = False) -> str:
    """The matches as one JSON array: per match its number, start, end, partition key and, per
    variable, the full events it bound (id, type, ts and every attribute; integers exact)."""
    variables = _variables(matches, order)
    out = []
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        item: dict[str, Any] = {"match": k, "start": time_value(m.start, is_datetime),
                                "end": time_value(m.end, is_datetime)}
        if equivalence:
            item["key"] = partition_key(equivalence, m, by_id)
        if hasattr(m, "confidence"):
            item["confidence"] = float(m.confidence)
        item["variables"] = {v: [_event_record(by_id.get(i), i, is_datetime) for i in d.get(v, [])]
                             for v in variables}
        out.append(item)
    return json_text(out, where="the matches")


def _csv_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)  # int: its digits; float: repr (shortest exact); text as is


def events_csv(matches: Sequence[Any], by_id: dict[Any, Any], order: Sequence[str] | None,
               equivalence: Sequence[str] = (), is_datetime: bool = False) -> str:
    """One row per bound event: ``match``, ``variable``, ``position`` (1-based within the
    variable), the partition key, then the event's id, type, ts and every attribute of the
    matched events (empty where an event has none). Integers are written as their digits."""
    variables = _variables(matches, order)
    rows: list[dict[str, Any]] = []
    attrs: list[str] = []
    for k, m in enumerate(matches, 1):
        d = m.as_dict()
        key = partition_key(equivalence, m, by_id)
        for v in variables:
            for pos, i in enumerate(d.get(v, []), 1):
                rec = _event_record(by_id.get(i), i, is_datetime)
                for name in rec:
                    if name not in ("id", "type", "ts") and name not in attrs:
                        attrs.append(name)
                rows.append({"match": k, "variable": v, "position": pos,
                             **{f"key.{a}": x for a, x in key.items()}, **rec})
    header = ["match", "variable", "position", *(f"key.{a}" for a in equivalence), "id", "type", "ts", *attrs]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for r in rows:
        writer.writerow([_csv_text(r.get(h)) for h in header])
    return buf.getvalue()


def slug(text: str) -> str:
    """Lower-case words joined by hyphens (letters and digits only); ``data`` when none."""
    words = re.findall(r"[a-z0-9]+", str(text).lower())
    return "-".join(words)[:60].strip("-") or "data"


def download_stem(pattern_name: str | None, data_label: str, engine: str) -> str:
    """A file name stem without a date (the same run gives the same name): the pattern's name
    (its preset) or ``pattern``, the data's name (the sample, or the file without its folder
    and extension), the engine, then ``matches``. E.g. ``stock-trend-stocks-sase-nfab-matches``."""
    base = re.split(r"[\\/]", str(data_label))[-1]
    base = re.sub(r"(\.(csv|tsv|json|jsonl|ndjson|parquet|pq|txt))?(\.(gz|bz2|xz|zst))?$", "", base,
                  flags=re.IGNORECASE)
    parts = [slug(pattern_name) if pattern_name else "pattern", slug(base), slug(engine)]
    return "-".join(parts) + "-matches"


# --------------------------------------------------------------------------- engines

@dataclass(frozen=True)
class EngineChoices:
    """``usable``: auto first, then every engine that runs the pattern on this data;
    ``refused``: engine -> why it cannot (the planner's reason)."""

    usable: list[str]
    refused: dict[str, str]


def engine_choices(pattern: Any, interval: bool = False) -> EngineChoices:
    """The engines of the planner's list for studio patterns (references and MATCH_RECOGNIZE
    engines left out), split by whether they run ``pattern`` on this kind of data."""
    from engine.engines.planner import SPECS, reasons

    try:
        why = reasons(pattern, interval)
    except Exception as err:  # noqa: BLE001 - a pattern past the limits: only auto, which says why
        return EngineChoices(["auto"], {s.name: str(err) for s in SPECS if s.language == "dsl"})
    usable = ["auto"]
    refused: dict[str, str] = {}
    for s in SPECS:
        if s.language != "dsl" or s.reference:
            continue
        reason = why.get(s.name)
        if reason is None:
            usable.append(s.name)
        else:
            refused[s.name] = reason
    return EngineChoices(usable, refused)


def plain_reason(reason: str) -> str:
    """An engine's refusal for the app: no backticks, no command-line flags or paper names in
    parentheses."""
    text = re.sub(r"\s*\([^()]*(--|cep |&|et al|§|paper)[^()]*\)", "", str(reason))
    text = re.sub(r"\s*--[a-z][a-z-]*(\s+\S+)?", "", text) if "--" in text else text
    return text.replace("`", "").strip()


def mentioned_attributes(pattern: Any) -> list[str]:
    """The attributes the pattern's conditions and partition use, in the order they appear."""
    from engine.expr.nodes import Agg, Ref

    out: list[str] = list(pattern.equivalence)
    for expr in pattern.where:
        for node in expr.walk():
            attr = getattr(node, "attr", None) if isinstance(node, (Ref, Agg)) else None
            if attr and attr not in out:
                out.append(attr)
    return out
