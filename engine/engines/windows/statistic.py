"""The summary statistic of a match window and the necessary match conditions
(match-windows paper, Def. 5, Thm 2 and Thm 3; notes §4.4-§4.5).

For a window W and a clause with variables v1..vm (one clause for an SES pattern), the
counter of v is (8): the number of events of W that satisfy θ^p_v **and** are preceded in W
by a candidate of every variable v must follow (for an SES pattern: every variable of the
previous set). Thm 3: all counters > 0 implies conditions (6) and (7).

Maintenance (§4.5, with the notes' correction):

- *add e*: for every v with θ^p_v(e) whose predecessors all have counters > 0 **in the
  state before e** (the pre-event snapshot: one event fitting a variable and one of its
  successors cannot precede itself), ``cnt_v += 1`` and e remembers that it was counted for
  v (the *counted mask*) and in which *epoch* of v;
- *remove first(W)*: decrement only the counters e was counted for in the current epoch;
  when a counter drops to 0, reset every successor's counter to 0 and start a new epoch for
  it (O(1): the events counted in an old epoch are no longer decremented).

The paper's literal rule (decrement every v with θ^p_v(e)) is available with
``literal=True`` for teaching: it drives counters negative and rejects windows that hold a
match (notes §4.5 counter-example); Algorithm 1 never uses it to match.

Bit vectors: ``beta_s`` has bit v set iff ``cnt_v = 0`` (inverted, initially all ones);
the increment test for v is ``beta_s & pred_mask[v] == 0``; conditions (6)+(7) hold iff
``beta_s & clause.mask == 0``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.engines.windows.analysis import Clause, WindowPlan

__all__ = ["ClauseStat", "Verdict", "nmc", "first_failed", "PASSED", "CONDITIONS"]

CONDITIONS = ("4", "5", "6", "7")


class ClauseStat:
    """Counters, epochs and ``beta_s`` of one clause for one window."""

    __slots__ = ("clause", "cnt", "epoch", "beta_s", "cand", "literal")

    def __init__(self, clause: Clause, nbits: int, literal: bool = False) -> None:
        self.clause = clause
        self.cnt = [0] * nbits
        self.epoch = [0] * nbits
        self.beta_s = clause.mask          # bit v = 1 iff cnt_v = 0
        self.cand = [0] * nbits            # plain candidate counts: condition (6) alone, for the verdict
        self.literal = literal

    def add(self, bits: int) -> tuple[int, tuple[int, ...]]:
        """Add an event with β_e = ``bits``; returns (counted mask, epochs of the counted bits)."""
        cl = self.clause
        b = bits & cl.mask
        if not b:
            return _NONE
        snap = self.beta_s
        cnt, cand, pred = self.cnt, self.cand, cl.pred_of_bit
        if not b & (b - 1):  # one variable (the common case): no loop, no generator
            v = b.bit_length() - 1
            cand[v] += 1
            if snap & pred[v]:
                return _NONE
            cnt[v] += 1
            self.beta_s = snap & ~b
            return b, (self.epoch[v],)
        counted = 0
        for v in _BITS.get(b) or _bits(b):
            cand[v] += 1
            if snap & pred[v] == 0:
                cnt[v] += 1
                counted |= 1 << v
        if not counted:
            return _NONE
        self.beta_s = snap & ~counted
        epoch = self.epoch
        return counted, tuple([epoch[v] for v in _BITS.get(counted) or _bits(counted)])

    def remove(self, bits: int, counted: int, epochs: tuple[int, ...]) -> int:
        """Remove the first event; returns the mask of counters reset by the cascade."""
        cl = self.clause
        cnt, cand = self.cnt, self.cand
        b = bits & cl.mask
        if not b:
            return 0
        if not b & (b - 1):
            cand[b.bit_length() - 1] -= 1
        else:
            for v in _BITS.get(b) or _bits(b):
                cand[v] -= 1
        if self.literal:
            dec = b
        elif not counted:
            return 0
        elif not counted & (counted - 1):
            v = counted.bit_length() - 1
            if epochs[0] != self.epoch[v]:
                return 0
            cnt[v] -= 1
            if cnt[v] > 0:
                return 0
            return self._decrement(counted, True)
        else:
            dec = 0
            epoch = self.epoch
            for v, ep in zip(_BITS.get(counted) or _bits(counted), epochs):
                if ep == epoch[v]:
                    dec |= 1 << v
            if not dec:
                return 0
        return self._decrement(dec, False)

    def _decrement(self, dec: int, done: bool) -> int:
        """Decrement the counters of ``dec`` in bit order (``done``: the one counter of ``dec``
        is already decremented), each reaching 0 resetting its successors: the reset mask."""
        cl = self.clause
        cnt = self.cnt
        reset = 0
        for v in _BITS.get(dec) or _bits(dec):
            if not done:
                cnt[v] -= 1
            if cnt[v] <= 0:
                self.beta_s |= 1 << v
                succ = cl.succ_of_bit[v]
                for w in _BITS.get(succ) or _bits(succ):
                    if cnt[w] or not (self.beta_s >> w & 1):
                        reset |= 1 << w
                    cnt[w] = 0
                    self.epoch[w] += 1
                self.beta_s |= succ
        return reset

    def failed(self, size: int, first_bits: int) -> str | None:
        """The first of (4), (5), (6), (7) that fails for this clause, None when all hold
        (the same answer as ``conditions``, without building it)."""
        cl = self.clause
        if size < cl.m:
            return "4"
        if not first_bits & cl.first_mask:
            return "5"
        if not self.beta_s & cl.mask:
            return None
        cand = self.cand
        for v in _bits(cl.mask):
            if cand[v] <= 0:
                return "6"
        return "7"

    def conditions(self, size: int, first_bits: int) -> dict[str, bool]:
        """(4), (5), (6), (7) as this statistic knows them; (7) is the counters' part beyond (6)."""
        cl = self.clause
        c6 = all(self.cand[v] > 0 for v in _bits(cl.mask))
        return {"4": size >= cl.m, "5": bool(first_bits & cl.first_mask), "6": c6,
                "7": c6 and (self.beta_s & cl.mask) == 0}

    def passes(self, size: int, first_bits: int) -> bool:
        cl = self.clause
        return size >= cl.m and bool(first_bits & cl.first_mask) and (self.beta_s & cl.mask) == 0

    def dead(self, size: int) -> bool:
        """Monotone failures under removal: (4) or a zero counter (the drain may stop)."""
        return size < self.clause.m or (self.beta_s & self.clause.mask) != 0


