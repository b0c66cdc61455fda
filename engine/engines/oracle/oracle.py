"""Brute-force reference semantics (skip_till_any_match): the ground truth for tests.

Every matcher is checked against this module on small random inputs. It is written to
be obviously right, not fast: it enumerates every assignment of events to components
that respects order, distinctness and the window, then checks predicates, ``[attr]``
and negation on the complete assignment. ``docs/semantics.md`` states the rules; in
short:

- a match binds every positive component: one event, or a non-empty list for ``+``;
  ``?``/``*``/other OR branches may bind nothing (``()``);
- SEQ: every event of item k is before (stream position) every event of item k+1;
  AND: any order; an event is used at most once per match;
- a predicate holds if it holds for every ``i`` in 2..len of its Kleene variable
  (``a[i]``, ``a[i-1]``, ``agg(a[..i-1].x)``) and every element of each unindexed Kleene
  ``a.x``; a predicate that mentions a variable bound to nothing holds vacuously;
- ``[attr]``: all events of the match (and qualifying negated ones) agree on attr;
- window: ``last.ts - first.ts < W`` (count windows: stream positions);
- ``!C`` between two positive items: no qualifying C strictly between their events;
  trailing ``!C``: none after the last positive event while ``c.ts - first.ts < W``;
- selections (match-windows §3.5, ``WHERE earliest | maximal | earliest_maximal``): among
  the matches with the same first event s, *earliest* keeps those whose vector of first
  positions per variable is Pareto-minimal, *maximal* those that no other match extends by
  inserting one event (after s) into one Kleene binding, *earliest_maximal* both;
- OUTPUT NON_OVERLAP: per partition key, in order of completion, a match is kept only if
  it starts after the previous kept match ended.

Its own guard: the enumeration and the selection stop with ``OracleTooLarge`` after
``MAX_STEPS`` combinations, ``MAX_SECONDS`` seconds or ``MAX_GROWTH`` bytes of resident
memory grown since the start (``oracle_guard``), whichever comes first; they also tick the
run's guard (``engine.memory.current_guard``).
"""
from __future__ import annotations

from typing import Any, Iterator

from engine.events import Event
from engine.memory import MemoryGuard, RunStopped, current_guard, format_bytes, rss_bytes
from engine.alternatives import components as _components
from engine.alternatives import expand as _expand
from engine.bindings import Conjunct, conjunct
from engine.expr import Agg, Len, Ref
from engine.match import Match, MatcherBase, Stats, make_match, overlap_rank, sort_matches
from engine.model import Component, Group, Pattern, Selection, Strategy
from engine.partition import partition_key

MAX_EVENTS = 5_000
MAX_STEPS = 3_000_000
MAX_SECONDS = 8.0  # the oracle's own time limit (the whole command stays under 10 s)
MAX_GROWTH = 1 << 30  # the oracle's own memory limit: resident memory grown since it started


class OracleTooLarge(ValueError):
    """The brute-force oracle refuses inputs it cannot enumerate in reasonable time."""


class OracleUnsupported(ValueError):
    pass


class OracleGuard:
    """The oracle's own guard (see the module): ``tick()`` per combination or comparison
    raises ``OracleTooLarge`` past its limits, and ticks the run's guard too."""

    def __init__(self, what: str, *, seconds: float | None | bool = True, growth: int | None | bool = True) -> None:
        seconds = MAX_SECONDS if seconds is True else seconds  # True: the module's limits, read now
        growth = MAX_GROWTH if growth is True else growth
        self.what = what
        self.seconds = seconds
        self.growth = growth
        self.own = MemoryGuard(rss_bytes() + growth if growth is not None else None, time_limit=seconds,
                               every=64, interval=0.05)
        self.outer = current_guard().tick

    def tick(self) -> None:
        self.outer()
        try:
            self.own.tick()
        except RunStopped as err:
            self.stop(err)

    def stop(self, err: RunStopped) -> None:
        if "time limit" in str(err):
            why = f"took longer than its limit of {self.seconds:g} s"
        else:
            why = f"grew the memory by more than its limit of {format_bytes(self.growth or 0)}"
        raise OracleTooLarge(f"{self.what} is a brute-force reference for small inputs and {why}; use a smaller "
                             "input, a tighter WITHIN, or another engine") from None


# --------------------------------------------------------------------------- alternatives

# --------------------------------------------------------------------------- enumeration

