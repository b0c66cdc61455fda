"""The declarative conditions of one candidate, in the order a run meets them.

Every WHERE conjunct (and every ``[attr]`` expanded as NFA^b expands it,
SASE+ §3.3) is decided at the event where the last value it reads is
bound, as the NFA^b places it on an edge (§4.5 step 2):

- ``a[i]``/``a[i-1]``/``agg(a[..i-1])``: on the take of every element ``a[2..n]``;
- unindexed ``a.x`` of a Kleene variable: on the begin and every take of ``a``;
- ``a[a.len]``, ``a.len``, ``agg(a[])``: on the proceed out of ``a[i]`` (once ``a`` is complete);
- anything else: on the begin of the latest variable it mentions.

Evaluated on the candidate's bindings with :func:`engine.trace.check_conjunct`, the
conjunction of these checks is exactly the declarative predicate semantics
(docs/semantics.md, Predicates), so the first false one is the one that kills a run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from engine.events import Event
from engine.expr import Agg, Cmp, Len, Node, Ref, to_text, uses_iteration, variables
from engine.model import Component, Pattern, Strategy, conjuncts_of
from engine.trace import PredicateCheck, check_conjunct
from engine.explain.common import Alternative, Naming, is_negated_type, is_positive_type, js, part_text


@dataclass
class Conj:
    expr: Node
    index: int
    equivalence: bool = False

    @property
    def text(self) -> str:
        return to_text(self.expr)


@dataclass
class Check:
    """One conjunct decided at ``event`` (bound to ``var``) on ``edge``, with the bindings
    and ``current`` variable :func:`check_conjunct` evaluates it on."""

    conj: Conj
    event: Event
    var: str
    edge: str  # begin | take | proceed
    bindings: dict[str, list[Event]]
    current: str | None

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.event.seq, 1 if self.edge == "proceed" else 0, self.conj.index)

    def evaluate(self, kleene: set[str]) -> PredicateCheck:
        return check_conjunct(self.conj.expr, self.bindings, kleene, current=self.current)


def pattern_conjuncts(pattern: Pattern) -> list[Node]:
    return [c for e in pattern.where for c in conjuncts_of(e)]


def positive_conjuncts(pattern: Pattern) -> list[Conj]:
    negs = {c.var for c in pattern.negated}
    return [Conj(e, k) for k, e in enumerate(pattern_conjuncts(pattern)) if not (variables(e) & negs)]


def equivalence_conjuncts(pattern: Pattern, anchor: str | None, kleene: set[str], extra: Sequence[str],
                          start: int = 10_000) -> list[Conj]:
    """``[attr]`` expanded against ``anchor`` (the first bound variable): ``a[i].x = a[1].x``
    for a Kleene anchor, ``v.x = a[1].x`` for every other variable in ``extra``."""
    out: list[Conj] = []
    if anchor is None:
        return out
    k = start
    for attr in pattern.equivalence:
        ref = Ref(var=anchor, index="1" if anchor in kleene else None, attr=attr)
        if anchor in kleene:
            out.append(Conj(Cmp(op="=", left=Ref(var=anchor, index="i", attr=attr), right=ref), k, True))
            k += 1
        for v in extra:
            if v != anchor:
                out.append(Conj(Cmp(op="=", left=Ref(var=v, attr=attr), right=ref), k, True))
                k += 1
    return out


def _whole(e: Node, kleene: set[str]) -> set[str]:
    """Kleene variables the conjunct reads as a whole (last element, length, all elements)."""
    out = set()
    for n in e.walk():
        if isinstance(n, Len) or (isinstance(n, Agg) and n.scope == "all") or \
                (isinstance(n, Ref) and n.index == "last"):
            if n.var in kleene:
                out.add(n.var)
    return out


def _unindexed(e: Node, kleene: set[str]) -> set[str]:
    return {n.var for n in e.walk() if isinstance(n, Ref) and n.index is None and n.var in kleene}


def plan(conjs: Sequence[Conj], b: dict[str, list[Event]], kleene: set[str]) -> list[Check]:
    """Every decision point of ``conjs`` on bindings ``b``, in evaluation order. A conjunct
    that mentions a variable bound to nothing is vacuous (no check)."""
    var_of = {e.seq: v for v, evs in b.items() for e in evs}
    all_events = [e for evs in b.values() for e in evs]
    if not all_events:
        return []
    first = min(all_events, key=lambda e: e.seq)
    out: list[Check] = []
    for cj in conjs:
        e = cj.expr
        vs = variables(e)
        if any(not b.get(v) for v in vs):
            continue
        whole = _whole(e, kleene)
        it = uses_iteration(e)
        L = next(iter(it)) if it else None
        unidx = _unindexed(e, kleene)

        def reads(bb: dict[str, list[Event]], skip: str | None) -> list[Event]:
            got: list[Event] = []
            for n in e.walk():
                if not isinstance(n, (Ref, Len, Agg)) or n.var == skip:
                    continue
                evs = bb[n.var]
                if isinstance(n, Ref) and (n.index == "1" or (n.index is None and n.var not in kleene)):
                    got.append(evs[0])
                else:
                    got.append(evs[-1])
            return got

        def point(ev: Event, bb: dict[str, list[Event]], cur: str | None) -> Check:
            v = var_of[ev.seq]
            evs = b[v]
            if v in whole and ev is evs[-1]:
                edge = "proceed"
            elif v in kleene and ev is not evs[0]:
                edge = "take"
            else:
                edge = "begin"
            return Check(cj, ev, v, edge, bb, cur)

        if not vs:
            out.append(point(first, b, None))
        elif L is not None and L not in whole:
            for i in range(2, len(b[L]) + 1):
                bb = {**b, L: b[L][:i]}
                ev = max([b[L][i - 1], *reads(bb, L)], key=lambda x: x.seq)
                out.append(point(ev, bb, L))
        elif L is None and unidx and not (unidx & whole):
            U = max(unidx, key=lambda v: b[v][-1].seq)
            for k in range(1, len(b[U]) + 1):
                bb = {**b, U: b[U][:k]}
                ev = max([b[U][k - 1], *reads(bb, U)], key=lambda x: x.seq)
                out.append(point(ev, bb, U))
        else:
            out.append(point(max(reads(b, None), key=lambda x: x.seq), b, None))
    out.sort(key=lambda c: c.sort_key)
    return out


def pred_json(pc: PredicateCheck, check: Check | None = None) -> dict[str, Any]:
    d = pc.to_json()
    if check is not None and check.conj.equivalence:
        d["equivalence"] = True
    return d


# --------------------------------------------------------------------------- window

def coord_name(pattern: Pattern) -> str:
    return "seq" if pattern.window is not None and pattern.window.is_count else "ts"


def coord(pattern: Pattern, e: Event) -> float:
    return e.seq if pattern.window is not None and pattern.window.is_count else e.ts


def window_text(pattern: Pattern) -> str:
    w = pattern.window
    if w is None:
        return ""
    unit = w.unit or ""
    if unit in ("hour", "day", "min") and w.value != 1:
        unit += "s"
    return f"WITHIN {w.value:g}" + (f" {unit}" if unit else "")


def window_values(pattern: Pattern, first: Event, last: Event) -> dict[str, Any]:
    c = coord_name(pattern)
    assert pattern.window is not None
    return {f"first.{c}": js(coord(pattern, first)), f"last.{c}": js(coord(pattern, last)),
            "W": js(pattern.window.size)}


def window_ok(pattern: Pattern, first: Event, last: Event) -> bool:
    w = pattern.window
    return w is None or coord(pattern, last) - coord(pattern, first) < w.size


# --------------------------------------------------------------------------- negation

@dataclass
class NegCandidate:
    event: Event
    qualifies: bool
    failed: PredicateCheck | None
    predicates: list[PredicateCheck]


@dataclass
class NegCheck:
    comp: Component
    lo: Event
    hi: Event | None  # None: trailing, until the window closes
    candidates: list[NegCandidate]

    @property
    def blocker(self) -> NegCandidate | None:
        return next((c for c in self.candidates if c.qualifies), None)


def negations(pattern: Pattern, alt: Alternative, b: dict[str, list[Event]], events: Sequence[Event],
              kleene: set[str], anchor: str | None) -> list[NegCheck]:
    """Each negated component of the alternative's top SEQ with every event of its type
    strictly between its neighbours (trailing: after the last positive event while inside
    the window), and whether it qualifies (docs/semantics.md, Negation)."""
    out: list[NegCheck] = []
    items = alt.top
    if not any(isinstance(i, Component) and i.negated for i in items):
        return out
    conjs = pattern_conjuncts(pattern)
    all_events = sorted((e for evs in b.values() for e in evs), key=lambda e: e.seq)
    if not all_events:
        return out
    first = all_events[0]
    by_seq = sorted(events, key=lambda e: e.seq)
    for k, item in enumerate(items):
        if not (isinstance(item, Component) and item.negated):
            continue
        left = [e for it in items[:k] for c in _comps(it) if not c.negated for e in b.get(c.var, [])]
        right = [e for it in items[k + 1:] for c in _comps(it) if not c.negated for e in b.get(c.var, [])]
        if not left:
            continue
        lo = max(left, key=lambda e: e.seq)
        hi = min(right, key=lambda e: e.seq) if right else None
        mine = [Conj(e, j) for j, e in enumerate(conjs) if item.var in variables(e)]
        mine += equivalence_conjuncts(pattern, anchor, kleene, [item.var]) if anchor else []
        cands: list[NegCandidate] = []
        for e in by_seq:
            if e.seq <= lo.seq:
                continue
            if hi is not None and e.seq >= hi.seq:
                break
            if hi is None and (pattern.window is None or coord(pattern, e) - coord(pattern, first) >= pattern.window.size):
                break
            if not item.matches_type(e.type):
                continue
            b2 = {**b, item.var: [e]}
            pcs = [check_conjunct(c.expr, b2, kleene) for c in mine]
            failed = next((p for p in pcs if not p.result), None)
            cands.append(NegCandidate(e, failed is None, failed, pcs))
        out.append(NegCheck(item, lo, hi, cands))
    return out


def _comps(item: Any) -> list[Component]:
    if isinstance(item, Component):
        return [item]
    return [c for i in item.items for c in _comps(i)]


# --------------------------------------------------------------------------- skipped events

def skip_reason(pattern: Pattern, y: Event, state_var: str, at_rest: bool, prefix: dict[str, list[Event]],
                conjs: Sequence[Conj], kleene: set[str], naming: Naming, part: Any, run_first: Event
                ) -> dict[str, Any]:
    """Why a run bound to ``prefix`` (waiting at ``state_var``'s start state, or at its
    ``[i]`` state when ``at_rest``) skipped event ``y``: the ignore formula of the strategy
    (SASE+ §3.4) with the values it was evaluated on."""
    strat = pattern.strategy
    state = naming.rest(state_var) if at_rest else naming.start(state_var)
    d: dict[str, Any] = {"kind": "skip", "event": js(y.id), "position": y.seq + 1, "type": y.type, "ts": js(y.ts),
                         "state": state,
                         "edge": "ignore", "predicates": []}
    if not is_positive_type(pattern, y.type):
        if is_negated_type(pattern, y.type):
            d.update(formula=None, why=f"type {y.type} is negated in the pattern: the event goes to the negation "
                                       "check, never to the run, and does not break contiguity")
        else:
            d.update(formula=None, why=f"type {y.type} is not in the pattern" + (
                "; it is in another partition" if part is not None and part(y) != part(run_first) else ""))
        return d
    if part is not None and part(y) != part(run_first):
        d.update(formula="¬partition" if strat is Strategy.PARTITION else None,
                 why=f"other partition ({part_text(part, y)}; the run's is {part_text(part, run_first)}): "
                     "the run never sees it")
        return d
    if strat is Strategy.ANY:
        d.update(formula="true", why="skip_till_any_match: ignore is true (a branch of the run skipped it)")
        return d
    if strat is Strategy.NEXT:
        comp_type = pattern.component(state_var).type
        what = "take" if at_rest else "begin"
        d["formula"] = f"¬{what}"
        if comp_type != "ANY" and comp_type != y.type:
            d["why"] = f"skip_till_next_match: ignore = ¬{what}, and {what} is false: type {y.type} is not {comp_type}"
            return d
        hyp = {v: list(evs) for v, evs in prefix.items()}
        hyp.setdefault(state_var, [])
        hyp[state_var] = hyp[state_var] + [y]
        checks = [c for c in plan(conjs, hyp, kleene) if c.event is y and c.edge != "proceed"]
        pcs = [(c, c.evaluate(kleene)) for c in checks]
        d["predicates"] = [pred_json(pc, c) for c, pc in pcs]
        false = [pc for _, pc in pcs if not pc.result]
        if false:
            d["why"] = f"skip_till_next_match: ignore = ¬{what}, and {what} is false: {false[0].text}"
        else:
            d["why"] = f"skip_till_next_match: ignore = ¬{what}"
        return d
    d.update(formula="false", why=f"{strat.value}: the ignore edge is false")
    return d