_BITS: dict[int, tuple[int, ...]] = {}
_NONE: tuple[int, tuple[int, ...]] = (0, ())


def _bits(mask: int) -> tuple[int, ...]:
    """The positions of the set bits of ``mask``, lowest first (remembered per mask: a
    pattern has few variables, so few masks)."""
    out = _BITS.get(mask)
    if out is None:
        found = []
        m = mask
        while m:
            low = m & -m
            found.append(low.bit_length() - 1)
            m ^= low
        out = _BITS[mask] = tuple(found)
    return out


@dataclass(frozen=True)
class Verdict:
    """The NMC verdict of a window: passed, the first failing condition ("4", "5", "6",
    "7" or None) of the clause that got furthest, and a sentence for a person."""

    passed: bool
    failed: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "reason": self.reason}


PASSED = Verdict(True, None, "candidate window: every counter test holds")


def first_failed(stats: list[ClauseStat], size: int, first_bits: int) -> str | None:
    """NMC(W, S) as Algorithm 1 needs it: None when some clause satisfies (4)-(7), else the
    first failing condition of the clause that got furthest (what ``nmc`` reports)."""
    if len(stats) == 1:
        return stats[0].failed(size, first_bits)
    worst = "4"
    for st in stats:
        f = st.failed(size, first_bits)
        if f is None:
            return None
        if f > worst:  # "4" < "5" < "6" < "7": the rank is the string order
            worst = f
    return worst


def nmc(plan: WindowPlan, stats: list[ClauseStat], size: int, first_bits: int, first_id: Any) -> Verdict:
    """NMC(W, S) (Algorithm 1): some clause satisfies (4), (5) and all counters > 0."""
    best: tuple[int, str | None, ClauseStat | None] = (-1, None, None)
    for st in stats:
        if st.passes(size, first_bits):
            return PASSED
        c = st.conditions(size, first_bits)
        failed = next(k for k in CONDITIONS if not c[k])
        rank = CONDITIONS.index(failed)
        if rank > best[0]:
            best = (rank, failed, st)
    _, failed, st = best
    assert st is not None and failed is not None
    cl = st.clause
    if failed == "4":
        why = f"skipped: too few events, {size} event(s) for {cl.m} variables"
    elif failed == "5":
        names = ", ".join(v for v in cl.vars if not cl.before[v])
        why = f"skipped: the first event e{first_id} fits no first variable ({names})"
    elif failed == "6":
        missing = [v for v in cl.vars if st.cand[plan.by_name[v].bit] == 0]
        why = f"skipped: no candidate for {', '.join(missing)}"
    else:
        zero = [v for v in cl.vars if st.cnt[plan.by_name[v].bit] <= 0]
        why = (f"skipped: no candidate for {', '.join(zero)} after candidates of "
               + ", ".join(sorted(set().union(*(cl.before[v] for v in zero))) or ["its predecessors"]))
    return Verdict(False, failed, why)
