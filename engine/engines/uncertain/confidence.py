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
from itertools import accumulate
from operator import mul
from fractions import Fraction
from typing import Sequence

from engine.memory import current_guard
from engine.engines.uncertain.pmf import IEvent

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
    """Exact STAM confidence and range of the signature ``m`` with tight bounds ``lo``/``hi``
    (the windowed Algorithm 2, see :func:`_chains`)."""
    return _chains(m, lo, hi, span, [None] * len(m), math.prod(e.total for e in m))


def _step(m: Sequence[IEvent], j: int, start: int, vals: list[int], a: int, b: int,
          tr: dict[int, tuple[int, list[int]]] | None) -> list[int]:
    """The layer of component j over ``[a, b]`` from the layer of j-1 (``vals`` from
    ``start``): ``new[t] = w_j(t) * Σ_{s < t} vals[s] * g_j(s, t)`` (g = 1 without spoilers)."""
    e = m[j]
    if tr is None:
        pre = list(accumulate(vals))
        n = len(pre)
        i0, i1 = a - 1 - start, b - start
        new = pre[i0:i1] if i1 <= n else pre[i0:] + [pre[-1]] * (i1 - max(i0, n))
        if e.weights is not None:
            ws, off = e.weights, a - e.lo
            new = [x * ws[off + k] for k, x in enumerate(new)]
        return new
    new = []
    last = start + len(vals) - 1
    for t in range(a, b + 1):
        a0, g = tr[t]
        k1 = min(t - 1, last) - start + 1
        acc = sum(map(mul, vals[:k1], g[start - a0:start - a0 + k1])) if k1 > 0 else 0
        new.append(acc * e.w(t) if acc else 0)
    return new


def _back(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int],
          trans: Sequence[dict[int, tuple[int, list[int]]] | None]) -> list[int]:
    """``B[f - lo[0]]``: the weight of all chains starting at f (no window), w_1(f) included."""
    ell = len(m)
    vals = [m[-1].w(t) for t in range(lo[-1], hi[-1] + 1)]  # layer of component l over [lo, hi]
    for j in range(ell - 1, 0, -1):
        tr = trans[j]
        prev = [0] * (hi[j - 1] - lo[j - 1] + 1)  # layer of j-1 over [lo[j-1], hi[j-1]]
        if tr is None:
            suffix = list(accumulate(reversed(vals)))[::-1] + [0]  # suffix[k] = Σ vals[k:]
            for k in range(len(prev)):
                s0 = lo[j - 1] + k + 1 - lo[j]  # first t > s
                prev[k] = suffix[max(0, min(s0, len(vals)))]
        else:
            tick = current_guard().tick
            for i, t in enumerate(range(lo[j], hi[j] + 1)):
                tick()
                v = vals[i]
                if not v or t not in tr:
                    continue
                a0, g = tr[t]
                for k, gk in enumerate(g):
                    if gk:
                        prev[a0 + k - lo[j - 1]] += v * gk
        e = m[j - 1]
        vals = [x * e.w(lo[j - 1] + k) for k, x in enumerate(prev)]
    return vals


