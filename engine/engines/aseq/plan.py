"""An AGG pattern compiled for A-Seq (A-Seq §2-§3; docs/papers.md, "A-Seq").

``compile_query(pattern)`` gives a :class:`QueryPlan`: the positive positions P[0..n-1]
with their own (local) predicates, the negated components of each gap (the Recounting
Rule resets the counter of the position before the gap, Lemma 6), the partition key of
the Hashed Prefix Counter (HPC, §3.4: ``[attr]``, equality predicates, and GROUP BY with
partition semantics, A11), the window, and the aggregate (function, position k,
attribute).

Predicates are sorted into (``classify``):

- *local*: mentions one variable; evaluated on arrival, a pre-filter (§1.6). A failing
  event does not count for that position (or, negated, does not reset anything).
- *key*: an equality between two components that the partition key already implies
  (HPC makes it hold).
- *anchored*: mentions the START variable and one other; each prefix counter belongs to
  one START event and keeps it, so it is checked per counter (the START-anchored extension
  of §3.4 / A10).
- anything else (two events other than START, Kleene, ...) cannot be aggregated without
  building matches: :class:`AseqUnsupported` with the reason, and the engine falls back to
  the baseline (engine/engines/aseq/baseline.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.events import Event
from engine.expr import Cmp, Node, Ref, compile_expr, to_text, variables
from engine.model import ANY_TYPE, Component, Pattern, Strategy, conjuncts_of
from engine.engines.oracle.oracle import has_trailing_negation
from engine.partition import PartitionKey, partition_key
from engine.engines.aseq.values import value_kind

__all__ = ["AseqUnsupported", "QueryPlan", "Position", "NegSpec", "compile_query", "unsupported_reason",
           "refusal", "keyed_pattern", "trig_components", "local_conjuncts"]

Local = Callable[[Event], bool]
Anchored = Callable[[tuple[Event, Event]], bool]


class AseqUnsupported(ValueError):
    """A-Seq cannot aggregate this pattern without building its matches (the reason)."""


@dataclass(frozen=True)
class NegSpec:
    """A negated component ``!T v`` in a gap: its local and START-anchored predicates."""

    var: str
    type: str
    local: tuple[Local, ...]
    anchored: tuple[Anchored, ...]
    sig: str  # predicates as canonical text (for sharing)

    def fits(self, t: str) -> bool:
        return self.type == ANY_TYPE or self.type == t


@dataclass(frozen=True)
class Position:
    """Positive position m (0-based): type, variable, local / START-anchored predicates,
    and the negated components of the gap after it (they reset this position's counter)."""

    index: int
    var: str
    type: str
    local: tuple[Local, ...]
    anchored: tuple[Anchored, ...]
    resets: tuple[NegSpec, ...]
    sig: str  # local + anchored predicates, canonical text (for sharing)
    reset_sig: str
    blocked: bool = False  # START only: a constant predicate is false, so nothing starts here

    def fits(self, t: str) -> bool:
        return self.type == ANY_TYPE or self.type == t


@dataclass
class QueryPlan:
    pattern: Pattern
    positions: list[Position]
    func: str                      # COUNT SUM AVG MIN MAX
    agg_pos: int | None            # k: the aggregated position (None for COUNT)
    agg_attr: str | None
    kind: str                      # values.value_kind
    key: PartitionKey | None       # HPC partitions (None: one partition)
    group_by: list[str]
    window: float | None           # W in the unit compared (ts units or stream positions)
    count_window: bool
    never: bool = False            # a constant predicate is false: no match ever
    anchored: bool = False         # some predicate is checked per START counter
    labels: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.positions)

    def coord(self, e: Event) -> float:
        return e.seq if self.count_window else e.ts

    def part(self, e: Event) -> Any:
        return self.key.of(e) if self.key is not None else None

    def group(self, e: Event) -> tuple[Any, ...] | None:
        return tuple(e.get(a) for a in self.group_by) if self.group_by else None

    def is_trig(self, e: Event) -> bool:
        last = self.positions[-1]
        return last.fits(e.type) and all(f(e) for f in last.local)


# --------------------------------------------------------------------------- support

def refusal(pattern: Pattern) -> str | None:
    """Why no AGG engine (A-Seq or the baseline) runs this pattern, or None."""
    if pattern.aggregate is None:
        return "A-Seq computes aggregates: the pattern needs an AGG clause (e.g. `AGG COUNT`)"
    if has_trailing_negation(pattern):
        return ("AGG with a trailing negation: a match is confirmed only when its window has closed, and then it "
                "no longer counts (A7); put the negation between two positive components")
    return None


