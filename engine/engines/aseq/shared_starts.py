"""Prefix counters shared across START events (an extension of SEM, A-Seq §3.2; docs/papers.md, "A-Seq").

SEM keeps one counter vector per live START so that an expiring START's matches can be
taken out of the total (the paper's "global DPC counters cannot un-count"). Every event
changes every START's vector by the *same* linear map ``M_e`` (Lemma 1 adds a parent's
count, the Recounting Rule zeroes a counter; with no START-anchored predicate nothing
depends on which START the vector belongs to), so the vector of START s at ``now`` is
``P(s, now) · e_root`` with ``P`` the product of the maps since s. What a query outputs is
the sum of those vectors over the live STARTs, and STARTs leave in arrival order: a FIFO
sliding-window aggregate over the (non-invertible) monoid of affine maps, kept here with
the two-stacks technique (no subtraction, so resets are fine):

- *back*: the STARTs since the last flip, as one summed vector ``sb`` (updated by ``M_e``
  like one START's vector) plus a log of the maps since their first START;
- *front*: the older STARTs, as suffix sums ``fsuf[i] = Σ_{k >= i} D_k`` of their vectors
  ``D_k`` at the flip, plus ``cols``, the columns of ``P(flip, now)`` (each updated by
  ``M_e`` like one START's vector);
- the sum over live STARTs is ``P(flip, now) · fsuf[fi] + sb``; a START leaving is
  ``fi += 1``; when the front is empty and a START must leave, a *flip* walks the log
  backwards once (``Q ← Q · M_e``) to turn the back into a front; a log grown past a few
  entries per live START and node (a long window, few STARTs) is folded into the front the
  same way, so the memory stays O(live STARTs · nodes).

Per event this costs O(nodes · updated nodes) instead of O(live STARTs · updated nodes):
independent of the window. ``vectors()`` gives every live START's own vector (for the
per-START views and the trace, which then take over).
"""
from __future__ import annotations

from typing import Any

__all__ = ["StartMark", "StartPool", "PlainOp"]

#: One node's update for one event, as the shared path stores it: ``(node, parent, adds, resets)``
#: -- ``adds``: Lemma 1 (``cnt[node] += cnt[parent]`` from the pre-event state); ``resets``:
#: the Recounting Rule (``cnt[node] = 0`` first). Kept in descending depth, like ``UpdateOp``.
PlainOp = tuple[int, int, bool, bool]


class StartMark:
    """A live START of the shared path: what a per-START tree would be named and expire by."""

    __slots__ = ("id", "event", "coord", "exp", "part", "roots")

    def __init__(self, tid: int, event: Any, coord: float, exp: float, part: Any, roots: tuple[int, ...]) -> None:
        self.id = tid
        self.event = event
        self.coord = coord
        self.exp = exp
        self.part = part
        self.roots = roots


def apply_ops(vec: list[int], ops: tuple[PlainOp, ...]) -> None:
    """``M_e`` on one vector, in place in descending depth (each parent read before it changes)."""
    for j, p, u, r in ops:
        vec[j] = (0 if r else vec[j]) + (vec[p] if u else 0)


