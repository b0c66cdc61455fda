"""Match rows for the Spark pipelines, built column-wise (one Arrow array per column).

The public row (``MATCH_SCHEMA`` in ``engine.spark.pipeline``): ``match_id``, ``key``,
``match``, ``start``, ``end``, ``start_seq``, ``end_seq`` (+ ``events``). ``match`` is
exactly ``json.dumps(m.as_dict(), default=str)`` and ``match_id`` is
``f"{end_seq}-{start_seq}-{crc32(match):08x}"``: other tools read both, so the text must
not change. Per match the old path built a dict, ran the JSON encoder and a tuple of 7
values; here a match costs one string format (when every id is an ``int``, whose JSON
text is its ``repr``) and the columns are filled by list comprehensions over the matches
of an Arrow batch.
"""
from __future__ import annotations

import json
import zlib
from typing import Any, Callable, Sequence

import pyarrow as pa

from engine.events import Event
from engine.match import Match

__all__ = ["match_json", "match_id", "match_row", "events_json", "event_dict", "MatchColumns", "MATCH_NAMES",
           "empty_batch"]

MATCH_NAMES = ["match_id", "key", "match", "start", "end", "start_seq", "end_seq"]

Bindings = tuple[tuple[str, tuple[Any, ...]], ...]

# vars tuple -> "%"-template with one ``%r`` per variable: '{"a": %r, "b": %r}'
_TEMPLATES: dict[tuple[str, ...], str] = {}


def _template(names: tuple[str, ...]) -> str:
    t = _TEMPLATES.get(names)
    if t is None:
        body = ", ".join(json.dumps(v).replace("%", "%%") + ": %r" for v in names)
        t = _TEMPLATES[names] = "{" + body + "}"
    return t


def _all_int(bindings: Bindings) -> bool:
    for _, ids in bindings:
        for i in ids:
            if type(i) is not int:
                return False
    return True


def match_json(bindings: Bindings, ints: bool = False) -> str:
    """``json.dumps({var: [ids]}, default=str)`` of a match's bindings. ``ints``: the caller
    knows every id is an ``int`` (the id column is an integer column), which skips the check."""
    if ints or _all_int(bindings):
        names = tuple(v for v, _ in bindings)
        return _template(names) % tuple(list(ids) for _, ids in bindings)
    return json.dumps({v: list(ids) for v, ids in bindings}, default=str)


_AFTER_MATCH = ', "start": '


def _match_text(m: Match) -> str:
    """``match_json(m.bindings, ints=True)`` for a match whose ids are all ints. A match read from
    an NFA^b path gives its JSON Lines text without building its bindings
    (``Match.json_text``: ``{"match": {...}, "start": ..., "end": ...}``); the ``match`` object
    is that text between its key and ``"start"`` (a number follows, never that text). Building
    the bindings and formatting them cost 3.1 s per 314,090 matches (the keyed benchmark's 1e5
    events), the slice 0.8 s; ``tests/spark/test_fast_paths.py`` compares both."""
    text = m.json_text()
    if text is None:
        return match_json(m.bindings, True)
    return text[10:text.rindex(_AFTER_MATCH)]


def _single_texts(ms: Sequence[Match]) -> list[str]:
    """``match_json(m.bindings, ints=True)`` of matches whose variables bind one int id each, all with
    the variables of the first (the lazy chain's columnar path): one ``%`` format per match with the
    ids read straight from the bindings (inlines ``match_json``'s template; ``tests/spark/
    test_columnar_run.py`` compares both)."""
    names = tuple(v for v, _ in ms[0].bindings)
    template = _template(names)
    if len(names) == 3:
        return [template % ([a[1][0]], [b[1][0]], [c[1][0]]) for a, b, c in (m.bindings for m in ms)]
    return [template % tuple([ids[0]] for _, ids in m.bindings) for m in ms]


def match_id(mj: str, start_seq: int, end_seq: int) -> str:
    """The deterministic id of a match row: end seq, start seq, CRC-32 of the match JSON."""
    return f"{end_seq}-{start_seq}-{zlib.crc32(mj.encode()):08x}"


