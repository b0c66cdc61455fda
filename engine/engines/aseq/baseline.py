"""The construct-then-aggregate baseline (A-Seq §2): build every match,
store it, and aggregate the stored matches at every TRIG event.

Two ways to build the matches:

- :class:`StackBaseline`, the SASE stack-based evaluation of §2.1/§2.2 for a flat SEQ of
  single events under skip_till_any_match: one stack per positive position, each entry
  points to the top of the previous stack at its insertion; a TRIG event runs a depth-first
  search back along the pointers and every path is a match. Predicates between events are
  checked during the search as soon as their variables are bound, negation is a post-filter
  (§2.1), and the stacks are partitioned by the partition key (as HPC, so that both engines
  see the same partitions). It supports every predicate, which is why A-Seq falls back to
  it for cross-event predicates it cannot evaluate without events (A10).
- :class:`MatchAggregator`: the matches of another engine (NFA^b by default: Kleene, AND/OR,
  optional components, the other strategies, OUTPUT NON_OVERLAP), aggregated the same way.

Both keep their matches in a :class:`MatchStore` and report the same rows as A-Seq
(engine/engines/aseq/engine.py): at every TRIG event, the aggregate over every stored match that
is still in the window (``now - first < W``), of the TRIG's group. Counters:
``matches_built``, ``dfs_nodes``, ``live_objects`` (stack entries + pointers + negated events
+ stored matches, the paper's memory measure, §6) and their peak.
"""
from __future__ import annotations

import bisect
import heapq
from collections import deque
from typing import Any, Callable

from engine.bindings import Conjunct, conjunct
from engine.events import Event
from engine.expr import variables
from engine.match import EngineUnsupported, MatcherBase, Tracer
from engine.memory import current_guard
from engine.model import Component, Pattern, Strategy, conjuncts_of
from engine.partition import partition_key
from engine.engines.aseq.plan import keyed_pattern, local_conjuncts, refusal, trig_components
from engine.engines.aseq.values import AggRow, Val, ZERO, exact_term, finish, group_json, valid_value, value_kind
from engine.sentinel import Sentinel

__all__ = ["BaselineMatcher", "StackBaseline", "MatchAggregator", "MatchStore", "stack_unsupported",
           "DEFAULT_MAX_OBJECTS", "DEFAULT_MAX_WORK"]

DEFAULT_MAX_OBJECTS = 5_000_000   # live stack entries + pointers + stored matches (the guard)
DEFAULT_MAX_WORK = 5_000_000      # depth-first search steps for one TRIG event


ALL = Sentinel("ALL")  # the one group of a pattern without GROUP BY


def _named(e: Event, attr: str) -> Any:
    """``e.attr`` as it enters a sum: a float as its exact value, inf refused naming the event."""
    v = e.get(attr)
    if type(v) is float and v == v:
        return exact_term(v, lambda: f"{e.type}.{attr} of event {e.id!r}")
    return v


class MatchStore:
    """The stored matches of §2.2, by group, with what each contributes to the aggregate.
    ``expire(now)`` drops the matches whose first event left the window."""

    def __init__(self, func: str, kind: str, window: float | None) -> None:
        self.func, self.kind, self.window = func, kind, window
        self.by_group: dict[Any, list[tuple[float, int, Val]]] = {}   # heap by expiry
        self.size = 0
        self._n = 0

    def add(self, group: Any, start: float, values: list[Any]) -> None:
        s, n, mx, mn = 0, 0, None, None
        for x in values:
            if valid_value(x, self.kind):
                n += 1
                if self.kind == "number":
                    x = exact_term(x)  # exact sums (engine/engines/aseq/values.py)
                    s += x
                    mx = x if mx is None or x > mx else mx
                    mn = x if mn is None or x < mn else mn
        exp = start + self.window if self.window is not None else float("inf")
        self._n += 1
        heapq.heappush(self.by_group.setdefault(group, []), (exp, self._n, Val(1, s, n, mx, mn)))
        self.size += 1

    def value(self, group: Any) -> Val:
        """The aggregate over the stored matches of ``group`` (recomputed: the baseline
        aggregates its matches, §2.2; COUNT is the number of matches)."""
        h = self.by_group.get(group, ())
        if self.func == "COUNT" and self.kind == "count":
            return Val(len(h))
        v = ZERO
        for _exp, _n, mv in h:
            v = v.plus(mv)
        return v

    def expire(self, now: float, emit: bool = False) -> list[tuple[float, Any, Val, Val]]:
        """Drop matches with ``exp <= now``; with ``emit``, (exp, group, before, after) per
        expiry time and group."""
        out: list[tuple[float, Any, Val, Val]] = []
        while True:
            nxt = min(((h[0][0], g) for g, h in self.by_group.items() if h), default=None,
                      key=lambda x: x[0])
            if nxt is None or nxt[0] > now:
                break
            t_exp = nxt[0]
            for g in [g for g, h in self.by_group.items() if h and h[0][0] == t_exp]:
                h = self.by_group[g]
                before = self.value(g) if emit else None
                while h and h[0][0] == t_exp:
                    heapq.heappop(h)
                    self.size -= 1
                if emit:
                    out.append((t_exp, g, before, self.value(g)))
                if not h:
                    del self.by_group[g]
        return out


