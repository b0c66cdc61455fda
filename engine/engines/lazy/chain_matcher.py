"""The lazy (Multi-)Chain NFA runtime (Kolchinsky & Schuster, arXiv 1612.05110, §4;
docs/papers.md, "Lazy chain / tree NFA"): ``LazyChainMatcher``.

Per clause one root waits for the rarest variable; every event is first offered to the
waiting instances of its variables (take from the stream; ``_dispatch_single`` inlines it
when one single-event step waits on the variable), then stored. Entering a state searches
its variable's buffer (chain_steps.py). Without given rates or an order, the first events
are buffered and replayed once their rates are known (warm-up).

A fixed-length SEQ (``columnar.columnar_plan``) fed in chunks (``feed_many``, untraced) is
evaluated for a whole chunk at once as window joins over columns (``columnar.ColumnarSeq``);
for those patterns the matches one event completes are reported in one order on both paths:
by the positions of the variables in pattern order.
"""
from __future__ import annotations

import heapq
from typing import Any, Iterable, Mapping, Sequence

from engine.engines.lazy import trace as lazy_trace
from engine.engines.lazy.base import (DEFAULT_MAX_BUFFER, DEFAULT_MAX_INSTANCES, DEFAULT_MAX_SUBSETS,
                                      DEFAULT_MAX_WORK, DEFAULT_WARMUP, SWEEP_EVERY)
from engine.engines.lazy.buffers import INF, EventBuffer
from engine.engines.lazy.chain_compiler import ChainNFA, compile_chain, estimate_rates
from engine.engines.lazy.chain_steps import ChainStepRunner
from engine.engines.lazy.columnar import ColumnarSeq, columnar_plan
from engine.engines.lazy.compiled_steps import (CompiledChain, CompiledNegation, CompiledStep, VariableRuntime,
                                                buffer_searches, clause_signature)
from engine.engines.lazy.instances import Instance
from engine.events import Event
from engine.match import Match, Tracer
from engine.model import Pattern