def unsupported_reason(pattern: Pattern) -> str | None:
    """None when A-Seq aggregates ``pattern`` without matches, else the reason."""
    try:
        compile_query(pattern)
    except AseqUnsupported as err:
        return str(err)
    return None


def keyed_pattern(pattern: Pattern) -> Pattern:
    """The pattern with GROUP BY's attributes added to ``[attr]``: GROUP BY has partition
    semantics (A11), a match counts in a group only if all its events (and the negated
    events that invalidate it) carry the group's value."""
    a = pattern.aggregate
    if a is None or not a.group_by:
        return pattern
    eq = list(pattern.equivalence) + [g for g in a.group_by if g not in pattern.equivalence]
    return pattern.model_copy(update={"equivalence": eq})


def local_conjuncts(pattern: Pattern, var: str) -> list[Node]:
    """The WHERE conjuncts that mention only ``var``."""
    return [c for w in pattern.where for c in conjuncts_of(w) if variables(c) == {var}]


def trig_components(pattern: Pattern) -> list[Component]:
    """The positive components that can bind the last event of a match (a TRIG event fits
    one of them and satisfies its own predicates)."""
    out: list[Component] = []

    def last_of(item: Any) -> tuple[list[Component], bool]:
        """(components that can be last, whether the item can bind nothing)."""
        if isinstance(item, Component):
            if item.negated:
                return [], True
            return [item], item.optional
        if item.op == "SEQ":
            acc: list[Component] = []
            for it in reversed(item.items):
                cs, empty = last_of(it)
                acc += cs
                if not empty:
                    return acc, False
            return acc, True
        acc, any_empty, all_empty = [], False, True
        for it in item.items:
            cs, empty = last_of(it)
            acc += cs
            any_empty |= empty
            all_empty &= empty
        return acc, (any_empty if item.op == "OR" else all_empty)

    for c in last_of(pattern.root)[0]:
        if c.var not in {x.var for x in out}:
            out.append(c)
    return out


# --------------------------------------------------------------------------- compile

def _sig(exprs: list[Node], names: dict[str, str]) -> str:
    """Predicates as canonical text with variables renamed by role (for PreTree keys)."""
    def rename(d: Any) -> Any:
        if isinstance(d, dict):
            out = {k: rename(v) for k, v in d.items()}
            if d.get("kind") in ("ref", "len", "agg") and "var" in d:
                out["var"] = names.get(d["var"], d["var"])
            return out
        if isinstance(d, list):
            return [rename(x) for x in d]
        return d

    return json.dumps(sorted(json.dumps(rename(e.model_dump()), sort_keys=True) for e in exprs))


def _local_fn(e: Node) -> Local:
    def resolve(n: Node) -> Callable[[Event], Any]:
        if isinstance(n, Ref) and n.index is None:
            a = n.attr
            return lambda ev: ev.get(a)
        raise AseqUnsupported(f"`{to_text(n)}` in `{to_text(e)}` needs a Kleene variable")

    f = compile_expr(e, resolve)
    return lambda ev: bool(f(ev))


def _anchored_fn(e: Node, start_var: str) -> Anchored:
    def resolve(n: Node) -> Callable[[tuple[Event, Event]], Any]:
        if isinstance(n, Ref) and n.index is None:
            a = n.attr
            if n.var == start_var:
                return lambda c: c[0].get(a)
            return lambda c: c[1].get(a)
        raise AseqUnsupported(f"`{to_text(n)}` in `{to_text(e)}` needs a Kleene variable")

    f = compile_expr(e, resolve)
    return lambda c: bool(f(c))


def _key_implied(e: Node, key: PartitionKey | None, types: dict[str, str]) -> bool:
    """``a.x = b.y`` that HPC partitioning makes hold (both sides are one key column)."""
    if key is None or not (isinstance(e, Cmp) and e.op == "="):
        return False
    l, r = e.left, e.right
    if not (isinstance(l, Ref) and isinstance(r, Ref) and l.index is None and r.index is None):
        return False
    la, ra = key.attrs_for(types[l.var]), key.attrs_for(types[r.var])
    if la is None or ra is None:
        return False
    return any(x == l.attr and y == r.attr for x, y in zip(la, ra))