class _AggBase(MatcherBase):
    """What both baselines share: the store, TRIG detection, rows, emit mode, counters."""

    unit = "matches"

    def __init__(self, pattern: Pattern, tracer: Tracer = None, *, emit: str = "trig",
                 max_runs: int | None = None, max_work: int = DEFAULT_MAX_WORK) -> None:
        super().__init__(pattern, tracer)
        why = refusal(pattern)
        if why:
            raise EngineUnsupported(why)
        agg = pattern.aggregate
        assert agg is not None
        self.func, self.attr, self.agg_var = agg.func, agg.attr, agg.var
        self.kind = value_kind(agg.func, agg.attr is not None)
        self.group_by = list(agg.group_by)
        self.emit = emit
        w = pattern.window
        self.window = float(w.size) if w is not None else None
        self.count_window = bool(w and w.is_count)
        self.store = MatchStore(self.func, self.kind, self.window)
        self.max_objects = max_runs if max_runs is not None else DEFAULT_MAX_OBJECTS
        self.max_work = max_work
        self.built = 0
        self.objects_peak = 0
        trig = trig_components(pattern)
        self._trig = [(c, [conjunct(x, set()) for x in local_conjuncts(pattern, c.var)]) for c in trig]
        self.last_seq = -1

    def coord(self, e: Event) -> float:
        return e.seq if self.count_window else e.ts

    def group(self, e: Event) -> Any:
        return tuple(e.get(a) for a in self.group_by) if self.group_by else ALL

    def is_trig(self, e: Event) -> bool:
        for c, conjs in self._trig:
            if c.matches_type(e.type) and all(cj.holds({c.var: [e]}) for cj in conjs):
                return True
        return False

    def _row(self, ts: Any, event: Any, group: Any, v: Val, seq: int) -> AggRow:
        return AggRow(ts, event, group_json(None if group is ALL else group), finish(self.func, self.kind, v),
                      seq=seq)

    def _expire_rows(self, now: float, ts_of: Callable[[float], Any], seq: int) -> list[AggRow]:
        emit = self.emit == "changes"
        rows = []
        for t_exp, g, before, after in self.store.expire(now, emit):
            if emit and finish(self.func, self.kind, before) != finish(self.func, self.kind, after):
                rows.append(self._row(ts_of(t_exp), None, g, after, seq))
            if self.tracer is not None:
                self.tracer.act("expire", reason=f"stored matches whose first event is at {t_exp - self.window:g} "
                                                 f"left the window (now - first >= W)", detail={"exp": t_exp})
        return rows

    def objects(self) -> int:
        return self.store.size

    def _note_objects(self) -> None:
        n = self.objects()
        if n > self.objects_peak:
            self.objects_peak = n
        if n > self.max_objects:
            self.explode(f"{n:,} live events, pointers and stored matches", f"{self.max_objects:,}")

    def _sync_stats(self) -> None:
        st = self.stats
        st.runs_alive = self.objects()
        st.runs_peak = self.objects_peak
        st.extra.update(matches_built=self.built, live_objects=self.objects(), live_objects_peak=self.objects_peak,
                        stored_matches=self.store.size)

    def close(self) -> list[AggRow]:
        rows: list[AggRow] = []
        if self.emit == "changes" and self.window is not None and not self.count_window:
            rows = self._expire_rows(float("inf"), lambda x: x, self.last_seq + 1)
        self.stats.extra["rows"] = self.stats.extra.get("rows", 0) + len(rows)
        self._sync_stats()
        return rows


# --------------------------------------------------------------------------- SASE stacks

def stack_unsupported(pattern: Pattern) -> str | None:
    """None when the SASE stacks (§2.2) build this pattern's matches."""
    if pattern.strategy != Strategy.ANY:
        return f"the stacks enumerate every combination (skip_till_any_match), not {pattern.strategy.value}"
    if pattern.output != "ALL":
        return "OUTPUT NON_OVERLAP"
    root = pattern.root
    if root.op != "SEQ" or not all(isinstance(i, Component) for i in root.items):
        return "not a flat SEQ(...)"
    if any(c.quant != "one" for c in root.items):  # type: ignore[union-attr]
        return "Kleene or optional components"
    return None


