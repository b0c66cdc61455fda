"""Prefix counters: the state A-Seq keeps instead of matches (A-Seq §3, §4; docs/papers.md, "A-Seq").

One :class:`Counters` runs a *sharing group*: one or more queries whose positive
positions are paths in a prefix tree (PreTree, §4.1). A query alone is a tree with one
path, so the single-query engine (engine/engines/aseq/engine.py) is this module with one path.

State, per partition of the Hashed Prefix Counter (HPC, §3.4):

- with a window (or START-anchored predicates): one :class:`Tree` per live START event
  (Start Event Marking, SEM, §3.2): ``cnt[j]`` is the number of prefix matches of node j
  that begin with that START event and can still be extended; ``cnt`` of the START node is
  explicit (1, or 0 once a negation reset it: A8). The tree expires, whole, when
  ``now - start >= W`` (strict, A1/A4; Lemma 3: only START expirations matter);
- without a window: one global tree whose START counter counts the START events (Dynamic
  Prefix Counting, DPC, §3.1).

On an event (the consolidated algorithm of §3.5): expire, then, for every live tree of the
event's partition, apply the Recounting Rule (RR, Lemma 6) and Lemma 1 *simultaneously from
the pre-event state* (A6, A9): ``new[j] = (reset ? 0 : old[j]) + (fits(j) ? old[parent(j)] : 0)``,
done in place in descending depth; then create the new START tree; then output for every
query whose last node the event fits (TRIG). SUM/AVG/MIN/MAX carry per node the exact
values of §3.6 (A12) in *channels* (one per aggregated node and attribute).

Chop-Connect (§4.2): a query may be cut into pieces, each a path from a START node. When
an event starts a piece i >= 2 (a CNET event), a snapshot of the pieces before it is
attached to its tree before the event is processed (A15): one row per START event of the
whole query (the tag, its expiry, and the aggregate of its partial matches so far). At a
TRIG the result is ``⊕_d ⊕_{rows r of d, r.exp > now} r ⊗ value(d)`` (engine/engines/aseq/values.py).

This module holds ``Counters`` (building the PreTree, expiry, values, the event, START
trees, snapshots, the views); the state it keeps is in ``prefix_tree`` and the in-place
update of one event (RR and Lemma 1) in ``counter_updates``. Where every START's vector
changes by the same map (COUNT, a window, no START-anchored predicate, no Chop-Connect, no
tracer) the STARTs share their counters instead (``shared_starts``, ``shared_feed``: the same
outputs, O(nodes) per event instead of O(live STARTs)); a tracer or the views turn them back
into START trees.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable

from engine.events import Event
from engine.engines.aseq.counter_updates import CounterUpdates, UpdateOp
from engine.engines.aseq.plan import NegSpec, Position, QueryPlan
from engine.engines.aseq.prefix_tree import (ALL, VALUE, Channel, GroupTotals, Node, PartitionState, QuerySpec,
                                             Snapshot, Tree, jsonable_key, max_of, min_of, tree_id)
from engine.engines.aseq.shared_feed import EventPlan, SharedFeed
from engine.engines.aseq.values import Val, ZERO, exact_term, finish, shown_values, valid_value

__all__ = ["Counters", "Node", "Tree", "QuerySpec", "DEFAULT_MAX_LIVE", "ALL"]

DEFAULT_MAX_LIVE = 1_000_000   # live prefix-counter trees + snapshot rows (the state guard)
MAX_ROWS_LISTED = 500


Tracer = Any


class Counters(SharedFeed, CounterUpdates):
    """The prefix counters of a sharing group of queries (see the module docstring).

    ``feed(e, partition)`` returns ``(query index, group, Val)`` for every output (the group
    is the query's GROUP BY value, or ``ALL``); ``expire_to(x)`` removes expired trees and,
    asked to, returns the values that changed (``--emit changes``)."""

    def __init__(self, specs: list[tuple[str | None, QueryPlan, list[int] | None]], *,
                 tracer: Tracer = None, max_live: int = DEFAULT_MAX_LIVE,
                 on_explode: Callable[[str, str], None] | None = None, share_starts: bool = True) -> None:
        first = specs[0][1]
        self.window = first.window
        self.count_window = first.count_window
        self.key = first.key
        self.shared = False
        self.tracer = tracer
        self.max_live = max_live
        self.on_explode = on_explode
        self.nodes: list[Node] = []
        self._index: dict[tuple, int] = {}
        self.channels: list[Channel] = []
        self.queries: list[QuerySpec] = []
        for name, plan, cuts in specs:
            self._add_query(name, plan, cuts)
        self.sem = self.window is not None or any(q.plan.anchored for q in self.queries) or \
            any(q.chopped for q in self.queries)
        self.multi_root = len({n.root for n in self.nodes}) > 1
        self._finish_index()
        self.parts: dict[Any, PartitionState] = {}
        self.expiry: deque[Tree] = deque()
        self.members: list[dict[Any, set[Any]]] = [{} for _ in self.queries]  # query -> group -> partitions
        self.tot: list[dict[Any, GroupTotals]] = [{} for _ in self.queries]   # query -> group -> totals
        self.next_id = 0
        self.live = 0
        self.peak = 0
        self.updates = 0
        self.resets = 0
        self.now_coord: float | None = None
        # the STARTs' counters shared (engine/engines/aseq/shared_starts.py) where every START's
        # vector changes by the same map: COUNT, a window, no START-anchored predicate, no
        # Chop-Connect snapshot, no trace (a tracer or a view of the rows un-shares them)
        self.shared = (share_starts and tracer is None and self.window is not None and not self.channels
                       and not any(q.chopped for q in self.queries)
                       and not any(n.anchored or any(r.anchored for r in n.resets) for n in self.nodes))
        self._shared_cache: dict[str, EventPlan | None] = {}

    @property
    def tracer(self) -> Tracer:
        return self._tracer

    @tracer.setter
    def tracer(self, tracer: Tracer) -> None:
        """A tracer reports per START: shared counters are un-shared first."""
        self._tracer = tracer
        if tracer is not None and self.shared:
            self.unshare()

    # ------------------------------------------------------------------ building

    def _add_query(self, name: str | None, plan: QueryPlan, cuts: list[int] | None) -> None:
        pos = plan.positions
        bounds = [0, *(cuts or []), len(pos)]
        pieces: list[list[int]] = []
        for a, b in zip(bounds, bounds[1:]):
            pieces.append(self._add_path(pos[a:b], name))
        ch = carrier = None
        if plan.agg_pos is not None:
            k = plan.agg_pos
            carrier = next(i for i, (a, b) in enumerate(zip(bounds, bounds[1:])) if a <= k < b)
            origin = pieces[carrier][k - bounds[carrier]]
            ch = self._channel(origin, plan.agg_attr or "", plan.kind)
        self.queries.append(QuerySpec(name, plan, pieces, ch, carrier))

    def _add_path(self, positions: list[Position], user: str | None) -> list[int]:
        parent = -1
        out: list[int] = []
        types: list[str] = []
        for p in positions:
            types.append(p.type)
            key = (parent, p.type, p.sig, p.reset_sig)
            j = self._index.get(key)
            if j is None:
                j = len(self.nodes)
                depth = 0 if parent < 0 else self.nodes[parent].depth + 1
                root = j if parent < 0 else self.nodes[parent].root
                self.nodes.append(Node(j, parent, depth, p.type, p.local, p.anchored, p.resets, root,
                                       "(" + ",".join(types) + ")", blocked=p.blocked))
                self._index[key] = j
            if user is not None and user not in self.nodes[j].users:
                self.nodes[j].users.append(user)
            out.append(j)
            parent = j
        return out

    def _channel(self, origin: int, attr: str, kind: str) -> int:
        for c in self.channels:
            if (c.origin, c.attr, c.kind) == (origin, attr, kind):
                return c.id
        self.channels.append(Channel(len(self.channels), origin, attr, kind))
        return len(self.channels) - 1

    def _finish_index(self) -> None:
        n = len(self.nodes)
        # channel roles per node: (channel, is origin, attribute, kind); carried in the origin's subtree
        self.node_ch: list[list[tuple[int, bool, str, str]]] = [[] for _ in range(n)]
        for c in self.channels:
            for j in range(n):
                if j == c.origin:
                    self.node_ch[j].append((c.id, True, c.attr, c.kind))
                elif self._below(j, c.origin):
                    self.node_ch[j].append((c.id, False, c.attr, c.kind))
        self.order = sorted(range(n), key=lambda j: -self.nodes[j].depth)  # descending depth
        self.plain_term: dict[int, list[int]] = {}
        for qi, q in enumerate(self.queries):
            if not q.chopped:
                self.plain_term.setdefault(q.terminal, []).append(qi)
        self.cnet: dict[int, list[tuple[int, int]]] = {}   # START node of piece i >= 1 -> (query, piece)
        for qi, q in enumerate(self.queries):
            for i, piece in enumerate(q.pieces[1:], 1):
                self.cnet.setdefault(piece[0], []).append((qi, i))
        self.trig_nodes: dict[int, list[int]] = {}
        for qi, q in enumerate(self.queries):
            self.trig_nodes.setdefault(q.terminal, []).append(qi)
        self._type_cache: dict[str, tuple[list[int], list[tuple[int, NegSpec]]]] = {}

    def _below(self, j: int, anc: int) -> bool:
        p = self.nodes[j].parent
        while p >= 0:
            if p == anc:
                return True
            p = self.nodes[p].parent
        return False

    def _candidates(self, t: str) -> tuple[list[int], list[tuple[int, NegSpec]]]:
        hit = self._type_cache.get(t)
        if hit is None:
            fit = [j for j in self.order if self.nodes[j].fits(t)]
            negs = [(j, r) for j in self.order for r in self.nodes[j].resets if r.fits(t)]
            hit = (fit, negs)
            self._type_cache[t] = hit
        return hit

    def relevant(self, t: str) -> bool:
        fit, negs = self._candidates(t)
        return bool(fit or negs)

    def groups_of(self, e: Event) -> tuple:
        """The group of event ``e`` for each query (GROUP BY value, or ALL)."""
        return tuple(q.plan.group(e) if q.plan.group_by else ALL for q in self.queries)

    # ------------------------------------------------------------------ time

    def coord(self, e: Event) -> float:
        return e.seq if self.count_window else e.ts

    def expire_to(self, now: float, emit: bool = False) -> list[tuple[float, int, Any, Val, Val]]:
        """Remove the trees with ``exp <= now`` (SEM step 4). With ``emit``, return for every
        expiry time, query and group: (exp, query, group, Val before, Val after)."""
        if self.shared:
            return self._expire_shared(now, emit)
        out: list[tuple[float, int, Any, Val, Val]] = []
        ex = self.expiry
        while ex and ex[0].exp <= now:
            t_exp = ex[0].exp
            batch: list[Tree] = []
            while ex and ex[0].exp == t_exp:
                batch.append(ex.popleft())
            before: dict[tuple[int, Any], Val] = {}
            if emit:
                self.now_coord = t_exp
                for t in batch:
                    for qi, g in enumerate(t.groups):
                        if (qi, g) not in before:
                            before[(qi, g)] = self.value(qi, g, inclusive=True)
            for t in batch:
                self._drop(t)
            if emit:
                self.now_coord = t_exp
                for (qi, g), old in before.items():
                    out.append((t_exp, qi, g, old, self.value(qi, g)))
        return out

    def _totals(self, t: Tree, j: int, dc: Any, ds: dict[int, tuple[Any, Any]] | None, sign: int = 1) -> None:
        for qi in self.plain_term.get(j, ()):
            q = self.queries[qi]
            g = t.groups[qi]
            tot = self.tot[qi].get(g)
            if tot is None:
                tot = self.tot[qi][g] = GroupTotals()
            tot.count += sign * dc
            if q.channel is not None and ds is not None:
                d = ds.get(q.channel)
                if d is not None:
                    d_sum, d_n = d
                    tot.total += sign * d_sum
                    tot.n += sign * d_n

    def _drop(self, t: Tree) -> None:
        part = self.parts.get(t.part)
        if part is not None and part.trees and part.trees[0] is t:
            part.trees.popleft()
        elif part is not None:  # pragma: no cover - trees are created and expire in order
            part.trees.remove(t)
        self.live -= 1 + (sum(len(r) for r in t.snaps.values()) if t.snaps else 0)
        if t.snaps and part is not None:
            for key in t.snaps:
                dq = part.cnets.get(key)
                if dq and dq[0] is t:
                    dq.popleft()
                elif dq:  # pragma: no cover - created and expired in order
                    dq.remove(t)
        for j in self.plain_term:
            if t.cnt[j]:
                self._totals(t, j, t.cnt[j], {c: (S[j], N[j]) for c, (S, N, _MX, _MN) in enumerate(t.chv)}, sign=-1)
        if self.tracer is not None:
            self.tracer.act("expire", run=tree_id(t), event=t.start.id if t.start is not None else None,
                            reason=f"now - start >= W: {t.coord:g} + {self.window:g} = {t.exp:g} (SEM, Lemma 3)",
                            detail={"start": t.start.id if t.start is not None else None, "exp": t.exp,
                                    "counts": list(t.cnt)})
        if part is not None and not part.trees and part.glob is None:
            del self.parts[t.part]
            for qi, g in enumerate(part.groups):
                mem = self.members[qi].get(g)
                if mem is not None:
                    mem.discard(t.part)
                    if not mem:
                        del self.members[qi][g]
                        self.tot[qi].pop(g, None)  # exactly zero again (no float residue)

    # ------------------------------------------------------------------ values

    def value(self, qi: int, group: Any, inclusive: bool = False) -> Val:
        """The aggregate of query ``qi`` over the live trees of ``group``; ``inclusive``
        also counts snapshot rows that expire exactly now (the value just before)."""
        q = self.queries[qi]
        if not q.chopped:
            tot = self.tot[qi].get(group)
            c, s, n = (tot.count, tot.total, tot.n) if tot is not None else (0, 0, 0)
            mx = mn = None
            if q.plan.func in ("MAX", "MIN") and q.channel is not None:
                j = q.terminal
                for t in self._trees(qi, group):
                    if t.cnt[j]:
                        _, _, MX, MN = t.chv[q.channel]
                        mx = max_of(mx, MX[j])
                        mn = min_of(mn, MN[j])
            return Val(c, s, n, mx, mn)
        now = self.now_coord
        last = len(q.pieces) - 1
        term = q.terminal
        if q.channel is None:  # COUNT: plain integers
            c = 0
            for d in self._cnet_trees(qi, last, group):
                k = d.cnt[term]
                if k:
                    c += k * d.snaps[(qi, last)].live(now, inclusive)  # type: ignore[index]
            return Val(c)
        total = ZERO
        carrier = "right" if q.carrier == last else "left"
        for d in self._cnet_trees(qi, last, group):
            if not d.cnt[term]:
                continue
            tv = d.val(term, q.channel if q.carrier == last else None)
            acc = d.snaps[(qi, last)].live(now, inclusive)  # type: ignore[index]
            if acc.c:
                total = total.plus(acc.times(tv, carrier))
        return total

    def _cnet_trees(self, qi: int, piece: int, group: Any) -> Iterable[Tree]:
        for k in list(self.members[qi].get(group, ())):
            p = self.parts.get(k)
            if p is None:
                continue
            yield from p.cnets.get((qi, piece), ())

    def _trees(self, qi: int, group: Any) -> Iterable[Tree]:
        keys = list(self.members[qi].get(group, ()))
        for k in keys:
            p = self.parts.get(k)
            if p is None:
                continue
            if p.glob is not None:
                yield p.glob
            yield from p.trees

    # ------------------------------------------------------------------ the event

    def feed(self, e: Event, pkey: Any) -> list[tuple[int, Any, Val]]:
        """Process one event of partition ``pkey`` (expiry is the caller's: ``expire_to``
        first). Returns ``(query, group, Val)`` for every query the event is a TRIG of."""
        if self.shared:
            return self._feed_shared(e, pkey)
        fit, negs = self._candidates(e.type)
        if not fit and not negs:
            return []
        tr = self.tracer
        self.now_coord = self.coord(e)
        nodes = self.nodes
        # which nodes the event fits by its own (local) predicates (§1.6: a pre-filter)
        fits: dict[int, bool] = {}
        for j in fit:
            ok = all(f(e) for f in nodes[j].local)
            fits[j] = ok
            if not ok and tr is not None:
                tr.act("ignore", event=e.id, state=nodes[j].label,
                       reason=f"a predicate of the last position of {nodes[j].label} is false (a pre-filter, §1.6)")
        resets: dict[int, list[tuple]] = {}
        for j, r in negs:
            if all(f(e) for f in r.local):
                resets.setdefault(j, []).append((r.anchored, r))
        ops: list[UpdateOp] = []
        anchored = False  # some op has a START-anchored predicate (its own, or a negation's)
        for j in self.order:
            u = fits.get(j, False) and nodes[j].parent >= 0
            rs = resets.get(j)
            if u or rs:
                n = nodes[j]
                if n.anchored or (rs and any(anch for anch, _spec in rs)):
                    anchored = True
                ops.append((j, n.parent, u, n.anchored, rs or (), self.node_ch[j], n.root, j in self.plain_term))
        starts = [j for j in fit if fits[j] and nodes[j].parent < 0 and not nodes[j].blocked]
        part = self.parts.get(pkey)
        # Chop-Connect: a CNET event's snapshots, from the pre-event state (A15)
        snaps: dict[tuple[int, int], Snapshot] = {}
        if part is not None:
            for j in starts:
                for qi, i in self.cnet.get(j, ()):
                    snaps[(qi, i)] = Snapshot(self._snapshot(qi, i, part), self.queries[qi].channel is None)
        if part is not None and ops:
            vals: dict[int, Any] = {}
            for c in self.channels:
                v = e.get(c.attr)
                if not valid_value(v, c.kind):
                    v = None
                elif type(v) is float and c.kind == "number":
                    v = exact_term(v, lambda c=c: f"{e.type}.{c.attr} of event {e.id!r}")
                vals[c.id] = v
            trees: Iterable[Tree] = [part.glob, *part.trees] if part.glob is not None else part.trees
            if tr is None and not self.channels and not anchored:
                self._apply_plain(trees, ops)
            else:
                for t in trees:
                    self._apply(t, ops, e, vals)
        if starts:
            if part is None:
                groups = self.groups_of(e)
                part = self.parts[pkey] = PartitionState(groups)
                for qi, g in enumerate(groups):
                    self.members[qi].setdefault(g, set()).add(pkey)
            self._start(part, e, starts, pkey, snaps)
        # TRIG: every query whose last node the event fits
        out: list[tuple[int, Any, Val]] = []
        groups = None
        for j in fit:
            if not fits[j]:
                continue
            for qi in self.trig_nodes.get(j, ()):
                if groups is None:
                    groups = part.groups if part is not None else self.groups_of(e)
                g = groups[qi]
                v = self.value(qi, g)
                out.append((qi, g, v))
                if tr is not None:
                    q = self.queries[qi]
                    tr.act("match", event=e.id, state=nodes[j].label,
                           detail={"query": q.name, "group": None if g is ALL else jsonable_key(g),
                                   "value": finish(q.plan.func, q.plan.kind, v),
                                   "formula": self._sum_formula(qi, g)})
        return out


    def _start(self, part: PartitionState, e: Event, starts: list[int], pkey: Any,
               snaps: dict[tuple[int, int], Snapshot]) -> None:
        """A START event: a new tree (SEM) or +1 on the partition's global tree (DPC); after
        the updates, so a START is never updated by its own arrival (§3.5)."""
        n, nch = len(self.nodes), len(self.channels)
        coord = self.coord(e)
        if self.sem:
            exp = coord + self.window if self.window is not None else float("inf")
            t = Tree(self.next_id, e, coord, exp, pkey, part.groups, n, nch)
            self.next_id += 1
            part.trees.append(t)
            self.expiry.append(t)
            self.live += 1
            if snaps:
                t.snaps = snaps
                self.live += sum(len(r) for r in snaps.values())
                for key in snaps:
                    part.cnets.setdefault(key, deque()).append(t)
        else:
            if part.glob is None:
                part.glob = Tree(self.next_id, None, coord, float("inf"), pkey, part.groups, n, nch)
                self.next_id += 1
                self.live += 1
            t = part.glob
        for j in starts:
            t.roots.add(j)
            t.cnt[j] += 1
            self.updates += 1
            ds: dict[int, tuple[Any, Any]] = {}
            for ch, origin, attr, kind in self.node_ch[j]:
                if not origin:
                    continue
                S, N, MX, MN = t.chv[ch]
                v = e.get(attr)
                if valid_value(v, kind):
                    N[j] += 1
                    if kind == "number":
                        if type(v) is float:  # exact: a float enters as an ExactFloat
                            v = exact_term(v, lambda attr=attr: f"{e.type}.{attr} of event {e.id!r}")
                        S[j] += v
                        MX[j] = max_of(MX[j], v)
                        MN[j] = min_of(MN[j], v)
                        ds[ch] = (v, 1)
                    else:
                        ds[ch] = (0, 1)
            self._totals(t, j, 1, ds)
        self.peak = max(self.peak, self.live)
        if self.live > self.max_live and self.on_explode is not None:
            self.on_explode(f"{self.live:,} live prefix counters and snapshot rows", f"{self.max_live:,}")
        if self.tracer is not None:
            detail: dict[str, Any] = {"start": e.id, "exp": t.exp if self.sem else None, "counts": list(t.cnt)}
            if snaps:
                detail["snapshots"] = {f"{self.queries[qi].name or 'q'}:{i}": sn.as_json()
                                       for (qi, i), sn in snaps.items()}
            self.tracer.act("begin", run=tree_id(t), event=e.id, state=self.nodes[starts[0]].label, detail=detail)

    def _snapshot(self, qi: int, i: int, part: PartitionState) -> dict[int, list[Any]]:
        """The rows a CNET event of piece ``i`` of query ``qi`` attaches (§4.2): per START
        tag of the whole query, its expiry and the aggregate of the pieces before ``i``
        (multi-connect: piece i-1's trees times their own rows)."""
        q = self.queries[qi]
        now = self.now_coord
        end = q.pieces[i - 1][-1]
        counts = q.channel is None
        rows: dict[int, list[Any]] = {}
        if i == 1:
            ch = q.channel if q.carrier == 0 else None
            for t in part.trees:
                if not t.cnt[end] or (now is not None and t.exp <= now):
                    continue
                rows[t.id] = [t.exp, t.cnt[end] if counts else t.val(end, ch)]
            return rows
        carrier = "none" if q.carrier is None else ("left" if q.carrier < i - 1 else
                                                     "right" if q.carrier == i - 1 else "none")
        for d in part.cnets.get((qi, i - 1), ()):
            src = d.snaps.get((qi, i - 1)) if d.snaps else None
            k = d.cnt[end]
            if not src or not k:
                continue
            dv = None if counts else d.val(end, q.channel if q.carrier == i - 1 else None)
            for tag, exp, rv in src.live_rows(now):
                prod = rv * k if counts else rv.times(dv, carrier)
                row = rows.get(tag)
                if row is not None:
                    row[VALUE] = row[VALUE] + prod if counts else row[VALUE].plus(prod)
                else:
                    rows[tag] = [exp, prod]
        return rows

    # ------------------------------------------------------------------ views

    def _sum_formula(self, qi: int, group: Any) -> str:
        q = self.queries[qi]
        if q.chopped:
            return "Σ_d value(d) × Σ live snapshot rows of d (Chop-Connect, Lemma 7)"
        j = q.terminal
        parts = [str(t.cnt[j]) for t in self._trees(qi, group) if t.cnt[j]]
        if len(parts) > 12:
            parts = parts[:12] + ["…"]
        return f"Σ {self.nodes[j].label} over live counters = " + (" + ".join(parts) if parts else "0")

    def rows(self, limit: int = MAX_ROWS_LISTED) -> list[dict[str, Any]]:
        """The live trees as rows of the prefix-counter table (for trace_state), oldest first."""
        self.unshare()
        out = []
        for pk, part in self.parts.items():
            ts = ([part.glob] if part.glob is not None else []) + list(part.trees)
            for t in ts:
                row: dict[str, Any] = {"id": tree_id(t), "start": t.start.id if t.start is not None else None,
                                       "ts": t.start.ts if t.start is not None else None,
                                       "exp": t.exp if t.exp != float("inf") else None,
                                       "partition": jsonable_key(pk),
                                       "groups": [None if g is ALL else jsonable_key(g) for g in t.groups],
                                       "counts": list(t.cnt)}
                if self.channels:
                    row["channels"] = [{"sum": shown_values(S), "n": N[:], "max": shown_values(MX),
                                        "min": shown_values(MN)}
                                       for S, N, MX, MN in t.chv]
                if t.snaps:
                    row["snapshots"] = {f"{qi}:{i}": sn.as_json() for (qi, i), sn in t.snaps.items()}
                out.append(row)
        out.sort(key=lambda r: (r["ts"] is None, r["ts"] if r["ts"] is not None else 0, str(r["id"])))
        return out[:limit]
