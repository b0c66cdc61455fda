"""The event, expiry and un-sharing of ``Counters`` when the STARTs' counters are shared
(engine/engines/aseq/shared_starts.py; docs/papers.md, "A-Seq").

``SharedFeed`` is the part of ``engine.engines.aseq.core.Counters`` used while
``Counters.shared`` holds (COUNT, a window, no START-anchored predicate, no Chop-Connect,
no tracer): ``_feed_shared`` is ``Counters.feed`` and ``_expire_shared`` is
``Counters.expire_to`` with one :class:`StartPool` per partition in place of its START trees;
the running totals per query and group (``tot``), the outputs and the statistics are the
same. ``unshare`` turns the pools back into per-START trees (for the trace and the views).
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable

from engine.events import Event
from engine.sentinel import Sentinel
from engine.engines.aseq.plan import NegSpec
from engine.engines.aseq.prefix_tree import GroupTotals, Node, PartitionState, QuerySpec, Tree
from engine.engines.aseq.shared_starts import PlainOp, StartMark, StartPool
from engine.engines.aseq.values import Val

__all__ = ["SharedFeed", "EventPlan"]

#: What one event does on the shared path: its update ops (descending depth), the START
#: nodes it starts, the terminal nodes whose sums it may change, the nodes it is a TRIG of,
#: and how many of its ops reset.
EventPlan = tuple[tuple[PlainOp, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int]

_UNSEEN = Sentinel("aseq.UNSEEN")  # a type whose plan is not cached yet


class SharedFeed:
    """The shared half of ``Counters`` (see the module docstring); the attributes below are
    ``Counters``' own."""

    nodes: list[Node]
    order: list[int]
    queries: list[QuerySpec]
    window: float | None
    count_window: bool
    parts: dict[Any, PartitionState]
    expiry: deque[Any]
    members: list[dict[Any, set[Any]]]
    tot: list[dict[Any, GroupTotals]]
    plain_term: dict[int, list[int]]
    trig_nodes: dict[int, list[int]]
    shared: bool
    next_id: int
    live: int
    peak: int
    max_live: int
    updates: int
    resets: int
    now_coord: float | None
    on_explode: Callable[[str, str], None] | None
    _shared_cache: dict[str, EventPlan | None]

    def _candidates(self, t: str) -> tuple[list[int], list[tuple[int, NegSpec]]]:  # pragma: no cover
        raise NotImplementedError

    def coord(self, e: Event) -> float:  # pragma: no cover - Counters defines it
        raise NotImplementedError

    def groups_of(self, e: Event) -> tuple:  # pragma: no cover - Counters defines it
        raise NotImplementedError

    def value(self, qi: int, group: Any, inclusive: bool = False) -> Val:  # pragma: no cover
        raise NotImplementedError

    # ------------------------------------------------------------------ the event

    def _event_plan(self, e: Event | None, t: str) -> EventPlan | None:
        """The event's plan from its type and (``e`` given) its local predicates, as
        ``Counters.feed`` builds its ops; without ``e``, None if a local predicate is involved."""
        fit, negs = self._candidates(t)
        nodes = self.nodes
        if e is None and (any(nodes[j].local for j in fit) or any(r.local for _j, r in negs)):
            return None
        fits = {j for j in fit if e is None or all(f(e) for f in nodes[j].local)}
        resets = {j for j, r in negs if e is None or all(f(e) for f in r.local)}
        ops = tuple((j, nodes[j].parent, j in fits and nodes[j].parent >= 0, j in resets) for j in self.order
                    if (j in fits and nodes[j].parent >= 0) or j in resets)
        starts = tuple(j for j in fit if j in fits and nodes[j].parent < 0 and not nodes[j].blocked)
        terms = tuple(j for j in self.plain_term if j in starts or any(j == op[0] for op in ops))
        trig = tuple(j for j in fit if j in fits and j in self.trig_nodes)
        return ops, starts, terms, trig, sum(1 for op in ops if op[3])

    def _feed_shared(self, e: Event, pkey: Any) -> list[tuple[int, Any, Val]]:
        """``Counters.feed`` on shared counters: the same outputs and totals."""
        plan = self._shared_cache.get(e.type, _UNSEEN)
        if plan is _UNSEEN:
            plan = self._shared_cache[e.type] = self._event_plan(None, e.type)
        if plan is None:
            plan = self._event_plan(e, e.type)
        assert plan is not None
        ops, starts, terms, trig, n_resets = plan
        if not ops and not starts and not trig:
            return []
        coord = self.now_coord = e.seq if self.count_window else e.ts   # self.coord(e), inlined
        part = self.parts.get(pkey)
        olds: list[tuple[int, int]] = []
        if part is not None:
            pool: StartPool = part.pool
            if terms:
                olds = [(j, pool.value(j)) for j in terms]
            if ops:
                vectors = pool.update(ops)
                self.updates += len(ops) * vectors
                self.resets += n_resets * vectors
        if starts:
            fresh = part is None
            if part is None:
                groups = self.groups_of(e)
                part = self.parts[pkey] = PartitionState(groups)
                part.pool = StartPool(len(self.nodes))
                for qi, g in enumerate(groups):
                    self.members[qi].setdefault(g, set()).add(pkey)
            assert self.window is not None
            mark = StartMark(self.next_id, e, coord, coord + self.window, pkey, starts)
            self.next_id += 1
            part.pool.add_start(mark, () if fresh else ops)
            self.expiry.append(mark)
            self.live += 1
            self.updates += len(starts)
            if self.live > self.peak:
                self.peak = self.live
            if self.live > self.max_live and self.on_explode is not None:
                self.on_explode(f"{self.live:,} live prefix counters and snapshot rows", f"{self.max_live:,}")
            if fresh:
                olds = [(j, 0) for j in terms]
        if part is not None:
            pool = part.pool
            for j, old in olds:
                new = pool.value(j)
                if new != old:
                    self._add_count(part.groups, j, new - old)
        out: list[tuple[int, Any, Val]] = []
        if trig:
            groups = part.groups if part is not None else self.groups_of(e)
            for j in trig:
                for qi in self.trig_nodes[j]:
                    # self.value(qi, g) for an unchopped COUNT (the only query here), inlined:
                    # the group's running count; parity: test_shared_starts (against the per-START path)
                    g = groups[qi]
                    tot = self.tot[qi].get(g)
                    out.append((qi, g, Val(tot.count if tot is not None else 0)))
        return out

    def _add_count(self, groups: tuple, j: int, dc: int) -> None:
        """``Counters._totals`` for a count alone (no channel on the shared path)."""
        for qi in self.plain_term.get(j, ()):
            g = groups[qi]
            tot = self.tot[qi].get(g)
            if tot is None:
                tot = self.tot[qi][g] = GroupTotals()
            tot.count += dc

    # ------------------------------------------------------------------ time

    def _expire_shared(self, now: float, emit: bool) -> list[tuple[float, int, Any, Val, Val]]:
        """``Counters.expire_to`` on shared counters."""
        ex = self.expiry
        if not emit:
            # fast path: the loop below without its batches by expiry time (they only serve the
            # values before and after); parity: test_shared_starts (emit trig against per START)
            while ex and ex[0].exp <= now:
                self._drop_shared(ex.popleft())
            return []
        out: list[tuple[float, int, Any, Val, Val]] = []
        while ex and ex[0].exp <= now:
            t_exp = ex[0].exp
            batch: list[StartMark] = []
            while ex and ex[0].exp == t_exp:
                batch.append(ex.popleft())
            before: dict[tuple[int, Any], Val] = {}
            if emit:
                self.now_coord = t_exp
                for m in batch:
                    for qi, g in enumerate(self.parts[m.part].groups):
                        if (qi, g) not in before:
                            before[(qi, g)] = self.value(qi, g, inclusive=True)
            for m in batch:
                self._drop_shared(m)
            if emit:
                self.now_coord = t_exp
                for (qi, g), old in before.items():
                    out.append((t_exp, qi, g, old, self.value(qi, g)))
        return out

    def _drop_shared(self, m: StartMark) -> None:
        part = self.parts[m.part]
        pool: StartPool = part.pool
        olds = [(j, pool.value(j)) for j in self.plain_term]
        gone = pool.pop_oldest()
        assert gone is m, "STARTs leave a partition in arrival order"
        for j, old in olds:
            new = pool.value(j)
            if new != old:
                self._add_count(part.groups, j, new - old)
        self.live -= 1
        if not pool.fmarks and not pool.bmarks:  # len(pool) == 0, inlined
            del self.parts[m.part]
            for qi, g in enumerate(part.groups):
                mem = self.members[qi].get(g)
                if mem is not None:
                    mem.discard(m.part)
                    if not mem:
                        del self.members[qi][g]
                        self.tot[qi].pop(g, None)

    # ------------------------------------------------------------------ un-sharing

    def unshare(self) -> None:
        """Per-START trees again (what the trace and the views show), each with its own
        counters now; later events take the per-START path."""
        if not self.shared:
            return
        self.shared = False
        n = len(self.nodes)
        trees: dict[int, Tree] = {}
        for pkey, part in self.parts.items():
            for mark, vec in part.pool.vectors():
                t = Tree(mark.id, mark.event, mark.coord, mark.exp, pkey, part.groups, n, 0)
                t.cnt = vec
                t.roots.update(mark.roots)
                part.trees.append(t)
                trees[id(mark)] = t
            part.pool = None
        self.expiry = deque(trees[id(m)] for m in self.expiry)