class _Enum:
    def __init__(self, events: list[Event], pattern: Pattern, cands: dict[str, list[int]], max_steps: int):
        self.events = events
        self.cands = cands
        self.steps = 0
        self.max_steps = max_steps
        self.guard = OracleGuard("the oracle")
        w = pattern.window
        self.wsize = w.size if w else None
        self.count_window = bool(w and w.is_count)

    def tick(self) -> None:
        self.steps += 1
        self.guard.tick()
        if self.steps > self.max_steps:
            raise OracleTooLarge(
                f"the oracle is a brute-force reference for small inputs and gave up after {self.max_steps:,} "
                f"combinations on {len(self.events)} events; use a smaller input, a tighter WITHIN, or another engine"
            )

    def coord(self, idx: int) -> float:
        e = self.events[idx]
        return e.seq if self.count_window else e.ts

    def ok_span(self, lo_c: float, hi_c: float) -> bool:
        return self.wsize is None or hi_c - lo_c < self.wsize

    def gen(self, item: Any, after: int, used: frozenset[int], span: tuple[float, float] | None
            ) -> Iterator[tuple[dict[str, list[int]], frozenset[int], int, tuple[float, float] | None]]:
        """Yield (assignment, used indices, max index, coordinate span) for ``item`` with all
        events at index > after."""
        if isinstance(item, Component):
            if item.negated:
                yield {}, used, after, span
                return
            cands = [i for i in self.cands[item.var] if i > after and i not in used]
            if item.quant == "one":
                for i in cands:
                    self.tick()
                    sp = self._extend(span, i)
                    if sp is None:
                        continue
                    yield {item.var: [i]}, used | {i}, i, sp
            else:
                yield from self._subsets(item.var, cands, used, span)
            return
        if item.op == "SEQ":
            yield from self._seq(item.items, 0, after, used, span, {}, after)
        else:  # AND: items in any order, events distinct
            yield from self._and(item.items, 0, after, used, span, {}, after)

    def _extend(self, span: tuple[float, float] | None, i: int) -> tuple[float, float] | None:
        c = self.coord(i)
        if span is None:
            return (c, c)
        lo, hi = min(span[0], c), max(span[1], c)
        return (lo, hi) if self.ok_span(lo, hi) else None

    def _subsets(self, var: str, cands: list[int], used: frozenset[int], span: Any) -> Iterator[Any]:
        def rec(start: int, chosen: list[int], sp: Any) -> Iterator[Any]:
            for k in range(start, len(cands)):
                i = cands[k]
                self.tick()
                sp2 = self._extend(sp, i)
                if sp2 is None:
                    if self.wsize is not None and self.coord(i) > (sp[1] if sp else self.coord(i)):
                        break  # later candidates are even further away
                    continue
                cur = chosen + [i]
                yield {var: cur}, used | set(cur), i, sp2
                yield from rec(k + 1, cur, sp2)

        yield from rec(0, [], span)

    def _seq(self, items: list[Any], k: int, after: int, used: frozenset[int], span: Any,
             acc: dict[str, list[int]], last: int) -> Iterator[Any]:
        if k == len(items):
            yield acc, used, last, span
            return
        for asg, used2, mx, sp in self.gen(items[k], after, used, span):
            merged = {**acc, **asg}
            yield from self._seq(items, k + 1, mx, used2, sp, merged, max(last, mx))

    def _and(self, items: list[Any], k: int, after: int, used: frozenset[int], span: Any,
             acc: dict[str, list[int]], last: int) -> Iterator[Any]:
        if k == len(items):
            yield acc, used, last, span
            return
        for asg, used2, mx, sp in self.gen(items[k], after, used, span):
            merged = {**acc, **asg}
            yield from self._and(items, k + 1, after, used2, sp, merged, max(last, mx))


# --------------------------------------------------------------------------- the oracle