class _Entry:
    __slots__ = ("e", "ptr", "matches")

    def __init__(self, e: Event, ptr: int) -> None:
        self.e = e
        self.ptr = ptr


class _Stacks:
    __slots__ = ("stacks", "off", "negs")

    def __init__(self, n: int, n_neg: int) -> None:
        self.stacks: list[list[_Entry]] = [[] for _ in range(n)]
        self.off = [0] * n
        self.negs: list[list[Event]] = [[] for _ in range(n_neg)]


class StackBaseline(_AggBase):
    """SASE stack-based construct-then-aggregate (§2.1, §2.2); see the module docstring."""

    name = "aseq-baseline"

    def __init__(self, pattern: Pattern, tracer: Tracer = None, **kw: Any) -> None:
        why = stack_unsupported(pattern)
        if why:
            raise EngineUnsupported(f"the SASE stacks cannot build this pattern's matches: {why}")
        super().__init__(pattern, tracer, **kw)
        kp = keyed_pattern(pattern)
        self.key = partition_key(kp)
        comps: list[Component] = list(pattern.root.items)  # type: ignore[arg-type]
        self.pos = [c for c in comps if not c.negated]
        self.vars = [c.var for c in self.pos]
        self.negc = [c for c in comps if c.negated]
        # the gap of each negated component: between positive positions g-1 and g
        self.neg_gap: list[int] = []
        seen = 0
        for c in comps:
            if c.negated:
                self.neg_gap.append(seen)
            else:
                seen += 1
        conjs = [x for w in kp.where for x in conjuncts_of(w)]
        negvars = {c.var for c in self.negc}
        self.local = {c.var: [conjunct(x, set()) for x in conjs if variables(x) == {c.var}] for c in comps}
        # cross predicates between positive events: checked when the earliest variable is bound
        order = {v: i for i, v in enumerate(self.vars)}
        self.at: list[list[Conjunct]] = [[] for _ in self.pos]
        for x in conjs:
            vs = variables(x)
            if len(vs) > 1 and not (vs & negvars):
                self.at[min(order[v] for v in vs)].append(conjunct(x, set()))
            elif len(vs) == 0:
                self.at[0].append(conjunct(x, set()))
        self.neg_conjs = {c.var: [conjunct(x, set()) for x in conjs if c.var in variables(x)
                                  and variables(x) != {c.var}] for c in self.negc}
        self.parts: dict[Any, _Stacks] = {}
        self.starts: deque[tuple[float, Any]] = deque()   # (expiry, partition) of every START entry
        self.entries = 0
        self.pointers = 0
        self.neg_events = 0
        self.dfs_nodes = 0
        self.discarded = 0
        self.stats.extra["construction"] = "sase-stacks"

    def objects(self) -> int:
        return self.entries + self.pointers + self.neg_events + self.store.size

    def _purge(self, st: _Stacks, now: float) -> None:
        """Drop stack entries (and negated events) that left the window (§2.2)."""
        if self.window is None:
            return
        lim = now - self.window
        for i, s in enumerate(st.stacks):
            k = 0
            while k < len(s) and self.coord(s[k].e) <= lim:
                k += 1
            if k:
                del s[:k]
                st.off[i] += k
                self.entries -= k
                if i:
                    self.pointers -= k
        for lst in st.negs:
            k = 0
            while k < len(lst) and self.coord(lst[k]) <= lim:
                k += 1
            if k:
                del lst[:k]
                self.neg_events -= k

    def feed(self, e: Event) -> list[AggRow]:
        self.stats.events += 1
        self.last_seq = e.seq
        now = self.coord(e)
        rows: list[AggRow] = []
        if self.window is not None:
            rows += self._expire_rows(now, (lambda x: x) if not self.count_window else (lambda x: e.ts), e.seq)
        fits = [i for i, c in enumerate(self.pos) if c.matches_type(e.type)]
        negs = [k for k, c in enumerate(self.negc) if c.matches_type(e.type)]
        if not fits and not negs:
            return rows
        pk = self.key.of(e) if self.key is not None else None
        st = self.parts.get(pk)
        if st is None:
            st = self.parts[pk] = _Stacks(len(self.pos), len(self.negc))
        self._purge(st, now)
        for k in negs:
            c = self.negc[k]
            if all(cj.holds({c.var: [e]}) for cj in self.local[c.var]):
                st.negs[k].append(e)
                self.neg_events += 1
        trig = False
        n = len(self.pos)
        new_last: _Entry | None = None
        for i in reversed(fits):  # descending: the event never points at itself (repeated types)
            c = self.pos[i]
            if not all(cj.holds({c.var: [e]}) for cj in self.local[c.var]):
                continue
            if i == n - 1:
                trig = True
            if i > 0 and not st.stacks[i - 1]:
                continue
            ptr = st.off[i - 1] + len(st.stacks[i - 1]) - 1 if i > 0 else -1
            ent = _Entry(e, ptr)
            st.stacks[i].append(ent)
            self.entries += 1
            if i:
                self.pointers += 1
            if i == 0:
                self.starts.append((now + self.window if self.window is not None else float("inf"), pk))
            if i == n - 1:
                new_last = ent
            if self.tracer is not None:
                self.tracer.act("store", event=e.id, state=f"stack {c.var}",
                                detail={"position": i, "pointer": ptr if i else None})
        if trig:
            g = self.group(e)
            if new_last is not None:
                built, kept = self._search(st, new_last, e)
                for m in kept:
                    self.store.add(g, self.coord(m[0]), self._values(m))
                self.built += built
                if self.tracer is not None:
                    self.tracer.act("search", event=e.id, state=f"stack {self.vars[-1]}",
                                    detail={"built": built, "discarded": built - len(kept),
                                            "matches": [[x.id for x in m] for m in kept[:50]]})
            v = self.store.value(g)
            rows.append(self._row(e.ts, e.id, g, v, e.seq))
            if self.tracer is not None:
                self.tracer.act("match", event=e.id, detail={"group": rows[-1].group, "value": rows[-1].value,
                                                             "matches": v.c})
        self._note_objects()
        self.stats.extra["rows"] = self.stats.extra.get("rows", 0) + len(rows)
        self._sync_stats()
        return rows

    def _values(self, m: tuple[Event, ...]) -> list[Any]:
        if self.agg_var is None:
            return []
        return [_named(m[self.vars.index(self.agg_var)], self.attr or "")]

    def _search(self, st: _Stacks, last: _Entry, e: Event) -> tuple[int, list[tuple[Event, ...]]]:
        """Depth-first search from the new TRIG entry along the pointers (§2.1): every path
        is a match; then the negation post-filter."""
        n = len(self.pos)
        out: list[tuple[Event, ...]] = []
        path: list[Event | None] = [None] * n
        path[n - 1] = e
        budget = self.max_work
        work = 0
        tick = current_guard().tick  # the run's guard (engine.memory): one tick per search step

        def ok_at(i: int) -> bool:
            if not self.at[i]:
                return True
            b = {v: [x] for v, x in zip(self.vars[i:], path[i:])}  # type: ignore[misc]
            return all(cj.holds(b) for cj in self.at[i])

        def rec(i: int, ptr: int) -> None:
            nonlocal work
            s = st.stacks[i]
            base = st.off[i]
            k = ptr - base
            while k >= 0:
                ent = s[k]
                work += 1
                tick()
                if work > budget:
                    self.explode(f"more than {budget:,} search steps for TRIG event {e.id}", f"{budget:,}")
                path[i] = ent.e
                if ok_at(i):
                    if i == 0:
                        out.append(tuple(path))  # type: ignore[arg-type]
                    else:
                        rec(i - 1, ent.ptr)
                k -= 1
            path[i] = None

        if ok_at(n - 1):
            if n == 1:
                out.append((e,))
            else:
                rec(n - 2, last.ptr)
        self.dfs_nodes += work
        built = len(out)
        if self.negc:
            kept = [m for m in out if self._negation_ok(st, m)]
        else:
            kept = out
        self.discarded += built - len(kept)
        self.stats.extra.update(dfs_nodes=self.dfs_nodes, discarded_by_negation=self.discarded)
        return built, kept

    def _negation_ok(self, st: _Stacks, m: tuple[Event, ...]) -> bool:
        for k, c in enumerate(self.negc):
            g = self.neg_gap[k]
            lo, hi = m[g - 1].seq, m[g].seq
            lst = st.negs[k]
            seqs = [x.seq for x in lst]
            a = bisect.bisect_right(seqs, lo)
            b = bisect.bisect_left(seqs, hi)
            if a >= b:
                continue
            conjs = self.neg_conjs[c.var]
            bind = {v: [x] for v, x in zip(self.vars, m)}
            for x in lst[a:b]:
                bind[c.var] = [x]
                if all(cj.holds(bind) for cj in conjs):
                    return False
        return True

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        stacks: dict[str, list[Any]] = {}
        for pk, st in list(self.parts.items())[:20]:
            for i, s in enumerate(st.stacks):
                stacks.setdefault(self.vars[i], []).extend(ent.e.id for ent in s[-200:])
        return [], {"kind": "aseq-baseline", "stacks": stacks, "stored": self.store.size, "built": self.built,
                    "live_objects": self.objects(), "dfs_nodes": self.dfs_nodes}

    def _sync_stats(self) -> None:
        super()._sync_stats()
        self.stats.buffer_entries = self.entries
        self.stats.buffer_peak = max(self.stats.buffer_peak, self.entries)


