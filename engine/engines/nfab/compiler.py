"""Pattern -> NFA^b (SASE+, Agrawal et al. SIGMOD 2008; §4; docs/papers.md, "SASE+ / NFA^b").

The automaton is a linear chain of states: a singleton state per one-event component,
a pair ``a[1] -> a[i]`` per Kleene component, and ``F``. Edges are begin (singleton and
first states, forward), take (``a[i]`` self-loop), ignore (self-loop on every state but
the start and F) and proceed (``a[i]`` forward, ε). Predicates are split into
conjuncts, ``[attr]`` is expanded, and each conjunct is placed on the edge of its last
identifier (§4.5 step 2): ``a[1]`` -> begin of ``a[1]``; ``a[i]``/``a[i-1]``/
``agg(a[..i-1])`` -> take of ``a[i]``; ``a[a.len]``/``a.len``/``agg(a[])`` -> proceed of
``a[i]``; ``b`` -> begin of ``b``. The strategy only changes the ignore formulas
(§3.4). WITHIN sits on the edge into F (step 4) and, optimised, on every edge (step 5);
proceed is constrained by peeking at the next state's begin (step 6), which the notes
show is semantics-defining for skip_till_next_match (§6.4).

Patterns with ``?``/``*``, OR, and AND groups of one-event components are rewritten into
SEQ alternatives (each its own chain; matches are de-duplicated). Negation is the
paper's nested query, checked when a match is complete (middle) or when its window
closes (trailing).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

from engine.expr import Agg, Cmp, Len, Node, Ref, to_text, uses_iteration, variables
from engine.model import Component, Group, Pattern, Strategy
from engine.partition import PartitionKey, partition_key

MAX_ALTERNATIVES = 64


@dataclass
class Placed:
    """A conjunct on an edge, with the meaning of unindexed Kleene refs fixed by the edge."""

    expr: Node
    edge: str  # begin | take | proceed


@dataclass
class State:
    name: str
    kind: str  # singleton | kleene_first | kleene_rest | final
    var: str | None = None
    type: str | None = None
    comp: int = -1  # index among positive components of the alternative
    begin: list[Node] = field(default_factory=list)
    take: list[Node] = field(default_factory=list)
    proceed: list[Node] = field(default_factory=list)


@dataclass
class Negation:
    comp: Component
    after: int  # index of the positive component it follows
    before: int | None  # index of the positive component it precedes; None = trailing
    conjuncts: list[Node]


@dataclass
class Chain:
    """One SEQ alternative compiled to a linear NFA^b."""

    index: int
    comps: list[Component]  # positive components in order
    absent: list[str]  # variables this alternative binds to nothing
    states: list[State]
    negations: list[Negation]

    @property
    def final(self) -> int:
        return len(self.states) - 1


@dataclass
class Nfab:
    pattern: Pattern
    chains: list[Chain]
    strategy: Strategy
    key: PartitionKey | None
    order: list[str]  # positive variables in pattern order (match bindings order)

    def to_networkx(self, optimised: bool = True) -> "nx.MultiDiGraph":
        return to_networkx(self, optimised)


# --------------------------------------------------------------------------- support

def unsupported_reason(p: Pattern) -> str | None:
    """None when NFA^b can run the pattern, else the reason (for the planner)."""
    try:
        alts = expand(p)
    except _Refuse as r:
        return str(r)
    kleene = {c.var for c in p.components() if c.kleene}
    for e in p.where:
        vs = variables(e)
        unindexed = {n.var for n in e.walk() if isinstance(n, Ref) and n.index is None and n.var in kleene}
        for v in uses_iteration(e):
            if any((isinstance(n, Ref) and n.var == v and n.index == "last") or (isinstance(n, Len) and n.var == v)
                   or (isinstance(n, Agg) and n.var == v and n.scope != "prefix") for n in e.walk()):
                return (f"`{v}[i]` with `{v}[{v}.len]`, `{v}.len` or an aggregate over all of `{v}[]` in one "
                        f"predicate: NFA^b checks `{v}[i]` as each element is taken, before the last is known; "
                        "use the lazy engines")
        for v in unindexed:
            if any(isinstance(n, (Ref, Len, Agg)) and n.var == v and not (isinstance(n, Ref) and n.index is None)
                   for n in e.walk()):
                return (f"`{v}.x` (every element) mixed with indexed `{v}[...]` in one predicate; "
                        "split the predicate")
        for alt in alts:
            pos = [c.var for c in alt[0]]
            idx = {v: k for k, v in enumerate(pos)}
            present = [v for v in vs if v in idx]
            if not present or len(present) != len([v for v in vs if v not in alt[1] and v not in _neg_vars(p)]):
                continue
            last = max(idx[v] for v in present)
            for v in uses_iteration(e):
                if v in idx and idx[v] < last:
                    return (f"`{v}[i]` compared with a later component: NFA^b checks `{v}[i]` as each element "
                            "is taken, before the later component is bound; use the lazy engines")
            for v in unindexed:
                if v in idx and idx[v] < last:
                    return (f"`{v}.x` (every element of a Kleene variable) compared with a later component; "
                            f"write it with max/min({v}[].x) or use another engine")
    if p.output == "NON_OVERLAP" and any(n for alt in alts for n in _trailing(alt)):
        return "OUTPUT NON_OVERLAP with a trailing negation"
    return None


def _neg_vars(p: Pattern) -> set[str]:
    return {c.var for c in p.components() if c.negated}


def _trailing(alt: Any) -> list[Component]:
    return [c for c, after, before in alt[2] if before is None]


class _Refuse(ValueError):
    pass


def expand(p: Pattern) -> list[tuple[list[Component], list[str], list[tuple[Component, int, int | None]]]]:
    """SEQ alternatives: (positive components in order, absent vars, negations as
    (component, after index, before index or None))."""
    all_pos = [c.var for c in p.components() if not c.negated]
    out = []
    seen = set()
    for seq in _alternatives(p.root):
        pos = [c for c in seq if not c.negated]
        if not pos:
            continue
        negs = []
        k = -1
        for c in seq:
            if c.negated:
                nxt = k + 1 if k + 1 < len(pos) else None
                if k < 0:
                    raise _Refuse("a negation would come first in one alternative of the pattern")
                negs.append((c, k, nxt))
            else:
                k += 1
        sig = (tuple(c.var for c in pos), tuple((c.var, a, b) for c, a, b in negs))
        if sig in seen:
            continue
        seen.add(sig)
        present = {c.var for c in pos}
        out.append((pos, [v for v in all_pos if v not in present], negs))
        if len(out) > MAX_ALTERNATIVES:
            raise _Refuse(f"the pattern expands into more than {MAX_ALTERNATIVES} SEQ alternatives")
    return out


def _alternatives(item: Component | Group) -> list[list[Component]]:
    if isinstance(item, Component):
        if item.quant == "opt":
            return [[], [item.model_copy(update={"quant": "one"})]]
        if item.quant == "star":
            return [[], [item.model_copy(update={"quant": "plus"})]]
        return [[item]]
    if item.op == "OR":
        return [a for i in item.items for a in _alternatives(i)]
    parts = [_alternatives(i) for i in item.items]
    if item.op == "SEQ":
        return [list(itertools.chain.from_iterable(combo)) for combo in itertools.product(*parts)]
    # AND: every interleaving of one-event items = every order of the items
    for i in item.items:
        if any(c.kleene for c in _comps(i)):
            raise _Refuse("AND(...) with a Kleene component: its events may interleave, "
                          "which a linear NFA^b cannot express")
        if isinstance(i, Group) and i.op != "OR" and len(_comps(i)) > 1:
            raise _Refuse("AND(...) over a nested group: its events may interleave")
    out = []
    for combo in itertools.product(*parts):
        blocks = [b for b in combo if b]
        if len(blocks) > 6:
            raise _Refuse("AND(...) of more than 6 components")
        for perm in itertools.permutations(blocks):
            out.append(list(itertools.chain.from_iterable(perm)))
    return out


def _comps(item: Component | Group) -> list[Component]:
    if isinstance(item, Component):
        return [item]
    return [c for i in item.items for c in _comps(i)]


# --------------------------------------------------------------------------- compilation

def equivalence_conjuncts(p: Pattern, comps: list[Component], negs: list[Component]) -> list[Node]:
    """``[attr]`` expanded (§3.3): every other identifier equals the first component's."""
    out: list[Node] = []
    if not comps:
        return out
    first = comps[0]
    for attr in p.equivalence:
        anchor = Ref(var=first.var, index="1" if first.kleene else None, attr=attr)
        if first.kleene:
            out.append(Cmp(op="=", left=Ref(var=first.var, index="i", attr=attr), right=anchor))
        for c in comps[1:] + negs:
            out.append(Cmp(op="=", left=Ref(var=c.var, attr=attr), right=anchor))
    return out


