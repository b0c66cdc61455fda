"""The lazy (Multi-)Tree NFA runtime (Kolchinsky & Schuster, arXiv 1612.05110, §7 with the
consumption semantics of notes §4.4; docs/papers.md, "Lazy chain / tree NFA"):
``CompiledTree`` and ``LazyTreeMatcher``.

Live per-variable counts; each instance, on every event, takes from the buffer of the rarest
remaining variable when every remaining one is non-empty, consuming what it scanned (a
per-variable cursor), so that each match is found exactly once. Kleene variables form a
chain tail, run as a chain (chain_steps.py) once every tree variable is bound.
"""
from __future__ import annotations

import heapq
from typing import Any

from engine.engines.lazy import trace as lazy_trace
from engine.engines.lazy.base import (DEFAULT_MAX_BUFFER, DEFAULT_MAX_INSTANCES, DEFAULT_MAX_SUBSETS,
                                      DEFAULT_MAX_WORK, SWEEP_EVERY)
from engine.engines.lazy.buffers import INF, EventBuffer
from engine.engines.lazy.chain_compiler import PatternInfo
from engine.engines.lazy.chain_steps import ChainStepRunner
from engine.engines.lazy.compiled_steps import (CompiledChain, CompiledNegation, CompiledStep, VariableRuntime,
                                                clause_signature)
from engine.engines.lazy.conditions import compile_conds
from engine.engines.lazy.instances import Instance, first_bound_seq, last_bound_seq
from engine.engines.lazy.tree_compiler import TreeClause, TreeNFA, compile_tree
from engine.events import Event
from engine.match import Match, Tracer
from engine.model import Pattern


class CompiledTree:
    """A compiled tree (one clause): tree variables with bits, edge cache, chain tail."""

    def __init__(self, tc: TreeClause, info: PatternInfo, vrts: dict[str, VariableRuntime],
                 negs: dict[str, VariableRuntime]) -> None:
        self.tc = tc
        self.info = info
        self.tvars = [vrts[v] for v in tc.tree_vars]
        self.bits = [tc.bit[v] for v in tc.tree_vars]
        self.full = tc.full
        self.kvars = [vrts[s.var] for s in tc.tail]
        self.negs = negs
        self.tail = CompiledChain(tc.clause.index, [CompiledStep(s, info, vrts[s.var], negs) for s in tc.tail],
                                  [CompiledNegation(n, info, negs[n.var]) for n in tc.pp])
        self._edges: dict[tuple[int, int], Any] = {}
        self.okm = 0  # tree variables the current event matches
        self.okk = False  # the current event matches a Kleene variable

    def edge(self, i: int, mask: int) -> Any:
        key = (i, mask)
        e = self._edges.get(key)
        if e is None:
            info = self.info
            ed = self.tc.edge(self.tvars[i].name, mask, info)
            e = self._edges[key] = (
                tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(ed.prec)),
                tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(ed.succ)),
                compile_conds(ed.conds, info),
                tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(ed.distinct)),
                [CompiledNegation(n, info, self.negs[n.var]) for n in ed.fc],
            )
        return e


