"""The partition key of a pattern: attributes every event of a match must share.

docs/design.md ("Spark"): the key comes from ``[attr]`` and from equality predicates,
transitively. NFA^b keeps one run set per key value; Spark repartitions by it;
OUTPUT NON_OVERLAP is per key value. Every component, negated ones included, must be
tied to the key, or there is no key (one partition).

Nodes of the equality graph are ``(var, attr)`` (every event of ``var`` has this value),
plus ``(var@1, attr)`` / ``(var@last, attr)`` for the first/last element of a Kleene
variable. A Kleene node is "complete" (all elements equal) when it appears unindexed in
an equality, or through ``a[i].x = a[i-1].x`` / ``a[i].x = a[1].x``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.events import Event
from engine.expr import Cmp, Ref
from engine.model import ANY_TYPE, Pattern


@dataclass(frozen=True)
class PartitionKey:
    """``attrs[t]`` = the key attributes (one per key column) for events of type ``t``;
    ``default`` is used for types not listed (ANY components)."""

    by_type: dict[str, tuple[str, ...]]
    default: tuple[str, ...] | None
    width: int

    def attrs_for(self, event_type: str) -> tuple[str, ...] | None:
        a = self.by_type.get(event_type)
        return a if a is not None else self.default

    def of(self, e: Event) -> tuple[Any, ...] | None:
        attrs = self.attrs_for(e.type)
        if attrs is None:
            return None
        return tuple(e.get(a) for a in attrs)

    def columns(self) -> list[str]:
        """Distinct attribute names used by the key, for display and Spark."""
        out: list[str] = []
        for attrs in list(self.by_type.values()) + ([self.default] if self.default else []):
            for a in attrs:
                if a not in out:
                    out.append(a)
        return out

    @property
    def uniform(self) -> tuple[str, ...] | None:
        """The attribute tuple when every type uses the same one (the common case)."""
        vals = set(self.by_type.values()) | ({self.default} if self.default else set())
        return next(iter(vals)) if len(vals) == 1 else None


class _UF:
    def __init__(self) -> None:
        self.p: dict[Any, Any] = {}

    def find(self, x: Any) -> Any:
        self.p.setdefault(x, x)
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[ra] = rb


def partition_key(pattern: Pattern) -> PartitionKey | None:
    comps = pattern.components()
    kleene = {c.var for c in comps if c.kleene}
    uf = _UF()
    complete: set[tuple[str, str]] = set()

    def node(r: Ref) -> tuple[str, str]:
        if r.var not in kleene or r.index is None:
            return (r.var, r.attr)
        if r.index == "1":
            return (r.var + "@1", r.attr)
        if r.index == "last":
            return (r.var + "@last", r.attr)
        return (r.var + "@" + r.index, r.attr)

    for attr in pattern.equivalence:
        first = (comps[0].var, attr)
        for c in comps:
            uf.union(first, (c.var, attr))
            if c.var in kleene:
                complete.add((c.var, attr))
    for e in pattern.where:
        if not (isinstance(e, Cmp) and e.op == "=" and isinstance(e.left, Ref) and isinstance(e.right, Ref)):
            continue
        left, right = e.left, e.right
        idx = {left.index, right.index}
        if left.var == right.var and left.var in kleene:
            if left.attr == right.attr and idx in ({"i", "i-1"}, {"i", "1"}):
                complete.add((left.var, left.attr))
            continue
        if "i" in idx or "i-1" in idx:
            continue
        for r in (left, right):
            if r.var in kleene and r.index is None:
                complete.add((r.var, r.attr))
        uf.union(node(left), node(right))
    for v, a in complete:
        uf.union((v, a), (v + "@1", a))
        uf.union((v, a), (v + "@last", a))

    # A class is a key column if every component has a complete node in it.
    classes: dict[Any, dict[str, str]] = {}
    for n in list(uf.p):
        var, attr = n
        if "@" in var:
            continue
        if var in kleene and (var, attr) not in complete:
            continue
        classes.setdefault(uf.find(n), {}).setdefault(var, attr)
    columns: list[dict[str, str]] = []
    all_vars = {c.var for c in comps}
    for members in classes.values():
        if set(members) == all_vars:
            columns.append(members)
    if not columns:
        return None
    types = {c.var: c.type for c in comps}
    by_type: dict[str, list[str]] = {}
    usable: list[dict[str, str]] = []
    for col in columns:
        per_type: dict[str, str] = {}
        ok = True
        for var, attr in col.items():
            t = types[var]
            if per_type.setdefault(t, attr) != attr:
                ok = False  # two roles of one type keyed by different attributes
        if ANY_TYPE in per_type and len(set(per_type.values())) > 1:
            ok = False
        if ok:
            usable.append(per_type)
    if not usable:
        return None
    usable.sort(key=lambda d: sorted(d.items()))
    all_types = sorted({c.type for c in comps})
    for t in all_types:
        by_type[t] = [col[t] for col in usable]
    default = tuple(by_type[ANY_TYPE]) if ANY_TYPE in by_type else None
    return PartitionKey(
        by_type={t: tuple(a) for t, a in by_type.items() if t != ANY_TYPE},
        default=default,
        width=len(usable),
    )
