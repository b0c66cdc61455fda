"""The per-event update of A-Seq's prefix counters (§3.5): the Recounting Rule (RR, Lemma 6)
and Lemma 1 applied simultaneously from the pre-event state, in place in descending depth,
with the exact channel values of §3.6 (docs/papers.md, "A-Seq").

``CounterUpdates`` is the part of ``engine.engines.aseq.core.Counters`` that applies one
event's update operations to a partition's trees: ``_apply_plain`` (the fast path: COUNT,
no START-anchored predicate, no tracer) and ``_apply`` (channels, anchored predicates, the
trace). ``Counters.feed`` builds the operations (``UpdateOp``).
"""
from __future__ import annotations

from typing import Any, Iterable

from engine.events import Event
from engine.engines.aseq.prefix_tree import Node, Tree, max_of, min_of, tree_id

__all__ = ["CounterUpdates", "UpdateOp"]

#: One node's update for one event, unpacked in the loops (never read by index):
#: ``(node, parent, fits, anchored, resets, channels, root, terminal)`` --
#: ``fits``: the event extends the parent's prefixes here (Lemma 1; its local predicates
#: hold and the node is not a START); ``anchored``: the node's START-anchored predicates;
#: ``resets``: ``(anchored predicates, NegSpec)`` of the negations the event may fire (RR);
#: ``channels``: the node's channel roles ``(channel, is origin, attribute, kind)``;
#: ``root``: the node's START node; ``terminal``: a plain (unchopped) query ends here.
UpdateOp = tuple[int, int, bool, tuple, tuple, list, int, bool]


class CounterUpdates:
    """The update half of ``Counters`` (see the module docstring); the attributes below
    are ``Counters``' own."""

    nodes: list[Node]
    multi_root: bool
    tracer: Any
    updates: int
    resets: int

    def _totals(self, t: Tree, j: int, dc: Any, ds: dict[int, tuple[Any, Any]] | None,
                sign: int = 1) -> None:  # pragma: no cover - Counters defines it
        raise NotImplementedError

    def _apply_plain(self, trees: Iterable[Tree], ops: list[UpdateOp]) -> None:
        """``_apply`` for the common case (COUNT, no START-anchored predicates, no tracer):
        the same in-place update in descending depth, without the general bookkeeping.

        Fast path: inlines ``_apply``'s loop over the trees with no anchored test (every
        reset fires), no channel values and no trace; parity test:
        tests/engines/aseq/test_prefix_counters.py::test_the_plain_update_equals_the_general_one."""
        plain = [(j, p, u, bool(rsts), term, root) for j, p, u, _ua, rsts, _chs, root, term in ops]
        multi = self.multi_root
        n_ops = n_resets = 0
        for t in trees:
            cnt = t.cnt
            roots = t.roots
            for j, p, u, r, term, root in plain:
                if multi and root not in roots:
                    continue
                n_ops += 1
                n_resets += r
                old = cnt[j]
                new = (0 if r else old) + (cnt[p] if u else 0)
                cnt[j] = new
                if term and new != old:
                    self._totals(t, j, new - old, None)
        self.updates += n_ops
        self.resets += n_resets

    def _apply(self, t: Tree, ops: list[UpdateOp], e: Event, vals: dict[int, Any]) -> None:
        cnt = t.cnt
        pair = (t.start, e)
        tr = self.tracer
        changes: list[dict[str, Any]] | None = [] if tr is not None else None
        multi = self.multi_root
        for j, p, u, uanch, rsts, chs, root, term in ops:
            if multi and root not in t.roots:
                continue
            r = False
            for anch, _spec in rsts:
                if not anch or all(f(pair) for f in anch):
                    r = True
                    break
            if u and uanch:
                u = all(f(pair) for f in uanch)
            if not (u or r):
                continue
            old = cnt[j]
            add = cnt[p] if u else 0
            new = (0 if r else old) + add
            cnt[j] = new
            self.updates += 1
            if r:
                self.resets += 1
            ds: dict[int, tuple[Any, Any]] | None = {} if term and chs else None
            for ch, origin, _attr, kind in chs:
                S, N, MX, MN = t.chv[ch]
                s0, n0, mx0, mn0 = (0, 0, None, None) if r else (S[j], N[j], MX[j], MN[j])
                if origin:
                    v = vals[ch]
                    if add and v is not None:
                        if kind == "number":
                            S[j] = s0 + add * v
                            MX[j] = v if mx0 is None or v > mx0 else mx0
                            MN[j] = v if mn0 is None or v < mn0 else mn0
                        else:
                            S[j], MX[j], MN[j] = s0, mx0, mn0
                        N[j] = n0 + add
                    else:
                        S[j], N[j], MX[j], MN[j] = s0, n0, mx0, mn0
                elif add:
                    S[j] = s0 + S[p]
                    N[j] = n0 + N[p]
                    MX[j] = max_of(mx0, MX[p])
                    MN[j] = min_of(mn0, MN[p])
                else:
                    S[j], N[j], MX[j], MN[j] = s0, n0, mx0, mn0
                if ds is not None:
                    ds[ch] = (S[j] - s0, N[j] - n0)  # a terminal node is never reset: a pure add
            if term and new != old:
                self._totals(t, j, new - old, ds)
            if changes is not None:
                changes.append(self._change(j, p, old, add, new, r, rsts, u))
        if changes:
            for c in changes:
                if c["reset"]:
                    tr.act("discard", run=tree_id(t), event=e.id, state=c["counter"],
                           reason=f"negated `{c['negated']}` lies between: the Recounting Rule resets "
                                  f"{c['counter']} (Lemma 6)", detail={"counter": c["counter"], "old": c["old"],
                                                                      "new": 0, "rule": "RR"})
            took = [c for c in changes if c["add_applied"]]
            if took:
                tr.act("take", run=tree_id(t), event=e.id,
                       detail={"changes": [{k: c[k] for k in ("counter", "old", "add", "new", "formula", "reset")}
                                           for c in took]})

    def _change(self, j: int, p: int, old: Any, add: Any, new: Any, r: bool, rsts: Any, u: bool
                ) -> dict[str, Any]:
        lab = self.nodes[j].label
        plab = self.nodes[p].label if p >= 0 else "START"
        if u:
            base = "0 (reset)" if r else f"{old}"
            formula = f"{lab}: {base} + {plab} {add} = {new} (Lemma 1)"
        else:
            formula = f"{lab}: {old} → 0 (RR, Lemma 6)"
        neg = next((spec.var for _anch, spec in rsts), None) if r else None
        return {"counter": lab, "old": old, "add": add if u else 0, "new": new, "formula": formula,
                "reset": r, "negated": neg, "add_applied": u}
