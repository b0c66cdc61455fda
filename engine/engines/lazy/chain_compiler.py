"""Pattern -> lazy (Multi-)Chain NFA (Kolchinsky & Schuster, arXiv 1612.05110, §4-§5;
docs/papers.md, "Lazy chain / tree NFA").

The compiler has two layers, shared by the chain, the tree (``tree.py``) and the eager
baseline (``matchers/eager.py``), so that all three run the same semantics:

1. :func:`analyse` rewrites the pattern into its **DNF clauses** (§5.2; ``?``/``*``/OR
   become alternatives exactly as ``engine/engines/oracle/oracle.py`` expands them). A clause is a
   conjunction of positive variables with a **precedence relation** (``u ≺ w``: every event
   of ``u`` is before every event of ``w``), the transitive closure of its SEQ structure
   (notes §3.4 [CHOICE]: a precedence DAG generalises SEQ, AND and partial sequences),
   plus its negations (§4.4) and WHERE conjuncts. Conjuncts on one variable alone become
   that variable's *unary filter* (notes §1.3 [CHOICE]: a state's unit is a variable =
   type + unary filter); conjuncts that mention a variable the clause binds to nothing
   hold vacuously and are dropped.
2. :func:`compile_chain` builds, for every clause, one chain ``q1 .. qn, F, R`` in
   **ascending frequency order** (given, estimated from a prefix with
   :func:`estimate_rates`, or ``order=``), **iterated variables last** (§4.5). Step ``k``
   takes (or, for ``+``, *iterates*) one variable with ordering filters
   ``prec = {u taken : u ≺ v}``, ``succ = {w taken : v ≺ w}`` (§4.1-§4.3); a step with
   ``succ = ∅`` may take from the stream, any other is buffer-only. Each conjunct is
   checked at the first step where all its variables are bound. Negations are either
   **post-processing** states after the positive chain (Lazy-PP, descending frequency) or
   **first-chance** checks attached to the earliest step where the negation's
   neighbours and condition variables are bound (Lazy-FC); a trailing negation always
   falls back to PP and waits for the window to close. Several clauses form the
   Multi-Chain NFA (§5.1): merged ``q1``/``F``/``R``, one shared set of buffers, and
   de-duplication of matches by their bindings (notes §3.7).

``ChainNFA.to_networkx()`` draws it: states in evaluation order, the buffers each state
reads and stores, and the time-range filters (prec/succ, window) on the take edges.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence


from engine.events import Event
from engine.expr import Agg, Len, Node, Ref, to_text, uses_iteration, variables
from engine.model import ANY_TYPE, Component, Group, Pattern, Strategy
from engine.alternatives import components as _components
from engine.alternatives import expand as _expand

MAX_CLAUSES = 64


class Refuse(ValueError):
    """The lazy engines cannot run this pattern (the message says why)."""


# --------------------------------------------------------------------------- analysis

@dataclass(frozen=True)
class VarInfo:
    name: str
    type: str
    kleene: bool
    negated: bool
    pos: int  # position among all components, pattern order (tie-break of every order)
    slot: int  # index in a partial match's value vector


@dataclass
class Cond:
    """A WHERE conjunct placed on a step. ``vars``: the positive variables it mentions;
    ``final``: the Kleene variables for which it is *not* prefix-closed (it uses their
    ``len``, ``[last]`` or ``agg(v[].x)``), so it can only be checked on a complete list."""

    node: Node
    vars: frozenset[str]
    final: frozenset[str]

    @property
    def text(self) -> str:
        return to_text(self.node)


@dataclass
class NegSpec:
    """``!n`` in a clause's top SEQ: no qualifying ``n`` strictly between the last event of
    ``left`` and the first of ``right`` (trailing: after ``left`` while inside the window)."""

    var: str
    type: str
    left: frozenset[str]
    right: frozenset[str]
    lo_vars: frozenset[str]  # maximal elements of left: they fix the lower bound
    hi_vars: frozenset[str]  # minimal elements of right: they fix the upper bound
    conds: list[Cond]
    pos: int

    @property
    def trailing(self) -> bool:
        return not self.right

    @property
    def req(self) -> frozenset[str]:
        """Variables that must be bound before absence can be decided (notes §3.5(b))."""
        out = set(self.lo_vars) | set(self.hi_vars)
        for c in self.conds:
            out |= c.vars
        return frozenset(out)


@dataclass
class Clause:
    """One DNF clause: positive variables (pattern order), what it binds to nothing, the
    precedence closure, negations and the conjuncts that are not unary filters."""

    index: int
    vars: list[str]
    absent: frozenset[str]
    before: dict[str, frozenset[str]]  # v -> variables that precede v
    after: dict[str, frozenset[str]]  # v -> variables that follow v
    negations: list[NegSpec]
    conds: list[Cond]
    const_false: bool = False

    def precedes(self, u: str, w: str) -> bool:
        return u in self.before[w]

    def text(self) -> str:
        return ", ".join(self.vars)


@dataclass
class PatternInfo:
    pattern: Pattern
    vars: dict[str, VarInfo]
    positive: list[str]  # pattern order: the order of Match bindings
    negated: list[str]
    local: dict[str, list[Node]]  # unary filters per variable
    eq_attrs: list[str]
    clauses: list[Clause]
    window: float | None
    count_window: bool

    def types_overlap(self, u: str, w: str) -> bool:
        a, b = self.vars[u].type, self.vars[w].type
        return a == b or a == ANY_TYPE or b == ANY_TYPE



def _final_vars(node: Node, kleene: set[str]) -> frozenset[str]:
    out = set()
    for n in node.walk():
        if isinstance(n, Len) and n.var in kleene:
            out.add(n.var)
        elif isinstance(n, Ref) and n.index == "last" and n.var in kleene:
            out.add(n.var)
        elif isinstance(n, Agg) and n.scope == "all" and n.var in kleene:
            out.add(n.var)
    return frozenset(out)


def _is_local(node: Node, var: str) -> bool:
    """Element-wise on ``var`` alone (the oracle's candidate filter)."""
    if variables(node) != {var} or uses_iteration(node):
        return False
    return all(not (isinstance(n, Ref) and n.index is not None) and not isinstance(n, (Len, Agg))
               for n in node.walk())


def unsupported_reason(p: Pattern) -> str | None:
    """None when the lazy engines (chain, tree) and the eager baseline can run ``p``."""
    if p.strategy != Strategy.ANY:
        return (f"implements skip_till_any_match only (Kolchinsky & Schuster), not {p.strategy.value}; "
                "use nfab for the other strategies")
    if p.output == "NON_OVERLAP":
        return "OUTPUT NON_OVERLAP is not implemented by the lazy/eager engines; use nfab or OUTPUT ALL"
    try:
        analyse(p)
    except Refuse as r:
        return str(r)
    return None


def analyse(p: Pattern) -> PatternInfo:
    """DNF clauses with precedence closure, negations and placed conjuncts."""
    comps = p.components()
    vars_: dict[str, VarInfo] = {}
    positive = [c.var for c in comps if not c.negated]
    negated = [c.var for c in comps if c.negated]
    slot = {v: i for i, v in enumerate(positive + negated)}
    for k, c in enumerate(comps):
        vars_[c.var] = VarInfo(c.var, c.type, c.kleene, c.negated, k, slot[c.var])
    kleene = {c.var for c in comps if c.kleene}
    negs = set(negated)
    local: dict[str, list[Node]] = {v: [] for v in vars_}
    rest: list[Node] = []
    for e in p.where:
        vs = variables(e)
        if len(vs) == 1 and _is_local(e, next(iter(vs))):
            local[next(iter(vs))].append(e)
        else:
            rest.append(e)
    clauses: list[Clause] = []
    for red, absent in _expand(p.root):
        if red is None:
            continue
        clauses.append(_clause(len(clauses), red, absent, rest, kleene, negs, vars_))
        if len(clauses) > MAX_CLAUSES:
            raise Refuse(f"the pattern expands into more than {MAX_CLAUSES} DNF clauses")
    if not clauses:
        raise Refuse("the pattern has no clause with a positive component")
    w = p.window
    return PatternInfo(p, vars_, positive, negated, local, list(p.equivalence), clauses,
                       w.size if w else None, bool(w and w.is_count))


def _clause(index: int, red: Any, absent: frozenset[str], conds: list[Node], kleene: set[str], negs: set[str],
            vars_: dict[str, VarInfo]) -> Clause:
    pos_vars = [c.var for c in _components(red) if not c.negated]
    pos_vars.sort(key=lambda v: vars_[v].pos)
    before: dict[str, set[str]] = {v: set() for v in pos_vars}

    def rec(node: Any) -> set[str]:
        if isinstance(node, Component):
            return set() if node.negated else {node.var}
        sets = [rec(i) for i in node.items]
        if node.op == "SEQ":
            for i in range(len(sets)):
                for j in range(i + 1, len(sets)):
                    for w in sets[j]:
                        before[w] |= sets[i]
        return set().union(*sets) if sets else set()

    rec(red)
    changed = True
    while changed:  # transitive closure (tiny relations)
        changed = False
        for w in pos_vars:
            extra = set().union(*(before[u] for u in before[w])) - before[w] if before[w] else set()
            if extra:
                before[w] |= extra
                changed = True
    after = {v: frozenset(w for w in pos_vars if v in before[w]) for v in pos_vars}
    bef = {v: frozenset(s) for v, s in before.items()}

    negations: list[NegSpec] = []
    if isinstance(red, Group) and red.op == "SEQ":
        for k, item in enumerate(red.items):
            if not (isinstance(item, Component) and item.negated):
                continue
            left = frozenset(v for it in red.items[:k] for v in _pos_vars(it))
            right = frozenset(v for it in red.items[k + 1:] for v in _pos_vars(it))
            if not left:
                raise Refuse(f"negation `!{item.type} {item.var}` has no positive component before it "
                             "in one alternative of the pattern")
            lo = frozenset(u for u in left if not (after[u] & left))
            hi = frozenset(u for u in right if not (bef[u] & right))
            ncs = []
            for e in conds:
                vs = variables(e)
                if item.var in vs and not (vs & absent):
                    ncs.append(Cond(e, frozenset(vs - negs), _final_vars(e, kleene)))
            negations.append(NegSpec(item.var, item.type, left, right, lo, hi, ncs, vars_[item.var].pos))
    pcs = []
    const_false = False
    for e in conds:
        vs = variables(e)
        if vs & negs or vs & absent:
            continue  # negation conditions, or vacuous in this clause
        if not vs:
            from engine.bindings import conjunct
            if not conjunct(e, kleene).holds({}):
                const_false = True
            continue
        pcs.append(Cond(e, frozenset(vs), _final_vars(e, kleene)))
    return Clause(index, pos_vars, absent, bef, after, negations, pcs, const_false)


def _pos_vars(item: Any) -> list[str]:
    return [c.var for c in _components(item) if not c.negated]


# --------------------------------------------------------------------------- frequencies

def estimate_rates(pattern: Pattern | PatternInfo, events: Iterable[Event]) -> dict[str, float]:
    """Per-variable arrival rate (events passing the variable's type and unary filter per
    unit of time, or per event for count windows) on a prefix of the data (notes §5)."""
    from engine.bindings import conjunct

    info = pattern if isinstance(pattern, PatternInfo) else analyse(pattern)
    kleene = {v for v, i in info.vars.items() if i.kleene}
    filt = {v: [conjunct(e, kleene) for e in info.local[v]] for v in info.vars}
    counts = {v: 0 for v in info.vars}
    first = last = None
    n = 0
    for e in events:
        n += 1
        if first is None:
            first = e.ts
        last = e.ts
        for v, vi in info.vars.items():
            if (vi.type == ANY_TYPE or vi.type == e.type) and all(c.holds({v: [e]}) for c in filt[v]):
                counts[v] += 1
    span = (last - first) if first is not None and last is not None and last > first else 0
    scale = (1.0 / span) if span and not info.count_window else (1.0 / n if n else 1.0)
    return {v: c * scale for v, c in counts.items()}


def var_rates(info: PatternInfo, rates: Mapping[str, float] | None) -> dict[str, float]:
    """Rates keyed by variable or by event type -> rates per variable. A variable of a type
    not given is assumed as frequent as the most frequent known one; ``ANY`` sums them."""
    rates = dict(rates or {})
    known = [float(r) for r in rates.values()]
    default = max(known) if known else 1.0
    out = {}
    for v, vi in info.vars.items():
        if v in rates:
            out[v] = float(rates[v])
        elif vi.type in rates:
            out[v] = float(rates[vi.type])
        elif vi.type == ANY_TYPE:
            out[v] = float(sum(known)) if known else default
        else:
            out[v] = default
    return out


# --------------------------------------------------------------------------- the chain

@dataclass
class Step:
    """State ``q_{k+1}``: takes (or iterates) ``var`` and moves to the next state."""

    index: int
    var: str
    kind: str  # take | iterate
    prec: frozenset[str]  # taken variables that must precede (latest bound is the lower limit)
    succ: frozenset[str]  # taken variables that must follow (earliest bound is the upper limit)
    conds: list[Cond]
    distinct: frozenset[str]  # taken variables an event could also be bound to
    fc: list[NegSpec] = field(default_factory=list)  # First-Chance checks on entry to the next state
    stores: list[str] = field(default_factory=list)  # variables still to come (store self-loop)
    ignores: list[str] = field(default_factory=list)  # variables already taken (ignore self-loop)

    @property
    def stream_ok(self) -> bool:
        return not self.succ


@dataclass
class ChainPlan:
    clause: Clause
    order: list[str]
    steps: list[Step]
    pp: list[NegSpec]  # post-processing negative states, descending frequency
    negation_mode: str

    @property
    def n(self) -> int:
        return len(self.steps)


@dataclass
class ChainNFA:
    """The Multi-Chain NFA: one chain per DNF clause, sharing q1, F, R and the buffers."""

    info: PatternInfo
    plans: list[ChainPlan]
    rates: dict[str, float]

    @property
    def pattern(self) -> Pattern:
        return self.info.pattern

    def to_networkx(self) -> nx.MultiDiGraph:
        return chain_graph(self)


def plan_order(clause: Clause, info: PatternInfo, key: Mapping[str, Any]) -> list[str]:
    """Ascending ``key`` (rate), ties by pattern position, Kleene variables last (§4.5)."""
    singles = [v for v in clause.vars if not info.vars[v].kleene]
    klee = [v for v in clause.vars if info.vars[v].kleene]

    def k(v: str) -> tuple[Any, int]:
        return (key[v], info.vars[v].pos)

    return sorted(singles, key=k) + sorted(klee, key=k)


def build_steps(clause: Clause, info: PatternInfo, order: Sequence[str]) -> list[Step]:
    """Steps for a given order: prec/succ filters, conjunct placement, distinctness."""
    steps: list[Step] = []
    placed: set[int] = set()
    for k, v in enumerate(order):
        taken = set(order[:k])
        prec_all = {u for u in taken if clause.precedes(u, v)}
        succ_all = {w for w in taken if clause.precedes(v, w)}
        # only the latest of prec and the earliest of succ bound the range (§4.1)
        prec = frozenset(u for u in prec_all if not any(clause.precedes(u, x) for x in prec_all))
        succ = frozenset(w for w in succ_all if not any(clause.precedes(x, w) for x in succ_all))
        bound = taken | {v}
        conds = []
        for i, c in enumerate(clause.conds):
            if i not in placed and c.vars <= bound:
                placed.add(i)
                conds.append(c)
        distinct = frozenset(u for u in taken if info.types_overlap(u, v)
                             and not clause.precedes(u, v) and not clause.precedes(v, u))
        steps.append(Step(k, v, "iterate" if info.vars[v].kleene else "take", prec, succ, conds, distinct,
                          stores=list(order[k + 1:]), ignores=list(order[:k])))
    return steps


def compile_chain(pattern: Pattern | PatternInfo, order: Sequence[str] | None = None,
                  rates: Mapping[str, float] | None = None, negation: str = "fc") -> ChainNFA:
    """Build the (Multi-)Chain NFA. ``order``: the evaluation order of the positive
    variables (per clause, restricted to its variables; Kleene variables are moved last);
    otherwise ascending ``rates`` (keyed by variable or type; see :func:`var_rates`);
    otherwise pattern order. ``negation``: ``"fc"`` (First-Chance, falling back to PP for
    a trailing negation) or ``"pp"`` (Post-Processing)."""
    if negation not in ("fc", "pp"):
        raise ValueError(f"negation must be 'fc' or 'pp', not {negation!r}")
    info = pattern if isinstance(pattern, PatternInfo) else analyse(pattern)
    vr = var_rates(info, rates) if rates is not None else {v: 0.0 for v in info.vars}
    if order is not None:
        unknown = [v for v in order if v not in info.vars or info.vars[v].negated]
        if unknown:
            raise ValueError(f"order names unknown or negated variables: {unknown}")
        rank = {v: i for i, v in enumerate(order)}
        key = {v: rank.get(v, len(rank) + info.vars[v].pos) for v in info.vars}
    else:
        key = dict(vr)
    plans = []
    for cl in info.clauses:
        o = plan_order(cl, info, key)
        steps = build_steps(cl, info, o)
        pp: list[NegSpec] = []
        for n in cl.negations:
            if negation == "fc" and not n.trailing:
                req = n.req
                k = next(i for i in range(len(o)) if req <= set(o[:i + 1]))
                steps[k].fc.append(n)
            else:
                pp.append(n)
        # between checks first (buffer-only), then trailing; each by descending frequency
        pp.sort(key=lambda n: (n.trailing, -vr.get(n.var, 0.0), n.pos))
        plans.append(ChainPlan(cl, o, steps, pp, negation))
    return ChainNFA(info, plans, vr)


# --------------------------------------------------------------------------- drawing

def _conds_text(conds: Iterable[Cond]) -> str:
    t = " ∧ ".join(c.text for c in conds)
    return t or "true"


def filter_text(info: PatternInfo, var: str) -> str:
    """The unary filter of a variable (its conjuncts on that variable alone)."""
    t = " ∧ ".join(to_text(e) for e in info.local.get(var, []))
    return t or "true"


def range_text(info: PatternInfo, var: str, prec: Iterable[str], succ: Iterable[str], stream_ok: bool) -> str:
    """The time-range filter of a take edge: ``max(prec) < x < min(succ)`` plus the window."""
    parts = []
    lo = sorted(prec)
    hi = sorted(succ)
    if lo:
        parts.append(" , ".join(f"{u}" for u in lo) + f" < {var}")
    if hi:
        parts.append(f"{var} < " + " , ".join(hi))
    w = info.pattern.window
    if w is not None:
        from engine.dsl import _window_text  # the window as written: `span < 16 days`, `span < 500 events`

        parts.append(f"span < {_window_text(w)}")
    if not parts:
        return "any time" if not stream_ok else "stream"
    return " ∧ ".join(parts)


def chain_graph(nfa: ChainNFA) -> nx.MultiDiGraph:
    """States q1..qn (evaluation order), PP negative states, F, R; edges take/iterate
    (with prec, succ, range, source stream|buffer, condition text), store/ignore self-loops,
    timeout and search_failed, First-Chance negation edges to R. Clauses share q1, F, R."""
    info = nfa.info
    multi = len(nfa.plans) > 1
    import networkx as nx

    g = nx.MultiDiGraph(engine="lazy-chain", clauses=len(nfa.plans),
                        orders=[list(p.order) for p in nfa.plans],
                        window=info.window, count_window=info.count_window)
    g.add_node("q1", kind="initial", label="q1", order=0, clause=None, reads=[], var=None,
               stores=sorted({v for p in nfa.plans for v in p.order[1:]} | set(info.negated)))
    g.add_node("F", kind="final", label="F", order=None, clause=None, reads=[], var=None)
    g.add_node("R", kind="reject", label="R", order=None, clause=None, reads=[], var=None)
    for p in nfa.plans:
        pre = f"c{p.clause.index}:" if multi else ""
        names = ["q1"] + [f"{pre}q{i + 1}" for i in range(1, p.n)]
        negnames = [f"{pre}¬{n.var}" for n in p.pp]
        after_pos = negnames[0] if negnames else "F"
        for i, s in enumerate(p.steps):
            src = names[i]
            if i > 0:
                reads = [s.var] + [n.var for n in p.steps[i - 1].fc]
                g.add_node(src, kind="state", label=f"q{i + 1}", order=i, clause=p.clause.index, var=s.var,
                           reads=reads, stores=s.stores + [n.var for n in p.clause.negations],
                           ignores=s.ignores)
            dst = names[i + 1] if i + 1 < p.n else after_pos
            vi = info.vars[s.var]
            g.add_edge(src, dst, key=f"{s.kind}:{s.var}", kind=s.kind, var=s.var, type=vi.type,
                       prec=sorted(s.prec), succ=sorted(s.succ),
                       source="stream+buffer" if s.stream_ok else "buffer",
                       range=range_text(info, s.var, s.prec, s.succ, s.stream_ok),
                       cond=_conds_text(s.conds), filter=filter_text(info, s.var), clause=p.clause.index,
                       label=f"{s.kind} {s.var}:{vi.type}" + (f" · prec={{{','.join(sorted(s.prec))}}}" if s.prec
                                                              else "")
                       + (f" · succ={{{','.join(sorted(s.succ))}}}" if s.succ else ""))
            if i > 0:
                if s.stores:
                    g.add_edge(src, src, key="store", kind="store", vars=s.stores, label="store " + ",".join(s.stores))
                if s.ignores:
                    g.add_edge(src, src, key="ignore", kind="ignore", vars=s.ignores,
                               label="ignore " + ",".join(s.ignores))
                g.add_edge(src, "R", key="timeout", kind="timeout", label="timeout")
            for n in s.fc:  # First-Chance: checked on entry to the next state
                tgt = dst
                lo = sorted(n.lo_vars)
                hi = sorted(n.hi_vars)
                g.add_edge(tgt, "R", key=f"fc:{n.var}", kind="negation", variant="first-chance", var=n.var,
                           type=n.type, prec=lo, succ=hi, source="buffer",
                           range=range_text(info, n.var, lo, hi, False), cond=_conds_text(n.conds),
                           filter=filter_text(info, n.var), label=f"take ¬{n.var}:{n.type} (first chance)")
        for j, n in enumerate(p.pp):
            name = negnames[j]
            nxt = negnames[j + 1] if j + 1 < len(negnames) else "F"
            g.add_node(name, kind="negative", label=f"¬{n.var}", order=p.n + j, clause=p.clause.index, var=n.var,
                       reads=[n.var])
            lo = sorted(n.lo_vars)
            hi = sorted(n.hi_vars)
            g.add_edge(name, "R", key=f"take:{n.var}", kind="negation", variant="post-processing", var=n.var,
                       type=n.type, prec=lo, succ=hi, source="stream+buffer" if n.trailing else "buffer",
                       range=range_text(info, n.var, lo, hi, n.trailing), cond=_conds_text(n.conds),
                       filter=filter_text(info, n.var), label=f"take ¬{n.var}:{n.type}")
            ev = "timeout" if n.trailing else "search_failed"
            g.add_edge(name, nxt, key=ev, kind=ev, label=ev)
    _finish(g)
    return g


STYLE = {"take": "take", "iterate": "take", "store": "ignore", "ignore": "ignore", "timeout": "proceed",
         "search_failed": "proceed", "negation": "negation", "epsilon": "proceed"}


def _finish(g: nx.MultiDiGraph) -> None:
    """Attributes for generic drawing (``visualizers/automaton.py`` conventions): a numeric
    ``order`` (column) and ``alternative`` (row) on every node, ``start`` on the initial
    state, and on every edge a ``formula`` text and a ``style`` among begin/take/ignore/
    proceed/negation."""
    orders = [d["order"] for _, d in g.nodes(data=True) if isinstance(d.get("order"), int)]
    last = (max(orders) if orders else 0) + 1
    for n, d in g.nodes(data=True):
        d.setdefault("alternative", d.get("clause") or 0)
        if d.get("alternative") is None:
            d["alternative"] = 0
        if not isinstance(d.get("order"), int):
            d["order"] = last
        d["start"] = d.get("kind") == "initial"
        if d.get("kind") == "reject":
            d["alternative"] = -1
    for _u, _v, d in g.edges(data=True):
        parts = [d.get("label", d["kind"])]
        for k in ("filter", "cond", "range"):
            if d.get(k) and d[k] not in ("true", "stream", "any time"):
                parts.append(f"{k}: {d[k]}")
        d["formula"] = d["formula_optimised"] = " | ".join(parts)
        d["style"] = STYLE.get(d["kind"], "take")


__all__ = ["ChainNFA", "ChainPlan", "Clause", "Cond", "NegSpec", "PatternInfo", "Refuse", "Step", "VarInfo",
           "analyse", "build_steps", "chain_graph", "compile_chain", "estimate_rates", "plan_order",
           "filter_text", "range_text", "unsupported_reason", "var_rates"]
