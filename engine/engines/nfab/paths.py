"""NFA^b matches read from run paths (a match costs nothing until it is read).

A run's path (its entries in the shared buffer, oldest first) is kept as :class:`PathIds`:
the event ids, cut into one slice per variable (a linear chain visits each variable once),
and the same ids as JSON text with the offset of each. A lineage of runs extends the
path its previous match read (the memo of ``Run.memo``), so a match costs its new entries
plus copies of the shared prefix, not a walk back to the run's start.

:class:`PathMatch` is a :class:`~engine.match.Match` over such a path (and, for a
member of a merged run, the member's own older part): its bindings are built when read,
and ``json_text()`` gives the JSON Lines form from the path's text by slicing, without
encoding an id twice. It equals and hashes like the plain ``Match`` of the same fields.
"""
from __future__ import annotations

import json
from typing import Any

from engine.json_text import json_text
from engine.match import Match

__all__ = ["PathIds", "PathMatch", "NO_PATH", "id_text"]


def id_text(i: Any) -> str:
    """An event id as ``json.dumps`` writes it inside a list (the JSON Lines contract)."""
    if type(i) is int:
        return int.__repr__(i)
    return json_text(i, "an event id")


class PathIds:
    """The ids of a path, oldest first, from position ``base = depth - len(ids)`` on (a
    merged run's path outlives its oldest members: positions no live member reads are
    dropped). ``segs``: (variable, lo, hi) per variable in path order, in positions;
    ``text``: the ids as JSON joined by ``", "``, ``offs[k]`` where ``ids[k]`` starts in it;
    ``first``: the path's oldest event (None when the path was read from ``base > 0``).
    ``cell`` is the trail cell of its newest entry and ``depth`` the number of entries on
    the whole path, so that a longer path of the same lineage can check that it extends
    this one."""

    __slots__ = ("cell", "depth", "ids", "segs", "first", "text", "offs")

    def __init__(self, cell: Any, depth: int, ids: tuple[Any, ...], segs: tuple[tuple[Any, int, int], ...],
                 first: Any, text: str, offs: list[int]):
        self.cell = cell
        self.depth = depth
        self.ids = ids
        self.segs = segs
        self.first = first
        self.text = text
        self.offs = offs

    def extend(self, cell: Any, depth: int, newer: list[Any], variable_of: list[Any]) -> "PathIds":
        """This path followed by the buffer entries ``newer`` (oldest first), ending at ``cell``."""
        if not newer:
            return PathIds(cell, depth, self.ids, self.segs, self.first, self.text, self.offs)
        segs = list(self.segs)
        k = self.depth
        text = self.text
        pos = len(text) + 2 if text else 0
        offs = self.offs.copy()
        ids = []
        texts = []
        for x in newer:
            v = variable_of[x.state]
            if segs and segs[-1][0] == v:
                segs[-1] = (v, segs[-1][1], k + 1)
            else:
                segs.append((v, k, k + 1))
            k += 1
            i = x.event.id
            t = int.__repr__(i) if type(i) is int else id_text(i)
            ids.append(i)
            texts.append(t)
            offs.append(pos)
            pos += len(t) + 2
        joined = ", ".join(texts)
        return PathIds(cell, depth, self.ids + tuple(ids), tuple(segs),
                       self.first if self.depth else newer[0].event,
                       f"{text}, {joined}" if text else joined, offs)

    @property
    def base(self) -> int:
        return self.depth - len(self.ids)

    def trim(self, lo: int) -> "PathIds":
        """The same path without the positions before ``lo``."""
        drop = lo - self.base
        if drop <= 0:
            return self
        offs = self.offs
        shift = offs[drop] if drop < len(offs) else len(self.text) + 2
        segs = tuple([(v, a if a > lo else lo, b) for v, a, b in self.segs if b > lo])
        return PathIds(self.cell, self.depth, self.ids[drop:], segs, self.first, self.text[shift:],
                       [o - shift for o in offs[drop:]])

    def slice(self, lo: int, hi: int) -> tuple[Any, ...]:
        """The ids of positions ``lo`` .. ``hi - 1``."""
        base = self.depth - len(self.ids)
        return self.ids[lo - base:hi - base]

    def seg_text(self, lo: int, hi: int) -> str:
        """The JSON text of positions ``lo`` .. ``hi - 1``."""
        offs = self.offs
        base = self.depth - len(self.ids)
        lo -= base
        hi -= base
        return self.text[offs[lo]:offs[hi] - 2] if hi < len(offs) else self.text[offs[lo]:]