class LazyChainMatcher(ChainStepRunner):
    """The lazy (Multi-)Chain NFA. Evaluation order per clause: ``order`` (variables), else
    ascending ``rates`` (by variable or type), else rates estimated from ``sample`` (events),
    else from the first ``warmup`` events of the stream (they are buffered, then replayed;
    never beyond the window of the first one, so no match is reported later than its
    window closes). ``negation``: ``"fc"`` (First-Chance) or ``"pp"`` (Post-Processing)."""

    name = "lazy-chain"
    feed_chunk = 16_384  # events per ``feed_many`` call in ``cep run`` (the columnar path's chunk)

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, order: Sequence[str] | None = None,
                 rates: Mapping[str, float] | None = None, sample: Iterable[Event] | None = None,
                 warmup: int = DEFAULT_WARMUP, negation: str = "fc", dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK, count_only: bool = False) -> None:
        super().__init__(pattern, tracer, dedupe=dedupe, max_instances=max_instances, max_buffer=max_buffer,
                         max_subsets=max_subsets, max_runs=max_runs, max_work=max_work)
        info = self.info
        self._columnar_plan = columnar_plan(info, {v: self.vrts[v].filter for v in info.positive})
        self._columnar: ColumnarSeq | None = None  # the columnar path, once ``feed_many`` took it
        self._fed_one = False  # ``feed`` ran: the chain holds the state, ``feed_many`` goes on with it
        self._count_only = count_only
        # the sort key of each match the current event completes (columnar patterns: see the module)
        self._keys: list[tuple[int, ...]] | None = None
        self._key_slots: tuple[int, ...] = ()
        if self._columnar_plan is not None:
            names = self._columnar_plan.vars
            self._key_slots = tuple(info.vars[v].slot for v in (names[-1],) + names[:-1])
        if negation not in ("fc", "pp"):
            raise ValueError(f"negation must be 'fc' or 'pp', not {negation!r}")
        self.negation = negation
        self._order = list(order) if order is not None else None
        self.nfa: ChainNFA | None = None
        self._warm: list[Event] | None = None
        self.warmup = warmup
        if order is None and rates is None and sample is not None:
            rates = estimate_rates(self.info, sample)
        if order is not None or rates is not None or warmup <= 0:
            self._build(rates)
        else:
            self._warm = []

    # ------------------------------------------------------------------ plan
    def _build(self, rates: Mapping[str, float] | None) -> None:
        info = self.info
        self.nfa = nfa = compile_chain(info, order=self._order, rates=rates, negation=self.negation)
        self.stats.extra["orders"] = [list(p.order) for p in nfa.plans]
        negs = {v: self.vrts[v] for v in info.negated}
        for v in negs.values():
            v.buf = EventBuffer()
        self.plans: list[CompiledChain] = []
        seen = set()
        for p in nfa.plans:
            if p.clause.const_false:
                continue
            if self.dedupe:
                sig = clause_signature(p.clause)
                if sig in seen:
                    continue
                seen.add(sig)
            steps = [CompiledStep(s, info, self.vrts[s.var], negs) for s in p.steps]
            post = [CompiledNegation(n, info, negs[n.var]) for n in p.pp]
            self.plans.append(CompiledChain(p.clause.index, steps, post, p))
        self.multi = len(self.plans) > 1
        for rp in self.plans:  # buffers for every variable some state can find something in
            for s, search in zip(rp.steps, buffer_searches(rp)):
                if (search or s.kleene) and s.vrt.buf is None:
                    s.vrt.buf = EventBuffer()
        self._type_cache.clear()
        # per type: _vars_for, and whether no variable of it has a filter
        self._routes: dict[str, tuple[list[VariableRuntime], list[VariableRuntime], bool]] = {}
        self._bufs = None
        self.waiting: dict[str, list[Instance]] = {}
        self._dead: dict[str, int] = {}
        self.heap: list[tuple[float, int, Instance]] = []
        for rp in self.plans:
            root = Instance([None] * self.nslots, INF, -INF, None)
            root.root = True
            root.plan = rp
            root.step = 0
            rp.root = root
            self.waiting.setdefault(rp.steps[0].var, []).append(root)
        # the variables whose waiting instances all wait in one step (of one plan), a
        # single-event one without First-Chance checks: dispatched by _dispatch_single
        waits: dict[str, list[tuple[CompiledChain, CompiledStep]]] = {}
        for rp in self.plans:
            for k, s in enumerate(rp.steps):
                if k == 0 or s.stream_ok:
                    waits.setdefault(s.var, []).append((rp, s))
        self._single_waits = {v: w[0] for v, w in waits.items() if len(w) == 1 and not w[0][1].kleene
                              and not w[0][1].fc}

    # ------------------------------------------------------------------ stream
    def feed_many(self, events: Sequence[Event], out: list[Match]) -> None:
        """Feed ``events`` in order, appending to ``out`` what feeding them one by one returns
        (the planner's ``feeds_many``). Untraced, a pattern with a columnar plan is evaluated
        per chunk (``columnar.ColumnarSeq``) from the first call on, when ``feed`` has not run."""
        col = self._chunks_columnar()
        if col is not None:
            col.feed(events, out)
            return
        feed = self.feed
        for e in events:
            out.extend(feed(e))

    def feed_columns(self, events: Any, start: int, stop: int, out: list[Match]) -> None:
        """``feed_many`` of the events ``start:stop`` of an ``engine.events.EventColumns``: on the
        columnar path read as columns (no event is built), else built and fed."""
        col = self._chunks_columnar()
        if col is not None:
            col.feed_columns(events, start, stop, out)
            return
        self.feed_many(events[start:stop], out)

    def _chunks_columnar(self) -> ColumnarSeq | None:
        """The columnar path for the chunks, when it applies (see ``feed_many``)."""
        col = self._columnar
        if col is None and self._columnar_plan is not None and self.tracer is None and not self._fed_one:
            col = self._columnar = ColumnarSeq(self._columnar_plan, self, self._count_only)
        return col

    @property
    def counted(self) -> int:
        """Matches counted and never built (``count_only``, on the columnar path)."""
        return self._columnar.counted if self._columnar is not None else 0

    def feed(self, e: Event) -> list[Match]:
        if self._columnar is not None:  # chunks went the columnar way: so does this event
            out: list[Match] = []
            self._columnar.feed([e], out)
            return out
        self._fed_one = True
        self.stats.events += 1
        if e.type in self._relevant_types or self._warm is not None or self.pending or self.tracer is not None:
            if self._warm is not None:
                return self._warm_feed(e)
            return self._process(e)
        # fast path: ``_pass_by`` inlined (and ``_process`` skipped), as most events of a stream
        # are of other types; parity with the traced path: tests/engines/lazy/test_fast_paths.py
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(e.seq if self.count_window else e.ts)
        return []

    def _pass_by(self, coord: float) -> None:
        """An event no variable can take or forbid changes nothing: timeouts and buffer
        expiry wait for the next relevant event (which checks the window itself) or the
        periodic sweep. (With a tracer they happen on time, for the step view.)"""
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)

    def _warm_feed(self, e: Event) -> list[Match]:
        warm = self._warm
        assert warm is not None
        W = self.W
        if warm:
            c0 = warm[0].seq if self.count_window else warm[0].ts
            c = e.seq if self.count_window else e.ts
            if W is not None and c - c0 >= W:
                out = self._replay()
                out.extend(self._process(e))
                return out
        warm.append(e)
        if len(warm) >= self.warmup:
            return self._replay()
        return []

    def _replay(self) -> list[Match]:
        warm = self._warm or []
        self._warm = None
        self._build(estimate_rates(self.info, warm))
        out: list[Match] = []
        for x in warm:
            out.extend(self._process(x))
        return out

    def _process(self, e: Event) -> list[Match]:
        if not self._key_slots:
            return self._process_event(e)
        self._keys = keys = []
        out = self._process_event(e)
        if len(out) > 1:  # the columnar path's order: by the variables' positions, in pattern order
            order = sorted(range(len(out)), key=keys.__getitem__)
            out[:] = [out[i] for i in order]
        return out

    def _emit_vals(self, vals: list[Any], cmin: float, inst: Instance | None) -> None:
        keys = self._keys
        if keys is None:
            super()._emit_vals(vals, cmin, inst)
            return
        n = len(self._out)
        super()._emit_vals(vals, cmin, inst)
        if len(self._out) > n:
            keys.append(tuple(vals[s].seq for s in self._key_slots))

    def _process_event(self, e: Event) -> list[Match]:
        self._out = out = []
        self.work = 0
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        W = self.W
        tr = self.tracer
        if self.pending:
            self._finalize(coord)
        elif tr is None and e.type not in self._relevant_types:
            self._pass_by(coord)
            return out
        if W is not None:  # fast path: ``_expire_to`` inlined (parity: tests/test_checkpoints.py, which
            heap = self.heap  # starts traces after ``attach_tracer`` calls it)
            while heap and coord - heap[0][0] >= W:
                inst = heapq.heappop(heap)[2]
                if not inst.dead:
                    self._timeout(inst)
                    if tr is not None:
                        lazy_trace.expire(self, inst, e)
            self._expire_bufs(coord)
        # fast path: ``_vars_for`` cached per type with whether any of its variables has a
        # filter, so an unfiltered type skips ``_passes``
        route = self._routes.get(e.type)
        if route is None:
            pos, negs = self._vars_for(e.type)
            route = self._routes[e.type] = (pos, negs, all(v.filter is None for v in pos))
        pos, negs, unfiltered = route
        if pos or negs:
            key = self._key(e) if self.eq_attrs else None
            ok = pos if unfiltered else [v for v in pos if self._passes(v, e)]
            if ok:
                # take from the stream: only the instances waiting before this event
                snap = []
                for v in ok:
                    lst = self.waiting.get(v.name)
                    if lst:
                        snap.append((lst, len(lst), self._single_waits.get(v.name) if tr is None else None))
                for lst, n, single in snap:
                    if single is not None:
                        self._dispatch_single(lst, n, e, coord, key, *single)
                    else:
                        self._dispatch(lst, n, e, coord, key)
                for v in ok:  # store
                    if v.buf is not None:
                        self._add(v.buf, e, coord, key)
                        if tr is not None:
                            lazy_trace.store(self, v.name, e)
            if negs:
                self._store_neg(negs, e, coord, key)
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)
            for lst in self.waiting.values():
                if any(i.dead for i in lst):
                    lst[:] = [i for i in lst if not i.dead]
        self._peaks()
        return out

    def _dispatch_single(self, lst: list[Instance], n: int, e: Event, coord: float, key: Any, plan: CompiledChain,
                         s: CompiledStep) -> None:
        """``_dispatch`` for a list whose instances all wait in the same step ``s`` of
        ``plan``, a single-event variable without First-Chance checks, and no tracer: the
        stream take inlined, with the step's data read once. The condition is checked with
        ``e`` in the instance's vector; only a passing event costs a child; the child skips
        its next state's buffer search when ``s.next_after`` says it is empty (see
        ``buffer_searches``) and waits directly.

        Fast path of ``ChainStepRunner._dispatch``; it inlines ``_take_stream`` (partition
        key, condition, predicate count), ``_child``, ``_enter`` without the buffer search
        (``runs_created`` and ``_note_transient``) and ``_wait`` (waiting list, ``alive``,
        timeout heap), and emits a completing match with ``_emit_vals`` without a child.
        Parity with the general path (a tracer forces it): tests/engines/lazy/test_fast_paths.py."""
        W = self.W
        st = self.stats
        slot, check = s.slot, s.check
        k = s.index + 1
        last = k == plan.n
        emit = last and not plan.pp  # complete, nothing left to check
        fresh = not last and s.next_after
        nxt = None if last else plan.steps[k]
        wl = self.waiting.setdefault(nxt.var, []) if fresh and nxt.stream_ok else None  # type: ignore[union-attr]
        heap = self.heap
        tick = self._tick
        dead = 0
        evals = 0
        for idx in range(n):
            inst = lst[idx]
            if inst.dead:
                dead += 1
                continue
            cmin = inst.cmin
            if W is not None and coord - cmin >= W:
                inst.dead = True
                self.alive -= 1
                dead += 1
                continue
            eq = inst.eq
            if eq is not None and key != eq:
                continue
            vals = inst.vals
            vals[slot] = e
            if check is not None:
                evals += 1
                if not check(vals):
                    vals[slot] = None
                    continue
            if emit:  # a match, straight from the vector (no child; its number is taken as _child takes it)
                next(self._ids)
                self._emit_vals(vals, cmin if cmin < coord else coord, None)
                vals[slot] = None
                continue
            child_vals = vals.copy()
            vals[slot] = None
            # e is the newest event: the child's span ends at it
            child = Instance(child_vals, cmin if cmin < coord else coord, coord, eq if eq is not None else key)
            child.id = next(self._ids)
            child.plan = plan
            if inst.cur is not None:  # a tree's tail: the tree's consumption state goes along
                child.mask = inst.mask
                child.cur = inst.cur
            if last:
                self._complete(child, plan)
            elif not fresh:
                self._enter(child, plan, k)
            else:  # _enter without the search (_note_transient inlined), then _wait inlined
                st.runs_created += 1
                transient = self.alive + self._depth + 1
                if transient > st.runs_peak:
                    st.runs_peak = transient
                    if transient > self.max_instances:
                        self._explode()
                if wl is not None:
                    child.step = k
                    wl.append(child)
                    self.alive += 1
                    if W is not None:
                        heapq.heappush(heap, (child.cmin, next(tick), child))
        if evals:
            st.predicate_evals += evals
        if dead:
            lst[:] = [i for i in lst[:n] if not i.dead] + lst[n:]

    def close(self) -> list[Match]:
        if self._columnar is not None:  # nothing waits at the end: no negation in a columnar plan
            self.closed = True
            return []
        out: list[Match] = []
        if self._warm is not None:
            out.extend(self._replay())
        out.extend(super().close())
        return out

    # ------------------------------------------------------------------ introspection
    def attach_tracer(self, tracer: Tracer, last: Event | None = None) -> None:
        """Trace from the next event on (engine/checkpoints.py). Untraced, an event no variable
        takes or forbids puts off the timeouts and buffer expiry (``feed``'s fast path); a
        traced run does them on that event: do them now, at ``last``'s coordinate."""
        if self._columnar is not None:
            raise RuntimeError("a lazy chain fed in chunks (the columnar path) holds no partial matches to trace; "
                               "trace a matcher fed one event at a time")
        if last is not None and self.nfa is not None and self._warm is None and not self.closed:
            coord = last.seq if self.count_window else last.ts
            self.now = coord
            if self.W is not None:
                self._expire_to(coord, None)  # before the tracer: done on an earlier step of the trace
        self.tracer = tracer

    def instances(self) -> list[Instance]:
        """Live partial matches (waiting in a state, or waiting for a trailing negation)."""
        if self.nfa is None:
            return []
        out = [i for lst in self.waiting.values() for i in lst if not i.dead and not i.root]
        return out + [p[2] for p in self.pending]


__all__ = ["LazyChainMatcher"]
