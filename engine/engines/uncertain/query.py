"""The pattern as the uncertain engines run it (imprecise-timestamps notes §1.2, §6).

Scope (the paper's language): ``SEQ`` of single-event components, predicates (constant
and cross-variable), ``[attr]`` equivalence, ``skip_till_any_match`` or
``skip_till_next_match``, an optional time window. :func:`unsupported_reason` names
anything else (Kleene, negation, AND/OR, optional components, the contiguity strategies,
count windows, NON_OVERLAP, AGG); the planner refuses those over interval data.

A predicate belongs to the **latest** component it mentions (notes §6, resolution 13): it
is checked when that component binds, given the earlier ones, and it decides which events
are candidates ``x ⊨ E_j`` for NELT and for the skip_till_next_match spoilers. ``[attr]``
is the predicate ``v_j.attr = v_1.attr`` of every component j >= 2.

The window: ``WITHIN W`` holds iff ``t_last - t_first < W``; on integer instants that is
``t_last - t_first <= span`` with ``span = ceil(W) - 1`` (notes §1.4 rule 2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.bindings import Conjunct, conjunct
from engine.expr import variables
from engine.model import Component, Pattern, Strategy, conjuncts_of
from engine.engines.uncertain.pmf import IEvent

__all__ = ["UQuery", "compile_query", "unsupported_reason", "UncertainUnsupported"]

SCOPE = ("the imprecise-timestamps model (VLDB 2010; docs/semantics.md, 'Imprecise timestamps') covers "
         "SEQ of single events with predicates, [attr], skip_till_any_match / skip_till_next_match and WITHIN")


class UncertainUnsupported(ValueError):
    """The pattern is outside the uncertain engines' scope (the message says what and why)."""


def unsupported_reason(p: Pattern) -> str | None:
    """None when the uncertain engines can run ``p``, else why not (one sentence, with the scope)."""
    comps = p.components()
    for c in comps:
        if c.negated:
            return (f"negation `!{c.type} {c.var}` over interval data is not supported: the paper leaves it as "
                    f"future work; {SCOPE}")
    for c in comps:
        if c.kleene:
            return (f"Kleene closure `{c.type}{'+' if c.quant == 'plus' else '*'} {c.var}[]` over interval data is "
                    f"not supported: the paper leaves it as future work; {SCOPE}")
        if c.quant == "opt":
            return f"optional component `{c.type}? {c.var}` over interval data is not supported; {SCOPE}"
    if p.root.op != "SEQ" or not p.is_flat_seq():
        op = p.root.op if p.root.op != "SEQ" else next(
            (i.op for i in p.root.items if not isinstance(i, Component)), "SEQ")
        return f"{op}(...) over interval data is not supported; {SCOPE}"
    if p.strategy not in (Strategy.ANY, Strategy.NEXT):
        return (f"{p.strategy.value} over interval data is not supported: contiguity needs a total order of "
                f"events, which imprecise timestamps do not give; {SCOPE}")
    if p.window is not None and p.window.is_count:
        return ("a count window (`WITHIN n events`) over interval data is not supported: stream positions do "
                f"not order events whose times are uncertain; use a time window; {SCOPE}")
    if p.output != "ALL":
        return f"OUTPUT {p.output} over interval data is not supported; {SCOPE}"
    if p.aggregate is not None:
        return f"AGG over interval data is not supported; {SCOPE}"
    sel = getattr(p, "selection", None)  # match-windows selections (earliest / maximal)
    if sel is not None and getattr(sel, "value", sel) != "all":
        return f"the selection `{getattr(sel, 'value', sel)}` over interval data is not supported; {SCOPE}"
    return None


