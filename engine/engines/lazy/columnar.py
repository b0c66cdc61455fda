"""The lazy chain's columnar path: a fixed-length ``SEQ`` under skip-till-any-match evaluated
for a whole chunk of events at once, as window joins over numpy arrays.

For the patterns it takes (``columnar_plan``: one SEQ of single-event variables, nothing negated,
optional or Kleene, a window, every condition either a variable's own filter or a comparison of
two variables' attributes, and ``[key]`` equivalences), every match is a tuple of stream positions
``p_0 < p_1 < ... < p_n-1`` of events of the variables' types that pass their filters, with
``coord(p_n-1) - coord(p_0) < W`` and every comparison true. ``ColumnarSeq.feed`` finds, for a chunk,
the tuples whose last event is in the chunk: from those last events backwards, one variable at a
time, each step a range of candidate positions per partial tuple (``searchsorted``), expanded
with ``repeat`` and filtered with vectorised comparisons. The events of the previous chunks
that a later match can still start from (the window's tail) are kept as arrays.

Matches come out in the order ``LazyChainMatcher`` reports them for these patterns: by the
completing event, then by the positions of the variables in pattern order (the chain sorts
the matches one event completes into that order, ``chain_matcher``). The semantics of the
comparisons are ``engine.expr.compile``'s: numbers compare as numbers (a column is read as float64
only when every value is an int or a float that float64 holds exactly); any other value goes
through Python's comparison, where an undefined comparison (a string with a number, None) is
false. Parity with the event-at-a-time chain: tests/engines/lazy/test_columnar.py.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from engine.expr.fast_compare import UNDEFINED_ERRORS
from engine.expr.nodes import Cmp, Ref
from engine.match import Match
from engine.memory import current_guard
from engine.model import ANY_TYPE, Selection, conjuncts_of

__all__ = ["ColumnarPlan", "ColumnarSeq", "columnar_plan"]

_OPS: dict[str, Callable[[Any, Any], Any]] = {"<": operator.lt, "<=": operator.le, ">": operator.gt,
                                             ">=": operator.ge, "=": operator.eq, "!=": operator.ne}
#: ints that float64 holds exactly (beyond them a column is compared as Python values)
_EXACT_INT = 2 ** 53
#: partial tuples one expansion step may hold before the last events are taken in smaller slices
_SLICE_TUPLES = 1 << 20


@dataclass(frozen=True)
class PairTest:
    """``vars[left].left_attr OP vars[right].right_attr`` (positions in the SEQ's order)."""

    left: int
    left_attr: str
    op: str
    right: int
    right_attr: str


@dataclass(frozen=True)
class ColumnarPlan:
    """What the columnar path evaluates: the variables in SEQ order (= pattern order), their
    types (``ANY`` takes every type), their own filters (the chain's compiled closures on an
    event), the comparisons between two variables, the ``[key]`` attributes, the window."""

    vars: tuple[str, ...]
    types: tuple[str, ...]
    filters: tuple[Callable[[Any], bool] | None, ...]
    tests: tuple[PairTest, ...]
    eq_attrs: tuple[str, ...]
    window: float
    count_window: bool

    def attributes(self) -> list[str]:
        """The attributes the comparisons read (each read once per event into a column)."""
        seen: dict[str, None] = {}
        for t in self.tests:
            seen.setdefault(t.left_attr)
            seen.setdefault(t.right_attr)
        return list(seen)


def columnar_plan(info: Any, filters: dict[str, Callable[[Any], bool] | None]) -> ColumnarPlan | None:
    """The plan of a pattern the columnar path can evaluate (``info``: the lazy engines'
    ``PatternInfo``; ``filters``: each variable's compiled own filter), or None."""
    p = info.pattern
    if info.negated or info.window is None or len(info.clauses) != 1 or p.selection is not Selection.ALL:
        return None
    cl = info.clauses[0]
    names = list(info.positive)
    if cl.const_false or cl.absent or cl.negations or list(cl.vars) != names or len(names) < 2:
        return None
    if any(info.vars[v].kleene for v in names):
        return None
    # a total order, and the pattern's own: variable k is preceded by exactly the k before it
    if any(cl.before[v] != frozenset(names[:k]) for k, v in enumerate(names)):
        return None
    where = {v: k for k, v in enumerate(names)}
    tests: list[PairTest] = []
    for e in p.where:
        for c in conjuncts_of(e):
            if any(c == x for xs in info.local.values() for x in xs):
                continue  # a variable's own filter: the chain's compiled closure
            if not (isinstance(c, Cmp) and isinstance(c.left, Ref) and isinstance(c.right, Ref)):
                return None
            lr, rr = c.left, c.right
            if lr.index is not None or rr.index is not None or lr.var not in where or rr.var not in where:
                return None
            if lr.var == rr.var:
                return None
            tests.append(PairTest(where[lr.var], lr.attr, c.op, where[rr.var], rr.attr))
    return ColumnarPlan(tuple(names), tuple(info.vars[v].type for v in names),
                        tuple(filters.get(v) for v in names), tuple(tests), tuple(info.eq_attrs),
                        float(info.window), bool(info.count_window))


_SEQ, _TS, _TYPE, _ID, _ATTRS = (operator.attrgetter(n) for n in ("seq", "ts", "type", "id", "attrs"))


def _column(values: list[Any]) -> np.ndarray:
    """Values as float64 when every one is an int or a float float64 holds exactly (so a
    comparison gives Python's answer), else as Python objects."""
    kinds = set(map(type, values))
    if kinds <= {float, int}:
        arr = np.array(values, dtype=np.float64)
        if int not in kinds or not len(arr) or float(np.abs(arr).max()) < _EXACT_INT:
            return arr
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _compare(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x OP y`` element-wise with the semantics of compiled comparisons."""
    if x.dtype != object and y.dtype != object:
        return _OPS[op](x, y)
    cop = _OPS[op]

    def one(a: Any, b: Any) -> bool:
        try:
            return cop(a, b) is True
        except UNDEFINED_ERRORS:
            return False

    return np.fromiter((one(a, b) for a, b in zip(x.tolist(), y.tolist())), dtype=bool, count=len(x))


def _window_floor(last: np.ndarray, window: float) -> np.ndarray:
    """Below every coordinate ``c`` with ``last - c < window`` (the chain's test, in floats): ``last
    - window`` lowered by a few units in the last place, so rounding never leaves one out (the
    exact test is made on the tuples)."""
    return last - window - 4 * np.spacing(np.abs(last) + window)


class _Block:
    """Events as columns: coordinate (ts, or seq for a count window), ts, seq, id, whether each
    variable can take each event, the compared attributes and the equivalence keys."""

    __slots__ = ("coord", "ts", "seq", "ids", "takes", "columns", "keys")

    def __init__(self, coord: np.ndarray, ts: list[Any], seq: np.ndarray, ids: list[Any],
                 takes: list[np.ndarray], columns: dict[str, np.ndarray], keys: list[Any] | None) -> None:
        self.coord, self.ts, self.seq, self.ids = coord, ts, seq, ids
        self.takes, self.columns, self.keys = takes, columns, keys

    def __len__(self) -> int:
        return len(self.ids)

    def join(self, other: "_Block") -> "_Block":
        if not len(self):
            return other
        cols = {a: np.concatenate([self.columns[a], other.columns[a]]) for a in self.columns}
        return _Block(np.concatenate([self.coord, other.coord]), self.ts + other.ts,
                      np.concatenate([self.seq, other.seq]), self.ids + other.ids,
                      [np.concatenate([x, y]) for x, y in zip(self.takes, other.takes)], cols,
                      None if self.keys is None else self.keys + other.keys)  # type: ignore[operator]

    def tail(self, start: int) -> "_Block":
        return _Block(self.coord[start:], self.ts[start:], self.seq[start:], self.ids[start:],
                      [t[start:] for t in self.takes], {a: c[start:] for a, c in self.columns.items()},
                      None if self.keys is None else self.keys[start:])


class ColumnarSeq:
    """The columnar evaluation of a ``ColumnarPlan`` for one matcher (see the module).
    ``owner``: the ``LazyChainMatcher`` it serves (its statistics, limits and the state guard's
    messages); ``count_only``: matches are counted in ``counted``, never built."""

    def __init__(self, plan: ColumnarPlan, owner: Any, count_only: bool = False) -> None:
        self.plan = plan
        self.owner = owner
        self.count_only = count_only
        self.counted = 0
        self.attrs = plan.attributes()
        self.relevant = None if ANY_TYPE in plan.types else frozenset(plan.types)
        self.block: _Block | None = None

    # ------------------------------------------------------------------ columns of a chunk
    def _columns(self, events: Sequence[Any]) -> _Block:
        """The block of a chunk of events."""
        rel = self.relevant
        evs = list(events) if rel is None else [e for e in events if e.type in rel]
        values: dict[str, list[Any]] = {}
        if self.attrs:
            dicts = list(map(_ATTRS, evs))
            for a in self.attrs:
                try:
                    values[a] = list(map(operator.itemgetter(a), dicts))
                except KeyError:  # a missing attribute (None) or a built-in field: Event.get
                    values[a] = [e.attrs[a] if a in e.attrs else e.get(a) for e in evs]
        keys = None
        if self.plan.eq_attrs:
            keys = [tuple(e.get(a) for a in self.plan.eq_attrs) for e in evs]
        return self._block(list(map(_ID, evs)), list(map(_TYPE, evs)), list(map(_TS, evs)),
                           np.fromiter(map(_SEQ, evs), dtype=np.int64, count=len(evs)), values, keys,
                           evs.__getitem__)

    def _columns_of(self, events: Any, start: int, stop: int) -> _Block:
        """The block of events ``start:stop`` of an ``EventColumns`` (no event is built but for a
        variable's own filter, which reads one)."""
        rel = self.relevant
        types = events.types[start:stop]
        rows = None
        if rel is not None and not all(t in rel for t in types):
            rows = [k for k, t in enumerate(types) if t in rel]
        pick = (lambda xs: xs) if rows is None else (lambda xs: [xs[k] for k in rows])  # noqa: E731
        values = {a: pick(events.attribute(a, start, stop)) for a in self.attrs}
        keys = None
        if self.plan.eq_attrs:
            keys = list(zip(*(pick(events.attribute(a, start, stop)) for a in self.plan.eq_attrs)))
        seqs = np.asarray(pick(events.seqs[start:stop]), dtype=np.int64)
        at = (lambda k: events.event(start + k)) if rows is None else (lambda k: events.event(start + rows[k]))
        return self._block(pick(events.ids[start:stop]), pick(types), pick(events.ts[start:stop]), seqs, values,
                           keys, at)

    def _block(self, ids: list[Any], types: list[str], ts: list[Any], seq: np.ndarray,
               values: dict[str, list[Any]], keys: list[Any] | None, event_at: Callable[[int], Any]) -> _Block:
        """A block from a chunk's columns; ``event_at(k)``: the chunk's ``k``-th event (for the
        variables' own filters, the compiled closures over an event)."""
        plan = self.plan
        count = len(ids)
        coord = seq.astype(np.float64) if plan.count_window else np.array(ts, dtype=np.float64)
        type_array = np.array(types, dtype=object)
        takes: list[np.ndarray] = []
        evals = 0
        for t, f in zip(plan.types, plan.filters):
            mask = np.ones(count, dtype=bool) if t == ANY_TYPE else np.asarray(type_array == t, dtype=bool)
            if f is not None:
                idx = np.flatnonzero(mask)
                evals += len(idx)
                keep = np.fromiter((f(event_at(i)) is True for i in idx.tolist()), dtype=bool, count=len(idx))
                mask[idx[~keep]] = False
            takes.append(mask)
        self.owner.stats.predicate_evals += evals
        columns = {a: _column(v) for a, v in values.items()}
        return _Block(coord, ts, seq, ids, takes, columns, keys)

    # ------------------------------------------------------------------ a chunk
    def feed(self, events: Sequence[Any], out: list[Match]) -> None:
        """The matches whose last event is among ``events`` (in stream order), appended to ``out``
        in the chain's order (or counted)."""
        self.owner.stats.events += len(events)
        self._feed_block(self._columns(events), out)

    def feed_columns(self, events: Any, start: int, stop: int, out: list[Match]) -> None:
        """``feed`` of the events ``start:stop`` of an ``EventColumns``, read as columns."""
        self.owner.stats.events += stop - start
        self._feed_block(self._columns_of(events, start, stop), out)

    def _feed_block(self, new: _Block, out: list[Match]) -> None:
        owner = self.owner
        if not len(new):
            return
        block = new if self.block is None else self.block.join(new)
        first_new = len(block) - len(new)
        self._match(block, first_new, out)
        # keep what a later match may still start from: coordinates within W of the newest
        keep = int(np.searchsorted(block.coord, _window_floor(block.coord[-1:], self.plan.window)[0], side="left"))
        self.block = block.tail(keep)
        held = len(self.block)
        st = owner.stats
        st.buffer_entries += len(new)
        if held > st.buffer_peak:
            st.buffer_peak = held
        if held > owner.max_buffer:
            owner._explode(f"{held:,} buffered events in the window")

    def _match(self, block: _Block, first_new: int, out: list[Match]) -> None:
        plan = self.plan
        n = len(plan.vars)
        lasts = np.flatnonzero(block.takes[n - 1][first_new:]) + first_new
        if not len(lasts):
            return
        # each variable's candidates as sorted join keys: key code * span + position (the code of
        # the ``[key]`` equivalence, 0 without one), so a range of positions within one key is one
        # ``searchsorted`` pair
        span = len(block) + 1
        codes = np.zeros(len(block), dtype=np.int64)
        if block.keys is not None:
            index: dict[Any, int] = {}
            codes = np.fromiter((index.setdefault(k, len(index)) for k in block.keys), dtype=np.int64,
                                count=len(block.keys))
        candidates = []
        for t in block.takes:
            at = np.flatnonzero(t)
            joined = codes[at] * span + at
            joined.sort()
            candidates.append(joined)
        # the first position each last event's window may hold (loose: the exact test is at the end)
        lowest = np.searchsorted(block.coord, _window_floor(block.coord[lasts], plan.window), side="left")
        guard = current_guard()
        start = 0
        step = max(1, len(lasts))
        while start < len(lasts):
            stop = min(len(lasts), start + step)
            found = self._expand(block, candidates, lasts[start:stop], lowest[start:stop], codes, span)
            if found is None:  # too many partial tuples at once: smaller slices of last events
                if stop - start == 1:
                    owner = self.owner
                    owner._explode(f"more than {owner.max_instances:,} partial matches for one event")
                step = max(1, (stop - start) // 8)
                continue
            self._emit(block, found, out)
            if guard is not None:
                guard.check()
            start = stop

    def _expand(self, block: _Block, candidates: list[np.ndarray], lasts: np.ndarray, lowest: np.ndarray,
                codes: np.ndarray, span: int) -> list[np.ndarray] | None:
        """The match tuples ending at ``lasts``: positions per variable, or None when a step
        would hold more partial tuples than a slice may. ``candidates``: per variable, its
        events as sorted join keys (``codes * span + position``)."""
        plan = self.plan
        owner = self.owner
        st = owner.stats
        n = len(plan.vars)
        limit = min(_SLICE_TUPLES, owner.max_instances)
        pos: list[np.ndarray | None] = [None] * n
        pos[n - 1] = lasts
        low = lowest
        base = codes[lasts] * span  # the tuple's key (every variable shares it)
        for k in range(n - 2, -1, -1):
            cand = candidates[k]
            after = pos[k + 1]
            lo = np.searchsorted(cand, base + low, side="left")
            hi = np.searchsorted(cand, base + after, side="left")  # type: ignore[operator]
            counts = np.maximum(hi - lo, 0)
            total = int(counts.sum())
            if total > limit:
                return None
            rows = np.repeat(np.arange(len(after)), counts)  # type: ignore[arg-type]
            offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            base = base[rows]
            here = cand[np.repeat(lo, counts) + offsets] - base
            for j in range(k + 1, n):
                pos[j] = pos[j][rows]  # type: ignore[index]
            low = low[rows]
            pos[k] = here
            st.runs_created += total
            keep = np.ones(total, dtype=bool)
            if k == 0:  # the window, exactly as the chain tests it: last - first < W
                keep &= (block.coord[pos[n - 1]] - block.coord[here]) < plan.window
            for t in plan.tests:
                if k in (t.left, t.right) and max(t.left, t.right) > k and min(t.left, t.right) == k:
                    st.predicate_evals += total
                    keep &= _compare(t.op, block.columns[t.left_attr][pos[t.left]],
                                     block.columns[t.right_attr][pos[t.right]])
            if not keep.all():
                pick = np.flatnonzero(keep)
                pos = [None if x is None else x[pick] for x in pos]
                low = low[pick]
                base = base[pick]
        return pos  # type: ignore[return-value]

    def _emit(self, block: _Block, pos: list[np.ndarray], out: list[Match]) -> None:
        owner = self.owner
        n = len(pos)
        total = len(pos[0])
        if not total:
            return
        # one event's output is bounded as the chain bounds it
        per_last = np.unique(pos[n - 1], return_counts=True)[1]
        most = int(per_last.max())
        if most * n > owner.max_work:
            owner.explode(f"one event completed {most:,} matches",
                          f"{owner.max_work:,} enumeration steps and matched event ids per event")
        owner.stats.matches += total
        if self.count_only:
            self.counted += total
            return
        order = np.lexsort(tuple(pos[k] for k in range(n - 2, -1, -1)) + (pos[n - 1],))
        ids, ts, seq = block.ids, block.ts, block.seq
        names = self.plan.vars
        columns = [p[order].tolist() for p in pos]
        first, last = columns[0], columns[n - 1]
        seq_first, seq_last = seq[pos[0][order]].tolist(), seq[pos[n - 1][order]].tolist()
        if n == 3:
            (v0, v1, v2), (c0, c1, c2) = names, columns
            out.extend(Match(((v0, (ids[a],)), (v1, (ids[b],)), (v2, (ids[c],))), ts[a], ts[c], sa, sc)
                       for a, b, c, sa, sc in zip(c0, c1, c2, seq_first, seq_last))
            return
        for r in range(total):
            out.append(Match(tuple((v, (ids[col[r]],)) for v, col in zip(names, columns)),
                             ts[first[r]], ts[last[r]], seq_first[r], seq_last[r]))