# --------------------------------------------------------------------------- another engine's matches

class MatchAggregator(_AggBase):
    """Aggregate the matches of a match engine (``source``; ``auto`` = the planner's choice
    for the pattern without AGG, usually NFA^b): the fallback for patterns the SASE stacks
    do not build (Kleene, AND/OR, optional components, other strategies, NON_OVERLAP)."""

    name = "aseq-baseline"

    def __init__(self, pattern: Pattern, tracer: Tracer = None, *, source: str = "auto", **kw: Any) -> None:
        super().__init__(pattern, tracer, **{k: v for k, v in kw.items() if k in ("emit", "max_runs", "max_work")})
        from engine.engines.planner import choose

        inner_pattern = keyed_pattern(pattern).model_copy(update={"aggregate": None})
        info = choose(inner_pattern, source)
        opts = {k: v for k, v in kw.items() if k in ("max_runs",) and v is not None}
        self.inner = info.load()(inner_pattern, **opts)
        self.source = info.name
        self.events: dict[Any, Event] = {}
        self.recent: deque[Event] = deque()
        self.offline = info.name == "oracle"
        self.pending: list[Event] = []
        self.stats.extra["construction"] = info.name

    def feed(self, e: Event) -> list[AggRow]:
        self.stats.events += 1
        self.last_seq = e.seq
        if self.offline:  # the oracle answers at the end of the stream: rows are computed then
            self.inner.feed(e)
            self.pending.append(e)
            return []
        return self._step(e, list(self.inner.feed(e)))

    def _step(self, e: Event, ms: list[Any]) -> list[AggRow]:
        now = self.coord(e)
        rows: list[AggRow] = []
        if self.window is not None:
            rows += self._expire_rows(now, (lambda x: x) if not self.count_window else (lambda x: e.ts), e.seq)
            while self.recent and self.coord(self.recent[0]) <= now - 2 * self.window:
                old = self.recent.popleft()
                if self.events.get(old.id) is old:
                    del self.events[old.id]
            self.recent.append(e)
        self.events[e.id] = e
        self.built += len(ms)
        tick = current_guard().tick  # the run's guard: one tick per match aggregated
        for m in ms:
            tick()
            evs = [self.events[i] for _v, ids in m.bindings for i in ids if i in self.events]
            g = self.group(evs[0]) if evs else ALL
            start = m.start_seq if self.count_window else m.start
            vals = []
            if self.agg_var is not None:
                vals = [_named(self.events[i], self.attr or "") for i in m.ids(self.agg_var) if i in self.events]
            self.store.add(g, start, vals)
        if self.is_trig(e):
            g = self.group(e)
            v = self.store.value(g)
            rows.append(self._row(e.ts, e.id, g, v, e.seq))
            if self.tracer is not None:
                self.tracer.act("match", event=e.id, detail={"group": rows[-1].group, "value": rows[-1].value,
                                                             "matches": v.c, "source": self.source})
        self._note_objects()
        self.stats.extra["rows"] = self.stats.extra.get("rows", 0) + len(rows)
        self._sync_stats()
        return rows

    def objects(self) -> int:
        return self.store.size + self.inner.stats.runs_alive + self.inner.stats.buffer_entries

    def close(self) -> list[AggRow]:
        ms = list(self.inner.close())
        rows: list[AggRow] = []
        if self.offline:
            done: dict[int, list[Any]] = {}
            for m in ms:
                done.setdefault(m.end_seq, []).append(m)
            for e in self.pending:
                rows += self._step(e, done.get(e.seq, []))
            self.pending = []
        return rows + super().close()


def BaselineMatcher(pattern: Pattern, tracer: Tracer = None, **kw: Any) -> MatcherBase:
    """``--engine aseq-baseline``: the SASE stacks where they apply, else another engine's
    matches (:class:`MatchAggregator`)."""
    if stack_unsupported(pattern) is None:
        return StackBaseline(pattern, tracer, **{k: v for k, v in kw.items() if k != "source"})
    return MatchAggregator(pattern, tracer, **kw)