@dataclass
class UQuery:
    """A compiled uncertain query: components in order, the window ``span`` (``None``: no
    window), the strategy (``next``: skip_till_next_match), and for each component j its
    own conjuncts (those whose latest variable is j) and the ``[attr]`` attributes."""

    pattern: Pattern
    comps: list[Component]
    span: int | None
    next: bool
    own: list[list[Conjunct]]
    equiv: list[str]
    conj_sets: list[tuple[frozenset[int], Conjunct]] = field(default_factory=list)
    _partial_cache: dict[tuple[int, int], list[Conjunct]] = field(default_factory=dict)

    @property
    def length(self) -> int:
        return len(self.comps)

    @property
    def vars(self) -> list[str]:
        return [c.var for c in self.comps]

    @property
    def window(self) -> int | None:
        """``W`` in instants (``span + 1``), or None."""
        return None if self.span is None else self.span + 1

    def exclusive(self) -> bool:
        """True when every event can match at most one component (pairwise different types,
        none ANY): the precondition of the sorting optimisation (notes §3.6)."""
        types = [c.type for c in self.comps]
        return "ANY" not in types and len(set(types)) == len(types)

    # ------------------------------------------------------------------ predicates

    def type_ok(self, j: int, x: IEvent) -> bool:
        return self.comps[j].matches_type(x.ev.type)

    def admits(self, j: int, x: IEvent, prefix: Sequence[IEvent]) -> bool:
        """``x ⊨ E_j`` given the bindings of components ``0..j-1`` (``prefix``): type, not one
        of the prefix's events, the own conjuncts of j, and ``[attr]`` with component 0."""
        c = self.comps[j]
        if not c.matches_type(x.ev.type):
            return False
        for y in prefix:
            if y is x:
                return False
        if self.equiv and j > 0:
            first = prefix[0].ev
            for a in self.equiv:
                if x.ev.get(a) != first.get(a):
                    return False
        own = self.own[j]
        if own:
            b = {self.comps[k].var: [prefix[k].ev] for k in range(j)}
            b[c.var] = [x.ev]
            for cj in own:
                if not cj.holds(b):
                    return False
        return True

    def partial_ok(self, j: int, x: IEvent, filled: Sequence[IEvent | None]) -> bool:
        """The any-state check (notes §3.3 step 1): x at j given the filled components; the
        conjuncts that mention j and only filled components are evaluated, the others are
        deferred until their last component binds. Type and the id check included."""
        if not self.comps[j].matches_type(x.ev.type):
            return False
        mask = 1 << j
        for k, y in enumerate(filled):
            if y is not None:
                if y is x:
                    return False
                mask |= 1 << k
        if self.equiv:
            other = next((y for k, y in enumerate(filled) if y is not None and k != j), None)
            if other is not None:
                for a in self.equiv:
                    if x.ev.get(a) != other.ev.get(a):
                        return False
        todo = self._partial_cache.get((j, mask))
        if todo is None:
            todo = [cj for s, cj in self.conj_sets if j in s and all(mask >> k & 1 for k in s)]
            self._partial_cache[(j, mask)] = todo
        if todo:
            b = {self.comps[k].var: [y.ev] for k, y in enumerate(filled) if y is not None}
            b[self.comps[j].var] = [x.ev]
            for cj in todo:
                if not cj.holds(b):
                    return False
        return True

    def local_ok(self, j: int, x: IEvent) -> bool:
        """Type and the conjuncts that mention component j alone (a run starting at j)."""
        return self.partial_ok(j, x, [None] * self.length)

    def candidates(self, j: int, bound: Sequence[IEvent], pool: Sequence[IEvent]) -> list[IEvent]:
        """Events of ``pool`` that are ``x ⊨ E_j`` given ``bound[0..j-1]`` and not in ``bound``
        (the NELT and spoiler candidates ``S̄_j``, notes §2.2, §2.3)."""
        members = set(map(id, bound))
        prefix = list(bound[:j])
        return [x for x in pool if id(x) not in members and self.admits(j, x, prefix)]


def compile_query(p: Pattern) -> UQuery:
    """Compile ``p`` or raise :class:`UncertainUnsupported` with the reason."""
    why = unsupported_reason(p)
    if why:
        raise UncertainUnsupported(why)
    comps = [c for c in p.components() if not c.negated]
    index = {c.var: k for k, c in enumerate(comps)}
    own: list[list[Conjunct]] = [[] for _ in comps]
    sets: list[tuple[frozenset[int], Conjunct]] = []
    for w in p.where:
        for e in conjuncts_of(w):
            vs = variables(e)
            ks = frozenset(index[v] for v in vs if v in index) or frozenset({0})
            cj = conjunct(e, set())
            own[max(ks)].append(cj)
            sets.append((ks, cj))
    span = None
    if p.window is not None:
        span = int(math.ceil(p.window.size - 1e-9)) - 1
    return UQuery(pattern=p, comps=comps, span=span, next=p.strategy is Strategy.NEXT, own=own,
                  equiv=list(p.equivalence), conj_sets=sets)


def make_ievents(events: Sequence[Any], pmf_attr: str | None = None) -> list[IEvent]:
    """IEvents for engine events, numbered in the given (arrival) order."""
    return [IEvent.of(e, i, pmf_attr) for i, e in enumerate(events)]

