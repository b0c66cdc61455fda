"""The counters' fast paths (one variable per event, one counted bit) against the
previous general code of ``ClauseStat.add`` / ``remove``, kept here as the reference:
the same counters, epochs, β_s, candidate counts and return values after every step of
random add / remove-first sequences, with events fitting one or several variables, under
the counted-mask rule and the literal rule."""
from __future__ import annotations

import random
from collections import deque

import pytest

from engine.dsl import parse
from engine.engines.windows.analysis import analyse
from engine.engines.windows.statistic import ClauseStat

PATTERNS = [
    "PATTERN SEQ(AND(C c, P+ p[]), B b) WHERE [PID] WITHIN 16 days",
    "PATTERN SEQ(A a, B b, C c, D d) WITHIN 10 s",
    "PATTERN AND(T a, T b, T c, T d, T e) WHERE a.x = 1 AND b.x = 2 AND c.x = 3 AND d.x = 4 AND e.x = 5 WITHIN 5 s",
    "PATTERN SEQ(AND(A a, B b), AND(C c, D d), E e) WITHIN 10 s",
]


def _ref_bits(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


class Ref(ClauseStat):
    """The code of ``add`` / ``remove`` before the fast paths."""

    def add(self, bits: int) -> tuple[int, tuple[int, ...]]:
        """Add an event with β_e = ``bits``; returns (counted mask, epochs of the counted bits)."""
        cl = self.clause
        snap = self.beta_s
        counted = 0
        b = bits & cl.mask
        cnt, cand = self.cnt, self.cand
        while b:
            low = b & -b
            v = low.bit_length() - 1
            b ^= low
            cand[v] += 1
            if snap & cl.pred_of_bit[v] == 0:
                cnt[v] += 1
                counted |= low
        self.beta_s &= ~counted
        if not counted:
            return 0, ()
        return counted, tuple(self.epoch[v] for v in _ref_bits(counted))

    def remove(self, bits: int, counted: int, epochs: tuple[int, ...]) -> int:
        """Remove the first event; returns the mask of counters reset by the cascade."""
        cl = self.clause
        cnt, cand = self.cnt, self.cand
        b = bits & cl.mask
        for v in _ref_bits(b):
            cand[v] -= 1
        if self.literal:
            dec = b
        else:
            dec = 0
            for v, ep in zip(_ref_bits(counted), epochs):
                if ep == self.epoch[v]:
                    dec |= 1 << v
        reset = 0
        for v in _ref_bits(dec):
            cnt[v] -= 1
            if cnt[v] <= 0:
                self.beta_s |= 1 << v
                succ = cl.succ_of_bit[v]
                for w in _ref_bits(succ):
                    if cnt[w] or not (self.beta_s >> w & 1):
                        reset |= 1 << w
                    cnt[w] = 0
                    self.epoch[w] += 1
                self.beta_s |= succ
        return reset


@pytest.mark.parametrize("text", PATTERNS)
@pytest.mark.parametrize("literal", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_fast_counters_equal_the_reference(text, literal, seed):
    plan = analyse(parse(text))
    cl = plan.clauses[0]
    nbits = len(plan.vars)
    rng = random.Random(seed)
    fast, ref = ClauseStat(cl, nbits, literal), Ref(cl, nbits, literal)
    window: deque = deque()
    singles = [1 << v for v in _ref_bits(cl.mask)]
    for _ in range(400):
        if window and rng.random() < 0.45:
            bits, mf, mr = window.popleft()
            assert fast.remove(bits, *mf) == ref.remove(bits, *mr)
        else:
            r = rng.random()
            bits = rng.choice(singles) if r < 0.6 else (rng.getrandbits(nbits + 1) if r < 0.9 else 0)
            mf, mr = fast.add(bits), ref.add(bits)
            assert mf == mr
            window.append((bits, mf, mr))
        assert (fast.cnt, fast.epoch, fast.beta_s, fast.cand) == (ref.cnt, ref.epoch, ref.beta_s, ref.cand)
