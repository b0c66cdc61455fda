"""Why a signature has the confidence it has (imprecise-timestamps notes §7, items 2, 5, 6, 9).

Pure computations for the Uncertain time page (no UI):

* :func:`explain_signature`: the valid intervals (the paper's three passes and the exact
  fixpoint), the probability of the signature's point matches over ``(t_1, t_last)`` (the
  confidence explainer's heatmap; STNM: with the spoiler factors), and for every spoiler
  candidate the probability that it falls between its two components.
* :func:`nelt_history`: NELT of a member event after each arrival (the NELT animation).
* :func:`world_view`: one possible world of a few events: the order, its probability, the
  point matches in it (the possible-world explorer).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from engine.model import Pattern
from engine.engines.uncertain.bounds import three_pass, tighten
from engine.engines.uncertain.confidence import point_weight
from engine.engines.uncertain.index import EventIndex
from engine.engines.uncertain.oracle import candidate_tuples, world_count, world_matches
from engine.engines.uncertain.pmf import IEvent
from engine.engines.uncertain.query import compile_query, make_ievents

__all__ = ["SignatureExplanation", "explain_signature", "nelt_history", "world_view", "MAX_POINT_MATCHES"]

MAX_POINT_MATCHES = 200_000


@dataclass
class SignatureExplanation:
    ids: list[Any]
    vars: list[str]
    intervals: list[tuple[int, int]]
    three_pass: list[dict[str, Any]]
    bounds: tuple[list[int], list[int]] | None          # the fixpoint (tight) valid intervals
    cells: dict[tuple[int, int], Fraction] = field(default_factory=dict)        # (t_1, t_last) -> P
    cells_any: dict[tuple[int, int], Fraction] = field(default_factory=dict)    # without spoilers
    spoilers: list[dict[str, Any]] = field(default_factory=list)
    point_matches: int = 0
    confidence: Fraction = Fraction(0)
    confidence_any: Fraction = Fraction(0)
    truncated: bool = False
    next: bool = False


def _members(q: Any, iev: Sequence[IEvent], ids: Sequence[Any]) -> list[IEvent]:
    by_id = {str(e.id): e for e in iev}
    return [by_id[str(i)] for i in ids]


def explain_signature(pattern: Pattern, events: Sequence[Any], ids: Sequence[Any],
                      pmf: str | None = None) -> SignatureExplanation:
    """Everything the explainer shows for the signature ``ids`` (event ids in component order)."""
    q = compile_query(pattern)
    iev = make_ievents(events, pmf)
    m = _members(q, iev, ids)
    span = q.span
    lower, upper = [e.lo for e in m], [e.hi for e in m]
    lo, hi = list(lower), list(upper)
    ok = tighten(lo, hi, list(range(q.length)), span, q.length)
    ex = SignatureExplanation(ids=list(ids), vars=q.vars, intervals=list(zip(lower, upper)),
                              three_pass=three_pass(lower, upper, span), bounds=(lo, hi) if ok else None,
                              next=q.next)
    if not ok:
        return ex
    # spoiler candidates (skip_till_next_match): x ⊨ E_j given the first j events, can fall in between
    spoilers: list[IEvent] = []
    spoils: list[list[bool]] = []
    if q.next:
        pos: dict[int, int] = {}
        for j in range(1, q.length):
            near = [x for x in iev if x.hi > lo[j - 1] and x.lo < hi[j]]
            for x in q.candidates(j, m, near):
                if id(x) not in pos:
                    pos[id(x)] = len(spoilers)
                    spoilers.append(x)
                    spoils.append([False] * q.length)
                spoils[pos[id(x)]][j] = True
    den_any = math.prod(e.total for e in m)
    den = den_any * math.prod(x.total for x in spoilers)
    inside: list[dict[int, int]] = [dict() for _ in spoilers]  # spoiler -> component -> weighted mass
    t = [0] * q.length
    count = 0

    def rec(j: int) -> None:
        nonlocal count
        a = lo[j] if j == 0 else max(lo[j], t[j - 1] + 1)
        b = hi[j] if (j == 0 or span is None) else min(hi[j], t[0] + span)
        for tt in range(a, b + 1):
            if ex.truncated:
                return
            if m[j].w(tt) == 0:
                continue
            t[j] = tt
            if j + 1 < q.length:
                rec(j + 1)
                continue
            count += 1
            if count > MAX_POINT_MATCHES:
                ex.truncated = True
                return
            w_any = point_weight(m, t, [])
            key = (t[0], t[-1])
            ex.cells_any[key] = ex.cells_any.get(key, Fraction(0)) + Fraction(w_any, den_any)
            if q.next:
                w = point_weight(m, t, spoilers, spoils)
                if w:
                    ex.cells[key] = ex.cells.get(key, Fraction(0)) + Fraction(w, den)
                for i, x in enumerate(spoilers):
                    for jj in range(1, q.length):
                        if spoils[i][jj]:
                            inside[i][jj] = inside[i].get(jj, 0) + w_any * x.mass(t[jj - 1] + 1, t[jj] - 1)

    rec(0)
    ex.point_matches = count
    if not q.next:
        ex.cells = dict(ex.cells_any)
    ex.confidence_any = sum(ex.cells_any.values(), Fraction(0))
    ex.confidence = sum(ex.cells.values(), Fraction(0))
    sum_w = ex.confidence_any * den_any  # Σ of the point matches' integer weights
    for i, x in enumerate(spoilers):
        for jj, v in sorted(inside[i].items()):
            # P(x strictly between t_{j-1} and t_j), over the point matches weighted as in Eq. 1
            p = Fraction(v, int(sum_w) * x.total) if sum_w else Fraction(0)
            ex.spoilers.append({"id": x.id, "type": x.type, "interval": [x.lo, x.hi],
                                "between": f"{q.vars[jj - 1]} and {q.vars[jj]}", "component": q.vars[jj],
                                "p_between": p})
    return ex


def nelt_history(pattern: Pattern, events: Sequence[Any], ids: Sequence[Any], i: int,
                 pmf: str | None = None) -> list[float | None]:
    """NELT of the signature's i-th event for component i+1 after each arrival (None before
    the events of the prefix have all arrived; inf: no candidate yet)."""
    q = compile_query(pattern)
    iev = make_ievents(events, pmf)
    m = _members(q, iev, ids)
    prefix = m[: i + 1]
    arrived_by = max(e.idx for e in prefix)
    index = EventIndex()
    out: list[float | None] = []
    j = i + 1
    types = None if q.comps[j].type == "ANY" else [q.comps[j].type]
    for x in iev:
        index.add(x)
        if x.idx < arrived_by:
            out.append(None)
            continue
        out.append(index.nelt(types, m[i].hi, lambda y: q.admits(j, y, prefix)))
    return out


def world_view(pattern: Pattern, events: Sequence[Any], times: dict[Any, int], pmf: str | None = None
               ) -> dict[str, Any]:
    """One world of ``events`` (``times``: id -> instant): order, probability, point matches."""
    q = compile_query(pattern)
    iev = make_ievents(events, pmf)
    ts = [times[e.id] for e in iev]
    p = Fraction(1)
    for e, tt in zip(iev, ts):
        p *= e.p(tt)
    order = sorted(zip(ts, (e.idx for e in iev), iev), key=lambda r: (r[0], r[1]))
    tuples = candidate_tuples(q, iev)
    ms = world_matches(q, iev, ts, tuples)
    return {"order": [(e.id, e.type, tt) for tt, _i, e in order], "probability": p,
            "matches": [[e.id for e in tup] for tup in ms], "worlds": world_count(iev)}