def compile_pattern(p: Pattern) -> Nfab:
    why = unsupported_reason(p)
    if why:
        raise ValueError(f"NFA^b cannot run this pattern: {why}")
    negvars = _neg_vars(p)
    chains = []
    for k, (pos, absent, negs) in enumerate(expand(p)):
        states: list[State] = []
        for ci, c in enumerate(pos):
            if c.kleene:
                states.append(State(f"{c.var}[1]", "kleene_first", c.var, c.type, ci))
                states.append(State(f"{c.var}[i]", "kleene_rest", c.var, c.type, ci))
            else:
                states.append(State(c.var, "singleton", c.var, c.type, ci))
        states.append(State("F", "final"))
        first_state = {}
        for si, s in enumerate(states):
            if s.var is not None and s.var not in first_state:
                first_state[s.var] = si
        idx = {c.var: i for i, c in enumerate(pos)}
        kleene = {c.var for c in pos if c.kleene}
        neg_comps = [c for c, _, _ in negs]
        conjs = list(p.where) + equivalence_conjuncts(p, pos, neg_comps)
        negations = [Negation(c, a, b, []) for c, a, b in negs]
        for e in conjs:
            vs = variables(e)
            nv = vs & negvars
            if nv:
                for n in negations:
                    if n.comp.var in nv:
                        n.conjuncts.append(e)
                continue
            if vs & set(absent):
                continue  # mentions a variable this alternative binds to nothing: vacuous
            present = [v for v in vs if v in idx]
            if not present:
                states[0].begin.append(e) if states[0].kind != "kleene_rest" else None
                continue
            lastv = max(present, key=lambda v: idx[v])
            si = first_state[lastv]
            if lastv not in kleene:
                states[si].begin.append(e)
                continue
            if lastv in uses_iteration(e):
                states[si + 1].take.append(e)
                continue
            refs = [n for n in e.walk() if isinstance(n, (Ref, Len, Agg)) and n.var == lastv]
            if any(isinstance(n, (Len, Agg)) or (isinstance(n, Ref) and n.index == "last") for n in refs):
                states[si + 1].proceed.append(e)
            elif any(isinstance(n, Ref) and n.index is None for n in refs):
                states[si].begin.append(e)  # every element: a[1] on begin, a[i] on take
                states[si + 1].take.append(e)
            else:
                states[si].begin.append(e)
        chains.append(Chain(k, pos, absent, states, negations))
    key = partition_key(p) if p.strategy != Strategy.STRICT else None
    return Nfab(p, chains, p.strategy, key, [c.var for c in p.components() if not c.negated])


