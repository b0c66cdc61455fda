"""A lesson's stream as events: inline CSV rows, a sample, or a generator; and the hidden
variations of a write exercise (another generator seed, shuffled attribute values, dropped
events), each deterministic for its seed.

Inline rows are read here with the ``csv`` module, never evaluated: a cell that reads as an
integer is an int, one that reads as a decimal number is a float, ``true`` / ``false`` are
booleans, every other cell is text and an empty cell is a missing attribute. The columns
``type`` and ``ts`` (or ``lower`` and ``upper`` for imprecise timestamps) are required;
``id`` is optional (the events are then numbered 1, 2, ... in file order).
"""
from __future__ import annotations

import csv
import io
import random
import re
from typing import Any, Callable

from engine.events import Event, make_stream
from engine.lessons.model import GeneratorStream, InlineStream, Problem, SampleStream, StreamSpec, Variation

__all__ = ["StreamProblem", "stream_events", "vary", "events_csv", "GENERATORS", "MAX_EVENTS", "is_interval"]

#: a lesson's stream holds at most this many events (a lesson is one screen)
MAX_EVENTS = 200

_INT = re.compile(r"[+-]?\d{1,18}")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d{1,3})?")


class StreamProblem(ValueError):
    """A stream that cannot be built; ``line`` is the file line (None: the stream as a whole)."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


def _generators() -> dict[str, Callable[..., Any]]:
    from sample_streams import generators

    return {name: getattr(generators, name) for name in ("stocks", "skewed_types", "keyed")}


#: the generators a lesson may name (the interval trace is too large for a lesson)
GENERATORS = ("stocks", "skewed_types", "keyed")


def _cell(text: str) -> Any:
    t = text.strip()
    if t == "":
        return None
    if _INT.fullmatch(t):
        return int(t)
    if _FLOAT.fullmatch(t):
        return float(t)
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    return t


def _inline_rows(spec: InlineStream) -> list[dict[str, Any]]:
    """The rows of an inline CSV block, each a dict with its file line under ``_line``."""
    lines = spec.csv.splitlines()
    numbered = [(spec.first_line + i, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not numbered:
        raise StreamProblem("the rows block is empty: write a header line (e.g. id,type,ts,price) and one event a line",
                            spec.first_line)
    header_line, header_text = numbered[0]
    header = [h.strip() for h in next(csv.reader([header_text]))]
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise StreamProblem(f"the header names the column {dup!r} twice", header_line)
    interval = "lower" in header or "upper" in header
    needed = ["type", "lower", "upper"] if interval else ["type", "ts"]
    missing = [c for c in needed if c not in header]
    if missing:
        raise StreamProblem(f"the header {header_text.strip()!r} has no column {', '.join(repr(m) for m in missing)}: "
                            f"the columns {', '.join(needed)} are required", header_line)
    out: list[dict[str, Any]] = []
    for number, text in numbered[1:]:
        cells = next(csv.reader([text]))
        if len(cells) != len(header):
            raise StreamProblem(f"expected {len(header)} values ({', '.join(header)}), found {len(cells)}: "
                                f"{text.strip()!r}", number)
        row = {h: _cell(c) for h, c in zip(header, cells)}
        for col in needed:
            if row[col] is None:
                raise StreamProblem(f"the {col} of an event cannot be empty", number)
        for col in ("ts", "lower", "upper"):
            if col in row and col in needed and (isinstance(row[col], bool) or not isinstance(row[col], (int, float))):
                raise StreamProblem(f"the {col} must be a number, not {row[col]!r}", number)
        if interval and not isinstance(row["lower"], int) or interval and not isinstance(row["upper"], int):
            raise StreamProblem("imprecise timestamps are whole numbers: lower and upper must be integers", number)
        if interval and row["lower"] > row["upper"]:
            raise StreamProblem(f"lower {row['lower']} is after upper {row['upper']}", number)
        if "id" in row and row["id"] is None:
            raise StreamProblem("the id of an event cannot be empty", number)
        row["type"] = str(row["type"])
        row["_line"] = number
        out.append({k: v for k, v in row.items() if v is not None})
    if not out:
        raise StreamProblem("the rows block has a header but no events", header_line)
    if len(out) > MAX_EVENTS:
        raise StreamProblem(f"{len(out)} events: a lesson's stream holds at most {MAX_EVENTS}", header_line)
    if "id" not in header:
        for i, r in enumerate(out, 1):
            r["id"] = i
    seen: dict[Any, int] = {}
    for r in out:
        if r["id"] in seen:
            raise StreamProblem(f"the id {r['id']!r} is used twice (also on line {seen[r['id']]}); ids must be unique",
                                r["_line"])
        seen[r["id"]] = r["_line"]
    if interval:
        for r in out:
            r["ts"] = r["lower"]
    return out


def _sample_rows(spec: SampleStream) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    import sample_streams

    try:
        sample = sample_streams.load(spec.sample)
    except ValueError as err:
        raise StreamProblem(str(err)) from None
    rows = sample_streams.rows(spec.sample)
    if spec.limit is not None:
        rows = rows[:spec.limit]
    if len(rows) > MAX_EVENTS:
        raise StreamProblem(f"the sample {spec.sample!r} has {len(rows)} events: a lesson's stream holds at most "
                            f"{MAX_EVENTS}; give a limit")
    m = sample.mapping
    if m.get("lower_col"):
        for r in rows:
            r["ts"] = r["lower"]
    elif m["ts_col"] != "ts":
        for r in rows:
            r["ts"] = r.pop(m["ts_col"])
    if m["type_col"] != "type":
        for r in rows:
            r["__type"] = r.pop(m["type_col"])
        return rows, {"type_key": "__type"}
    return rows, {}


def _generator_rows(spec: GeneratorStream, seed: int | None = None) -> list[dict[str, Any]]:
    from sample_streams import suggest

    table = _generators()
    if spec.generator not in table:
        raise StreamProblem(f"unknown generator {spec.generator!r}; the generators are {', '.join(GENERATORS)}"
                            f"{suggest(spec.generator, list(GENERATORS))}")
    try:
        frame = table[spec.generator](spec.size, seed=spec.seed if seed is None else seed, **spec.options)
    except (TypeError, ValueError) as err:
        raise StreamProblem(f"the generator {spec.generator!r} refused its options: {err}") from None
    from sample_streams import _plain

    return [{k: _plain(v) for k, v in rec.items()} for rec in frame.astype(object).to_dict("records")]


def _build(rows: list[dict[str, Any]], type_key: str = "type") -> list[Event]:
    clean = [{k: v for k, v in r.items() if k != "_line"} for r in rows]
    events = make_stream(clean, type_key=type_key, ts_key="ts", id_key="id")
    for e in events:
        if "lower" in e.attrs or "upper" in e.attrs:
            e.attrs.pop("lower", None)
            e.attrs.pop("upper", None)
    return events


def _rows(spec: StreamSpec, generator_seed: int | None = None) -> tuple[list[dict[str, Any]], str]:
    if isinstance(spec, InlineStream):
        return _inline_rows(spec), "type"
    if isinstance(spec, SampleStream):
        rows, keys = _sample_rows(spec)
        return rows, keys.get("type_key", "type")
    return _generator_rows(spec, generator_seed), "type"


def stream_events(spec: StreamSpec) -> list[Event]:
    """The events of a lesson's stream, sorted by time (``StreamProblem`` when it cannot be built)."""
    rows, type_key = _rows(spec)
    return _build(rows, type_key)


