"""The columnar matcher for one quantified variable between fixed parts: ``A B+ C``, ``A B{2,} C D``
(one ``{lo,hi}`` / ``+`` / ``*`` of a single variable, greedy or reluctant, with fixed labels before
and after), when every DEFINE reads rows at fixed offsets from the match's start (in the fixed
part before) or from the row under test (itself, PREV / NEXT of it, the rows after the
quantified variable). Then the quantified variable's condition at a row depends on the start
and that row only, so its rows form one run from the start, and the preferred match is the
longest (greedy) or shortest (reluctant) run within the bounds after which the fixed part holds,
which is the thread matcher's preferred thread (matcher.py ``find``: the loop's body before its
exit when greedy, after it when reluctant). Every start row of a partition is searched at once:
one numpy step per row of the runs, then per tried run length.

Inlines, as engine/engines/sql/vector.py does, ``find`` and ``match_partition``'s walk (AFTER MATCH
SKIP PAST LAST ROW and TO NEXT ROW); anything else gives no plan, and a partition whose runs grow
beyond :data:`MAX_STEPS` numpy steps or :data:`WORK_PER_ROW` rows a row goes to the thread matcher
(:class:`TooLong`). The parity tests: tests/engines/sql/test_vector.py."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.engines.sql.binding import BoundQuery
from engine.engines.sql.expressions import Scope
from engine.engines.sql.row_pattern import Concat, Quantified, Var
from engine.engines.sql.search import RowMatch
from engine.engines.sql.vector import Compiled, Declined, Partition, _Compiler, fixed_labels

MAX_STEPS = 2_000      # numpy steps (rows of the longest run, then run lengths tried) in one partition
WORK_PER_ROW = 64      # start-row evaluations per row of the partition


class TooLong(Exception):
    """The partition's runs are too long for the columnar search: the thread matcher takes it."""


@dataclass
class KleenePlan:
    before: tuple[str, ...]
    var: str
    low: int
    high: int | None
    greedy: bool
    after: tuple[str, ...]
    first: list[Compiled]          # the DEFINEs of the labels before, over the starts
    body: Compiled | None          # the quantified variable's DEFINE at the row under test
    last: list[tuple[int, Compiled]]  # (place after the run, DEFINE) of the labels after
    step_past: bool                # SKIP PAST LAST ROW (else TO NEXT ROW)
    columns: dict[str, Any]

    def matches(self, index: Any) -> tuple[list[RowMatch], list[int], int]:
        k, m2, low, high = len(self.before), len(self.after), self.low, self.high
        n = len(index)
        count = n - (k + low + m2) + 1
        if count <= 0:
            return [], list(range(n)), 0
        part = Partition(self.columns, index, count)
        ok = np.ones(count, dtype=bool)
        work = 0
        for cond in self.first:
            got = cond(part)
            work += count
            ok &= got.values if got.null is None else got.values & ~got.null
        alive = np.flatnonzero(ok)
        room = n - m2 - k - alive  # the longest run that leaves room for the labels after
        cap = room if high is None else np.minimum(room, high)
        if self.body is None:
            run = cap
        else:
            run = np.zeros(len(alive), dtype=np.int64)
            active = np.arange(len(alive))
            t = 0
            while active.size:
                active = active[cap[active] > t]
                if not active.size:
                    break
                t += 1
                if t > MAX_STEPS or work > WORK_PER_ROW * n + 1_000:
                    raise TooLong
                part.start_rows = alive[active]
                part.current = part.start_rows + k + t - 1
                part.starts = active.size
                got = self.body(part)
                work += active.size
                held = got.values if got.null is None else got.values & ~got.null
                active = active[held]
                run[active] = t
        # the run length j tried first, then one less (greedy) or one more (reluctant)
        top = np.minimum(run, cap)
        pending = np.flatnonzero(top >= low)
        length = np.full(len(alive), -1, dtype=np.int64)
        j = top[pending].copy() if self.greedy else np.full(len(pending), low, dtype=np.int64)
        tries = 0
        while pending.size:
            tries += 1
            if tries > MAX_STEPS or work > WORK_PER_ROW * n + 1_000:
                raise TooLong
            held = np.ones(pending.size, dtype=bool)
            for place, cond in self.last:
                part.start_rows = alive[pending]
                part.current = part.start_rows + k + j + place
                part.starts = pending.size
                got = cond(part)
                work += pending.size
                held &= got.values if got.null is None else got.values & ~got.null
            length[pending[held]] = j[held]
            keep = ~held
            pending, j = pending[keep], j[keep] + (-1 if self.greedy else 1)
            inside = (j >= low) & (j <= top[pending])
            pending, j = pending[inside], j[inside]
        found_at = np.flatnonzero(length >= 0)
        starts = alive[found_at].tolist()
        runs = length[found_at].tolist()
        matches: list[RowMatch] = []
        free = 0
        for s, j_ in zip(starts, runs):
            if s < free:
                continue
            size = k + j_ + m2
            labels = self.before + (self.var,) * j_ + self.after
            matches.append(RowMatch(s, labels, (False,) * size, len(matches) + 1))
            free = s + size if self.step_past else s + 1
        covered = np.zeros(n + 1, dtype=np.int64)
        if matches:
            at = np.asarray([m.start for m in matches], dtype=np.int64)
            ends = np.asarray([m.end + 1 for m in matches], dtype=np.int64)
            np.add.at(covered, at, 1)
            np.add.at(covered, ends, -1)
        unmatched = np.flatnonzero(np.cumsum(covered[:n]) == 0).tolist()
        return matches, unmatched, work