# --------------------------------------------------------------------------- formulas as text

def _conj(exprs: list[Node]) -> str:
    if not exprs:
        return "true"
    return " ∧ ".join(to_text(e) for e in exprs)


def edge_formulas(nfa: Nfab, chain: Chain, optimised: bool) -> list[dict[str, Any]]:
    """Edges of one chain with their formula text (basic θ or optimised θ*)."""
    p = nfa.pattern
    w = p.window
    first = chain.states[0].var
    wtxt = None
    if w is not None:
        from engine.dsl import _window_text  # the window as the DSL writes it: `12 hours`, `500 events`

        coord = "seq" if w.is_count else "ts"
        wtxt = f"e.{coord} - {first}.{coord} < {_window_text(w)}"
    strat = nfa.strategy
    key_cols = nfa.key.columns() if nfa.key else []
    partition_txt = " ∧ ".join(f"e.{a} = {first}.{a}" for a in key_cols) or "same partition"
    edges: list[dict[str, Any]] = []
    states = chain.states

    def begin_text(s: State) -> str:
        return f"{s.type}: " + _conj(s.begin) if s.type else _conj(s.begin)

    def with_window(txt: str, into_final: bool) -> str:
        if wtxt and (optimised or into_final):
            return f"{txt} ∧ {wtxt}" if txt != "true" else wtxt
        return txt

    for si, s in enumerate(states):
        if s.kind == "final":
            continue
        nxt = states[si + 1]
        if s.kind in ("singleton", "kleene_first"):
            b = begin_text(s)
            edges.append(dict(src=s.name, dst=nxt.name, kind="begin",
                              formula=with_window(b, nxt.kind == "final")))
            if si > 0:
                ign = {Strategy.STRICT: "false", Strategy.PARTITION: f"¬({partition_txt})",
                       Strategy.NEXT: f"¬({b})", Strategy.ANY: "true"}[strat]
                edges.append(dict(src=s.name, dst=s.name, kind="ignore", formula=with_window(ign, False)))
        else:
            take = f"{s.type}: " + _conj(s.take)
            edges.append(dict(src=s.name, dst=s.name, kind="take", formula=with_window(take, False)))
            ign = {Strategy.STRICT: "false", Strategy.PARTITION: f"¬({partition_txt})",
                   Strategy.NEXT: f"¬({take})", Strategy.ANY: "true"}[strat]
            edges.append(dict(src=s.name, dst=s.name, kind="ignore", formula=with_window(ign, False)))
            proc = _conj(s.proceed)
            if optimised and nxt.kind != "final":
                peek = begin_text(nxt)
                proc = (f"{proc} ∧ " if proc != "true" else "") + f"({peek} ∨ ¬(θ*take ∨ θ*ignore))"
            edges.append(dict(src=s.name, dst=nxt.name, kind="proceed",
                              formula=with_window(proc, nxt.kind == "final")))
    return edges


