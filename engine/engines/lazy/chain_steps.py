"""Running compiled chain steps (Kolchinsky & Schuster, arXiv 1612.05110, §4; docs/papers.md,
"Lazy chain / tree NFA"): ``ChainStepRunner``, the part of the lazy runtime the chain
matcher and the tree matcher's chain tail share.

Entering step ``k`` searches the buffer of step ``k``'s variable in its range, spawning an
instance per fitting event (or, for ``+``, per subset: ``iterate``, §4.5); the instance then
waits for stream events if the step may take from the stream (``succ = ∅``) and is dropped
otherwise (its search is over: ``search_failed``, notes §3.8 "GC" choice). A stream event is
offered to the instances waiting on its variable (``_dispatch``); a waiting instance whose
window has passed times out. ``_scan`` (the buffered events an instance can bind) serves the
tree's takes too.
"""
from __future__ import annotations

import heapq
from typing import Any

from engine.engines.lazy import trace as lazy_trace
from engine.engines.lazy.base import LazyBase
from engine.engines.lazy.buffers import EventBuffer
from engine.engines.lazy.compiled_steps import CompiledChain, CompiledStep
from engine.engines.lazy.instances import Instance, bound_seqs, first_bound_seq, last_bound_seq
from engine.events import Event


class ChainStepRunner(LazyBase):
    """A lazy matcher that walks compiled chains: entering states (buffer search), taking
    from the buffer or the stream, iterating over subsets, waiting and timing out. The
    subclass sets up ``waiting`` (instances per variable), ``_dead`` (dead counts per
    waiting list) and ``heap`` (waiting instances by first coordinate)."""

    waiting: dict[str, list[Instance]]
    _dead: dict[str, int]
    heap: list[tuple[float, int, Instance]]

    # ------------------------------------------------------------------ entering a state
    def _enter(self, inst: Instance, plan: CompiledChain, k: int) -> None:
        """Instance reaches state q_{k+1}: search the buffer, then wait or drop."""
        if k == plan.n:
            self._complete(inst, plan)
            return
        st = self.stats
        st.runs_created += 1
        self._depth += 1
        self._note_transient()
        s = plan.steps[k]
        buf = s.vrt.buf
        vals = inst.vals
        if buf is not None and buf.head < len(buf.seq):
            lo = last_bound_seq(vals, s.prec) if s.prec else None
            hi = first_bound_seq(vals, s.succ) if s.succ else None
            i, j = buf.range(lo, hi, inst.cmin, inst.cmax, self.W)
            if self.tracer is not None:
                lazy_trace.search(self, inst, s.var, max(0, j - i))
            if i < j:
                if s.kleene:
                    self._iterate(inst, plan, s, buf, i, j, None)
                else:
                    self._take_range(inst, plan, s, buf, i, j)
        self._depth -= 1
        if s.stream_ok:
            inst.plan = plan
            inst.step = k
            self._wait(inst, s.var)
        elif self.tracer is not None:
            lazy_trace.discard(self, inst, "search_failed: the buffer search is over and this state takes "
                                           "nothing from the stream")

    def _scan(self, inst: Instance, buf: EventBuffer, i: int, j: int, slot: int, var: str, distinct: Any,
              check: Any) -> list[tuple[Event, float, Any]]:
        """The buffered events in [i, j) that ``inst`` can bind to ``var``: not already bound
        (``distinct``), of its ``[attr]`` partition, satisfying ``check``. Shared by the
        chain's buffer take and the tree's take."""
        vals = inst.vals
        eq = inst.eq
        keys, evs, cos = buf.key, buf.ev, buf.co
        used = bound_seqs(vals, distinct) if distinct else None
        self.work += j - i
        if self.work > self.max_work:
            self._explode_work(var)
        out = []
        if check is None and used is None:  # fast path: the loop below with nothing to check
            if eq is None:
                return [(evs[idx], cos[idx], keys[idx]) for idx in range(i, j)]
            return [(evs[idx], cos[idx], keys[idx]) for idx in range(i, j) if keys[idx] == eq]
        st = self.stats
        tr = self.tracer
        for idx in range(i, j):
            x = evs[idx]
            if used is not None and x.seq in used:
                continue
            if eq is not None and keys[idx] != eq:
                continue
            if check is not None:
                vals[slot] = x
                st.predicate_evals += 1
                ok = check(vals)
                if not ok and tr is not None:
                    lazy_trace.refuse(self, inst, var, vals, x, "buffer")
                vals[slot] = None
                if not ok:
                    continue
            out.append((x, cos[idx], keys[idx]))
        return out

    def _take_range(self, inst: Instance, plan: CompiledChain, s: CompiledStep, buf: EventBuffer, i: int,
                    j: int) -> None:
        nxt = s.index + 1
        tr = self.tracer
        for x, c, key in self._scan(inst, buf, i, j, s.slot, s.var, s.distinct, s.check):
            child = self._child(inst, s.slot, x, c, c, key)
            child.plan = plan  # the trace names the child's clause (kept untraced too: engine/checkpoints.py)
            if tr is not None:
                lazy_trace.take(self, inst, child, s.var, x, "buffer")
            if s.fc and not self._fc_ok(child, s.fc):
                continue
            self._enter(child, plan, nxt)

    def _take_stream(self, inst: Instance, plan: CompiledChain, s: CompiledStep, e: Event, coord: float,
                     key: Any) -> None:
        if inst.eq is not None and key != inst.eq:
            return
        check = s.check
        if check is not None:
            vals = inst.vals
            vals[s.slot] = e
            self.stats.predicate_evals += 1
            ok = check(vals)
            if not ok and self.tracer is not None:
                lazy_trace.refuse(self, inst, s.var, vals, e, "stream")
            vals[s.slot] = None
            if not ok:
                return
        child = self._child(inst, s.slot, e, coord, coord, key)
        child.plan = plan  # the trace names the child's clause (kept untraced too: engine/checkpoints.py)
        if self.tracer is not None:
            lazy_trace.take(self, inst, child, s.var, e, "stream")
        if s.fc and not self._fc_ok(child, s.fc):
            return
        self._enter(child, plan, s.index + 1)

    def _iterate(self, inst: Instance, plan: CompiledChain, s: CompiledStep, buf: EventBuffer, i: int, j: int,
                 new: Any) -> None:
        """``iterate`` (§4.5): every non-empty subset of the candidates in [i, j) (in stream
        order) that satisfies the conditions; with ``new = (event, coord, key)`` from the
        stream, only the subsets that end with it. Prefix-closed conditions prune the
        depth-first enumeration; the others are checked per subset."""
        vals = inst.vals
        slot = s.slot
        used = bound_seqs(vals, s.distinct) if s.distinct else None
        W = self.W
        eq = inst.eq
        if new is not None:
            ne, nc, nk = new
            if eq is not None and nk != eq:
                return
            eq = nk if self.eq_attrs else None
        cands = []
        evs, cos, keys = buf.ev, buf.co, buf.key
        for idx in range(i, j):
            x = evs[idx]
            if used is not None and x.seq in used:
                continue
            if eq is not None and keys[idx] != eq:
                continue
            cands.append((x, cos[idx], keys[idx]))
        mono, final = s.mono, s.final
        st = self.stats
        nxt = s.index + 1
        limit = self.max_subsets
        produced = [0]
        tr = self.tracer

        def spawn(S: tuple[Event, ...], cmin: float, cmax: float, key: Any, source: str) -> None:
            produced[0] += 1
            if produced[0] > limit:
                vals[slot] = None
                self._explode(f"more than {limit:,} subsets of `{s.var}[]` in one iterate step")
            child = self._child(inst, slot, S, cmin, cmax, key)
            child.plan = plan  # the trace names the child's clause (kept untraced too: engine/checkpoints.py)
            if tr is not None:
                lazy_trace.take(self, inst, child, s.var, S[-1], source)
            if s.fc and not self._fc_ok(child, s.fc):
                return
            self._enter(child, plan, nxt)
            vals[slot] = S  # restore after the recursion used the vector's copy

        budget = self.max_work
        work = self.work
        if new is None:
            # depth-first over subsets in stream order, iteratively (no recursion limit): a
            # frame is [next candidate, chosen, cmin, cmax, key]; a subset is spawned before
            # its extensions, as the recursive enumeration did
            stack: list[list[Any]] = [[0, (), inst.cmin, inst.cmax, eq]]
            n = len(cands)
            while stack:
                fr = stack[-1]
                t = fr[0]
                if t >= n:
                    stack.pop()
                    continue
                fr[0] = t + 1
                work += 1
                if work > budget:
                    vals[slot] = None
                    self.work = work
                    self._explode_work(s.var)
                chosen, cmin, cmax, key = fr[1], fr[2], fr[3], fr[4]
                x, cx, kx = cands[t]
                nmin = cmin if cmin < cx else cx
                nmax = cmax if cmax > cx else cx
                if W is not None and nmax - nmin >= W:
                    if cx >= cmax:
                        stack.pop()  # later candidates are later still: this frame is done
                    continue
                if key is not None and kx != key:
                    continue
                S = chosen + (x,)
                vals[slot] = S
                if mono is not None:
                    st.predicate_evals += 1
                    if not mono(vals):
                        continue
                ok = True
                if final is not None:
                    st.predicate_evals += 1
                    ok = final(vals)
                if ok:
                    self.work = work
                    spawn(S, nmin, nmax, kx if key is None else key, "buffer")
                    work = self.work  # the child's own searches counted too
                stack.append([t + 1, S, nmin, nmax, key if key is not None else (kx if self.eq_attrs else None)])
        else:
            # the subsets that end with the new event: every valid prefix of candidates, tried
            # with the new event on first visit, then extended (iteratively)
            stack = [[0, (), inst.cmin, False]]
            n = len(cands)
            while stack:
                fr = stack[-1]
                chosen, cmin = fr[1], fr[2]
                if not fr[3]:
                    fr[3] = True
                    work += 1
                    if work > budget:
                        vals[slot] = None
                        self.work = work
                        self._explode_work(s.var)
                    S = chosen + (ne,)
                    vals[slot] = S
                    ok = True
                    if mono is not None:
                        st.predicate_evals += 1
                        ok = mono(vals)
                    if ok and final is not None:
                        st.predicate_evals += 1
                        ok = final(vals)
                    if ok:
                        self.work = work
                        spawn(S, cmin if cmin < nc else nc, nc, eq, "stream")
                        work = self.work
                t = fr[0]
                if t >= n:
                    stack.pop()
                    continue
                fr[0] = t + 1
                work += 1
                x, cx, kx = cands[t]
                P = chosen + (x,)
                if mono is not None:
                    vals[slot] = P
                    st.predicate_evals += 1
                    if not mono(vals):
                        continue
                stack.append([t + 1, P, cmin if cmin < cx else cx, False])
        self.work = work
        vals[slot] = None
        st.extra["subsets"] += produced[0]

    # ------------------------------------------------------------------ waiting
    def _expire_to(self, coord: float, e: Event | None) -> None:
        """The partial matches whose window has closed at ``coord`` time out (traced as expired
        on event ``e``), and the buffers drop what no partial match can take any more."""
        heap, W, tr = self.heap, self.W, self.tracer
        while heap and coord - heap[0][0] >= W:
            inst = heapq.heappop(heap)[2]
            if not inst.dead:
                self._timeout(inst)
                if tr is not None:
                    lazy_trace.expire(self, inst, e)
        self._expire_bufs(coord)

    def _timeout(self, inst: Instance) -> None:
        """A waiting instance's window has passed (timeout -> R). Its list is compacted
        once half of it is dead, so expired instances do not pile up behind a rare type."""
        inst.dead = True
        self.alive -= 1
        var = inst.plan.steps[inst.step].var
        lst = self.waiting.get(var)
        if lst is not None:
            d = self._dead.get(var, 0) + 1
            if d > 32 and 2 * d > len(lst):
                lst[:] = [i for i in lst if not i.dead]
                d = 0
            self._dead[var] = d

    def _wait(self, inst: Instance, var: str) -> None:
        self.waiting.setdefault(var, []).append(inst)
        self.alive += 1
        if self.W is not None:
            heapq.heappush(self.heap, (inst.cmin, next(self._tick), inst))
        if self.tracer is not None:
            lazy_trace.wait(self, inst, var)

    def _dispatch(self, lst: list[Instance], n: int, e: Event, coord: float, key: Any) -> None:
        """Offer the stream event ``e`` to the first ``n`` instances of ``lst`` (those that
        waited before it), whatever step each waits in."""
        W = self.W
        dead = 0
        for idx in range(n):
            inst = lst[idx]
            if inst.dead:
                dead += 1
                continue
            if W is not None and coord - inst.cmin >= W:
                inst.dead = True
                self.alive -= 1
                dead += 1
                if self.tracer is not None:
                    lazy_trace.expire(self, inst, e)
                continue
            plan = inst.plan
            s = plan.steps[inst.step]
            if s.kleene:
                buf = s.vrt.buf
                if buf is not None:
                    lo = last_bound_seq(inst.vals, s.prec) if s.prec else None
                    i, j = buf.range(lo, None, inst.cmin if inst.cmin < coord else coord, coord, W)
                else:
                    i = j = 0
                self._iterate(inst, plan, s, buf or EventBuffer(), i, j, (e, coord, key))
            else:
                self._take_stream(inst, plan, s, e, coord, key)
        if dead:
            lst[:] = [i for i in lst[:n] if not i.dead] + lst[n:]


__all__ = ["ChainStepRunner"]