class StartPool:
    """The live STARTs of one partition, shared (see the module docstring)."""

    __slots__ = ("n", "fmarks", "fsuf", "fi", "cols", "sb", "log", "bmarks", "check_at")

    #: the log may hold this many entries per live START and node (plus LOG_SLACK) before it is
    #: folded into the front: memory stays O(live STARTs · nodes) however long the window
    LOG_PER_START = 4
    LOG_SLACK = 64

    def __init__(self, n: int) -> None:
        self.n = n
        self.fmarks: list[StartMark] = []
        self.fsuf: list[list[int]] = []
        self.fi = 0
        self.cols: list[list[int]] | None = None   # columns of P(flip, now) while the front is live
        self.sb = [0] * n
        self.log: list[tuple[tuple[PlainOp, ...], tuple[int, ...] | None]] = []
        self.bmarks: list[StartMark] = []
        self.check_at = self.LOG_SLACK   # the log length at which to look at its size again

    def __len__(self) -> int:
        return len(self.fmarks) - self.fi + len(self.bmarks)

    def update(self, ops: tuple[PlainOp, ...]) -> int:
        """Apply one event's map to every START's vector; returns the vectors updated."""
        cols = self.cols
        # apply_ops on ``sb`` and on every column, inlined (one loop, no call per vector);
        # parity: tests/engines/aseq/test_shared_starts.py::test_the_pool_keeps_every_starts_vector
        for vec in (self.sb, *cols) if cols is not None else (self.sb,):
            for j, p, u, r in ops:
                vec[j] = (0 if r else vec[j]) + (vec[p] if u else 0)
        if self.bmarks:
            self.log.append((ops, None))
            if len(self.log) >= self.check_at:
                self._bound_log()
        return 1 + (len(cols) if cols is not None else 0)

    def _bound_log(self) -> None:
        """Fold everything into a new front when the log outgrows the live STARTs (a long window
        with few STARTs): every START's vector now, as suffix sums; costs O(log + STARTs) per fold,
        so O(1) per logged event amortised."""
        limit = self.LOG_SLACK + self.LOG_PER_START * self.n * len(self)
        if len(self.log) > limit:
            self._front_from(self.vectors())
            limit = self.LOG_SLACK + self.LOG_PER_START * self.n * len(self)
        self.check_at = limit + 1

    def add_start(self, mark: StartMark, ops: tuple[PlainOp, ...]) -> None:
        """A new START (after its own event's update ``ops``, already applied)."""
        sb = self.sb
        for j in mark.roots:
            sb[j] += 1
        if self.bmarks and ops:
            self.log[-1] = (ops, mark.roots)   # the entry ``update`` just logged
        else:
            self.log.append(((), mark.roots))
        self.bmarks.append(mark)

    def value(self, j: int) -> int:
        """Node ``j``'s counter summed over the live STARTs."""
        v = self.sb[j]
        cols = self.cols
        if cols is not None:
            f = self.fsuf[self.fi]
            for c, k in enumerate(f):
                if k:
                    v += cols[c][j] * k
        return v

    def pop_oldest(self) -> StartMark:
        """The oldest START leaves (its matches leave the sums)."""
        if self.fi == len(self.fmarks):
            self._flip()
        mark = self.fmarks[self.fi]
        self.fi += 1
        if self.fi == len(self.fmarks):
            self.fmarks, self.fsuf, self.fi, self.cols = [], [], 0, None
        return mark

    def _back_vectors(self) -> list[list[int]]:
        """The back STARTs' own vectors now: the log walked backwards, ``Q = P(entry, now)``
        as columns, ``Q ← Q · M_e`` per entry (a column gets its children's columns,
        ascending depth, then zeroes if reset), a START's vector = Q's columns at its roots.
        The lists are read-only (a column of Q is replaced, never changed in place)."""
        n = self.n
        zero = [0] * n
        q = [[1 if r == c else 0 for r in range(n)] for c in range(n)]
        out: list[list[int]] = []
        for ops, roots in reversed(self.log):
            if roots is not None:
                if len(roots) == 1:
                    v = q[roots[0]]
                else:
                    v = zero
                    for c in roots:
                        v = [a + b for a, b in zip(v, q[c])]
                out.append(v)
            for j, p, u, r in reversed(ops):
                if u:
                    q[p] = [a + b for a, b in zip(q[p], q[j])]
                if r:
                    q[j] = zero
        out.reverse()
        return out

    def _flip(self) -> None:
        self._front_from(list(zip(self.bmarks, self._back_vectors())))

    def _front_from(self, live: list[tuple[StartMark, list[int]]]) -> None:
        """Every live START (oldest first, with its vector now) becomes the front; the back is empty."""
        n = self.n
        acc = [0] * n
        suf: list[list[int]] = [acc] * (len(live) + 1)
        for i in range(len(live) - 1, -1, -1):
            acc = suf[i] = [a + b for a, b in zip(live[i][1], acc)]
        self.fmarks, self.fsuf, self.fi = [m for m, _v in live], suf, 0
        self.cols = [[1 if r == c else 0 for r in range(n)] for c in range(n)] if live else None
        self.sb = [0] * n
        self.log, self.bmarks = [], []
        self.check_at = self.LOG_SLACK

    def vectors(self) -> list[tuple[StartMark, list[int]]]:
        """Every live START with its own counter vector now, oldest first."""
        out: list[tuple[StartMark, list[int]]] = []
        cols = self.cols
        if cols is not None:
            n = self.n
            for i in range(self.fi, len(self.fmarks)):
                d = [a - b for a, b in zip(self.fsuf[i], self.fsuf[i + 1])]
                v = [0] * n
                for c, k in enumerate(d):
                    if k:
                        v = [a + k * b for a, b in zip(v, cols[c])]
                out.append((self.fmarks[i], v))
        out.extend((m, list(v)) for m, v in zip(self.bmarks, self._back_vectors()))
        return out