def match_row(m: Match, key: Any) -> tuple:
    """One row ``(match_id, key, match, start, end, start_seq, end_seq)`` (streaming)."""
    mj = match_json(m.bindings)
    return (match_id(mj, m.start_seq, m.end_seq), key, mj, float(m.start), float(m.end),
            int(m.start_seq), int(m.end_seq))


def events_json(m: Match, index: dict[Any, Event]) -> str:
    """The ``events`` column of a match row: ``{var: [{id, type, ts, seq, attrs}]}`` from the
    events by id (an id not in ``index`` gives ``{"id": id}``)."""
    evs = {v: [event_dict(index.get(i), i) for i in ids] for v, ids in m.bindings}
    return json.dumps(evs, default=str)


def event_dict(e: Event | None, eid: Any) -> dict[str, Any]:
    """One event of the ``events`` column (with ``lower``/``upper`` for an interval event)."""
    if e is None:
        return {"id": eid}
    d = {"id": e.id, "type": e.type, "ts": e.ts, "seq": e.seq, "attrs": e.attrs}
    if e.lower is not None:
        d["lower"], d["upper"] = e.lower, e.upper
    return d


def empty_batch(extra: Sequence[str] = ()) -> pa.RecordBatch:
    types = [pa.string(), pa.string(), pa.string(), pa.float64(), pa.float64(), pa.int64(), pa.int64()]
    arrays = [pa.array([], t) for t in types] + [pa.array([], pa.string()) for _ in extra]
    return pa.RecordBatch.from_arrays(arrays, names=MATCH_NAMES + list(extra))


class MatchColumns:
    """Matches collected for one output batch, with the key of each; ``batch()`` turns
    them into an Arrow batch column by column. ``ints``: every id is an ``int``.
    ``events``: a function giving the ``events`` JSON of a match (``with_events``)."""

    def __init__(self, ints: bool = False, events: Callable[[Match], str] | None = None, single: bool = False):
        self.ints = ints
        self.single = single and ints  # every variable binds one event (the lazy chain's columnar path)
        self.events = events
        self.matches: list[Match] = []
        self.keys: list[Any] = []
        self.texts: list[str] = []  # ``events`` texts, built when the match is added

    def __len__(self) -> int:
        return len(self.matches)

    def add(self, ms: Sequence[Match], key: Any) -> None:
        self.matches.extend(ms)
        self.keys.extend([key] * len(ms))
        if self.events is not None:
            self.texts.extend(self.events(m) for m in ms)

    def batch(self) -> pa.RecordBatch:
        """The collected matches as one batch (``MATCH_NAMES`` + ``events``); then empty."""
        ms, keys, texts = self.matches, self.keys, self.texts
        self.matches, self.keys, self.texts = [], [], []
        ints = self.ints
        if self.single and ms:
            mjs = _single_texts(ms)
        elif ints:
            mjs = [_match_text(m) for m in ms]
        else:
            mjs = [match_json(m.bindings, ints) for m in ms]
        starts = [m.start_seq for m in ms]
        ends = [m.end_seq for m in ms]
        crc = zlib.crc32
        ids = [f"{e}-{s}-{crc(j.encode()):08x}" for j, s, e in zip(mjs, starts, ends)]
        key_arr = pa.array(keys, pa.string()) if any(k is not None for k in keys) else pa.nulls(len(ms), pa.string())
        arrays = [pa.array(ids, pa.string()), key_arr, pa.array(mjs, pa.string()),
                  pa.array([m.start for m in ms], pa.float64()), pa.array([m.end for m in ms], pa.float64()),
                  pa.array(starts, pa.int64()), pa.array(ends, pa.int64())]
        names = list(MATCH_NAMES)
        if self.events is not None:
            arrays.append(pa.array(texts, pa.string()))
            names.append("events")
        return pa.RecordBatch.from_arrays(arrays, names=names)