def run(pattern: Pattern, events: list[Event], *, max_events: int = MAX_EVENTS,
        max_steps: int = MAX_STEPS, stats: Stats | None = None) -> list[Match]:
    """All matches of ``pattern`` on ``events`` (which must be in stream order) under
    skip_till_any_match, de-duplicated, in canonical order."""
    if pattern.strategy != Strategy.ANY:
        raise OracleUnsupported(
            f"the oracle defines skip_till_any_match only; `{pattern.strategy.value}` is defined by the NFA^b "
            "engine (use --engine nfab)")
    if len(events) > max_events:
        raise OracleTooLarge(
            f"the oracle is a brute-force reference for small inputs: {len(events):,} events is more than its "
            f"limit of {max_events:,}; use another engine")
    comps = pattern.components()
    kleene = {c.var for c in comps if c.kleene}
    order = [c.var for c in comps if not c.negated]
    negs = {c.var: c for c in comps if c.negated}
    conjs = [conjunct(e, kleene) for e in pattern.where]
    pos_conjs = [c for c in conjs if not (c.vars & set(negs))]
    neg_conjs = {v: [c for c in conjs if v in c.vars] for v in negs}

    # Candidate events per component: type, plus predicates on that component alone
    # that apply element-wise (unindexed refs; for singletons any non-iterating one).
    cands: dict[str, list[int]] = {}
    for c in comps:
        local = [cj for cj in conjs if cj.vars == {c.var} and cj.iter_var is None
                 and all(not (isinstance(n, (Ref,)) and n.index is not None) and not isinstance(n, (Len, Agg))
                         for n in cj.expr.walk())]
        idx = []
        for i, e in enumerate(events):
            if c.matches_type(e.type) and all(cj.holds({c.var: [e]}) for cj in local):
                idx.append(i)
        cands[c.var] = idx

    en = _Enum(events, pattern, cands, max_steps)
    found: dict[Any, Match] = {}
    w = pattern.window
    for red, absent in _expand(pattern.root):
        if red is None:
            continue
        top_items = red.items if isinstance(red, Group) and red.op == "SEQ" else None
        for asg, _used, _last, _span in en.gen(red, -1, frozenset(), None):
            en.guard.tick()
            b = {v: [events[i] for i in idxs] for v, idxs in asg.items()}
            for v in absent:
                b.setdefault(v, [])
            if not all(cj.holds(b) for cj in pos_conjs):
                continue
            if pattern.equivalence and not _equivalent(pattern.equivalence, [e for es in b.values() for e in es]):
                continue
            if negs and top_items is not None and not _negation_ok(
                    top_items, asg, b, events, negs, neg_conjs, pattern, w):
                continue
            m = make_match(order, b)
            found.setdefault(m.key, m)
    matches = sort_matches(found.values())
    if pattern.selection is not Selection.ALL:
        matches = select(pattern, matches, events, en.guard.tick)
    if pattern.output == "NON_OVERLAP":
        matches = non_overlap(pattern, matches, {e.id: e for e in events})
    if stats is not None:
        stats.events = len(events)
        stats.matches = len(matches)
        stats.extra["oracle_steps"] = en.steps
    return matches


def select(pattern: Pattern, matches: list[Match], events: list[Event],
           tick: Any = None) -> list[Match]:
    """The selection of ``pattern`` (§3.5) applied to all its matches, by definition:
    pairwise comparisons within each group of matches that start at the same event
    ("before" and "after" are stream positions, ties in ts broken by input order). An optional
    variable that binds no event has first position -1 (before every event), as in
    engine/engines/ses/selection.py."""
    seq = {e.id: e.seq for e in events}
    kleene = [c.var for c in pattern.positive if c.kleene]
    groups: dict[int, list[Match]] = {}
    for m in matches:
        groups.setdefault(m.start_seq, []).append(m)
    keep: set[Any] = set()
    want_early = pattern.selection in (Selection.EARLIEST, Selection.EARLIEST_MAXIMAL)
    want_max = pattern.selection in (Selection.MAXIMAL, Selection.EARLIEST_MAXIMAL)
    for group in groups.values():
        firsts = {m.key: tuple(min(seq[i] for i in ids) if ids else -1 for _, ids in m.bindings) for m in group}
        for m in group:
            if tick is not None:
                tick()
            f = firsts[m.key]
            if want_early and any(all(a <= b for a, b in zip(firsts[o.key], f)) and firsts[o.key] != f
                                  for o in group):
                continue
            if want_max and any(_extends(o, m, kleene) for o in group):
                continue
            keep.add(m.key)
    return [m for m in matches if m.key in keep]


def _extends(big: Match, small: Match, kleene: list[str]) -> bool:
    """``big`` is ``small`` with one event inserted into the binding of one Kleene variable."""
    diff = [(v, ids, dict(small.bindings)[v]) for v, ids in big.bindings if ids != dict(small.bindings)[v]]
    if len(diff) != 1:
        return False
    v, b_ids, s_ids = diff[0]
    return v in kleene and len(b_ids) == len(s_ids) + 1 and set(s_ids) < set(b_ids)


def _equivalent(attrs: list[str], evs: list[Event]) -> bool:
    for a in attrs:
        first = evs[0].get(a)
        if any(e.get(a) != first for e in evs[1:]):
            return False
    return True


