"""Pattern -> SES automaton (Cadonna, Gamper, Böhlen, EDBT 2011, as used by the
match-windows paper §4.8; docs/papers.md, "Match windows").

An SES pattern is a sequence of event sets ``SEQ(B1, ..., Bk)``; each ``Bi`` is a component
or an ``AND(...)`` group of components (single ``Type v`` or Kleene ``Type+ v[]``), all
positive and required. The automaton's states are pairs ``(i, S)`` with ``S ⊆ Bi`` the
variables of the current set bound so far, plus the start state ``(1, ∅)``; the accepting
states are ``(k, Bk)``. Transitions on an event e:

- ``(i, S) -v-> (i, S ∪ {v})`` for ``v ∈ Bi \\ S`` (bind v);
- ``(i, S) -v+-> (i, S)`` for a Kleene ``v ∈ S`` (append e to v; ``prev`` is checked);
- ``(i, Bi) -u-> (i+1, {u})`` for ``u ∈ B(i+1)`` (the next set starts; every event of set i
  is before e because events arrive in stream order).

The guard of a transition labelled v is θ^p_v(e) (type and properties), the relationships
that the new binding makes decidable (prefix-closed ones at once, those over a Kleene
variable's length, last element or whole list when a match is reported), ``[attr]`` and the
window. The state count is Σ 2^|Bi|; ``to_networkx()`` draws it (Automaton/Debug pages).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from engine.bindings import Conjunct, conjunct
from engine.events import Event
from engine.expr import Agg, Len, Node, Ref, to_text, variables
from engine.model import ANY_TYPE, Pattern, Strategy

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["SesVar", "SesCond", "SesAutomaton", "compile_ses", "unsupported_reason", "state_name"]


@dataclass(frozen=True)
class SesVar:
    name: str
    type: str
    kleene: bool
    set: int        # 0-based index of its event set
    bit: int        # position among the positive variables (pattern order)
    props: Callable[[Event], bool] | None
    props_text: tuple[str, ...]

    def fits(self, e: Event) -> bool:
        if self.type != ANY_TYPE and self.type != e.type:
            return False
        return self.props is None or self.props(e)


@dataclass(frozen=True)
class SesCond:
    """A relationship (a WHERE conjunct over several variables, or over one Kleene
    variable's elements): checked when all its variables are bound; ``final`` when it reads
    a Kleene variable's ``len``, last element or whole list (checked on a complete match)."""

    node: Node
    conj: Conjunct
    mask: int
    final: bool

    @property
    def text(self) -> str:
        return to_text(self.node)


@dataclass
class SesAutomaton:
    pattern: Pattern
    sets: list[list[str]]
    vars: dict[str, SesVar]
    order: list[str]                       # positive variables, pattern order (= bits)
    set_mask: list[int]
    conds: list[SesCond]
    conds_on: dict[str, list[SesCond]]     # prefix-closed conditions mentioning v
    final_conds: list[SesCond]
    equivalence: list[str]
    window: float | None
    count_window: bool
    by_type: dict[str, list[SesVar]] = field(default_factory=dict)
    any_type: list[SesVar] = field(default_factory=list)

    def __post_init__(self) -> None:
        for v in self.vars.values():
            (self.any_type if v.type == ANY_TYPE else self.by_type.setdefault(v.type, [])).append(v)

    @property
    def k(self) -> int:
        return len(self.sets)

    def cand_bits(self, e: Event) -> int:
        """Bits of the variables whose type and properties e satisfies."""
        b = 0
        for v in self.by_type.get(e.type, ()):
            if v.props is None or v.props(e):
                b |= 1 << v.bit
        for v in self.any_type:
            if v.props is None or v.props(e):
                b |= 1 << v.bit
        return b

    def state(self, i: int, s: int) -> str:
        return state_name(self, i, s)

    def states(self) -> list[tuple[int, int]]:
        out = [(0, 0)]
        for i, m in enumerate(self.set_mask):
            sub = m
            subs = []
            while sub:
                subs.append(sub)
                sub = (sub - 1) & m
            out.extend((i, s) for s in sorted(subs, key=lambda x: (bin(x).count("1"), -x)))
        return out

    def to_networkx(self) -> "nx.MultiDiGraph":
        return ses_graph(self)


def state_name(a: SesAutomaton, i: int, s: int) -> str:
    """``(1,{c,p})``: the set number (1-based) and the bound variables of that set."""
    names = [v for v in a.order if s >> a.vars[v].bit & 1]
    return f"({i + 1},{{{','.join(names)}}})"


def unsupported_reason(p: Pattern) -> str | None:
    """None when the SES automaton can run ``p``."""
    from engine.engines.ses.event_sets import ses_sets

    if p.strategy is not Strategy.ANY:
        return f"selects among all matches (skip_till_any_match) only, not {p.strategy.value}"
    if p.output != "ALL":
        return "OUTPUT NON_OVERLAP is not implemented by the SES automaton"
    if p.aggregate is not None:
        return "AGG is computed by the A-Seq engine"
    if ses_sets(p) is None:
        return ("runs SES patterns only: a SEQ of event sets (a component or AND(...) of components), "
                "without negation, `?`, `*` or OR")
    return None


def compile_ses(p: Pattern) -> SesAutomaton:
    """The SES automaton of ``p`` (see :func:`unsupported_reason`)."""
    from engine.engines.ses.event_sets import local_conjuncts, ses_sets

    why = unsupported_reason(p)
    if why:
        raise ValueError(why)
    sets = ses_sets(p)
    assert sets is not None
    comps = {c.var: c for c in p.components()}
    order = [c.var for c in p.components()]
    set_of = {v: i for i, s in enumerate(sets) for v in s}
    local = local_conjuncts(p)
    kleene = {v for v in order if comps[v].kleene}
    from engine.engines.ses.event_sets import compile_properties

    vars_ = {v: SesVar(v, comps[v].type, comps[v].kleene, set_of[v], k, compile_properties(local[v]),
                       tuple(to_text(n) for n in local[v])) for k, v in enumerate(order)}
    set_mask = [sum(1 << vars_[v].bit for v in s) for s in sets]
    local_ids = {id(n) for ns in local.values() for n in ns}
    conds: list[SesCond] = []
    for e in p.where:
        if id(e) in local_ids:
            continue
        vs = variables(e)
        mask = sum(1 << vars_[v].bit for v in vs)
        conds.append(SesCond(e, conjunct(e, kleene), mask, _is_final(e, kleene)))
    conds_on = {v: [c for c in conds if not c.final and c.mask >> vars_[v].bit & 1] for v in order}
    w = p.window
    return SesAutomaton(pattern=p, sets=sets, vars=vars_, order=order, set_mask=set_mask, conds=conds,
                        conds_on=conds_on, final_conds=[c for c in conds if c.final or not c.mask],
                        equivalence=list(p.equivalence), window=float(w.size) if w else None,
                        count_window=bool(w and w.is_count))


def _is_final(node: Node, kleene: set[str]) -> bool:
    for n in node.walk():
        if isinstance(n, Len) and n.var in kleene:
            return True
        if isinstance(n, Ref) and n.index == "last" and n.var in kleene:
            return True
        if isinstance(n, Agg) and n.scope == "all" and n.var in kleene:
            return True
    return False


def ses_graph(a: SesAutomaton) -> "nx.MultiDiGraph":
    """States ``(i, S)`` and the take / loop / next-set edges with their guards."""
    import networkx as nx

    g = nx.MultiDiGraph(engine="ses", sets=[list(s) for s in a.sets], window=a.window,
                        count_window=a.count_window, partition=list(a.equivalence))
    start = a.state(0, 0)
    last = a.k - 1
    for i, s in a.states():
        name = a.state(i, s)
        kind = "initial" if (i, s) == (0, 0) else ("final" if i == last and s == a.set_mask[last] else "state")
        g.add_node(name, kind=kind, label=name, set=i + 1, bound=[v for v in a.order if s >> a.vars[v].bit & 1])

    def guard(v: str) -> str:
        sv = a.vars[v]
        parts = [sv.type if sv.type != ANY_TYPE else "ANY", *sv.props_text]
        parts += [c.text for c in a.conds_on[v]]
        return " ∧ ".join(parts)

    for i, s in a.states():
        src = a.state(i, s)
        for v in a.sets[i]:
            bit = 1 << a.vars[v].bit
            if not s & bit:
                g.add_edge(src, a.state(i, s | bit), key=f"take:{v}", kind="take", var=v, cond=guard(v),
                           label=f"{v}: {guard(v)}")
            elif a.vars[v].kleene:
                g.add_edge(src, src, key=f"loop:{v}", kind="take", var=v, cond=guard(v), label=f"{v}+: {guard(v)}")
        if s == a.set_mask[i] and i < last and (i, s) != (0, 0):
            for u in a.sets[i + 1]:
                g.add_edge(src, a.state(i + 1, 1 << a.vars[u].bit), key=f"next:{u}", kind="proceed", var=u,
                           cond=guard(u), label=f"{u}: {guard(u)}")
    g.graph["start"] = start
    return g