def plan_kleene(bound: BoundQuery, arrow: Any) -> KleenePlan | None:
    q = bound.query
    if q.within is not None or q.after_match[0] not in ("past_last", "next_row") or q.pattern is None:
        return None
    parts = list(q.pattern.parts) if isinstance(q.pattern, Concat) else [q.pattern]
    loose = [i for i, p in enumerate(parts) if fixed_labels(p) is None]
    if len(loose) != 1:
        return None
    node = parts[loose[0]]
    if not (isinstance(node, Quantified) and isinstance(node.body, Var)):
        return None
    before = fixed_labels(Concat(tuple(parts[:loose[0]])))
    after = fixed_labels(Concat(tuple(parts[loose[0] + 1:])))
    if before is None or after is None:
        return None
    var = node.body.name
    if node.min == 0 and not before and not after:
        return None  # an empty match
    columns: dict[str, Any] = {}

    def compile_at(label: str, resolver: Any, position: int, layout: list[str]) -> Compiled | None:
        e = q.defines.get(label)
        if e is None:
            return None
        scope = Scope(q.source, bound.columns, bound.variables, q.subsets, "define", defining=label)
        compiler = _Compiler(scope, e.offset, layout, position, arrow, columns)
        if resolver is not None:
            compiler.resolve = resolver  # type: ignore[method-assign]
        return compiler.condition(e.tree)

    try:
        first = [c for i, v in enumerate(before) if (c := compile_at(v, None, i, before)) is not None]
        body = compile_at(var, _Resolver(before, var, None, 0, node.min).resolve, 0, before)
        last = []
        for place, v in enumerate(after):
            c = compile_at(v, _Resolver(before, var, after, place, node.min).resolve, 0, before)
            if c is not None:
                last.append((place, c))
    except Declined:
        return None
    return KleenePlan(tuple(before), var, node.min, node.max, node.greedy, tuple(after), first, body, last,
                      q.after_match[0] == "past_last", columns)


class _Resolver:
    """Where a reference in the quantified variable's DEFINE (``after`` None) or in the DEFINE of
    the ``place``-th label after it reads: ("start", offset) in the labels before, ("current",
    offset) from the row under test, or None (no row); Declined where it depends on the run."""

    def __init__(self, before: list[str], var: str, after: list[str] | None, place: int, low: int):
        self.before, self.var, self.after, self.place, self.low = before, var, after, place, low

    def resolve(self, members: frozenset[str] | None, navigation: str | None, offset: int) -> tuple[str, int] | None:
        def hit(label: str) -> bool:
            return members is None or label in members
        shift = 0 if navigation in ("FIRST", "LAST", None) else (-offset if navigation == "PREV" else offset)
        early = [("start", i) for i, v in enumerate(self.before) if hit(v)]
        run_has = hit(self.var) and (self.after is None or self.low >= 1)
        late: list[tuple[str, int]] = []
        if self.after is not None:
            late = [("current", i - self.place) for i, v in enumerate(self.after[:self.place + 1]) if hit(v)]
        if navigation == "FIRST":
            if offset < len(early):
                return early[offset]
            if offset == len(early) and run_has:
                return ("start", len(self.before))
            if offset == len(early) and not hit(self.var) and late:
                return late[0]
            raise Declined
        back = offset if navigation == "LAST" else 0
        if late:
            if back < len(late):
                base, at = late[-1 - back]
                return base, at + shift
            raise Declined
        if run_has:
            if back:
                raise Declined
            at = 0 if self.after is None else -self.place - 1  # the row under test, or the run's last row
            return "current", at + shift
        if hit(self.var):
            raise Declined
        if back < len(early):
            base, at = early[-1 - back]
            return base, at + shift
        return None
