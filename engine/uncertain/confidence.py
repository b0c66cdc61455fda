"""Confidence and range of one signature (imprecise-timestamps notes §2.3, §3.5).

Everything is exact integer arithmetic: a path (point match) ``(t_1..t_l)`` has weight
``Π_j w_j(t_j)`` over the denominator ``Π_j total_j`` (Eq. 1); under skip_till_next_match it
is multiplied by, for every spoiler candidate x, ``total_x - Σ_j mass_x((t_{j-1}, t_j))``
over ``total_x`` (Eq. 2 with the notes' per-event union form for case 2, §2.3 [D][V]).

* :func:`conf_any`: the notes' fixed Algorithm 2, a DP keyed by ``(t_first, t_last)`` so that
  the window is exact (§3.5 "[BUG] Algorithm 2 has no window check"), with prefix sums.
* :func:`conf_next`: when every spoiler candidate can spoil one component only (case 1), the
  same DP with the pairwise factors ``g_j(t_{j-1}, t_j)`` (Eq. 3, Algorithm 1's memo);
  otherwise the point matches are enumerated inside the tight bounds (case 2).

Both return :class:`Conf` (numerator, denominator, range) or None when the confidence is 0
(a signature of confidence 0 is dropped, notes §2.3 "STNM caveat").
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from .pmf import IEvent

__all__ = ["Conf", "conf_any", "conf_next", "point_weight"]


@dataclass(frozen=True, slots=True)
class Conf:
    num: int
    den: int
    range: tuple[int, int]
    paths: int = 0  # DP cells or point matches visited (work done)

    @property
    def value(self) -> Fraction:
        return Fraction(self.num, self.den)


def _start(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int]) -> dict[int, dict[int, int]]:
    e = m[0]
    return {f: {f: e.w(f)} for f in range(lo[0], hi[0] + 1) if e.w(f) > 0}


def _finish(S: dict[int, dict[int, int]], den: int, work: int) -> Conf | None:
    total = 0
    rlo, rhi = None, None
    for f, row in S.items():
        for last, v in row.items():
            if v > 0:
                total += v
                rlo = f if rlo is None or f < rlo else rlo
                rhi = last if rhi is None or last > rhi else rhi
    if total == 0 or rlo is None or rhi is None:
        return None
    g = math.gcd(total, den)
    return Conf(total // g, den // g, (rlo, rhi), work)


def conf_any(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None) -> Conf | None:
    """Exact STAM confidence and range of the signature ``m`` with tight bounds ``lo``/``hi``."""
    S = _start(m, lo, hi)
    work = len(S)
    for j in range(1, len(m)):
        e = m[j]
        S2: dict[int, dict[int, int]] = {}
        for f, row in S.items():
            t_hi = hi[j] if span is None else min(hi[j], f + span)
            lasts = sorted(row)
            out: dict[int, int] = {}
            acc, p = 0, 0
            for t in range(max(lo[j], lasts[0] + 1), t_hi + 1):
                while p < len(lasts) and lasts[p] < t:
                    acc += row[lasts[p]]
                    p += 1
                wt = e.w(t)
                if acc and wt:
                    out[t] = acc * wt
            work += len(out)
            if out:
                S2[f] = out
        S = S2
        if not S:
            return None
    return _finish(S, math.prod(e.total for e in m), work)


def _disjoint(cands: Sequence[Sequence[IEvent]]) -> bool:
    seen: set[int] = set()
    for xs in cands:
        for x in xs:
            if id(x) in seen:
                return False
            seen.add(id(x))
    return True


def conf_next(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None,
              cands: Sequence[Sequence[IEvent]]) -> Conf | None:
    """Exact STNM confidence and range. ``cands[j]`` are the spoiler candidates of component
    j (``x ⊨ E_j`` given the signature's first j events, x not in it); only those that can
    fall strictly between ``lo[j-1]`` and ``hi[j]`` matter."""
    rel = [[] for _ in m]
    for j in range(1, len(m)):
        a, b = lo[j - 1] + 1, hi[j] - 1
        rel[j] = [x for x in cands[j] if x.hi >= a and x.lo <= b and x.mass(a, b) > 0]
    if _disjoint(rel):
        return _dp_next(m, lo, hi, span, rel)
    return _enumerate_next(m, lo, hi, span, rel)


def _dp_next(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None,
             rel: Sequence[Sequence[IEvent]]) -> Conf | None:
    """Case 1: the DP of :func:`conf_any` with each transition j-1 -> j multiplied by
    ``g_j(a, t) = Π_{x in rel[j]} (total_x - mass_x(a+1, t-1))``."""
    S = _start(m, lo, hi)
    work = len(S)
    for j in range(1, len(m)):
        e, xs = m[j], rel[j]
        memo: dict[tuple[int, int], int] = {}

        def g(a: int, t: int) -> int:
            k = (a, t)
            v = memo.get(k)
            if v is None:
                v = 1
                for x in xs:
                    v *= x.total - x.mass(a + 1, t - 1)
                    if v == 0:
                        break
                memo[k] = v
            return v

        S2: dict[int, dict[int, int]] = {}
        for f, row in S.items():
            t_hi = hi[j] if span is None else min(hi[j], f + span)
            out: dict[int, int] = {}
            lasts = sorted(row)
            for t in range(max(lo[j], lasts[0] + 1), t_hi + 1):
                wt = e.w(t)
                if not wt:
                    continue
                acc = 0
                for a in lasts:
                    if a >= t:
                        break
                    acc += row[a] * g(a, t) if xs else row[a]
                work += 1
                if acc:
                    out[t] = acc * wt
            if out:
                S2[f] = out
        S = S2
        if not S:
            return None
    den = math.prod(e.total for e in m) * math.prod(x.total for xs in rel for x in xs)
    return _finish(S, den, work)


def point_weight(m: Sequence[IEvent], t: Sequence[int], spoilers: Sequence[IEvent],
                 spoils: Sequence[Sequence[bool]] | None = None) -> int:
    """Integer weight of the point match ``t`` of ``m``: ``Π w_j(t_j)`` times, for every
    spoiler candidate x, ``total_x - Σ_{j: x can spoil j} mass_x(t_{j-1}+1, t_j-1)`` (the
    per-event union form, notes §2.3 [D][V]). ``spoils[i][j]``: spoilers[i] is a candidate of j."""
    w = 1
    for e, tt in zip(m, t):
        w *= e.w(tt)
        if w == 0:
            return 0
    for i, x in enumerate(spoilers):
        inside = 0
        for j in range(1, len(m)):
            if spoils is None or spoils[i][j]:
                inside += x.mass(t[j - 1] + 1, t[j] - 1)
        w *= x.total - inside
        if w == 0:
            return 0
    return w


def _enumerate_next(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None,
                    rel: Sequence[Sequence[IEvent]]) -> Conf | None:
    """Case 2: every point match inside the tight bounds, weighted with the union form."""
    spoilers: list[IEvent] = []
    pos: dict[int, int] = {}
    for xs in rel:
        for x in xs:
            if id(x) not in pos:
                pos[id(x)] = len(spoilers)
                spoilers.append(x)
    spoils = [[False] * len(m) for _ in spoilers]
    for j, xs in enumerate(rel):
        for x in xs:
            spoils[pos[id(x)]][j] = True
    ell = len(m)
    total = 0
    rlo: int | None = None
    rhi: int | None = None
    work = 0
    t = [0] * ell

    def rec(j: int) -> None:
        nonlocal total, rlo, rhi, work
        a = lo[j] if j == 0 else max(lo[j], t[j - 1] + 1)
        b = hi[j] if (j == 0 or span is None) else min(hi[j], t[0] + span)
        for tt in range(a, b + 1):
            if m[j].w(tt) == 0:
                continue
            t[j] = tt
            if j + 1 < ell:
                rec(j + 1)
                continue
            work += 1
            w = point_weight(m, t, spoilers, spoils)
            if w:
                total += w
                rlo = t[0] if rlo is None else min(rlo, t[0])
                rhi = t[-1] if rhi is None else max(rhi, t[-1])

    rec(0)
    if total == 0 or rlo is None or rhi is None:
        return None
    den = math.prod(e.total for e in m) * math.prod(x.total for x in spoilers)
    g = math.gcd(total, den)
    return Conf(total // g, den // g, (rlo, rhi), work)
