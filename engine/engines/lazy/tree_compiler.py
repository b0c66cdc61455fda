"""Pattern -> lazy (Multi-)Tree NFA (Kolchinsky & Schuster, arXiv 1612.05110, §7;
docs/papers.md, "Lazy chain / tree NFA").

The Tree NFA needs no frequencies in advance. A state is an ordered prefix ``o`` of the
clause's variables (layer ``k`` holds the k-permutations); it has one take edge per
variable not in ``o``, enabled only when every remaining variable has at least one
buffered event (``nonempty``) and that variable is the rarest remaining one by the live
per-variable counts of the input buffers (``isMin``; ties by pattern position). The
ordering filters of an edge are those of the chain whose order is the path ``o·e``; with
the precedence closure they depend only on the *set* of bound variables, so they are
computed per ``(variable, bound set)`` and cached. The tree therefore contains every Chain
NFA of the clause, with shared prefixes, and states are instantiated lazily (only the
ones a live partial match occupies exist at run time; ``to_networkx`` draws the full tree).

Iterated (``+``) variables are not routed by counts: once every single-event variable is
bound, a partial match continues on a fixed chain tail that iterates the Kleene
variables (their subsets are the "most frequent pseudo-type", §4.5), exactly as in the
chain. Negations are First-Chance checks made as soon as their required variables are
bound, or post-processing for a trailing one. Disjunctions give a Multi-Tree NFA: one tree
per DNF clause under a shared root (§7, last paragraph).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

import itertools
from dataclasses import dataclass, field

from engine.model import Pattern
from engine.engines.lazy.chain_compiler import (Clause, Cond, NegSpec, PatternInfo, Step, _conds_text, _finish, analyse, build_steps,
                    filter_text, range_text)


@dataclass
class Edge:
    """The take edge for ``var`` out of a state whose bound set is ``mask``."""

    var: str
    prec: frozenset[str]
    succ: frozenset[str]
    conds: list[Cond]
    distinct: frozenset[str]
    fc: list[NegSpec]


@dataclass
class TreeClause:
    clause: Clause
    tree_vars: list[str]  # single-event variables, pattern order (the tie-break order)
    tail: list[Step]  # Kleene variables after every tree variable is bound
    bit: dict[str, int]
    full: int
    pp: list[NegSpec]  # trailing negations (and any whose variables are only bound at the end)
    _edges: dict[tuple[str, int], Edge] = field(default_factory=dict)

    def edge(self, var: str, mask: int, info: PatternInfo) -> Edge:
        key = (var, mask)
        e = self._edges.get(key)
        if e is None:
            e = self._edges[key] = self._make_edge(var, mask, info)
        return e

    def bound_vars(self, mask: int) -> list[str]:
        return [v for v in self.tree_vars if mask & self.bit[v]]

    def _make_edge(self, var: str, mask: int, info: PatternInfo) -> Edge:
        cl = self.clause
        taken = set(self.bound_vars(mask))
        prec_all = {u for u in taken if cl.precedes(u, var)}
        succ_all = {w for w in taken if cl.precedes(var, w)}
        prec = frozenset(u for u in prec_all if not any(cl.precedes(u, x) for x in prec_all))
        succ = frozenset(w for w in succ_all if not any(cl.precedes(x, w) for x in succ_all))
        bound = taken | {var}
        tv = set(self.tree_vars)
        conds = [c for c in cl.conds if var in c.vars and c.vars <= bound]
        # a condition over no variable of this clause's tree (only Kleene ones) is on the tail
        distinct = frozenset(u for u in taken if info.types_overlap(u, var)
                             and not cl.precedes(u, var) and not cl.precedes(var, u))
        fc = [n for n in cl.negations if not n.trailing and n.req <= tv and n.req <= bound and not n.req <= taken]
        return Edge(var, prec, succ, conds, distinct, fc)


@dataclass
class TreeNFA:
    info: PatternInfo
    clauses: list[TreeClause]

    @property
    def pattern(self) -> Pattern:
        return self.info.pattern

    def to_networkx(self, max_vars: int = 6) -> nx.MultiDiGraph:
        return tree_graph(self, max_vars)


def compile_tree(pattern: Pattern | PatternInfo) -> TreeNFA:
    info = pattern if isinstance(pattern, PatternInfo) else analyse(pattern)
    out = []
    for cl in info.clauses:
        tree_vars = [v for v in cl.vars if not info.vars[v].kleene]
        klee = [v for v in cl.vars if info.vars[v].kleene]
        steps = build_steps(cl, info, tree_vars + klee)
        tail = steps[len(tree_vars):]
        tv = set(tree_vars)
        pp = []
        for n in cl.negations:
            if n.trailing:
                pp.append(n)
            elif not n.req <= tv:
                k = next(i for i in range(len(klee)) if n.req <= tv | set(klee[:i + 1]))
                tail[k].fc.append(n)
        bit = {v: 1 << i for i, v in enumerate(tree_vars)}
        # conditions that mention only tree variables are placed on tree edges; the tail's
        # steps already carry exactly the conditions that involve a Kleene variable
        for s in tail:
            s.conds = [c for c in s.conds if not c.vars <= tv]
        out.append(TreeClause(cl, tree_vars, tail, bit, (1 << len(tree_vars)) - 1, pp))
    return TreeNFA(info, out)


def tree_graph(nfa: TreeNFA, max_vars: int = 6) -> nx.MultiDiGraph:
    """The full permutation tree (the runtime instantiates it lazily): a node per ordered
    prefix of the single-event variables, named ``q[c,b]``; take edges carry prec/succ,
    the range filter, the condition and the guard ``nonempty ∧ isMin(var)``; then the Kleene
    tail, F and R. Clauses hang under one root (Multi-Tree NFA)."""
    info = nfa.info
    multi = len(nfa.clauses) > 1
    import networkx as nx

    g = nx.MultiDiGraph(engine="lazy-tree", clauses=len(nfa.clauses), window=info.window,
                        count_window=info.count_window)
    g.add_node("root", kind="initial", label="root", order=(), depth=0, clause=None, reads=[])
    g.add_node("F", kind="final", label="F", order=None, depth=None, clause=None, reads=[])
    g.add_node("R", kind="reject", label="R", order=None, depth=None, clause=None, reads=[])
    for tc in nfa.clauses:
        if len(tc.tree_vars) > max_vars:
            raise ValueError(f"the tree of clause {tc.clause.index} has {len(tc.tree_vars)} variables; "
                             f"drawing is limited to {max_vars} (the runtime instantiates states lazily)")
        pre = f"c{tc.clause.index}:" if multi else ""
        n = len(tc.tree_vars)

        def name(path: tuple[str, ...]) -> str:
            return "root" if not path else f"{pre}q[{','.join(path)}]"

        tail_entry = f"{pre}tail:{tc.tail[0].var}" if tc.tail else ("F" if not tc.pp else f"{pre}¬{tc.pp[0].var}")
        for k in range(n):
            for path in itertools.permutations(tc.tree_vars, k):
                src = name(path)
                mask = sum(tc.bit[v] for v in path)
                if path:
                    g.add_node(src, kind="state", label=src.split(":")[-1], order=path, depth=k,
                               clause=tc.clause.index, reads=[v for v in tc.tree_vars if v not in path],
                               stores=[v for v in tc.tree_vars if v not in path])
                    g.add_edge(src, "R", key="timeout", kind="timeout", label="timeout")
                for v in tc.tree_vars:
                    if v in path:
                        continue
                    e = tc.edge(v, mask, info)
                    nxt = path + (v,)
                    dst = name(nxt) if len(nxt) < n else tail_entry
                    g.add_edge(src, dst, key=f"take:{v}", kind="take", var=v, type=info.vars[v].type,
                               prec=sorted(e.prec), succ=sorted(e.succ),
                               source="stream+buffer" if not e.succ else "buffer",
                               range=range_text(info, v, e.prec, e.succ, not e.succ), cond=_conds_text(e.conds),
                               filter=filter_text(info, v), guard=f"nonempty ∧ isMin({v})", clause=tc.clause.index,
                               label=f"take {v} if rarest")
                    for neg in e.fc:
                        g.add_edge(dst, "R", key=f"fc:{neg.var}", kind="negation", variant="first-chance",
                                   var=neg.var, type=neg.type, cond=_conds_text(neg.conds),
                                   label=f"take ¬{neg.var} (first chance)")
        for j, s in enumerate(tc.tail):
            src = f"{pre}tail:{s.var}"
            g.add_node(src, kind="state", label=f"iterate {s.var}", order=tuple(tc.tree_vars) + tuple(
                x.var for x in tc.tail[:j]), depth=n + j, clause=tc.clause.index, reads=[s.var], stores=[])
            dst = f"{pre}tail:{tc.tail[j + 1].var}" if j + 1 < len(tc.tail) else (
                "F" if not tc.pp else f"{pre}¬{tc.pp[0].var}")
            g.add_edge(src, dst, key=f"iterate:{s.var}", kind="iterate", var=s.var, type=info.vars[s.var].type,
                       prec=sorted(s.prec), succ=sorted(s.succ), source="stream+buffer" if s.stream_ok else "buffer",
                       range=range_text(info, s.var, s.prec, s.succ, s.stream_ok), cond=_conds_text(s.conds),
                       filter=filter_text(info, s.var), clause=tc.clause.index, label=f"iterate {s.var}")
            if not tc.tree_vars and j == 0:
                g.add_edge("root", src, key=f"clause:{tc.clause.index}", kind="epsilon", label="ε")
        for j, neg in enumerate(tc.pp):
            nm = f"{pre}¬{neg.var}"
            nxt = f"{pre}¬{tc.pp[j + 1].var}" if j + 1 < len(tc.pp) else "F"
            g.add_node(nm, kind="negative", label=f"¬{neg.var}", order=None, depth=None, clause=tc.clause.index,
                       reads=[neg.var])
            g.add_edge(nm, "R", key=f"take:{neg.var}", kind="negation", variant="post-processing", var=neg.var,
                       type=neg.type, cond=_conds_text(neg.conds), label=f"take ¬{neg.var}")
            ev = "timeout" if neg.trailing else "search_failed"
            g.add_edge(nm, nxt, key=ev, kind=ev, label=ev)
    layer: dict[int, int] = {}
    for n, d in g.nodes(data=True):  # column = depth, row = position in the layer
        dep = d.get("depth")
        if isinstance(dep, int):
            d["alternative"] = layer.get(dep, 0)
            layer[dep] = d["alternative"] + 1
            d["path"] = d.pop("order")
            d["order"] = dep
        else:
            d["path"] = d.pop("order")
    _finish(g)
    return g


__all__ = ["Edge", "TreeClause", "TreeNFA", "compile_tree", "tree_graph"]
