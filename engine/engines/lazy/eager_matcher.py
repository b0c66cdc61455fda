"""The eager NFA baseline (Kolchinsky & Schuster §2.2; docs/papers.md, "Lazy chain / tree NFA")
with the same semantics as the lazy engines (skip_till_any_match), for comparing them
on equal terms.

Every event is applied on arrival to every instance, in the pattern's own order: an
instance is the set of variables taken so far (for a SEQ the chain ``q1 -> ... -> F``; for
AND the subset lattice, 2^n states; for a partial order its down-sets), and an event
may be taken for variable ``v`` when every variable that precedes ``v`` is taken and none
that follows it is (a Kleene variable keeps a take self-loop while nothing after it is
taken). Every take clones the instance (the ignore self-loop keeps the old one), so a
partial match lives until its window times out. Negation is post-processing (checked on
the complete match; a trailing one waits for the window to close), OR is a union of one
automaton per DNF clause with de-duplication. The clause analysis, buffers of negated
events, condition compilation, negation checks and emission are the lazy engines' own
(base.py and the modules below it), so only the evaluation order differs.
"""
from __future__ import annotations

from typing import Any

from engine.engines.lazy import trace as lazy_trace
from engine.engines.lazy.base import (DEFAULT_MAX_BUFFER, DEFAULT_MAX_INSTANCES, DEFAULT_MAX_SUBSETS,
                                      DEFAULT_MAX_WORK, SWEEP_EVERY, LazyBase)
from engine.engines.lazy.buffers import INF, EventBuffer
from engine.engines.lazy.chain_compiler import Clause, Cond, PatternInfo
from engine.engines.lazy.compiled_steps import CompiledChain, CompiledNegation, clause_signature
from engine.engines.lazy.conditions import compile_conds
from engine.engines.lazy.instances import Instance
from engine.events import Event
from engine.match import Match, Tracer
from engine.model import Pattern


class _EagerVariable:
    """A variable of one eager clause: its bit, the bits of the variables that must precede
    (``pred``) and follow (``succ``) it, and its runtime data."""

    __slots__ = ("vrt", "bit", "pred", "succ", "slot", "kleene", "name", "extensible")

    def __init__(self, vrt: Any, bit: int, pred: int, succ: int) -> None:
        self.vrt = vrt
        self.bit = bit
        self.pred = pred
        self.succ = succ
        self.slot = vrt.slot
        self.kleene = vrt.kleene
        self.name = vrt.name


class _EagerClause:
    """One DNF clause as an eager automaton: its variables, the conditions decidable per
    (variable, bound set), the post-processing negations and the root instance."""

    def __init__(self, cl: Clause, info: PatternInfo, vrts: dict[str, Any], negs: dict[str, Any]) -> None:
        self.clause = cl
        self.info = info
        bit = {v: 1 << i for i, v in enumerate(cl.vars)}
        self.bitof = bit
        self.full = (1 << len(cl.vars)) - 1
        self.evars: dict[str, _EagerVariable] = {}
        for v in cl.vars:
            pred = sum(bit[u] for u in cl.before[v])
            succ = sum(bit[w] for w in cl.after[v])
            self.evars[v] = _EagerVariable(vrts[v], bit[v], pred, succ)
        self.conds = cl.conds
        self.final = compile_conds([c for c in cl.conds if c.final], info)
        self._checks: dict[tuple[str, int], Any] = {}
        # a complete instance can still grow if a Kleene variable has nothing after it
        self.extensible = any(e.kleene and not e.succ for e in self.evars.values())
        self.plan = CompiledChain(cl.index, [], [CompiledNegation(n, info, negs[n.var]) for n in
                                                 sorted(cl.negations, key=lambda n: (n.trailing, n.pos))])
        self.root = Instance([None] * len(info.vars), INF, -INF, None)
        self.root.root = True
        self.root.plan = self

    def check(self, var: str, mask: int) -> Any:
        """Prefix-closed conditions that become decidable (or change) when ``var`` grows and
        the bound set is ``mask``; the others wait for completion."""
        key = (var, mask)
        if key in self._checks:
            return self._checks[key]
        bound = {v for v, b in self.bitof.items() if mask & b}
        cs: list[Cond] = [c for c in self.conds if var in c.vars and c.vars <= bound and not c.final]
        f = self._checks[key] = compile_conds(cs, self.info)
        return f