NO_PATH = PathIds(None, 0, (), (), None, "", [])

_NAMES: dict[tuple[str, ...], list[tuple[str, str]]] = {}  # variable order -> (variable, its JSON)


def _number_text(v: Any) -> str:
    t = type(v)
    if t is int or (t is float and v - v == 0.0):
        return repr(v)
    return json_text(v, "a match")


class PathMatch(Match):
    """A match read from ``path`` (the run's whole path) or, for a merged member, from
    ``tail`` (its own part, oldest first) followed by ``path`` after position ``cut``.

    Its fields are one tuple (one store per match instead of nine; ``start`` .. ``end_seq``
    read it), and ``bindings`` is built on first read."""

    __slots__ = ("_src", "_b")

    def __init__(self, path: PathIds, tail: PathIds | None, cut: int, order: tuple[str, ...], start: float,
                 end: float, start_seq: int, end_seq: int):
        _set_src(self, (path, tail, cut, order, start, end, start_seq, end_seq))

    start = property(lambda self: self._src[4])  # type: ignore[assignment]
    end = property(lambda self: self._src[5])  # type: ignore[assignment]
    start_seq = property(lambda self: self._src[6])  # type: ignore[assignment]
    end_seq = property(lambda self: self._src[7])  # type: ignore[assignment]

    @property  # type: ignore[override]
    def bindings(self) -> tuple[tuple[str, tuple[Any, ...]], ...]:
        try:
            return self._b
        except AttributeError:
            pass
        path, tail, cut, order = self._src[:4]
        if tail is None:
            parts = {v: path.slice(lo, hi) for v, lo, hi in path.segs}
        else:
            parts = {v: tail.slice(lo, hi) for v, lo, hi in tail.segs}
            for v, lo, hi in path.segs:
                if hi > cut:
                    more = path.slice(lo if lo > cut else cut, hi)
                    have = parts.get(v)
                    parts[v] = have + more if have else more
        b = tuple([(v, parts.get(v, ())) for v in order])
        object.__setattr__(self, "_b", b)
        return b

    def json_text(self) -> str:
        path, tail, cut, order, s, e = self._src[:6]
        text, offs, base = path.text, path.offs, path.depth - len(path.ids)
        n = len(offs)
        parts = {}
        if tail is not None:
            for v, lo, hi in tail.segs:
                parts[v] = tail.seg_text(lo, hi)
        for v, lo, hi in path.segs:
            if hi <= cut:
                continue
            lo = (lo if lo > cut else cut) - base
            hi -= base
            more = text[offs[lo]:offs[hi] - 2] if hi < n else text[offs[lo]:]
            have = parts.get(v)
            parts[v] = f"{have}, {more}" if have else more
        names = _NAMES.get(order)
        if names is None:
            names = _NAMES[order] = [(v, json.dumps(v)) for v in order]
        body = ", ".join([f"{name}: [{parts.get(v, '')}]" for v, name in names])
        ts, te = type(s), type(e)
        st = repr(s) if ts is int or (ts is float and s - s == 0.0) else _number_text(s)
        et = repr(e) if te is int or (te is float and e - e == 0.0) else _number_text(e)
        return f'{{"match": {{{body}}}, "start": {st}, "end": {et}}}'

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return (self.bindings, self.start, self.end, self.start_seq, self.end_seq) == (
            other.bindings, other.start, other.end, other.start_seq, other.end_seq)

    def __hash__(self) -> int:
        return hash((self.bindings, self.start, self.end, self.start_seq, self.end_seq))

    def __repr__(self) -> str:
        return (f"Match(bindings={self.bindings!r}, start={self.start!r}, end={self.end!r}, "
                f"start_seq={self.start_seq!r}, end_seq={self.end_seq!r})")

    def __reduce__(self) -> Any:
        return (Match, (self.bindings, self.start, self.end, self.start_seq, self.end_seq))


_set_src = PathMatch._src.__set__  # type: ignore[attr-defined]  # (PathMatch.__init__)
