"""Valid intervals (imprecise-timestamps notes §3.1–§3.3).

The instants of a (partial) match are constrained by ``lower_j <= t_j <= upper_j``, strict
order ``t_{j+1} - t_j >= 1`` and the window ``t_l - t_1 <= span``: an integer
difference-constraint system, whose per-variable feasible sets are integer intervals.

* :func:`tighten` computes them to the fixpoint for any subset of filled components (the
  any-state runs of §3.3; unfilled components in between still need one instant each, and
  unfilled ones before/after shorten the span left to the filled ones). For a complete match
  the result is the notes' **tight bounds** (§3.1, "[BUG] The three-pass bounds are not
  tight", fixed by the fixpoint), so ``[lo_1, hi_l]`` is the exact STAM range.
* :func:`three_pass` is the paper's Algorithm (passes 1–3) for display: vlb, rub, vub, each
  step named, including the W < l bug the notes describe (the engines use :func:`tighten`).
"""
from __future__ import annotations

from typing import Any, Sequence

__all__ = ["tighten", "three_pass"]


def tighten(lo: list[int], hi: list[int], filled: Sequence[int], span: int | None, ell: int) -> bool:
    """Shrink ``lo``/``hi`` (indexed by component; only ``filled`` entries are read or written)
    to the fixpoint of the constraints; False when they are infeasible (some ``lo > hi``).

    Constraints between consecutive filled components i < k: ``t_k - t_i >= k - i``; window
    between the first filled f and the last filled l: ``t_l - t_f <= span - f - (ell-1-l)``
    (the unfilled components before f and after l need instants of their own)."""
    if not filled:
        return True
    f, last = filled[0], filled[-1]
    room = None if span is None else span - f - (ell - 1 - last)
    if room is not None and room < last - f:
        return False  # W too short for the components (the notes' W < l case)
    n = len(filled)
    for _ in range(2 * n + 2):
        changed = False
        for a in range(1, n):
            i, k = filled[a - 1], filled[a]
            v = lo[i] + (k - i)
            if v > lo[k]:
                lo[k] = v
                changed = True
        for a in range(n - 2, -1, -1):
            i, k = filled[a], filled[a + 1]
            v = hi[k] - (k - i)
            if v < hi[i]:
                hi[i] = v
                changed = True
        if room is not None and n > 1:
            v = hi[f] + room
            if v < hi[last]:
                hi[last] = v
                changed = True
            v = lo[last] - room
            if v > lo[f]:
                lo[f] = v
                changed = True
        for k in filled:
            if lo[k] > hi[k]:
                return False
        if not changed:
            return True
    return all(lo[k] <= hi[k] for k in filled)


def three_pass(lower: Sequence[int], upper: Sequence[int], span: int | None) -> list[dict[str, Any]]:
    """The paper's three passes (§4.1) on a complete candidate, as named steps:
    ``{"pass", "j", "what", "value", "ok"}``; the last step says whether the candidate passes.
    For the Valid-interval stepper; the engines use :func:`tighten` (exact)."""
    ell = len(lower)
    steps: list[dict[str, Any]] = []
    vlb = [0] * ell
    for j in range(ell):
        vlb[j] = lower[j] if j == 0 else max(vlb[j - 1] + 1, lower[j])
        steps.append({"pass": 1, "j": j, "what": "vlb", "value": vlb[j], "ok": vlb[j] <= upper[j]})
        if vlb[j] > upper[j]:
            return steps
    rub = [0] * ell
    for j in range(ell - 1, -1, -1):
        rub[j] = upper[j] if j == ell - 1 else min(rub[j + 1] - 1, upper[j])
        steps.append({"pass": 2, "j": j, "what": "rub", "value": rub[j], "ok": rub[j] >= vlb[j]})
        if rub[j] < vlb[j]:
            return steps
    vub = list(rub)
    if span is not None:
        tm = rub[0] + span
        steps.append({"pass": 3, "j": ell - 1, "what": "T_m", "value": tm, "ok": True})
        if rub[-1] > tm:
            vub[-1] = tm
            for j in range(ell - 2, -1, -1):
                vub[j] = min(vub[j + 1] - 1, rub[j])
        for j in range(ell - 1, -1, -1):
            steps.append({"pass": 3, "j": j, "what": "vub", "value": vub[j], "ok": vub[j] >= vlb[j]})
            if vub[j] < vlb[j]:
                return steps
    return steps
