"""The state every lazy engine shares, and the eager baseline with them (so that the engines
are compared on equal terms): ``LazyBase`` (Kolchinsky & Schuster, arXiv 1612.05110, §3, §4;
docs/papers.md, "Lazy chain / tree NFA").

- **Buffers**: per-variable ``EventBuffer``s (buffers.py), expired at the start of every
  event and swept periodically.
- **Negation**: First-Chance checks (a buffer search on entry to a state) and
  Post-Processing states; a trailing negation waits (pending) until the window of the
  match's first event has closed, then searches once (timeout = success, §4.4).
- **Emission**: a match is emitted when its last event arrives (trailing negation: when
  its window closes, or at ``close()``); matches of different clauses are de-duplicated.
- **Guard**: partial matches, buffered events, subsets and the work of one event are bounded
  (``StateExplosion``).

Semantics are the oracle's (docs/semantics.md), where the notes leave a [CHOICE]: "before"
is stream position (``seq``), the window is strict (``last - first < W``; count windows on
``seq``), a trailing negation's match is reported at the first event with
``coord - first >= W`` (or at ``close()``).

Statistics (``stats``): ``runs_created`` = partial matches created (non-root, non-final),
``runs_alive``/``runs_peak`` = live partial matches (waiting in a state, or for a trailing
negation; the peak includes the transient ones of one event's cascade), ``predicate_evals``
= candidate checks against conditions (unary filters included), ``buffer_entries`` /
``buffer_peak`` = buffered events; ``extra``: buffer removals, rejected instances
(negation), subsets enumerated, ``state_peak`` (partial matches + buffered events).

Tracer (optional callable, one dict per step, nothing is built without it): ``event``,
``store``, ``search`` (var, seq range, candidates; the tree adds ``rarest``), ``take`` and
``iterate`` (source stream|buffer, parent and child instance ids), ``wait``, ``drop``
(timeout, search_failed, consumed), ``negation``, ``wait_negation``, ``match``; written by
trace.py.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from itertools import count as _count
from typing import Any

from engine.engines.lazy import trace as lazy_trace
from engine.engines.lazy.buffers import INF, EventBuffer
from engine.engines.lazy.chain_compiler import analyse, unsupported_reason
from engine.engines.lazy.compiled_steps import CompiledChain, CompiledNegation, VariableRuntime
from engine.engines.lazy.conditions import compile_local
from engine.engines.lazy.emission import match_binder, single_emission
from engine.engines.lazy.instances import Instance, first_bound_seq, last_bound_seq
from engine.events import Event
from engine.match import EngineUnsupported, Match, MatcherBase, Tracer
from engine.model import ANY_TYPE, Pattern

DEFAULT_MAX_INSTANCES = 2_000_000
DEFAULT_MAX_BUFFER = 6_000_000
DEFAULT_MAX_SUBSETS = 1_000_000
DEFAULT_MAX_WORK = 5_000_000  # enumeration steps and candidate checks for one input event
DEFAULT_WARMUP = 1000
SWEEP_EVERY = 1024


class _EveryType:
    """A set that contains every event type (a pattern with an ``ANY`` variable)."""

    def __contains__(self, _: object) -> bool:
        return True


class LazyBase(MatcherBase):
    """State, buffers, negation, emission, guard, stats and tracing shared by the chain,
    the tree and the eager baseline."""

    name = "lazy"
    engine_kind = "lazy"

    #: the instances keep the order their variables were bound in (``Instance.path``): the tree's
    #: states are named by it; the chain's and the eager baseline's by what is bound
    keeps_path = False

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK) -> None:
        why = unsupported_reason(pattern)
        if why:
            raise EngineUnsupported(f"engine `{self.name}` cannot run this pattern: {why}")
        super().__init__(pattern, tracer)
        self.info = info = analyse(pattern)
        self.dedupe = dedupe
        self.max_instances = max_runs if max_runs is not None else max_instances
        self.max_buffer = max_buffer
        self.max_subsets = max_subsets
        self.max_work = max_work
        self.work = 0  # enumeration steps and candidate checks spent on the current event
        self.stats.extra.update({"buffer_removals": 0, "instances_rejected": 0, "subsets": 0,
                                 "state_peak": 0, "negation_checks": 0})
        self.W = info.window
        self.count_window = info.count_window
        self.eq_attrs = tuple(info.eq_attrs)
        self.vrts: dict[str, VariableRuntime] = {}
        for v, vi in info.vars.items():
            self.vrts[v] = VariableRuntime(v, vi.type, vi.slot, vi.kleene, vi.negated, vi.pos,
                                           compile_local(info.local[v]), len(info.local[v]))
        self.nslots = len(info.vars)
        self.pos_slots = [(v, info.vars[v].slot, info.vars[v].kleene) for v in info.positive]
        self._slot_var = {info.vars[v].slot: v for v in info.vars}
        self._single_slots, self._span_slots = single_emission(info)
        self._bind = None if self._single_slots is None else match_binder(self._single_slots)
        self._nsingle = 0 if self._single_slots is None else len(self._single_slots) + 1  # work per match
        self._type_cache: dict[str, tuple[list[VariableRuntime], list[VariableRuntime]]] = {}
        # the event types some variable can take or forbid (ANY: every type)
        self._relevant_types: Any = (_EveryType() if any(v.type == ANY_TYPE for v in self.vrts.values())
                                     else frozenset(v.type for v in self.vrts.values()))
        self.pending: list[tuple[float, int, Instance, CompiledChain]] = []
        self._tick = _count()
        self._ids = _count(1)
        self.alive = 0
        self.buffered = 0
        self._depth = 0
        self._since_sweep = 0
        self.now: float = -INF
        self._out: list[Match] = []
        self.emitted: dict[Any, float] = {}
        self.multi = False
        self.closed = False
        self._bufs: list[EventBuffer] | None = None

    # ------------------------------------------------------------------ helpers
    def _vars_for(self, t: str) -> tuple[list[VariableRuntime], list[VariableRuntime]]:
        r = self._type_cache.get(t)
        if r is None:
            pos = [v for v in self.vrts.values() if not v.negated and (v.type == t or v.type == ANY_TYPE)]
            neg = [v for v in self.vrts.values() if v.negated and (v.type == t or v.type == ANY_TYPE)
                   and v.buf is not None]
            r = self._type_cache[t] = (pos, neg)
        return r

    def _key(self, e: Event) -> Any:
        return tuple(e.get(a) for a in self.eq_attrs) if self.eq_attrs else None

    def _passes(self, v: VariableRuntime, e: Event) -> bool:
        f = v.filter
        if f is None:
            return True
        self.stats.predicate_evals += 1
        return f(e)

    def _store_neg(self, negs: list[VariableRuntime], e: Event, coord: float, key: Any) -> None:
        for v in negs:
            if self._passes(v, e):
                self._add(v.buf, e, coord, key)  # type: ignore[arg-type]
                if self.tracer is not None:
                    lazy_trace.store(self, v.name, e, negated=True)

    def _add(self, buf: EventBuffer, e: Event, coord: float, key: Any) -> None:
        buf.add(e, coord, key)  # expiry: _expire_bufs at the start of every event
        self.buffered += 1
        self.stats.buffer_entries += 1

    def _prune(self, buf: EventBuffer, now: float) -> None:
        r = buf.prune(now, self.W)  # type: ignore[arg-type]
        if r:
            self.buffered -= r
            self.stats.extra["buffer_removals"] += r

    def _all_bufs(self) -> list[EventBuffer]:
        return [v.buf for v in self.vrts.values() if v.buf is not None]

    def _expire_bufs(self, now: float) -> None:
        """Drop buffered events that no future match can use (``now - coord >= W``), so
        the buffers (and the tree's live counts) hold exactly the window."""
        bufs = self._bufs
        if bufs is None:
            bufs = self._bufs = self._all_bufs()
        W = self.W
        for b in bufs:  # the front's expiry test inlined: only a buffer with expired events calls _prune
            if b.head < len(b.co) and now - b.co[b.head] >= W:
                self._prune(b, now)

    def _sweep(self, now: float) -> None:
        """Periodic housekeeping: prune every buffer, forget de-dup keys whose window closed."""
        if self.W is not None:
            for b in self._all_bufs():
                self._prune(b, now)
            if self.emitted:
                W = self.W
                self.emitted = {k: s for k, s in self.emitted.items() if now - s < W}

    def _peaks(self) -> None:
        st = self.stats
        if self.alive > st.runs_peak:
            st.runs_peak = self.alive
        st.runs_alive = self.alive
        if self.buffered > st.buffer_peak:
            st.buffer_peak = self.buffered
        s = self.alive + self.buffered
        if s > st.extra["state_peak"]:
            st.extra["state_peak"] = s
        if self.alive > self.max_instances or self.buffered > self.max_buffer:
            self._explode()

    def _note_transient(self) -> None:
        cur = self.alive + self._depth
        if cur > self.stats.runs_peak:
            self.stats.runs_peak = cur
        if cur > self.max_instances:
            self._explode()

    unit = "partial matches"

    def _explode_output(self) -> None:
        self.explode(f"one event completed {len(self._out):,} matches and had more to build",
                     f"{self.max_work:,} enumeration steps and matched event ids per event")

    def _explode_work(self, var: str) -> None:
        self.explode(f"more than {self.max_work:,} enumeration steps for one event while combining `{var}`",
                     f"{self.max_work:,} enumeration steps and matched event ids per event")

    def _explode(self, what: str | None = None) -> None:
        what = what or f"{self.alive:,} live partial matches and {self.buffered:,} buffered events"
        self.explode(what, f"{self.max_instances:,} partial matches / {self.max_buffer:,} buffered events")

    # ------------------------------------------------------------------ negation
    def _neg_violated(self, inst: Instance, n: CompiledNegation) -> bool:
        """A qualifying event of ``n`` lies in the forbidden range (a take edge to R)."""
        buf = n.vrt.buf
        assert buf is not None
        vals = inst.vals
        self.stats.extra["negation_checks"] += 1
        lo = last_bound_seq(vals, n.lo)
        seqs = buf.seq
        i = bisect_right(seqs, lo, buf.head, len(seqs))
        if n.trailing:
            j = len(seqs)
        else:
            j = bisect_left(seqs, first_bound_seq(vals, n.hi), i, len(seqs))
        co = buf.co
        keys = buf.key
        W = self.W
        cmin = inst.cmin
        eq = inst.eq
        check = n.check
        found = False
        for idx in range(i, j):
            if n.trailing and W is not None and co[idx] - cmin >= W:
                break
            if eq is not None and keys[idx] != eq:
                continue
            if check is None:
                found = True
                break
            vals[n.slot] = buf.ev[idx]
            self.stats.predicate_evals += 1
            if check(vals):
                found = True
                break
        if found and self.tracer is not None:
            lazy_trace.negation(self, inst, n.var, buf.ev[idx])
        vals[n.slot] = None
        return found

    def _fc_ok(self, inst: Instance, fcs: list[CompiledNegation]) -> bool:
        for n in fcs:
            if self._neg_violated(inst, n):
                self.stats.extra["instances_rejected"] += 1
                return False
        return True

    def _complete(self, inst: Instance, plan: CompiledChain) -> None:
        """All positives bound: post-processing negative states, then F (or wait)."""
        for n in plan.between:
            if self._neg_violated(inst, n):
                self.stats.extra["instances_rejected"] += 1
                return
        if plan.trailing:
            heapq.heappush(self.pending, (inst.cmin, next(self._tick), inst, plan))
            self.alive += 1
            if self.tracer is not None:
                lazy_trace.wait_negation(self, inst, inst.cmin + (self.W or 0))
            return
        self._emit(inst)

    def _finalize(self, now: float | None) -> None:
        """Trailing negations whose window has closed (``now - first >= W``), or all at close."""
        W = self.W
        pend = self.pending
        while pend and (now is None or now - pend[0][0] >= W):  # type: ignore[operator]
            _, _, inst, plan = heapq.heappop(pend)
            self.alive -= 1
            if any(self._neg_violated(inst, n) for n in plan.trailing):
                self.stats.extra["instances_rejected"] += 1
                continue
            self._emit(inst)

    def _emit(self, inst: Instance) -> None:
        self._emit_vals(inst.vals, inst.cmin, inst)

    def _emit_vals(self, vals: list[Any], cmin: float, inst: Instance | None) -> None:
        """Emit the match of a complete value vector (``cmin``: its first coordinate, the
        de-duplication key's lifetime; ``inst``: its instance, for the tracer)."""
        bind = self._bind
        if bind is not None:
            # fast path: one event per variable, in fixed slots: ``emission.match_binder`` writes
            # the bindings the general loop below builds, first/last come from the span slots
            span = self._span_slots
            if span is not None:
                first, last = vals[span[0]], vals[span[1]]
            else:
                first = last = vals[self._single_slots[0][1]]  # type: ignore[index]
                for _, slot in self._single_slots:  # type: ignore[union-attr]
                    x = vals[slot]
                    if x.seq < first.seq:
                        first = x
                    elif x.seq > last.seq:
                        last = x
            self._emit_match(inst, cmin, Match(bind(vals), first.ts, last.ts, first.seq, last.seq),
                             self._nsingle, last)
            return
        bindings = []
        first = None
        last = None
        size = 1
        for var, slot, k in self.pos_slots:
            x = vals[slot]
            if x is None:
                bindings.append((var, ()))
                continue
            if k:
                bindings.append((var, tuple([e.id for e in x])))
                f, l = x[0], x[-1]
                size += len(x)
            else:
                bindings.append((var, (x.id,)))
                f = l = x
                size += 1
            if first is None or f.seq < first.seq:
                first = f
            if last is None or l.seq > last.seq:
                last = l
        assert first is not None and last is not None
        self._emit_match(inst, cmin, Match(tuple(bindings), first.ts, last.ts, first.seq, last.seq), size, last)

    def _emit_match(self, inst: Instance | None, cmin: float, m: Match, size: int, last: Event) -> None:
        self.work += size  # output is work too: bound what one event emits
        if self.work > self.max_work:
            self._explode_output()
        if self.multi and self.dedupe:
            if m.key in self.emitted:
                return
            self.emitted[m.key] = cmin
        self._out.append(m)
        self.stats.matches += 1
        if self.tracer is not None:
            lazy_trace.matched(self, inst, m, last)

    # ------------------------------------------------------------------ instances
    def _child(self, inst: Instance, slot: int, x: Any, cmin: float, cmax: float, key: Any) -> Instance:
        vals = inst.vals.copy()
        vals[slot] = x
        c = Instance(vals, inst.cmin if inst.cmin < cmin else cmin, inst.cmax if inst.cmax > cmax else cmax,
                     inst.eq if inst.eq is not None else key)
        c.mask = inst.mask
        c.cur = inst.cur
        c.id = next(self._ids)  # traced or not (engine/checkpoints.py starts traces from untraced snapshots)
        if self.keeps_path:  # the tree's state names the order its variables were bound in
            var = self._slot_var[slot]
            path = inst.path
            c.path = path if var in path else path + (var,)
        return c

    # ------------------------------------------------------------------ matcher protocol
    def feed(self, e: Event) -> list[Match]:
        raise NotImplementedError

    def close(self) -> list[Match]:
        self._out = out = []
        if self.pending:
            self._finalize(None)
        self.closed = True
        self.stats.runs_alive = self.alive
        return out

    def instances(self) -> list[Instance]:
        raise NotImplementedError

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        """Live partial matches and the per-variable buffers, for the step trace."""
        return lazy_trace.state(self)


__all__ = ["DEFAULT_MAX_BUFFER", "DEFAULT_MAX_INSTANCES", "DEFAULT_MAX_SUBSETS", "DEFAULT_MAX_WORK",
           "DEFAULT_WARMUP", "SWEEP_EVERY", "LazyBase"]