class LazyTreeMatcher(ChainStepRunner):
    """The lazy (Multi-)Tree NFA: no frequencies needed; each partial match continues with
    the rarest remaining variable by live buffer counts (§7, notes §4.4)."""

    name = "lazy-tree"

    keeps_path = True

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK, **_: Any) -> None:
        super().__init__(pattern, tracer, dedupe=dedupe, max_instances=max_instances, max_buffer=max_buffer,
                         max_subsets=max_subsets, max_runs=max_runs, max_work=max_work)
        info = self.info
        self.nfa: TreeNFA = compile_tree(info)
        negs = {v: self.vrts[v] for v in info.negated}
        for v in self.vrts.values():
            v.buf = EventBuffer()  # the tree may read any variable's buffer
        self.trees: list[CompiledTree] = []
        seen = set()
        for tc in self.nfa.clauses:
            if tc.clause.const_false:
                continue
            if self.dedupe:
                sig = clause_signature(tc.clause)
                if sig in seen:
                    continue
                seen.add(sig)
            self.trees.append(CompiledTree(tc, info, self.vrts, negs))
        self.multi = len(self.trees) > 1
        self.active: list[Instance] = []
        self.waiting: dict[str, list[Instance]] = {}  # chain-mode tails (Kleene variables)
        self._dead: dict[str, int] = {}
        self.heap: list[tuple[float, int, Instance]] = []
        for rt in self.trees:
            root = Instance([None] * self.nslots, INF, -INF, None)
            root.root = True
            root.plan = rt
            if rt.tvars:
                root.cur = [-1] * len(rt.tvars)
                self.active.append(root)
            else:  # only Kleene variables: the root waits on the tail's first step
                root.plan = rt.tail
                rt.tail.root = root
                self.waiting.setdefault(rt.tail.steps[0].var, []).append(root)
        self.choices: dict[str, int] = {}  # how often each variable was the rarest (for display)
        self._var_trees: dict[str, list[tuple[CompiledTree, int]]] = {}
        for rt in self.trees:
            for i, tv in enumerate(rt.tvars):
                self._var_trees.setdefault(tv.name, []).append((rt, rt.bits[i]))
            for kv in rt.kvars:
                self._var_trees.setdefault(kv.name, []).append((rt, 0))

    def feed(self, e: Event) -> list[Match]:
        self.stats.events += 1
        self._out = out = []
        self.work = 0
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        W = self.W
        tr = self.tracer
        if self.pending:
            self._finalize(coord)
        if W is not None:
            self._expire_to(coord, e)  # live counts must be exact
        pos, negs = self._vars_for(e.type)
        if pos or negs:
            key = self._key(e) if self.eq_attrs else None
            ok = [v for v in pos if self._passes(v, e)]
            if ok:
                snap = []
                for v in ok:
                    lst = self.waiting.get(v.name)
                    if lst:
                        snap.append((lst, len(lst)))
                for lst, n in snap:
                    self._dispatch(lst, n, e, coord, key)
                for v in ok:
                    self._add(v.buf, e, coord, key)  # type: ignore[arg-type]
                    if tr is not None:
                        lazy_trace.store(self, v.name, e)
            if negs:
                self._store_neg(negs, e, coord, key)
            if ok:
                for rt in self.trees:
                    rt.okm = 0
                    rt.okk = False
                for v in ok:
                    for rt, bit in self._var_trees.get(v.name, ()):
                        if bit:
                            rt.okm |= bit
                        else:
                            rt.okk = True
                act = self.active
                n = len(act)
                dead = 0
                for idx in range(n):
                    inst = act[idx]
                    if inst.dead:
                        dead += 1
                        continue
                    if W is not None and coord - inst.cmin >= W:
                        inst.dead = True
                        self.alive -= 1
                        dead += 1
                        if tr is not None:
                            lazy_trace.expire(self, inst, e)
                        continue
                    rt = inst.plan
                    # only an event of a still unbound variable can change what this instance
                    # finds (it is the last event of any match the instance is part of)
                    if not (rt.okm & ~inst.mask or rt.okk):
                        continue
                    self._advance(inst)
                    if inst.dead:
                        dead += 1
                if dead:
                    self.active = [i for i in act if not i.dead]
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)
            self.active = [i for i in self.active if not i.dead]
            for lst in self.waiting.values():
                if any(i.dead for i in lst):
                    lst[:] = [i for i in lst if not i.dead]
        self._peaks()
        return out

    def _advance(self, inst: Instance) -> None:
        """Take from the buffer of the rarest remaining variable (if every remaining one is
        non-empty), consuming everything scanned; children advance at once."""
        rt: CompiledTree = inst.plan
        mask = inst.mask
        best = -1
        bc = 0
        tvars = rt.tvars
        bits = rt.bits
        for i in range(len(tvars)):
            if mask & bits[i]:
                continue
            b = tvars[i].buf
            c = len(b.seq) - b.head
            if c == 0:
                return
            if best < 0 or c < bc:
                best, bc = i, c
        for kv in rt.kvars:
            b = kv.buf
            if len(b.seq) == b.head:
                return
        v = tvars[best]
        buf = v.buf
        cur = inst.cur
        last = buf.seq[-1]
        prec, succ, check, distinct, fc = rt.edge(best, mask)
        tr = self.tracer
        if last > cur[best]:
            lo = last_bound_seq(inst.vals, prec) if prec else -1
            if cur[best] > lo:
                lo = cur[best]
            hi = first_bound_seq(inst.vals, succ) if succ else None
            i, j = buf.range(lo, hi, inst.cmin, inst.cmax, self.W)
            cur[best] = last
            if tr is not None:
                lazy_trace.search(self, inst, v.name, max(0, j - i), rarest=v.name)
            self.choices[v.name] = self.choices.get(v.name, 0) + 1
            if i < j:
                self._take_tree(inst, rt, best, buf, i, j, check, distinct, fc)
        if succ and not inst.root:
            # every event the rarest variable could still take has been consumed
            inst.dead = True
            self.alive -= 1
            if tr is not None:
                lazy_trace.discard(self, inst, "consumed: every event the rarest variable could still take "
                                               "has been scanned")

    def _take_tree(self, inst: Instance, rt: CompiledTree, bi: int, buf: EventBuffer, i: int, j: int, check: Any,
                   distinct: Any, fc: list[CompiledNegation]) -> None:
        v = rt.tvars[bi]
        slot = v.slot
        st = self.stats
        bit = rt.bits[bi]
        tr = self.tracer
        for x, c, key in self._scan(inst, buf, i, j, slot, v.name, distinct, check):
            child = self._child(inst, slot, x, c, c, key)
            child.mask = inst.mask | bit
            child.cur = inst.cur.copy()  # type: ignore[union-attr]
            child.plan = rt
            if tr is not None:
                lazy_trace.take(self, inst, child, v.name, x, "buffer")
            if fc and not self._fc_ok(child, fc):
                continue
            if child.mask == rt.full:
                self._enter(child, rt.tail, 0)
                continue
            st.runs_created += 1
            self.active.append(child)
            self.alive += 1
            self._note_transient()
            self._advance(child)

    def close(self) -> list[Match]:
        return super().close()

    def instances(self) -> list[Instance]:
        out = [i for i in self.active if not i.dead and not i.root]
        out += [i for lst in self.waiting.values() for i in lst if not i.dead and not i.root]
        return out + [p[2] for p in self.pending]


__all__ = ["CompiledTree", "LazyTreeMatcher"]
