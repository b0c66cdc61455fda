"""NFA^b match construction (SASE+ §4.8 second phase, §4.9): a run that reached F has its
matches read back from the shared buffer, one per live member of a merged run, checked
against negations, de-duplicated per completing event; matches that wait for a trailing
negation's window to close; OUTPUT NON_OVERLAP.

:class:`MatchConstruction` is a part of ``NfabMatcher`` (engine.engines.nfab.matcher): it
reads the matcher's state, which that class's ``__init__`` sets up.
"""
from __future__ import annotations

import heapq
from time import perf_counter
from typing import Any, Callable

from engine.events import Event
from engine.memory import current_guard
from engine.match import Match, overlap_rank
from engine.model import ANY_TYPE
from engine.engines.nfab import trace as nfab_trace
from engine.engines.nfab.compiler import Chain
from engine.engines.nfab.edge_plans import ChainPlan
from engine.engines.nfab.paths import NO_PATH, PathIds, PathMatch
from engine.engines.nfab.runs import Run
from engine.engines.nfab.shared_buffer import Entry, Member, Members

__all__ = ["MatchConstruction"]


class MatchConstruction:
    """Reading matches back, negation, de-duplication, trailing negation, NON_OVERLAP: the
    methods of ``NfabMatcher`` that run once a run reaches F."""

    # the matcher's state these methods read (set by NfabMatcher.__init__ and MatcherBase)
    stats: Any
    tracer: Any
    explode: Callable[..., Any]
    window_size: float | None
    now: float
    order: list[str]
    _order: tuple[str, ...]
    count_only: bool
    _countable: bool
    counted: int
    work: int
    max_work: int
    neg_store: dict[Any, Any]
    neg_conj: dict[str, list[Any]]
    pending: list[tuple[float, int, Any]]
    _tiebreak: int
    last_end: dict[Any, int]
    parts: dict[Any, list[Run]]
    alive: int
    _coord: Callable[[Event], float]

    @staticmethod
    def _walk(x: Entry | None, label: tuple[int, ...],
              switches: tuple[tuple[Entry, tuple[int, ...]], ...] = ()) -> list[Entry]:
        """Entries from ``x`` back to the run's first, following at each entry the pointer
        whose label is the longest prefix of the version (§4.9); at a member's switch entry
        the member's own version takes over. Returned newest first. Fast path: an entry with
        one pointer is passed without Entry.follow, which inlines it (parity:
        tests/engines/nfab/test_paths.py::test_follow_and_walk_agree_with_a_brute_force_search)."""
        out = []
        switch = 0
        switch_count = len(switches)
        while x is not None:
            if switch < switch_count and switches[switch][0] is x:
                label = switches[switch][1]
                switch += 1
            out.append(x)
            pointers = x.pointers
            x = pointers[0][1] if len(pointers) == 1 else x.follow(label)
        return out

    def _emit(self, r: Run, chain_plan: ChainPlan, e: Event, emitted: dict) -> None:
        """Run ``r`` reached F on ``e``: its matches, timed as the construction phase."""
        t0 = perf_counter()
        try:
            self._construct(r, chain_plan, e, emitted)
        finally:
            ps = self.stats.phase_seconds
            ps["construction"] = ps.get("construction", 0.0) + perf_counter() - t0

    def _live(self, r: Run, end: float) -> Members:
        """The members of merged run ``r`` still inside the window at coordinate ``end``."""
        live: Members = r.members  # type: ignore[assignment]
        W = self.window_size
        if W is not None and end - live.earliest_start >= W:
            # expired members never match again, for no run sharing the list (time only
            # advances): drop them in place, once for the whole lineage. Traced or not the
            # same, so that a trace started from an untraced snapshot (engine/checkpoints.py)
            # shows the members a trace from the start shows.
            live[:] = [m for m in live if end - m.start < W]
            live.earliest_start = min((m.start for m in live), default=float("inf"))
        return live

    def _construct(self, r: Run, chain_plan: ChainPlan, e: Event, emitted: dict) -> None:
        """Match construction (§4.8 second phase): read each live member's match back from
        the shared buffer, check negations, de-duplicate."""
        W = self.window_size
        end = self.now  # the coordinate of e, the event being fed
        chain = chain_plan.chain
        if r.members:
            live = self._live(r, end)
            if self.count_only and self._countable:
                self.counted += len(live)
                self.stats.matches += len(live)
                return
            members = [(m.start, m.switches) for m in live]
        else:
            members = [(r.start, ())] if W is None or end - r.start < W else []
            if self.count_only and self._countable:
                self.counted += len(members)
                self.stats.matches += len(members)
                return
        if not members:
            return
        order = self.order
        variable_of = chain_plan.variable_of
        if not chain.negations:
            self._construct_paths(r, chain_plan, e, emitted, live if r.members else None)
            return
        # Walk the representative's path once, as deep as the live members need (§4.9).
        need_full = any(not sw for _, sw in members)
        targets = {id(sw[0][0]) for _, sw in members if sw}
        rep: list[Entry] = []
        rep_pos: dict[int, int] = {}
        trail = r.trail
        while trail is not None and (need_full or targets):
            x, trail = trail
            xid = id(x)
            if xid in targets:
                targets.discard(xid)
                rep_pos[xid] = len(rep)
            rep.append(x)
        if targets:
            raise AssertionError("merge entry not on the representative's path")
        # The representative's path oldest first, cut into runs of one variable, so that a
        # member's ids are slices of it plus its own older part.
        rev = rep[::-1]
        n = len(rev)
        rev_ids = [x.event.id for x in rev]
        segments: list[tuple[str, int, int]] = []
        for k, x in enumerate(rev):
            v = variable_of[x.state]
            if segments and segments[-1][0] == v:
                segments[-1] = (v, segments[-1][1], k + 1)
            else:
                segments.append((v, k, k + 1))  # type: ignore[arg-type]
        for start, switches in members:
            if not switches:
                k = 0
                tail: list[Entry] = []
            else:  # shared with the representative up to the first switch entry
                k = n - rep_pos[id(switches[0][0])]
                tail = self._walk(switches[0][0], r.version, switches)[::-1]
            ids: dict[str, list[Any]] = {v: [] for v in order}
            for ent in tail:
                ids[variable_of[ent.state]].append(ent.event.id)  # type: ignore[index]
            for v, s0, s1 in segments:
                if s1 > k:
                    ids[v].extend(rev_ids[max(s0, k):s1])  # type: ignore[index]
            first_ev = tail[0].event if tail else rev[k].event
            last_ev = rev[-1].event
            if chain.negations:
                bound: dict[str, list[Event]] = {v: [] for v in order}
                for ent in tail + rev[k:]:
                    bound[variable_of[ent.state]].append(ent.event)  # type: ignore[index]
            if chain.negations:
                blocker = self._negation_blocker(chain, bound, r.partition, trailing=False)
                if blocker is not None:
                    if self.tracer is not None:
                        nfab_trace.negated(self, r, chain_plan, bound, blocker, e)
                    continue
            m = Match(tuple((v, tuple(ids[v])) for v in order), first_ev.ts, last_ev.ts,
                      first_ev.seq, last_ev.seq)
            self.work += 1 + len(rev) - k + len(tail)
            if self.work > self.max_work:
                self.explode(f"one event completed {len(emitted):,} matches and had more to build",
                             f"{self.max_work:,} matched event ids per event")
            if m.key in emitted:
                continue
            if chain.negations and any(n.before is None for n in chain.negations):
                self._tiebreak += 1
                deadline = self._coord(first_ev) + (W or 0)
                emitted[m.key] = None  # de-dup marker; the match waits for its window to close
                heapq.heappush(self.pending, (deadline, self._tiebreak, (m, chain, bound, r.partition)))
                if self.tracer is not None:
                    nfab_trace.wait_negation(self, r, chain_plan, m, deadline, e)
                continue
            emitted[m.key] = m
            if self.tracer is not None:
                nfab_trace.matched(self, r, chain_plan, m, e)

    def _construct_paths(self, r: Run, chain_plan: ChainPlan, e: Event, emitted: dict,
                         live: list[Member] | None) -> None:
        """No negation: each live member's match is read from the run's path (extending the
        lineage's memo) and, for a merged member, its own older part (kept on the member).
        The matches are :class:`PathMatch`: bindings built when read, JSON text by slicing."""
        lo = 0 if live is None or any(not mem.switches for mem in live) else min(mem.cut for mem in live)
        path = self._path(r, chain_plan.variable_of, lo)
        order = self._order
        last_ev = r.trail[0].event  # type: ignore[index]
        if live is None:
            first = path.first
            self._add(PathMatch(path, None, 0, order, first.ts, last_ev.ts, first.seq, last_ev.seq),
                      path.depth, r, chain_plan, e, emitted)
            return
        tick = current_guard().tick  # one tick per match read
        for mem in live:
            tick()
            if not mem.switches:
                first = path.first
                m = PathMatch(path, None, 0, order, first.ts, last_ev.ts, first.seq, last_ev.seq)
                n = path.depth
            else:
                tail = mem.tail
                if tail is None:
                    ents = self._walk(mem.switches[0][0], r.version, mem.switches)
                    ents.reverse()
                    tail = mem.tail = NO_PATH.extend(None, len(ents), ents, chain_plan.variable_of)
                first = tail.first
                m = PathMatch(path, tail, mem.cut, order, first.ts, last_ev.ts, first.seq, last_ev.seq)
                n = len(tail.ids) + path.depth - mem.cut
            self._add(m, n, r, chain_plan, e, emitted)

    def _path(self, r: Run, variable_of: list[Any], lo: int) -> PathIds:
        """The ids of the run's path from position ``lo`` on. The path without its newest
        entry is kept as the lineage's memo; a later match of the lineage walks back only
        to it. Positions before ``lo`` (read by no live member: they only expire) are
        dropped from the memo once they are most of it."""
        head, rest = r.trail  # type: ignore[misc]
        depth = r.depth - 1
        holder = r.memo
        memo = holder[0]
        newer: list[Entry] = []
        c = rest
        steps = depth - memo.depth
        if memo.cell is not None and steps >= 0 and memo.depth - len(memo.ids) <= lo:
            for _ in range(steps):
                newer.append(c[0])
                c = c[1]
            if c is not memo.cell:
                memo = None  # another branch's prefix
        else:
            memo = None
        if memo is None:  # read from the trail, as deep as position lo
            newer = []
            c = rest
            for _ in range(depth - lo if depth > lo else 0):
                newer.append(c[0])
                c = c[1]
            memo = NO_PATH if depth <= lo or lo == 0 else PathIds(None, lo, (), (), None, "", [])
        newer.reverse()
        prefix = memo.extend(rest, depth, newer, variable_of)
        if lo - prefix.base > len(prefix.ids) // 2:
            prefix = prefix.trim(lo)
        if rest is not None:
            holder[0] = prefix
        return prefix.extend(r.trail, depth + 1, [head], variable_of)

    def _add(self, m: Match, n: int, r: Run, chain_plan: ChainPlan, e: Event, emitted: dict) -> None:
        """A built match of ``n`` events: counted against the work limit, de-duplicated."""
        self.work += 1 + n
        if self.work > self.max_work:
            self.explode(f"one event completed {len(emitted):,} matches and had more to build",
                         f"{self.max_work:,} matched event ids per event")
        if self._countable:
            # one SEQ alternative without negation: distinct runs and members have distinct
            # paths, so nothing to de-duplicate and the bindings are not built here
            key: Any = id(m)
        else:
            key = m.key
            if key in emitted:
                return
        emitted[key] = m
        if self.tracer is not None:
            nfab_trace.matched(self, r, chain_plan, m, e)

    def _negation_blocker(self, chain: Chain, bound: dict[str, list[Event]], part: Any,
                          trailing: bool) -> Event | None:
        """The first qualifying negated event that forbids this match, or None."""
        store = self.neg_store.get(part)
        if not store:
            return None
        comps = chain.comps
        first = min((ev for evs in bound.values() for ev in evs), key=lambda x: x.seq)
        for n in chain.negations:
            if (n.before is None) != trailing:
                continue
            lo = bound[comps[n.after].var][-1].seq
            if n.before is not None:
                hi = bound[comps[n.before].var][0].seq
            else:
                hi = None
            t = n.comp.type
            conj = self.neg_conj[n.comp.var]
            for x in store:
                if x.seq <= lo:
                    continue
                if hi is not None and x.seq >= hi:
                    break
                if (hi is None and self.window_size is not None
                        and self._coord(x) - self._coord(first) >= self.window_size):
                    break
                if t != ANY_TYPE and x.type != t:
                    continue
                b2 = dict(bound)
                b2[n.comp.var] = [x]
                self.stats.predicate_evals += 1
                if all(c.holds(b2) for c in conj):
                    return x
        return None

    def _finalize_pending(self, now: float | None, out: list[Match]) -> None:
        while self.pending and (now is None or self.pending[0][0] <= now):
            _, _, (m, chain, bound, part) = heapq.heappop(self.pending)
            blocker = self._negation_blocker(chain, bound, part, trailing=True)
            if self.tracer is not None:
                nfab_trace.pending_done(self, m, chain, bound, blocker)
            if blocker is None:
                out.append(m)
                self.stats.matches += 1 if now is None else 0

    def _non_overlap(self, part: Any, ms: list[Match]) -> list[Match]:
        ms = [m for m in ms if m is not None]
        ms.sort(key=overlap_rank)
        keep = []
        last = self.last_end.get(part, -1)
        for m in ms:
            if m.start_seq > last:
                keep.append(m)
                last = m.end_seq
        if keep:
            self.last_end[part] = last
            runs = self.parts.pop(part, None)
            if runs:
                self.alive -= len(runs)
        return keep
