"""NFA^b runtime (SASE+ §5.1-§5.3; docs/papers.md, "SASE+ / NFA^b"): runs as computation states evaluated
in lock-step, cloned on non-determinism, over a shared versioned match buffer, with
merging of equivalent runs.

A run is (version, state, entry, start, V): ``entry`` is its latest entry in the shared
buffer and ``V`` the value vector its future edges need (``a[1].symbol``, running sum/count
of ``a[..i-1].price``, ``a[a.len].volume``...). The buffer has one stack per state; an
entry is (state, event) with predecessor pointers labelled by the Dewey version of the
run that wrote them; a match is read back by following, from the final entry, the
pointer whose label is the longest prefix of the run's version (§4.9, "split-path
Dewey"). Two runs at the same state that just wrote the same entry and agree on the
part of V their future needs are merged (§4.10); the combined run keeps each member's
start and version path, and a match is produced per member still inside the window.

This module holds :class:`NfabMatcher`: the step (feed, the edges of a waiting run, the
buffer writes), merging and housekeeping. The buffer is in ``shared_buffer``, runs in
``runs``, the compiled edges in ``edge_plans``, match construction in
``match_construction`` (engine.engines.nfab).

Semantics fixed by the notes: proceed is atomic with the next state's begin (peek,
§6.4); a Kleene component last in the pattern emits after each begin/take when its
proceed-to-F holds (§8.2.3); negated-type events go to a negation store and never break
contiguity (§8.2.7); matches are de-duplicated per completing event.
"""
from __future__ import annotations

from operator import attrgetter
from collections import deque
from typing import Any, Callable

from engine.bindings import Conjunct, conjunct
from engine.events import Event
from engine.model import ANY_TYPE, Pattern, Strategy
from engine.memory import current_guard
from engine.match import Match, MatcherBase, Tracer
from engine.engines.nfab import trace as nfab_trace
from engine.engines.nfab.edge_plans import ChainPlan, compiled_chains, partition_attribute
from engine.engines.nfab.match_construction import MatchConstruction
from engine.engines.nfab.runs import POISONED, Run, ValueVector
from engine.engines.nfab.shared_buffer import Entry, Member, Members

__all__ = ["DEFAULT_MAX_BUFFER", "DEFAULT_MAX_RUNS", "DEFAULT_MAX_WORK", "NfabMatcher", "SWEEP_EVERY"]

DEFAULT_MAX_RUNS = 2_000_000
DEFAULT_MAX_BUFFER = 6_000_000
DEFAULT_MAX_WORK = 5_000_000  # matched event ids one input event may produce
SWEEP_EVERY = 2048


