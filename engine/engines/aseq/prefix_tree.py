"""The prefix-counter state of A-Seq (§3, §4): PreTree nodes, aggregate channels, the
queries of a sharing group, START trees, Chop-Connect snapshots and the per-partition state
that ``engine.engines.aseq.core.Counters`` keeps (docs/papers.md, "A-Seq").

- ``Node``: a PreTree node (a positive position shared by the queries whose path holds it);
- ``Channel``: the exact SUM/COUNT/MAX/MIN of one attribute at one node;
- ``QuerySpec``: a query as the counters run it (its pieces, channel and carrier piece);
- ``Snapshot``: a CNET event's rows ``(tag, exp, value)`` with suffix aggregates;
- ``Tree``: the prefix counters of one START event (SEM) or of a partition (DPC);
- ``PartitionState``: an HPC partition's trees, global tree, groups and CNET trees;
- ``GroupTotals``: the running count / sum / n of a query's group over its live trees;
- ``ALL`` (the group of a query without GROUP BY), ``max_of`` / ``min_of`` (None-aware, from ``values``),
  ``tree_id`` and ``jsonable_key`` (how the trace and the views name trees and keys).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from engine.events import Event
from engine.model import ANY_TYPE
from engine.engines.aseq.plan import NegSpec, QueryPlan
from engine.engines.aseq.values import ZERO, Val, max_of, min_of  # noqa: F401  (max_of, min_of: re-exported)

__all__ = ["Node", "Channel", "QuerySpec", "Snapshot", "Tree", "PartitionState", "GroupTotals", "ALL",
           "max_of", "min_of", "tree_id", "jsonable_key", "EXPIRY", "VALUE"]

# a snapshot row under construction is a list [exp, value]: its two slots
EXPIRY, VALUE = 0, 1


@dataclass
class Node:
    """A PreTree node: a positive position shared by every query whose path holds it."""

    id: int
    parent: int                   # -1 for a START node
    depth: int
    type: str
    local: tuple
    anchored: tuple
    resets: tuple[NegSpec, ...]   # negated components of the gap after this node (RR)
    root: int
    label: str
    users: list[str] = field(default_factory=list)
    blocked: bool = False  # a START node that never starts (a false constant predicate)

    def fits(self, t: str) -> bool:
        return self.type == ANY_TYPE or self.type == t


@dataclass
class Channel:
    """The exact SUM/COUNT/MAX/MIN of one attribute at one node, carried down its subtree."""

    id: int
    origin: int
    attr: str
    kind: str


@dataclass
class QuerySpec:
    """A query as the counters run it: its plan, its pieces (node paths; one unless
    chopped), its channel and which piece holds the aggregated position."""

    name: str | None
    plan: QueryPlan
    pieces: list[list[int]]
    channel: int | None
    carrier: int | None           # index of the piece holding the aggregated position

    @property
    def terminal(self) -> int:
        return self.pieces[-1][-1]

    @property
    def chopped(self) -> bool:
        return len(self.pieces) > 1


def _by_expiry(item: tuple[int, list[Any]]) -> tuple[Any, int]:
    tag, (exp, _value) = item
    return exp, tag


class Snapshot:
    """A CNET event's snapshot (§4.2): rows (tag, exp, value) in expiry order, immutable,
    with suffix aggregates so that the live rows' total at ``now`` is one binary search.
    Values are counts (ints) for COUNT, :class:`Val` otherwise. ``rows``: tag -> [exp, value]."""

    __slots__ = ("tags", "exps", "vals", "suf")

    def __init__(self, rows: dict[int, list[Any]], counts: bool) -> None:
        items = sorted(rows.items(), key=_by_expiry)
        self.tags = [tag for tag, _row in items]
        self.exps = [exp for _tag, (exp, _value) in items]
        self.vals: list[Any] = [value for _tag, (_exp, value) in items]
        suf: list[Any] = [0 if counts else ZERO] * (len(items) + 1)
        for i in range(len(items) - 1, -1, -1):
            suf[i] = self.vals[i] + suf[i + 1] if counts else self.vals[i].plus(suf[i + 1])
        self.suf = suf

    def __len__(self) -> int:
        return len(self.tags)

    def live(self, now: float | None, inclusive: bool = False) -> Any:
        """⊕ of the rows whose START is still in the window (``exp > now``)."""
        if now is None:
            return self.suf[0]
        i = bisect_left(self.exps, now) if inclusive else bisect_right(self.exps, now)
        return self.suf[i]

    def live_rows(self, now: float | None) -> Iterable[tuple[int, float, Any]]:
        i = 0 if now is None else bisect_right(self.exps, now)
        return zip(self.tags[i:], self.exps[i:], self.vals[i:])

    def as_json(self) -> dict[str, list[Any]]:
        return {str(t): [x, v if isinstance(v, int) else v.c] for t, x, v in zip(self.tags, self.exps, self.vals)}


class Tree:
    """The prefix counters of one START event (or, DPC, of a whole partition). ``groups[q]``
    is the group this tree counts in for query q (its GROUP BY value, or ALL)."""

    __slots__ = ("id", "start", "coord", "exp", "part", "groups", "cnt", "chv", "snaps", "roots")

    def __init__(self, tid: int, start: Event | None, coord: float, exp: float, part: Any, groups: tuple,
                 n_nodes: int, n_ch: int) -> None:
        self.id = tid
        self.start = start
        self.coord = coord
        self.exp = exp
        self.part = part
        self.groups = groups
        self.cnt = [0] * n_nodes
        self.chv: list[list[list[Any]]] = [[[0] * n_nodes, [0] * n_nodes, [None] * n_nodes, [None] * n_nodes]
                                           for _ in range(n_ch)]
        self.snaps: dict[tuple[int, int], Snapshot] | None = None
        self.roots: set[int] = set()

    def val(self, node: int, ch: int | None) -> Val:
        c = self.cnt[node]
        if ch is None:
            return Val(c)
        S, N, MX, MN = self.chv[ch]
        return Val(c, S[node], N[node], MX[node], MN[node])


class PartitionState:
    """One partition of the Hashed Prefix Counter (§3.4): its START trees in creation (and
    expiry) order, its global tree (DPC), its groups per query, and per (query, piece) the
    trees that carry a snapshot of that piece (Chop-Connect)."""

    __slots__ = ("trees", "glob", "groups", "cnets", "pool")

    def __init__(self, groups: tuple) -> None:
        self.trees: deque[Tree] = deque()
        self.pool: Any = None   # the shared STARTs (engine/engines/aseq/shared_starts.py) instead of trees
        self.glob: Tree | None = None
        self.groups = groups
        self.cnets: dict[tuple[int, int], deque[Tree]] = {}  # (query, piece) -> trees with that snapshot


class GroupTotals:
    """The running totals of one query and group over the live trees of its partitions:
    the count of matches and the exact sum and number of the aggregated values."""

    __slots__ = ("count", "total", "n")

    def __init__(self) -> None:
        self.count: Any = 0
        self.total: Any = 0
        self.n: Any = 0


class _AllGroups:
    """The group of a query without GROUP BY: every partition."""

    _inst = None

    def __new__(cls) -> "_AllGroups":
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "ALL"


ALL = _AllGroups()


def tree_id(t: Tree) -> str:
    """A tree's name in the trace: ``s<START id>``, or ``global:<partition>`` (DPC)."""
    return f"s{t.start.id}" if t.start is not None else f"global:{jsonable_key(t.part)}"


def jsonable_key(k: Any) -> Any:
    """A partition or group key as JSON (a one-value tuple as its value; ALL as null)."""
    if k is None or k is ALL:
        return None
    if isinstance(k, tuple):
        return [jsonable_key(x) for x in k] if len(k) != 1 else jsonable_key(k[0])
    if isinstance(k, (str, int, float, bool)):
        return k
    return str(k)