def to_networkx(nfa: Nfab, optimised: bool = True) -> "nx.MultiDiGraph":
    """States and edges with kind, formula text (basic and optimised) and strategy.

    With several SEQ alternatives, node names are prefixed ``alt<k>:``."""
    import networkx as nx

    g = nx.MultiDiGraph(strategy=nfa.strategy.value, engine="nfab",
                        partition=nfa.key.columns() if nfa.key else [],
                        alternatives=len(nfa.chains))
    multi = len(nfa.chains) > 1
    for ch in nfa.chains:
        pre = f"alt{ch.index}:" if multi else ""
        for si, s in enumerate(ch.states):
            g.add_node(pre + s.name, kind=s.kind, var=s.var, type=s.type, label=s.name, order=si,
                       alternative=ch.index, start=si == 0)
        basic = edge_formulas(nfa, ch, optimised=False)
        opt = edge_formulas(nfa, ch, optimised=True)
        for b, o in zip(basic, opt):
            g.add_edge(pre + b["src"], pre + b["dst"], key=b["kind"], kind=b["kind"], formula=b["formula"],
                       formula_optimised=o["formula"], label=o["formula"] if optimised else b["formula"],
                       strategy=nfa.strategy.value)
        for n in ch.negations:
            name = pre + "!" + n.comp.var
            g.add_node(name, kind="negation", var=n.comp.var, type=n.comp.type, label=f"!{n.comp.var}",
                       alternative=ch.index, start=False,
                       formula=_conj(n.conjuncts))
            after = ch.comps[n.after].var
            src = [s.name for s in ch.states if s.var == after][-1]
            g.add_edge(pre + src, name, key="negation", kind="negation",
                       formula=f"no {n.comp.type} with " + _conj(n.conjuncts),
                       formula_optimised=f"no {n.comp.type} with " + _conj(n.conjuncts),
                       label="not " + n.comp.type, strategy=nfa.strategy.value)
    return g