def compile_query(pattern: Pattern) -> QueryPlan:
    """The A-Seq plan of an AGG pattern; AseqUnsupported with the reason when A-Seq cannot
    aggregate it without building matches (the engine then falls back to the baseline)."""
    why = refusal(pattern)
    if why:
        raise AseqUnsupported(why)
    agg = pattern.aggregate
    assert agg is not None
    if pattern.strategy != Strategy.ANY:
        raise AseqUnsupported(f"A-Seq counts every combination (skip_till_any_match, §1.3); under "
                              f"{pattern.strategy.value} which matches exist depends on the runs")
    if pattern.output != "ALL":
        raise AseqUnsupported("OUTPUT NON_OVERLAP keeps a match depending on the matches reported before it")
    root = pattern.root
    if root.op != "SEQ" or not all(isinstance(i, Component) for i in root.items):
        raise AseqUnsupported("A-Seq aggregates a flat SEQ(...) of single events (§1.2); AND/OR/nested groups "
                              "need their matches")
    comps: list[Component] = list(root.items)  # type: ignore[arg-type]
    for c in comps:
        if c.quant != "one":
            what = "a Kleene component" if c.kleene else "an optional component"
            raise AseqUnsupported(f"{what} (`{c.type}{'+' if c.quant == 'plus' else '*' if c.quant == 'star' else '?'}"
                                  f" {c.var}`): a prefix counter counts one event per position (§3.1)")
    positive = [c for c in comps if not c.negated]
    start_var = positive[0].var
    types = {c.var: c.type for c in comps}
    kp = keyed_pattern(pattern)
    key = partition_key(kp)
    local: dict[str, list[Node]] = {c.var: [] for c in comps}
    anchored: dict[str, list[Node]] = {c.var: [] for c in comps}
    never = False
    for w in pattern.where:
        for e in conjuncts_of(w):
            vs = variables(e)
            if not vs:
                try:
                    never |= not bool(compile_expr(e, lambda n: (lambda c: None))(None))
                except Exception:  # noqa: BLE001 - an undefined constant is false
                    never = True
                continue
            if len(vs) == 1:
                local[next(iter(vs))].append(e)
            elif _key_implied(e, key, types):
                continue
            elif len(vs) == 2 and start_var in vs:
                other = next(v for v in vs if v != start_var)
                anchored[other].append(e)
            else:
                names = ", ".join(f"`{v}`" for v in sorted(vs))
                raise AseqUnsupported(
                    f"the predicate `{to_text(e)}` relates {names}, events other than the START event `{start_var}`; "
                    "A-Seq keeps no events but each prefix counter's START (§3.4, A10)")
    def preds(c: Component) -> tuple[tuple[Local, ...], tuple[Anchored, ...], str]:
        names = {c.var: "v"} if c.var == start_var else {c.var: "v", start_var: "s"}
        return (tuple(_local_fn(e) for e in local[c.var]),
                tuple(_anchored_fn(e, start_var) for e in anchored[c.var]),
                _sig(local[c.var] + anchored[c.var], names))

    positions: list[Position] = []
    gap: list[NegSpec] = []
    prev: Component | None = None
    for c in comps + [None]:  # type: ignore[list-item]
        if c is not None and c.negated:
            lf, af, sig = preds(c)
            gap.append(NegSpec(c.var, c.type, lf, af, sig))
            continue
        if prev is not None:
            lf, af, sig = preds(prev)
            blocked = never and not positions
            positions.append(Position(len(positions), prev.var, prev.type, lf, af, tuple(gap),
                                      sig + ("#never" if blocked else ""),
                                      json.dumps(sorted([g.type, g.sig] for g in gap)), blocked))
            gap = []
        prev = c
    k = None
    if agg.var is not None:
        k = next(i for i, c in enumerate(positive) if c.var == agg.var)
    w = pattern.window
    labels = ["(" + ",".join(c.type for c in positive[: m + 1]) + ")" for m in range(len(positive))]
    return QueryPlan(pattern=pattern, positions=positions, func=agg.func, agg_pos=k, agg_attr=agg.attr,
                     kind=value_kind(agg.func, agg.attr is not None), key=key, group_by=list(agg.group_by),
                     window=float(w.size) if w is not None else None, count_window=bool(w and w.is_count),
                     never=never, anchored=any(anchored[c.var] for c in comps), labels=labels)