def _chains(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None,
            trans: Sequence[dict[int, tuple[int, list[int]]] | None], den: int) -> Conf | None:
    """Σ over point matches ``t_1 < ... < t_l`` inside the bounds with ``t_l - t_1 <= span``
    of ``Π w_j(t_j) Π g_j(t_{j-1}, t_j)``, and the range of the positive ones.

    A first instant f with ``f + span >= hi_l`` cannot meet the window: those f are summed
    by one backward pass (``_back``) and their last instants found by one forward pass; the
    other f each get their own forward pass cut at ``f + span`` (the notes' DP keyed by
    ``(t_first, t_last)``, §3.5)."""
    ell = len(m)
    free_from = lo[0] if span is None else max(lo[0], hi[-1] - span)
    total = 0
    rlo: int | None = None
    rhi: int | None = None
    work = 0
    tick = current_guard().tick  # the run's guard: one tick per first instant
    for f in range(lo[0], min(hi[0], free_from - 1) + 1):  # the window may bind
        tick()
        w0 = m[0].w(f)
        if not w0:
            continue
        start, vals = f, [w0]
        for j in range(1, ell):
            a, b = max(lo[j], start + 1), min(hi[j], f + span)  # type: ignore[operator]
            if a > b:
                vals = []
                break
            vals = _step(m, j, start, vals, a, b, trans[j])
            work += len(vals)
            start = a
        sm = sum(vals)
        if sm:
            total += sm
            rlo = f if rlo is None else rlo
            k = len(vals) - 1
            while not vals[k]:
                k -= 1
            rhi = start + k if rhi is None else max(rhi, start + k)
    if free_from <= hi[0]:
        back = _back(m, lo, hi, trans)
        work += sum(h - l_ + 1 for l_, h in zip(lo, hi))
        free = back[free_from - lo[0]:]
        sf = sum(free)
        if sf:
            total += sf
            if rlo is None:
                rlo = free_from + next(k for k, x in enumerate(free) if x)
            start = free_from
            vals = [m[0].w(f) for f in range(free_from, hi[0] + 1)]
            for j in range(1, ell):
                a = max(lo[j], start + 1)
                vals = _step(m, j, start, vals, a, hi[j], trans[j])
                start = a
            k = len(vals) - 1
            while not vals[k]:
                k -= 1
            rhi = start + k if rhi is None else max(rhi, start + k)
    if total == 0 or rlo is None or rhi is None:
        return None
    g = math.gcd(total, den)
    return Conf(total // g, den // g, (rlo, rhi), work)


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


def _cumulative(x: IEvent, a: int, b: int) -> list[int]:
    """``C[t - a] = mass_x(-inf, t)`` for t in ``[a, b]``."""
    return [x.mass(x.lo, t) for t in range(a, b + 1)]


def _transition(prev_lo: int, prev_hi: int, lo_j: int, hi_j: int, xs: Sequence[IEvent]
                ) -> dict[int, tuple[int, list[int]]]:
    """For every instant t of component j: ``(prev_lo, G)`` with ``G[k] = g_j(prev_lo + k, t)``
    for ``prev_lo + k`` in ``[prev_lo, min(prev_hi, t-1)]``: ``Π_x (total_x - mass_x(a+1, t-1))``.

    ``mass_x(a+1, t-1) = C_x(t-1) - C_x(a)`` with C the cumulative mass, so each factor is an
    outer sum; their product is taken with numpy when it fits in 62 bits, else exactly with
    Python integers."""
    ts = list(range(max(lo_j, prev_lo + 1), hi_j + 1))
    if not ts:
        return {}
    a_hi = min(prev_hi, ts[-1] - 1)
    na = a_hi - prev_lo + 1
    if math.prod(x.total for x in xs).bit_length() < 62:
        import numpy as np

        g = np.ones((len(ts), na), dtype=np.int64)
        for x in xs:
            ca = np.array([x.mass(x.lo, a) for a in range(prev_lo, a_hi + 1)], dtype=np.int64)
            ct = np.array([x.mass(x.lo, t - 1) for t in ts], dtype=np.int64)
            g *= (x.total - ct)[:, None] + ca[None, :]
        rows = g.tolist()
    else:
        rows = []
        cums = [(x, [x.mass(x.lo, a) for a in range(prev_lo, a_hi + 1)]) for x in xs]
        for t in ts:
            row = [1] * na
            for x, ca in cums:
                base = x.total - x.mass(x.lo, t - 1)
                row = list(map(mul, row, [base + c for c in ca]))
            rows.append(row)
    out: dict[int, tuple[int, list[int]]] = {}
    for t, row in zip(ts, rows):
        out[t] = (prev_lo, row[:max(0, min(prev_hi, t - 1) - prev_lo + 1)])
    return out


def _dp_next(m: Sequence[IEvent], lo: Sequence[int], hi: Sequence[int], span: int | None,
             rel: Sequence[Sequence[IEvent]]) -> Conf | None:
    """Case 1: the chains of :func:`conf_any` with each transition j-1 -> j multiplied by
    ``g_j(a, t) = Π_{x in rel[j]} (total_x - mass_x(a+1, t-1))`` (Eq. 3; Algorithm 1's
    pairwise factors, computed once per component)."""
    den = math.prod(e.total for e in m) * math.prod(x.total for xs in rel for x in xs)
    trans = [None] + [_transition(lo[j - 1], hi[j - 1], lo[j], hi[j], rel[j]) if rel[j] else None
                      for j in range(1, len(m))]
    return _chains(m, lo, hi, span, trans, den)


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