def is_interval(events: list[Event]) -> bool:
    """Whether the events carry imprecise timestamps (``lower`` / ``upper``)."""
    return any(e.lower is not None for e in events)


def vary(spec: StreamSpec, variation: Variation) -> list[Event]:
    """The events of ``spec`` changed as ``variation`` says (see :class:`Variation`)."""
    if variation.generator_seed is not None and not isinstance(spec, GeneratorStream):
        raise StreamProblem("a variation with a generator seed needs a generator stream", variation.line)
    rows, type_key = _rows(spec, variation.generator_seed)
    rng = random.Random(variation.seed)
    for attr in variation.shuffle:
        holders = [r for r in rows if attr in r]
        if not holders:
            raise StreamProblem(f"no event of the stream has the attribute {attr!r} to shuffle", variation.line)
        if attr in ("type", "ts", "id", "lower", "upper", type_key):
            raise StreamProblem(f"{attr!r} cannot be shuffled: shuffle attributes, not the type, time or id",
                                variation.line)
        values = [r[attr] for r in holders]
        rng.shuffle(values)
        for r, v in zip(holders, values):
            r[attr] = v
    if variation.drop:
        if variation.drop >= len(rows):
            raise StreamProblem(f"cannot drop {variation.drop} of {len(rows)} events", variation.line)
        dropped = set(rng.sample(range(len(rows)), variation.drop))
        rows = [r for i, r in enumerate(rows) if i not in dropped]
    return _build(rows, type_key)


def events_csv(events: list[Event]) -> str:
    """The events as CSV text (``id,type,ts`` or ``id,type,lower,upper``, then the attributes in
    order of appearance): what the app loads as the data in use to open a lesson in Debug."""
    interval = is_interval(events)
    attrs: list[str] = []
    for e in events:
        attrs.extend(a for a in e.attrs if a not in attrs)
    head = ["id", "type", "lower", "upper"] if interval else ["id", "type", "ts"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(head + attrs)
    for e in events:
        base = [e.id, e.type, e.lower, e.upper] if interval else [e.id, e.type, e.ts]
        writer.writerow(base + ["" if e.attrs.get(a) is None else e.attrs[a] for a in attrs])
    return out.getvalue()


def problem(file: str, err: StreamProblem, default_line: int | None) -> Problem:
    """A ``StreamProblem`` as a file problem (its own line, else ``default_line``)."""
    return Problem(file=file, line=err.line if err.line is not None else default_line, message=err.message)