class NfabMatcher(MatchConstruction, MatcherBase):
    """NFA^b matcher. Options: ``share`` (shared versioned buffer; off = one entry per
    write), ``merge`` (merge equivalent runs; needs share), ``max_runs`` / ``max_buffer``
    (state guard), ``tracer`` (receives one dict per step)."""

    name = "nfab"

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, share: bool = True, merge: bool = True,
                 max_runs: int = DEFAULT_MAX_RUNS, max_buffer: int = DEFAULT_MAX_BUFFER,
                 push_window: bool = True, peek: bool = True, max_work: int = DEFAULT_MAX_WORK,
                 count_only: bool = False):
        super().__init__(pattern, tracer)
        # §4.5 optimisations. push_window (step 5): a run dies on any edge once it left the
        # window (off: only the edge into F checks it; same matches, more live runs).
        # peek (step 6): proceed is atomic with the next state's begin (off: the proceed
        # edge is `true` and the next state decides on the same event; under
        # skip_till_next_match this changes the matches, see sase-nfab.md §6.4).
        self.push_window = push_window
        self.peek = peek
        self.nfa, self.chain_plans = compiled_chains(pattern)
        self.share = share
        self.merge = merge and share
        self.max_runs = max_runs
        self.max_buffer = max_buffer
        self.max_work = max_work
        # count_only: matches are counted, never built (``cep run --format count``), where
        # that is exact: one SEQ alternative (no de-duplication across alternatives), no
        # negation to check per match, OUTPUT ALL. Elsewhere matches are built as usual.
        self.count_only = count_only
        # Without the peek (the unoptimised proceed), runs reaching the same state by an
        # ε-move can complete the same match, so the count needs de-duplication there.
        self._countable = (len(self.chain_plans) == 1 and not self.chain_plans[0].chain.negations
                           and pattern.output != "NON_OVERLAP" and peek)
        self.counted = 0
        # lean: counting where that is exact and nobody traces. No match is ever read back,
        # so the buffer keeps no entries (a write only marks what the runs of this step
        # wrote, for merging) and an emit only counts the live members. Fast path: _write and
        # _emit are replaced by _write_mark and _count, which inline a write without the
        # stack, pointers and trail, and a construction that only counts (parity with the
        # matches built: tests/engines/nfab/test_count.py, tests/engines/nfab/test_paths.py::_check).
        self._lean = count_only and self._countable and tracer is None
        if self._lean:
            self._write = self._write_mark  # type: ignore[method-assign]
            self._emit = self._count  # type: ignore[method-assign]
        self.work = 0  # matched event ids built for the current event
        self.stats.extra.update({"clones_take_proceed": 0, "clones_ignore_proceed": 0, "clones_take_ignore": 0,
                                 "clones_begin_ignore": 0, "runs_merged": 0, "runs_killed": 0})
        self.strategy = pattern.strategy
        w = pattern.window
        self.window_size: float | None = w.size if w else None
        self._edge_window = self.window_size if push_window else None  # the window every edge checks
        self.count_window = bool(w and w.is_count)
        self.key = self.nfa.key
        self.key_any = self.key.uniform if self.key else None
        self._partition_of = self._partitioner()
        comps = pattern.components()
        self.pos_types = {c.type for c in comps if not c.negated}
        self.neg_types = {c.type for c in comps if c.negated}
        self.any_pos = ANY_TYPE in self.pos_types
        self.any_neg = ANY_TYPE in self.neg_types
        self.order = self.nfa.order
        # the start states: (type, any type, chain, begin formula)
        self._starts = [(plan.types[0], plan.types[0] == ANY_TYPE, plan, plan.begin[0]) for plan in self.chain_plans]
        self._order = tuple(self.order)
        kleene = {c.var for c in comps if c.kleene}
        self.neg_conj: dict[str, list[Conjunct]] = {}
        for ch in self.nfa.chains:
            for n in ch.negations:
                self.neg_conj.setdefault(n.comp.var, [conjunct(e, kleene) for e in n.conjuncts])
        self.parts: dict[Any, list[Run]] = {}
        self.neg_store: dict[Any, deque[Event]] = {}
        self.stacks: dict[tuple[int, int], deque[Entry]] = {}
        self.pending: list[tuple[float, int, Any]] = []  # trailing negation: (deadline, tiebreak, payload)
        self._tiebreak = 0
        self.next_id = 0
        self.alive = 0
        self.buffer_live = 0
        self.non_overlap = pattern.output == "NON_OVERLAP"
        self.last_end: dict[Any, int] = {}
        self._events_since_sweep = 0
        self.now: float = float("-inf")

    # ------------------------------------------------------------------ helpers
    def _coord(self, e: Event) -> float:
        return e.seq if self.count_window else e.ts

    def _partitioner(self) -> Callable[[Event], Any]:
        """The partition of an event (its key value; None when unpartitioned)."""
        key = self.key
        if key is None:
            return lambda e: None
        uni = self.key_any
        a = partition_attribute(self.nfa)
        if a is not None:
            # fast path: one attribute of the events' dict, read directly, inlining key.of
            # (parity: tests/engines/nfab/test_paths.py::test_partition_equalities_hold_as_the_oracle_evaluates_them)
            def part_of(e: Event) -> Any:
                v = e.attrs.get(a)
                # NaN equals nothing, not even itself: its events share no partition (the
                # key's equalities, not evaluated within a partition, would not hold)
                return (v,) if v == v else object()
            return part_of

        def part(e: Event) -> Any:
            k = key.of(e)
            if k is None and uni is not None:
                return tuple(e.get(a) for a in uni)
            return k
        return part

    def _write(self, r: Run, si: int, e: Event, cur: dict[tuple[int, int], Entry]) -> Entry:
        """Run ``r`` writes event ``e`` at state ``si``: into the entry this step's runs share
        there (a new one when none, or when sharing is off), with a pointer labelled by its
        version to its previous entry."""
        key = (r.chain, si)
        ent = cur.get(key) if self.share else None
        if ent is None:
            ent = Entry(r.chain, si, e)
            if self.share:
                cur[key] = ent
            st = self.stacks.get(key)
            if st is None:
                st = self.stacks[key] = deque()
            st.append(ent)
            self.buffer_live += 1
            self.stats.buffer_entries += 1
        ent.pointers.append((r.version, r.entry))
        if ent.index is not None:
            ent.index[r.version] = r.entry
        if self.merge:
            if ent.writers is None:
                ent.writers = [r]
            else:
                ent.writers.append(r)
        if self.tracer is not None:
            nfab_trace.buffer_write(self, ent, r)
        r.entry = ent
        r.trail = (ent, r.trail)
        r.depth += 1
        return ent

    def _write_mark(self, r: Run, si: int, e: Event, cur: dict[tuple[int, int], Entry]) -> Entry | None:
        """``_write`` in lean count mode: the entry this step's runs share at state ``si``
        (so that merging sees who wrote it), counted but never stacked nor pointed to."""
        if not self.share:
            self.stats.buffer_entries += 1
            return None
        key = (r.chain, si)
        ent = cur.get(key)
        if ent is None:
            ent = cur[key] = Entry(r.chain, si, e)
            self.stats.buffer_entries += 1
            if self.merge:
                ent.writers = [r]
        elif self.merge:
            ent.writers.append(r)  # type: ignore[union-attr]
        r.entry = ent
        return ent

    def _count(self, r: Run, chain_plan: ChainPlan, e: Event, emitted: dict) -> None:
        """``_emit`` in lean count mode: the run's members still inside the window."""
        W = self.window_size
        end = self.now
        if r.members:
            n = len(self._live(r, end))
        else:
            n = 1 if W is None or end - r.start < W else 0
        self.counted += n
        self.stats.matches += n

    # ------------------------------------------------------------------ the step
    def feed(self, e: Event) -> list[Match]:
        st = self.stats
        st.events += 1
        self.work = 0
        out: list[Match] = []
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        if self.pending:
            self._finalize_pending(coord, out)
        et = e.type
        pos_rel = self.any_pos or et in self.pos_types
        neg_rel = self.any_neg or et in self.neg_types
        part = self._partition_of(e)
        if neg_rel:
            q = self.neg_store.get(part)
            if q is None:
                q = self.neg_store[part] = deque()
            q.append(e)
        if not pos_rel:
            if not neg_rel and self.strategy in (Strategy.STRICT, Strategy.PARTITION):
                self._contiguity_break(e, part)
            self._events_since_sweep += 1
            if self._events_since_sweep >= SWEEP_EVERY:
                self._maybe_sweep(coord)
            return out
        runs = self.parts.get(part)
        cur: dict[tuple[int, int], Entry] = {}
        emitted: dict[Any, Match] = {}
        nxt: list[Run] = []
        evals = 0
        if runs:
            step = self._step
            for r in runs:
                evals += step(r, e, coord, nxt, cur, emitted)
        # new runs: every event satisfying a start state's begin starts one
        for t0, any0, chain_plan, f in self._starts:
            if any0 or t0 == et:
                evals += 1
                if f is None or f((chain_plan.empty_values, e)):
                    self.next_id += 1
                    r = Run(chain_plan.chain.index, 0, ValueVector([None] * chain_plan.width), coord, e.seq,
                            (self.next_id,), None, part)
                    st.runs_created += 1
                    if self.tracer is not None:
                        nfab_trace.edge(self, "begin", r, chain_plan, 0, e, True)
                    self._apply_begin(r, chain_plan, 0, e, nxt, cur, emitted)
                elif self.tracer is not None:
                    nfab_trace.no_start(self, chain_plan, e)
        st.predicate_evals += evals
        if cur and self.merge:
            nxt = self._merge(cur, nxt)
        if nxt:
            self.parts[part] = nxt
        elif runs is not None:
            del self.parts[part]
        alive = self.alive = self.alive + len(nxt) - (len(runs) if runs else 0)
        if emitted:
            ms = [m for m in emitted.values() if m is not None]
            if self.non_overlap:
                ms = self._non_overlap(part, ms)
            out.extend(ms)
            alive = self.alive  # NON_OVERLAP may have pruned the partition
        if alive > st.runs_peak:
            st.runs_peak = alive
        st.runs_alive = alive
        bl = self.buffer_live
        if bl > st.buffer_peak:
            st.buffer_peak = bl
        self._events_since_sweep += 1
        if self._events_since_sweep >= SWEEP_EVERY:
            self._maybe_sweep(coord)
            alive, bl = self.alive, self.buffer_live
        if alive > self.max_runs or bl > self.max_buffer:
            self._explode()
        if out:
            st.matches += len(out)
        return out

    def _step(self, r: Run, e: Event, coord: float, nxt: list[Run], cur: dict, emitted: dict) -> int:
        """One waiting run on event ``e`` (§4.8): its enabled edges, reading the state's
        precomputed plan; clones where several are. Returns the predicates evaluated
        (``feed`` adds them up)."""
        chain_plan = self.chain_plans[r.chain]
        si = r.state
        W = self._edge_window
        if W is not None and coord - r.start >= W:
            self._kill(r, e, "window")
            return 0
        # the slots of edge_plans.StateStep, in its order (a plain tuple: the hot loop unpacks it)
        (is_kleene_rest, state_type, any_type, formula, next_state, next_type, next_any_type, proceed_formula,
         next_begin, next_is_final, has_updates) = chain_plan.steps[si]
        et = e.type
        tmatch = any_type or state_type == et
        ctx = (r.values, e)
        evals = 0
        strat = self.strategy
        tr = self.tracer
        if is_kleene_rest:
            take = False
            if tmatch:
                evals += 1
                take = formula is None or formula(ctx)
            proceed = False
            if not next_is_final:
                if not self.peek:
                    evals += 1
                    proceed = proceed_formula is None or proceed_formula(ctx)
                elif next_any_type or next_type == et:
                    evals += 1
                    if proceed_formula is None or proceed_formula(ctx):
                        evals += 1
                        proceed = next_begin is None or next_begin(ctx)
            # ignore formulas (§3.4): any true, next ¬take, strict/partition false (events
            # reaching this run are in its partition)
            ignore = strat is Strategy.ANY or (strat is Strategy.NEXT and not take)
            if proceed:
                if not (take or ignore):  # the run itself moves on (opportunistic proceed)
                    p = r
                else:
                    p = r.clone()
                    st = self.stats
                    st.runs_created += 1
                    st.extra["clones_take_proceed" if take else "clones_ignore_proceed"] += 1
                if tr is not None:
                    nfab_trace.edge(self, "proceed", p, chain_plan, si, e, True, parent=r)
                if self.peek:
                    self._apply_begin(p, chain_plan, next_state, e, nxt, cur, emitted)
                else:  # ε-move: the next state reads the same event
                    p.state = next_state
                    evals += self._step(p, e, coord, nxt, cur, emitted)
                if p is r:
                    return evals
            elif not (take or ignore):
                if tr is not None:
                    nfab_trace.no_edge(self, r, chain_plan, si, e, tmatch)
                self._kill(r, e, "no edge enabled")
                return evals
            if take:
                if ignore:
                    c = r.clone()
                    st = self.stats
                    st.runs_created += 1
                    st.extra["clones_take_ignore"] += 1
                    nxt.append(c)  # the ignoring branch
                    if tr is not None:
                        nfab_trace.edge(self, "ignore", c, chain_plan, si, e, tmatch, parent=r)
                if tr is not None:
                    nfab_trace.edge(self, "take", r, chain_plan, si, e, True)
                self._write(r, si, e, cur)
                if has_updates:
                    chain_plan.update(si, r.values.attrs, e, False)
                nxt.append(r)
                if next_is_final:
                    self._check_final(r, chain_plan, si, e, emitted)
            else:
                if tr is not None:
                    nfab_trace.edge(self, "ignore", r, chain_plan, si, e, tmatch)
                nxt.append(r)  # ignore
            return evals
        # singleton or kleene_first, waiting (never the start state)
        begin = False
        if tmatch:
            evals += 1
            begin = formula is None or formula(ctx)
        ignore = strat is Strategy.ANY or (strat is Strategy.NEXT and not begin)
        if begin:
            if ignore:
                c = r.clone()
                st = self.stats
                st.runs_created += 1
                st.extra["clones_begin_ignore"] += 1
                nxt.append(c)
                if tr is not None:
                    nfab_trace.edge(self, "ignore", c, chain_plan, si, e, tmatch, parent=r)
            if tr is not None:
                nfab_trace.edge(self, "begin", r, chain_plan, si, e, True)
            self._apply_begin(r, chain_plan, si, e, nxt, cur, emitted)
        elif ignore:
            if tr is not None:
                nfab_trace.edge(self, "ignore", r, chain_plan, si, e, tmatch)
            nxt.append(r)
        else:
            if tr is not None:
                nfab_trace.no_edge(self, r, chain_plan, si, e, tmatch)
            self._kill(r, e, "no edge enabled")
        return evals

    def _apply_begin(self, r: Run, chain_plan: ChainPlan, si: int, e: Event, nxt: list[Run], cur: dict,
                     emitted: dict) -> None:
        self._write(r, si, e, cur)
        chain_plan.update(si, r.values.attrs, e, True)
        r.state = si + 1
        if r.state == chain_plan.final:
            self._emit(r, chain_plan, e, emitted)
            return
        nxt.append(r)
        if chain_plan.final == si + 2 and chain_plan.states[si + 1].kind == "kleene_rest":
            self._check_final(r, chain_plan, si + 1, e, emitted)

    def _check_final(self, r: Run, chain_plan: ChainPlan, si: int, e: Event, emitted: dict) -> None:
        """A Kleene component last in the pattern: proceed to F after each begin/take."""
        f = chain_plan.proceed[si]
        self.stats.predicate_evals += 1
        if f is None or f((r.values, e)):
            self._emit(r, chain_plan, e, emitted)

    def _kill(self, r: Run, e: Event, why: str) -> None:
        self.stats.extra["runs_killed"] += 1
        if self.tracer is not None and why == "window":
            nfab_trace.expired(self, r, e)

    # ------------------------------------------------------------------ merging (§4.10)
    def _merge(self, cur: dict[tuple[int, int], Entry], nxt: list[Run]) -> list[Run]:
        """Runs that wrote the same entry this step, at the same state and agreeing on the
        columns of V their future reads, become one: the first (the representative) keeps
        the others as members. Returns ``nxt`` without the runs merged away."""
        dropped: set[int] = set()
        tick = current_guard().tick  # the run's guard (engine.memory): one tick per run merged
        for ent in cur.values():
            ws = ent.writers
            ent.writers = None
            if ws is None or len(ws) < 2:
                continue
            groups: dict[Any, Run] = {}
            for r in ws:
                tick()
                if r.entry is not ent or r.state == self.chain_plans[r.chain].final:
                    continue
                chain_plan = self.chain_plans[r.chain]
                V = r.values.attrs
                sig = (r.state, tuple(V[i] if V[i] is not POISONED else "<poison>"
                                      for i in chain_plan.merge_columns[r.state]))
                rep = groups.get(sig)
                if rep is None:
                    groups[sig] = r
                    continue
                # merge r into rep: members keep their own version path from this entry back
                if rep.members is None:
                    rep.members = Members([Member(rep.start, rep.start_seq, ())], rep.start)
                else:
                    rep.members = Members(rep.members, rep.members.earliest_start)
                own = r.members or [Member(r.start, r.start_seq, ())]
                if len(rep.members) + len(own) > self.max_runs:
                    self._explode(members=len(rep.members) + len(own))
                mem = rep.members
                cut = rep.depth
                for m in own:
                    mem.append(Member(m.start, m.start_seq, ((ent, r.version),) + m.switches, cut))
                    if m.start < mem.earliest_start:
                        mem.earliest_start = m.start
                if r.start > rep.start:
                    rep.start, rep.start_seq = r.start, r.start_seq
                dropped.add(id(r))
                self.stats.extra["runs_merged"] += 1
                if self.tracer is not None:
                    nfab_trace.merged(self, r, rep, ent)
        if not dropped:
            return nxt
        return [r for r in nxt if id(r) not in dropped]

    # ------------------------------------------------------------------ housekeeping
    def _contiguity_break(self, e: Event, part: Any) -> None:
        """An event of a type outside the pattern: under strict contiguity it ends every
        run; under partition contiguity, the runs of its partition."""
        if self.strategy is Strategy.STRICT:
            victims = list(self.parts.keys())
        else:
            victims = [part] if part is not None or self.key is None else []
        for p in victims:
            runs = self.parts.pop(p, None)
            if runs:
                self.alive -= len(runs)
                self.stats.extra["runs_killed"] += len(runs)
                if self.tracer is not None:
                    for r in runs:
                        nfab_trace.contiguity(self, r, e)
        self.stats.runs_alive = self.alive

    def _maybe_sweep(self, now: float) -> None:
        """Every SWEEP_EVERY events (``feed`` counts them), a sweep."""
        self._events_since_sweep = 0
        if self.window_size is not None:
            self.sweep(now)

    def sweep(self, now: float) -> None:
        """Drop expired runs (also in partitions that receive no events), buffer entries and
        negation-store events older than the window (§4.12)."""
        W = self.window_size
        if W is None:
            return
        horizon = now - W
        for p in list(self.parts):
            runs = [r for r in self.parts[p] if r.start > horizon]
            self.alive -= len(self.parts[p]) - len(runs)
            if runs:
                self.parts[p] = runs
            else:
                del self.parts[p]
        coord = attrgetter("seq" if self.count_window else "ts")
        for k, stq in list(self.stacks.items()):
            while stq and coord(stq[0].event) <= horizon:
                old = stq.popleft()
                if self.tracer is not None:
                    nfab_trace.entry_removed(self, old)
                old.pointers = []  # no live member reaches back past the window (§4.12)
                self.buffer_live -= 1
            if not stq:
                del self.stacks[k]
        for p, q in list(self.neg_store.items()):
            while q and coord(q[0]) <= horizon:
                q.popleft()
            if not q:
                del self.neg_store[p]
        self.stats.runs_alive = self.alive

    def _explode(self, members: int = 0) -> None:
        what = f"{self.alive:,} live runs and {self.buffer_live:,} buffer entries"
        if members:
            what = f"one merged run standing for {members:,} partial matches"
        self.explode(what, f"{self.max_runs:,} runs / {self.max_buffer:,} entries")

    def close(self) -> list[Match]:
        out: list[Match] = []
        self._finalize_pending(None, out)
        return out

    # ------------------------------------------------------------------ introspection
    def runs(self) -> list[Run]:
        return [r for rs in self.parts.values() for r in rs]

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        """Live runs and this step's shared-buffer change, for the step trace."""
        return nfab_trace.state(self)

    def attach_tracer(self, tracer: Tracer, last: Event | None = None) -> None:
        """Trace from the next event on (engine/checkpoints.py): the live entries get the names
        a trace from the start gave them."""
        self.tracer = tracer
        self._trace_buffer_changes = None
        nfab_trace.name_entries(self)

    def trace_buffer(self) -> dict[str, dict[str, Any]]:
        """The whole shared buffer as the trace names it (``engine.trace.buffer_at``'s form)."""
        return nfab_trace.buffer_entries(self)