def _item_vars(item: Any) -> list[str]:
    return [c.var for c in _components(item) if not c.negated]


def _negation_ok(items: list[Any], asg: dict[str, list[int]], b: dict[str, list[Event]], events: list[Event],
                 negs: dict[str, Component], neg_conjs: dict[str, list[Conjunct]], pattern: Pattern,
                 w: Any) -> bool:
    all_idx = [i for idxs in asg.values() for i in idxs]
    first_idx = min(all_idx)
    first = events[first_idx]
    for k, item in enumerate(items):
        if not (isinstance(item, Component) and item.negated):
            continue
        left = [i for it in items[:k] for v in _item_vars(it) for i in asg.get(v, ())]
        right = [i for it in items[k + 1:] for v in _item_vars(it) for i in asg.get(v, ())]
        lo = max(left)
        if right:
            hi = min(right)
            candidates = range(lo + 1, hi)
        else:  # trailing: until the window closes
            candidates = []
            for j in range(lo + 1, len(events)):
                e = events[j]
                d = (e.seq - first.seq) if w.is_count else (e.ts - first.ts)
                if d >= w.size:
                    break
                candidates.append(j)
        match_events = [e for es in b.values() for e in es]
        for j in candidates:
            e = events[j]
            if not item.matches_type(e.type):
                continue
            b2 = dict(b)
            b2[item.var] = [e]
            if all(cj.holds(b2) for cj in neg_conjs[item.var]) and (
                    not pattern.equivalence or _equivalent(pattern.equivalence, match_events + [e])):
                return False
    return True


def non_overlap(pattern: Pattern, matches: list[Match], by_id: dict[Any, Event]) -> list[Match]:
    """OUTPUT NON_OVERLAP: per partition, keep a match only if it starts after the previous
    kept match ended (matches taken in completion order, then by ``overlap_rank``)."""
    key = partition_key(pattern)
    last_end: dict[Any, int] = {}
    out = []
    events = sorted(by_id.values(), key=lambda e: e.seq)
    trailing = pattern.window is not None and has_trailing_negation(pattern)

    def completed(m: Match) -> int:
        """Stream position at which the match is known: its last event, or for a trailing
        negation the first event outside the window (end of stream: after the last)."""
        if not trailing:
            return m.end_seq
        w = pattern.window
        for e in events[m.end_seq + 1:]:
            d = (e.seq - m.start_seq) if w.is_count else (e.ts - m.start)
            if d >= w.size:
                return e.seq
        return len(events)

    matches = sorted(matches, key=lambda m: (completed(m), *overlap_rank(m)))
    for m in matches:
        first_id = next(ids[0] for _, ids in m.bindings if ids)
        part = key.of(by_id[first_id]) if key else None
        if part in last_end and m.start_seq <= last_end[part]:
            continue
        last_end[part] = m.end_seq
        out.append(m)
    return out


def has_trailing_negation(pattern: Pattern) -> bool:
    """A top-level SEQ (or an OR branch) ends with a negated component (optional ones may follow it)."""
    tops = [pattern.root] if pattern.root.op != "OR" else [i for i in pattern.root.items if isinstance(i, Group)]
    for g in tops:
        if isinstance(g, Group) and g.op == "SEQ" and g.items:
            k = len(g.items) - 1
            while k >= 0 and isinstance(g.items[k], Component) and (g.items[k].negated or g.items[k].optional):
                if g.items[k].negated:
                    return True
                k -= 1
    return False


class OracleMatcher(MatcherBase):
    """The oracle behind the Matcher interface: buffers the stream, answers at close()
    (its trace has no actions until the close step, where every match appears)."""

    name = "oracle"

    def __init__(self, pattern: Pattern, tracer: Any = None, **_: Any):
        super().__init__(pattern, tracer)
        self._events: list[Event] = []

    def feed(self, event: Event) -> list[Match]:
        if len(self._events) >= MAX_EVENTS:
            raise OracleTooLarge(
                f"the oracle is a brute-force reference for small inputs: more than {MAX_EVENTS:,} events; "
                "use another engine")
        self._events.append(event)
        self.stats.events += 1
        return []

    def close(self) -> list[Match]:
        return run(self.pattern, self._events, stats=self.stats)


def supports(pattern: Pattern) -> str | None:
    """The planner's ``supports``: the oracle defines skip_till_any_match only."""
    from engine.model import Strategy

    if pattern.strategy != Strategy.ANY:
        return f"defines skip_till_any_match only, not {pattern.strategy.value}"
    return None
