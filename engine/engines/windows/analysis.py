"""What Algorithm 1 needs to know about a pattern (match-windows paper, notes §4.3-§4.6).

- the **properties** θ^p_v of every variable: its event type plus the WHERE conjuncts that
  mention only that variable, element-wise (``v.x > 3``; not ``v[i]``, ``v.len`` or an
  aggregate). Filtering (Thm 1) and the summary statistic test events against them only;
  relationships between variables are left to the matcher A;
- the **clauses**: the pattern rewritten into SEQ/AND alternatives (``?``, ``*`` and OR, as
  ``engine/alternatives.py`` does it). For each clause, the required positive variables and
  the precedence closure ``before[v]`` (the variables whose events must all come before
  v's). For an SES pattern ``SEQ(B1, ..., Bk)`` with event sets ``Bi = AND(...)`` this is
  "every variable of an earlier set", the paper's order constraint (Def. 2 (2)); a nested
  SEQ/AND gives the same closure for its own structure;
- the **partitioning attributes** X (Def. 6): ``engine.partition.partition_key``, the
  attributes that the equality relationships and ``[attr]`` force to be equal across all
  variables (connected and spanning, transitively), and the reduced pattern P' without
  the equalities that the partition already guarantees (§4.6, benefit 2);
- whether match windows are **sound** for the pattern (:func:`unsound_reason`).

Variables get bits in a fixed order: the positive variables in pattern order, then the
negated ones (the paper orders c, p, b left to right, §4.5). ``β_e`` of an event has bit v
set iff the event satisfies θ^p_v.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from engine.alternatives import components as _components
from engine.alternatives import expand as _expand
from engine.events import Event
from engine.expr import Agg, Bool, Cmp, Len, Node, Num, Ref, Str, compile_expr, to_text, uses_iteration, variables
from engine.model import ANY_TYPE, Component, Group, Pattern, Selection, Strategy
from engine.partition import PartitionKey, partition_key
from engine.engines.ses.event_sets import compile_properties, is_event_set_pattern, local_conjuncts, ses_sets  # noqa: F401
from engine.engines.windows.beta import Beta, Gate, Prefilter, TypeSpec, compile_beta, compile_gate, compile_prefilter

__all__ = ["VarSpec", "Clause", "WindowPlan", "analyse", "unsound_reason", "local_conjuncts", "event_bits"]


@dataclass(frozen=True)
class VarSpec:
    """One variable: name, type, ``+``, negated, its bit, and θ^p_v (``props``: the unary
    conjuncts; ``props_text`` for display)."""

    name: str
    type: str
    kleene: bool
    negated: bool
    bit: int
    props: Callable[[Event], bool] | None
    props_text: tuple[str, ...]

    def fits(self, e: Event) -> bool:
        """θ^p_v(e): the type and every property of v."""
        if self.type != ANY_TYPE and self.type != e.type:
            return False
        return self.props is None or self.props(e)

    @property
    def label(self) -> str:
        """``L = 'C'``-style text of θ^p_v: the type and the properties."""
        head = "any type" if self.type == ANY_TYPE else f"type {self.type}"
        return " ∧ ".join([head, *self.props_text])


@dataclass(frozen=True)
class Clause:
    """One SEQ/AND alternative: its required positive variables (pattern order), the
    precedence closure, the variables with no predecessor (the paper's B1, condition (5))
    and the bit masks the summary statistic uses."""

    vars: tuple[str, ...]
    before: dict[str, frozenset[str]]
    after: dict[str, frozenset[str]]
    mask: int
    first_mask: int                 # bits of the variables with no predecessor
    pred_mask: dict[str, int]       # v -> bits of before[v] (β_{b_i} of the paper)
    succ_mask: dict[str, int]       # v -> bits of after[v] (reset cascade)
    pred_of_bit: dict[int, int]     # the same two, keyed by the variable's bit
    succ_of_bit: dict[int, int]

    @property
    def m(self) -> int:
        """Number of variables: condition (4) is |W| >= m."""
        return len(self.vars)


@dataclass
class WindowPlan:
    """Everything Algorithm 1 needs, computed once per pattern."""

    pattern: Pattern
    reduced: Pattern                       # P': without the equalities the key guarantees
    vars: list[VarSpec]
    by_name: dict[str, VarSpec]
    clauses: list[Clause]
    key: PartitionKey | None
    size: float                            # the window (WITHIN), in ts units or stream positions
    count: bool                            # WITHIN n events: coordinates are stream positions
    sets: list[list[str]] | None = None    # B1..Bk when the pattern is an SES pattern (display)
    _by_type: dict[str, "_TypeIndex"] = field(default_factory=dict, repr=False)
    _any: "_TypeIndex | None" = field(default=None, repr=False)
    beta: Beta = field(init=False, repr=False)  # β_e compiled (``beta.compile_beta``); equals ``bits``

    def __post_init__(self) -> None:
        groups: dict[str, list[VarSpec]] = {}
        for v in self.vars:
            groups.setdefault(v.type, []).append(v)
        local = local_conjuncts(self.pattern)  # (once for every type's index)
        for t, vs in groups.items():
            idx = _TypeIndex(vs, self.pattern, local)
            if t == ANY_TYPE:
                self._any = idx
            else:
                self._by_type[t] = idx
        self.beta = compile_beta({t: i.spec() for t, i in self._by_type.items()},
                                 self._any.spec() if self._any is not None else None)

    def gate(self, kept: Callable[[Event, int], list[Any]]) -> Gate:
        """Filtering (Thm 1) as one call per event: see ``beta.compile_gate``."""
        return compile_gate(self.beta, {t: i.spec() for t, i in self._by_type.items()},
                            self._any.spec() if self._any is not None else None, kept)

    def prefilter(self) -> Prefilter | None:
        """Filtering of a batch, as a necessary condition: see ``beta.compile_prefilter``."""
        return compile_prefilter({t: i.spec() for t, i in self._by_type.items()},
                                 self._any.spec() if self._any is not None else None)

    def bits(self, e: Event) -> int:
        """β_e: bit v set iff e satisfies θ^p_v (§4.5); the reference form of ``beta``."""
        idx = self._by_type.get(e.type)
        b = idx.bits(e) if idx is not None else 0
        if self._any is not None:
            b |= self._any.bits(e)
        return b

    def coord(self, e: Event) -> float:
        return e.seq if self.count else e.ts

    def key_of(self, e: Event) -> Any:
        """The partition key value of e (None without partitioning attributes)."""
        return self.key.of(e) if self.key is not None else None

    def bit_names(self) -> list[str]:
        return [v.name for v in self.vars]

    def bitstring(self, bits: int, names: list[str] | None = None) -> str:
        """Bits as the paper writes them: the first variable leftmost (``100`` = c of c, p, b)."""
        names = names or [v.name for v in self.vars if not v.negated]
        return "".join("1" if bits >> self.by_name[n].bit & 1 else "0" for n in names)


class _TypeIndex:
    """θ^p_v for the variables of one type, with the equality properties ``v.A = const``
    on a common attribute A hashed (value -> variables): one dictionary lookup instead of
    one comparison per variable (ZStream evaluates equality predicates by hashing, §4.8).
    A value the dictionary cannot hash falls back to testing every variable."""

    __slots__ = ("attr", "table", "rest", "all")

    def __init__(self, vs: list[VarSpec], pattern: Pattern, local: dict[str, list[Node]] | None = None) -> None:
        self.all = [(1 << v.bit, v.props) for v in vs]
        if local is None:
            local = local_conjuncts(pattern)
        consts: dict[str, dict[str, Any]] = {}
        for v in vs:
            for n in local[v.name]:
                c = _eq_const(n)
                if c is not None:
                    consts.setdefault(v.name, {}).setdefault(c[0], c[1])
        attrs = [a for a in {a for d in consts.values() for a in d}
                 if all(a in consts.get(v.name, {}) for v in vs)]
        self.attr: str | None = min(attrs) if attrs else None
        self.table: dict[Any, list[tuple[int, Callable[[Event], bool] | None]]] = {}
        self.rest: list[tuple[int, Callable[[Event], bool] | None]] = []
        if self.attr is not None:
            for v in vs:
                try:
                    self.table.setdefault(consts[v.name][self.attr], []).append((1 << v.bit, v.props))
                except TypeError:  # pragma: no cover - constants are numbers, strings, booleans
                    self.attr = None
                    break

    def spec(self) -> TypeSpec:
        """(hashed attribute, value -> candidates, all candidates) for ``beta.compile_beta``."""
        return self.attr, self.table, self.all

    def bits(self, e: Event) -> int:
        b = 0
        if self.attr is None:
            for bit, props in self.all:
                if props is None or props(e):
                    b |= bit
            return b
        try:
            cands = self.table.get(e.get(self.attr), ())
        except TypeError:
            cands = self.all
        for bit, props in cands:
            if props is None or props(e):
                b |= bit
        return b


def _eq_const(n: Node) -> tuple[str, Any] | None:
    """``v.A = const`` (either side) -> (A, const); else None."""
    if not isinstance(n, Cmp) or n.op != "=":
        return None
    for ref, val in ((n.left, n.right), (n.right, n.left)):
        if isinstance(ref, Ref) and ref.index is None:
            if isinstance(val, Num):
                return ref.attr, val.number
            if isinstance(val, (Str, Bool)):
                return ref.attr, val.value
    return None


def unsound_reason(p: Pattern) -> str | None:
    """None when Algorithm 1 gives exactly the matches of the pattern, else why not.

    A match starting at e lies inside the match window of e (WITHIN is needed), and under
    skip_till_any_match (with or without a selection, which is per start event) whether
    events form a match depends only on events inside that window: negated events between
    them and, for a trailing negation, after them while inside the window. Filtering keeps
    the events a negated variable could use. OUTPUT NON_OVERLAP, AGG and the other
    strategies depend on earlier runs, so they are refused (§3.5, notes §7)."""
    if p.window is None:
        return "match windows need WITHIN (the paper's duration τ)"
    if p.strategy is not Strategy.ANY:
        return (f"match windows select all matches (skip_till_any_match) or earliest/maximal ones; "
                f"{p.strategy.value} depends on earlier runs")
    if p.output != "ALL":
        return "OUTPUT NON_OVERLAP depends on the matches reported before, across windows"
    if p.aggregate is not None:
        return "AGG is computed by the A-Seq engine over the whole stream"
    return None


def _clause(red: Any, bit: dict[str, int], order: dict[str, int]) -> Clause:
    pos = sorted((c.var for c in _components(red) if not c.negated), key=order.__getitem__)
    before: dict[str, set[str]] = {v: set() for v in pos}

    def rec(node: Any) -> set[str]:
        if isinstance(node, Component):
            return set() if node.negated else {node.var}
        parts = [rec(i) for i in node.items]
        if node.op == "SEQ":
            for i in range(len(parts)):
                for j in range(i + 1, len(parts)):
                    for w in parts[j]:
                        before[w] |= parts[i]
        return set().union(*parts) if parts else set()

    rec(red)
    changed = True
    while changed:
        changed = False
        for w in pos:
            extra = set().union(*(before[u] for u in before[w])) - before[w] if before[w] else set()
            if extra:
                before[w] |= extra
                changed = True
    after = {v: frozenset(w for w in pos if v in before[w]) for v in pos}

    def mask(vs: Any) -> int:
        out = 0
        for v in vs:
            out |= 1 << bit[v]
        return out

    pred = {v: mask(before[v]) for v in pos}
    succ = {v: mask(after[v]) for v in pos}
    return Clause(vars=tuple(pos), before={v: frozenset(s) for v, s in before.items()}, after=after,
                  mask=mask(pos), first_mask=mask(v for v in pos if not before[v]), pred_mask=pred,
                  succ_mask=succ, pred_of_bit={bit[v]: pred[v] for v in pos},
                  succ_of_bit={bit[v]: succ[v] for v in pos})


def _reduce(p: Pattern, key: PartitionKey | None) -> Pattern:
    """P' (§4.6): the pattern without the conjuncts that the partition guarantees, i.e.
    ``u.A = v.B`` where A and B are the key attributes of u's and v's types in the same key
    column, and ``[A]`` when A is the key attribute of every type. Negated components are
    partitioned too, so their equalities are guaranteed as well."""
    if key is None:
        return p
    types = {c.var: c.type for c in p.components()}

    def col(var: str, attr: str) -> int | None:
        t = types.get(var)
        if t is None or t == ANY_TYPE:
            return None
        attrs = key.attrs_for(t)
        if attrs is None or attrs.count(attr) != 1:
            return None
        return attrs.index(attr)

    where = []
    for e in p.where:
        if (isinstance(e, Cmp) and e.op == "=" and isinstance(e.left, Ref) and isinstance(e.right, Ref)
                and e.left.index is None and e.right.index is None):
            a, b = col(e.left.var, e.left.attr), col(e.right.var, e.right.attr)
            if a is not None and a == b:
                continue
        where.append(e)
    uniform = key.uniform if key.default is None else None
    eq = [a for a in p.equivalence if not (uniform is not None and uniform.count(a) == 1
                                           and ANY_TYPE not in types.values())]
    if len(where) == len(p.where) and len(eq) == len(p.equivalence):
        return p
    return p.model_copy(update={"where": where, "equivalence": eq})


def analyse(p: Pattern) -> WindowPlan:
    """The :class:`WindowPlan` of ``p`` (which must be sound: see :func:`unsound_reason`)."""
    why = unsound_reason(p)
    if why:
        raise ValueError(why)
    comps = p.components()
    ordered = [c for c in comps if not c.negated] + [c for c in comps if c.negated]
    bit = {c.var: k for k, c in enumerate(ordered)}
    order = {c.var: k for k, c in enumerate(comps)}
    local = local_conjuncts(p)
    vars_ = [VarSpec(c.var, c.type, c.kleene, c.negated, bit[c.var], compile_properties(local[c.var]),
                     tuple(to_text(n) for n in local[c.var])) for c in ordered]
    clauses = []
    seen = set()
    for red, _absent in _expand(p.root):
        if red is None:
            continue
        cl = _clause(red, bit, order)
        sig = (cl.vars, tuple(sorted((v, tuple(sorted(s))) for v, s in cl.before.items())))
        if sig not in seen:
            seen.add(sig)
            clauses.append(cl)
    key = partition_key(p)
    w = p.window
    assert w is not None
    return WindowPlan(pattern=p, reduced=_reduce(p, key), vars=vars_, by_name={v.name: v for v in vars_},
                      clauses=clauses, key=key, size=float(w.size), count=w.is_count, sets=ses_sets(p))


def event_bits(plan: WindowPlan, events: list[Event]) -> list[int]:
    return [plan.bits(e) for e in events]