class EagerMatcher(LazyBase):
    """Eager NFA: instances advance in pattern order on every event (see module docstring)."""

    name = "eager"
    engine_kind = "eager"

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK, **_: Any) -> None:
        super().__init__(pattern, tracer, dedupe=dedupe, max_instances=max_instances, max_buffer=max_buffer,
                         max_subsets=max_subsets, max_runs=max_runs, max_work=max_work)
        info = self.info
        negs = {v: self.vrts[v] for v in info.negated}
        for v in negs.values():
            v.buf = EventBuffer()
        self.clauses: list[_EagerClause] = []
        seen = set()
        for cl in info.clauses:
            if cl.const_false:
                continue
            if self.dedupe:
                sig = clause_signature(cl)
                if sig in seen:
                    continue
                seen.add(sig)
            self.clauses.append(_EagerClause(cl, info, self.vrts, negs))
        self.multi = len(self.clauses) > 1
        self.insts: list[Instance] = []
        # variables an event of a given variable can start (no predecessor), per clause
        self._by_var: dict[str, list[tuple[_EagerClause, _EagerVariable]]] = {}
        for ec in self.clauses:
            for v, ev in ec.evars.items():
                self._by_var.setdefault(v, []).append((ec, ev))

    def feed(self, e: Event) -> list[Match]:
        st = self.stats
        st.events += 1
        self._out = out = []
        self.work = 0
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        W = self.W
        tr = self.tracer
        if self.pending:
            self._finalize(coord)
        if W is not None:
            self._expire_bufs(coord)
        pos, negs = self._vars_for(e.type)
        key = self._key(e) if (self.eq_attrs and (pos or negs)) else None
        ok = [v for v in pos if self._passes(v, e)] if pos else []
        insts = self.insts
        if ok:
            self.work += len(insts)
            if self.work > self.max_work:
                self._explode_work(ok[0].name)
        keep: list[Instance] = []
        new: list[Instance] = []
        self._new = new
        for inst in insts:
            if W is not None and coord - inst.cmin >= W:  # timeout -> R
                self.alive -= 1
                if tr is not None:
                    lazy_trace.expire(self, inst, e)
                continue
            keep.append(inst)
            if ok:
                ec: _EagerClause = inst.plan
                for v in ok:
                    ev = ec.evars.get(v.name)
                    if ev is not None:
                        self._take(inst, ec, ev, e, coord, key)
        for v in ok:  # the initial state takes every variable without predecessors
            for ec, ev in self._by_var.get(v.name, ()):
                if not ev.pred:
                    self._take(ec.root, ec, ev, e, coord, key)
        if new:
            keep.extend(new)
        self.insts = keep
        if negs:
            self._store_neg(negs, e, coord, key)
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)
        self._peaks()
        return out

    def _take(self, inst: Instance, ec: _EagerClause, ev: _EagerVariable, e: Event, coord: float, key: Any) -> None:
        mask = inst.mask
        bit = ev.bit
        if mask & bit and not ev.kleene:
            return
        if (ev.pred & mask) != ev.pred or ev.succ & mask:
            return
        if inst.eq is not None and key != inst.eq:
            return
        nmask = mask | bit
        vals = inst.vals
        slot = ev.slot
        old = vals[slot]
        x = (old + (e,) if old is not None else (e,)) if ev.kleene else e
        check = ec.check(ev.name, nmask)
        st = self.stats
        if check is not None:
            vals[slot] = x
            st.predicate_evals += 1
            ok = check(vals)
            if not ok and self.tracer is not None:
                lazy_trace.refuse(self, inst, ev.name, vals, e, "stream")
            vals[slot] = old
            if not ok:
                return
        child = self._child(inst, slot, x, coord, coord, key)
        child.mask = nmask
        child.plan = ec
        if self.tracer is not None:
            lazy_trace.take(self, inst, child, ev.name, e, "stream")
        if nmask == ec.full:
            good = True
            if ec.final is not None:
                st.predicate_evals += 1
                good = ec.final(child.vals)
            if good:
                self._complete(child, ec.plan)
            if not ec.extensible:
                return
        st.runs_created += 1
        self._new.append(child)
        self.alive += 1
        if self.alive > self.max_instances:
            self._explode()

    def instances(self) -> list[Instance]:
        return list(self.insts) + [p[2] for p in self.pending]


__all__ = ["EagerMatcher"]
