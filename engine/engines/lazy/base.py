"""Runtimes of the lazy Chain NFA and Tree NFA (Kolchinsky & Schuster, arXiv 1612.05110,
§3, §4, §7; docs/papers.md, "Lazy chain / tree NFA").

Shared machinery (also used by the eager baseline in ``eager.py``, so that the engines
are compared on equal terms):

- **Input buffers** (§3, "store"): one chronological buffer per variable (type + unary
  filter; notes §1.3), shared by every partial match and every DNF clause (notes §3.7/§3.8:
  a chain instance's own input buffer always equals "every event of its remaining
  variables inside the window"). A take searches it by **time range**: bisection on the
  stream position for the ordering filters (``prec``/``succ``) and on the timestamp for the
  window; events older than the window are pruned from the front. The chain buffers only
  the variables some state can find something in (``_searches``): a state entered only
  right after a take of the stream's newest event by a variable it must follow cannot.
- **Partial matches** (*instances*): a value vector (one slot per variable: an event, a
  tuple of events for ``+``, or None), the span of their coordinates and the ``[attr]``
  value. Conditions are compiled once per step, those on single-event variables into one
  chained conjunction of comparisons that read ``event.attrs`` directly
  (``expr.compile_conjunction`` over ``expr.slot_attr``); conditions over Kleene variables
  use ``bindings.conjunct`` for the exact list semantics.
- **Negation**: First-Chance checks (a buffer search on entry to a state) and
  Post-Processing states; a trailing negation waits (pending) until the window of the
  match's first event has closed, then searches once (timeout = success, §4.4).
- **Emission**: a match is emitted when its last event arrives (trailing negation: when
  its window closes, or at ``close()``); matches of different clauses are de-duplicated.

Chain runtime (``LazyChainMatcher``, §4): per clause one root waits for the rarest
variable; every event is first offered to the waiting instances of its variables (take
from the stream; ``_dispatch_single`` inlines it when one single-event step waits on the
variable), then stored. Entering step ``k`` searches the buffer of step ``k``'s
variable in its range, spawning an instance per fitting event (or, for ``+``, per subset:
``iterate``, §4.5); the instance then waits for stream events if the step may take from
the stream (``succ = ∅``) and is dropped otherwise (its search is over: ``search_failed``,
notes §3.8 "GC" choice).

Tree runtime (``LazyTreeMatcher``, §7 with the consumption semantics of notes §4.4): live
per-variable counts; each instance, on every event, takes from the buffer of the rarest
remaining variable when every remaining one is non-empty, consuming what it scanned (a
per-variable cursor), so that each match is found exactly once.

Semantics are the oracle's (docs/semantics.md), where the notes leave a [CHOICE]: "before"
is stream position (``seq``), the window is strict (``last - first < W``; count windows on
``seq``), a trailing negation's match is reported at the first event with
``coord - first >= W`` (or at ``close()``).

Statistics (``stats``): ``runs_created`` = partial matches created (non-root, non-final),
``runs_alive``/``runs_peak`` = live partial matches (waiting in a state, or for a trailing
negation; the peak includes the transient ones of one event's cascade), ``predicate_evals``
= candidate checks against conditions (unary filters included), ``buffer_entries`` /
``buffer_peak`` = buffered events; ``extra``: buffer removals, rejected instances
(negation), subsets enumerated, ``state_peak`` (partial matches + buffered events).

Tracer (optional callable, one dict per step, nothing is built without it): ``event``,
``store``, ``search`` (var, seq range, candidates; the tree adds ``rarest``), ``take`` and
``iterate`` (source stream|buffer, parent and child instance ids), ``wait``, ``drop``
(timeout, search_failed, consumed), ``negation``, ``wait_negation``, ``match``.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from itertools import count as _count
from typing import Any, Callable, Iterable, Mapping, Sequence

from engine.engines.lazy.chain_compiler import (ChainNFA, Cond, NegSpec, PatternInfo, Step, analyse, compile_chain,
                              estimate_rates, unsupported_reason)
from engine.engines.lazy.tree_compiler import TreeClause, TreeNFA, compile_tree
from engine.bindings import conjunct
from engine.events import Event
from engine.expr import Ref, compile_conjunction, event_attr, slot_attr, variables
from engine.model import ANY_TYPE, Pattern
from engine.engines.lazy import trace as lazy_trace
from engine.match import EngineUnsupported, Match, MatcherBase, Tracer

DEFAULT_MAX_INSTANCES = 2_000_000
DEFAULT_MAX_BUFFER = 6_000_000
DEFAULT_MAX_SUBSETS = 1_000_000
DEFAULT_MAX_WORK = 5_000_000  # enumeration steps and candidate checks for one input event
DEFAULT_WARMUP = 1000
SWEEP_EVERY = 1024
INF = float("inf")


# --------------------------------------------------------------------------- buffers

class Buf:
    """A chronological buffer: events with parallel lists of seq, coordinate and
    ``[attr]`` key; ``head`` is the first live entry (the front is pruned by the window)."""

    __slots__ = ("ev", "seq", "co", "key", "head")

    def __init__(self) -> None:
        self.ev: list[Event] = []
        self.seq: list[int] = []
        self.co: list[float] = []
        self.key: list[Any] = []
        self.head = 0

    def add(self, e: Event, coord: float, key: Any) -> None:
        self.ev.append(e)
        self.seq.append(e.seq)
        self.co.append(coord)
        self.key.append(key)

    def live(self) -> int:
        return len(self.seq) - self.head

    def prune(self, now: float, W: float) -> int:
        co = self.co
        h = self.head
        n = len(co)
        while h < n and now - co[h] >= W:
            h += 1
        removed = h - self.head
        if h > 256 and 2 * h > n:
            del self.ev[:h], self.seq[:h], self.co[:h], self.key[:h]
            h = 0
        self.head = h
        return removed

    def range(self, lo: int | None, hi: int | None, cmin: float, cmax: float, W: float | None) -> tuple[int, int]:
        """Indices [i, j) of the live events with ``lo < seq < hi`` whose coordinate keeps the
        span with [cmin, cmax] under W (exact float comparisons at the edges)."""
        seq = self.seq
        n = len(seq)
        i = self.head if lo is None else bisect_right(seq, lo, self.head, n)
        j = n if hi is None else bisect_left(seq, hi, i, n)
        if W is not None and i < j and cmin != INF:
            co = self.co
            k = bisect_left(co, cmax - W, i, j)
            while k > i and cmax - co[k - 1] < W:
                k -= 1
            while k < j and not (cmax - co[k] < W):
                k += 1
            i = k
            k = bisect_right(co, cmin + W, i, j)
            while k < j and co[k] - cmin < W:
                k += 1
            while k > i and not (co[k - 1] - cmin < W):
                k -= 1
            j = k
        return i, j


# --------------------------------------------------------------------------- instances

class _EveryType:
    """A set that contains every event type (a pattern with an ``ANY`` variable)."""

    def __contains__(self, _: object) -> bool:
        return True


class Inst:
    """A partial match. ``plan``/``step``: where it waits (chain); ``mask``/``cur``: bound
    tree variables and consumption cursors (tree)."""

    __slots__ = ("vals", "cmin", "cmax", "eq", "plan", "step", "dead", "root", "mask", "cur", "id")

    def __init__(self, vals: list[Any], cmin: float, cmax: float, eq: Any) -> None:
        self.vals = vals
        self.cmin = cmin
        self.cmax = cmax
        self.eq = eq
        self.plan: Any = None
        self.step = 0
        self.dead = False
        self.root = False
        self.mask = 0
        self.cur: list[int] | None = None
        self.id = 0


def _lo(vals: list[Any], slots: tuple[tuple[int, bool], ...]) -> int:
    m = -1
    for s, k in slots:
        x = vals[s]
        q = x[-1].seq if k else x.seq
        if q > m:
            m = q
    return m


def _hi(vals: list[Any], slots: tuple[tuple[int, bool], ...]) -> int:
    m = None
    for s, k in slots:
        x = vals[s]
        q = x[0].seq if k else x.seq
        if m is None or q < m:
            m = q
    return m  # type: ignore[return-value]


def _used(vals: list[Any], slots: tuple[tuple[int, bool], ...]) -> set[int]:
    out: set[int] = set()
    for s, k in slots:
        x = vals[s]
        if k:
            out.update(e.seq for e in x)
        else:
            out.add(x.seq)
    return out


# --------------------------------------------------------------------------- compiled pieces

def compile_conds(conds: Sequence[Cond], info: PatternInfo, last: str | None = None
                  ) -> Callable[[list[Any]], bool] | None:
    """All conditions as one closure over a value vector (None when there are none).
    Conditions on single-event variables form one chained conjunction
    (``expr.compile_conjunction`` over ``expr.slot_attr`` getters); those over Kleene
    variables follow. With ``last``, the conditions are prefix-closed in that Kleene variable
    and the vector holds a valid prefix extended by one element: only the new element is
    checked."""
    kleene = {v for v, vi in info.vars.items() if vi.kleene}
    plain = [c.node for c in conds if not (variables(c.node) & kleene)]
    fs = [_compile_cond(c.node, info, last) for c in conds if variables(c.node) & kleene]
    if plain:
        slots = {v: vi.slot for v, vi in info.vars.items()}
        f = compile_conjunction(plain, lambda n: _slot_getter(n, slots))
        if f is not None:
            fs.insert(0, f)
    if not fs:
        return None
    if len(fs) == 1:
        return fs[0]
    if len(fs) == 2:
        f0, f1 = fs
        return lambda v: f0(v) and f1(v)
    return lambda v: all(f(v) for f in fs)


def _slot_getter(n: Any, slots: Mapping[str, int]) -> Callable[[list[Any]], Any]:
    if isinstance(n, Ref):
        return slot_attr(slots[n.var], n.attr)
    raise TypeError(f"{n!r} on a single-event variable")


def _compile_cond(node: Any, info: PatternInfo, last: str | None = None) -> Callable[[list[Any]], bool]:
    """One condition that mentions a Kleene variable (exact list semantics of
    ``bindings.conjunct``)."""
    cj = conjunct(node, {v for v, i in info.vars.items() if i.kleene})
    pairs = [(v, info.vars[v].slot, info.vars[v].kleene) for v in cj.vars]

    def holds(v: list[Any]) -> bool:
        b = {}
        for var, s, k in pairs:
            x = v[s]
            b[var] = list(x) if k else [x]
        return cj.holds(b)

    if last is None or last not in cj.vars:
        return holds

    def holds_last(v: list[Any]) -> bool:
        b = {}
        for var, s, k in pairs:
            x = v[s]
            b[var] = list(x) if k else [x]
        return cj.holds_last(b, last)

    return holds_last


def _compile_local(nodes: Sequence[Any]) -> Callable[[Event], bool] | None:
    """Unary filters of one variable, on the event itself (element-wise for ``+``)."""
    return compile_conjunction(nodes, lambda n: event_attr(n.attr))


def _single_emission(info: PatternInfo) -> tuple[tuple[tuple[str, int], ...] | None, tuple[int, int] | None]:
    """For a pattern whose every clause binds every positive variable to exactly one event
    (no Kleene variable, nothing optional): the (variable, slot) pairs of a match, and, with
    one clause whose precedence has a first and a last variable (a SEQ), their slots (the
    match's span without comparing positions). (None, None) for the other patterns."""
    pos = info.positive
    if any(info.vars[v].kleene for v in pos) or any(cl.absent for cl in info.clauses):
        return None, None
    single = tuple((v, info.vars[v].slot) for v in pos)
    span = None
    if len(info.clauses) == 1:
        cl = info.clauses[0]
        others = len(cl.vars) - 1
        first = [v for v in cl.vars if len(cl.after[v]) == others]
        last = [v for v in cl.vars if len(cl.before[v]) == others]
        if first and last:
            span = (info.vars[first[0]].slot, info.vars[last[0]].slot)
    return single, span


def _binder(single: tuple[tuple[str, int], ...]) -> Callable[[list[Any]], tuple[tuple[str, tuple[Any]], ...]]:
    """The bindings of a match from a value vector with one event per variable in fixed
    slots (written out for up to four variables: no loop, no list)."""
    n = len(single)
    if n == 1:
        (v0, s0), = single
        return lambda vals: ((v0, (vals[s0].id,)),)
    if n == 2:
        (v0, s0), (v1, s1) = single
        return lambda vals: ((v0, (vals[s0].id,)), (v1, (vals[s1].id,)))
    if n == 3:
        (v0, s0), (v1, s1), (v2, s2) = single
        return lambda vals: ((v0, (vals[s0].id,)), (v1, (vals[s1].id,)), (v2, (vals[s2].id,)))
    if n == 4:
        (v0, s0), (v1, s1), (v2, s2), (v3, s3) = single
        return lambda vals: ((v0, (vals[s0].id,)), (v1, (vals[s1].id,)), (v2, (vals[s2].id,)),
                             (v3, (vals[s3].id,)))
    return lambda vals: tuple([(var, (vals[slot].id,)) for var, slot in single])


class VarRT:
    """Per-variable runtime data: type, unary filter, slot, buffer (if buffered)."""

    __slots__ = ("name", "type", "slot", "kleene", "negated", "pos", "filter", "buf", "nfilt")

    def __init__(self, name: str, type_: str, slot: int, kleene: bool, negated: bool, pos: int,
                 filt: Callable[[Event], bool] | None, nfilt: int) -> None:
        self.name = name
        self.type = type_
        self.slot = slot
        self.kleene = kleene
        self.negated = negated
        self.pos = pos
        self.filter = filt
        self.nfilt = nfilt
        self.buf: Buf | None = None


class RNeg:
    __slots__ = ("spec", "var", "slot", "lo", "hi", "trailing", "check", "vrt")

    def __init__(self, spec: NegSpec, info: PatternInfo, vrt: VarRT) -> None:
        self.spec = spec
        self.var = spec.var
        self.slot = info.vars[spec.var].slot
        self.lo = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(spec.lo_vars))
        self.hi = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(spec.hi_vars))
        self.trailing = spec.trailing
        self.check = compile_conds(spec.conds, info)
        self.vrt = vrt


class RStep:
    """A compiled chain step (state q_{k+1} and its take / iterate edge)."""

    __slots__ = ("step", "index", "var", "slot", "kleene", "vrt", "prec", "succ", "stream_ok", "check", "mono",
                 "final", "distinct", "fc", "has_check", "next_after")

    def __init__(self, s: Step, info: PatternInfo, vrt: VarRT, negs: dict[str, VarRT]) -> None:
        self.step = s
        self.index = s.index
        self.var = s.var
        self.slot = vrt.slot
        self.kleene = vrt.kleene
        self.vrt = vrt
        self.prec = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(s.prec))
        self.succ = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(s.succ))
        self.stream_ok = s.stream_ok
        self.check = compile_conds(s.conds, info)
        self.mono = compile_conds([c for c in s.conds if s.var not in c.final], info,
                                  last=s.var if vrt.kleene else None)
        self.final = compile_conds([c for c in s.conds if s.var in c.final], info)
        self.has_check = self.check is not None
        self.distinct = tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(s.distinct))
        self.fc = [RNeg(n, info, negs[n.var]) for n in s.fc]
        # the next step's buffer search finds nothing after a take of this step from the
        # stream: the next variable must follow this one, and nothing buffered is newer
        # than the event just taken (it is stored after the takes). Set by RPlan.
        self.next_after = False


class RPlan:
    """A compiled chain (one clause): steps, then post-processing negative states."""

    __slots__ = ("index", "steps", "n", "pp", "between", "trailing", "plan", "root")

    def __init__(self, index: int, steps: list[RStep], pp: list[RNeg], plan: Any = None) -> None:
        self.index = index
        self.steps = steps
        for i, st in enumerate(steps):
            st.index = i  # position in this plan (a tree's tail starts after the tree variables)
            st.next_after = i + 1 < len(steps) and st.var in steps[i + 1].step.prec
        self.n = len(steps)
        self.pp = pp
        self.between = [n for n in pp if not n.trailing]
        self.trailing = [n for n in pp if n.trailing]
        self.plan = plan
        self.root: Inst | None = None


def _searches(plan: RPlan) -> list[bool]:
    """Per step of a chain: can the buffer search on entering it find anything? Not the first
    step (its instance is the root, which only waits), and not a step entered only right after
    a take of the stream's newest event by a step it must follow (``next_after``): nothing
    buffered is newer. Once a step may take from its buffer, every later one may search.
    A variable no step searches needs no buffer (a Kleene variable's own stream iteration
    reads it, so it always has one)."""
    out = []
    may = False
    for k, s in enumerate(plan.steps):
        if k > 0:
            may = may or not plan.steps[k - 1].next_after
        out.append(may)
    return out


def clause_signature(cl: Any) -> Any:
    return (tuple(cl.vars), cl.absent, tuple(sorted((v, tuple(sorted(b))) for v, b in cl.before.items())),
            tuple((n.var, n.left, n.right) for n in cl.negations), tuple(repr(c.node) for c in cl.conds),
            cl.const_false)


# --------------------------------------------------------------------------- the shared engine

class LazyBase(MatcherBase):
    """State, buffers, negation, emission, guard, stats and tracing shared by the chain,
    the tree and the eager baseline."""

    name = "lazy"
    engine_kind = "lazy"

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK) -> None:
        why = unsupported_reason(pattern)
        if why:
            raise EngineUnsupported(f"engine `{self.name}` cannot run this pattern: {why}")
        super().__init__(pattern, tracer)
        self.info = info = analyse(pattern)
        self.dedupe = dedupe
        self.max_instances = max_runs if max_runs is not None else max_instances
        self.max_buffer = max_buffer
        self.max_subsets = max_subsets
        self.max_work = max_work
        self.work = 0  # enumeration steps and candidate checks spent on the current event
        self.stats.extra.update({"buffer_removals": 0, "instances_rejected": 0, "subsets": 0,
                                 "state_peak": 0, "negation_checks": 0})
        self.W = info.window
        self.count_window = info.count_window
        self.eq_attrs = tuple(info.eq_attrs)
        self.vrts: dict[str, VarRT] = {}
        for v, vi in info.vars.items():
            self.vrts[v] = VarRT(v, vi.type, vi.slot, vi.kleene, vi.negated, vi.pos, _compile_local(info.local[v]),
                                 len(info.local[v]))
        self.nslots = len(info.vars)
        self.pos_slots = [(v, info.vars[v].slot, info.vars[v].kleene) for v in info.positive]
        self._single_slots, self._span_slots = _single_emission(info)
        self._bind = None if self._single_slots is None else _binder(self._single_slots)
        self._nsingle = 0 if self._single_slots is None else len(self._single_slots) + 1  # work per match
        self._type_cache: dict[str, tuple[list[VarRT], list[VarRT]]] = {}
        # the event types some variable can take or forbid (ANY: every type)
        self._relevant_types: Any = (_EveryType() if any(v.type == ANY_TYPE for v in self.vrts.values())
                                     else frozenset(v.type for v in self.vrts.values()))
        self.pending: list[tuple[float, int, Inst, RPlan]] = []
        self._tick = _count()
        self._ids = _count(1)
        self.alive = 0
        self.buffered = 0
        self._depth = 0
        self._since_sweep = 0
        self.now: float = -INF
        self._out: list[Match] = []
        self.emitted: dict[Any, float] = {}
        self.multi = False
        self.closed = False
        self._bufs: list[Buf] | None = None

    # ------------------------------------------------------------------ helpers
    def _vars_for(self, t: str) -> tuple[list[VarRT], list[VarRT]]:
        r = self._type_cache.get(t)
        if r is None:
            pos = [v for v in self.vrts.values() if not v.negated and (v.type == t or v.type == ANY_TYPE)]
            neg = [v for v in self.vrts.values() if v.negated and (v.type == t or v.type == ANY_TYPE)
                   and v.buf is not None]
            r = self._type_cache[t] = (pos, neg)
        return r

    def _key(self, e: Event) -> Any:
        return tuple(e.get(a) for a in self.eq_attrs) if self.eq_attrs else None

    def _passes(self, v: VarRT, e: Event) -> bool:
        f = v.filter
        if f is None:
            return True
        self.stats.predicate_evals += 1
        return f(e)

    def _store_neg(self, negs: list[VarRT], e: Event, coord: float, key: Any) -> None:
        for v in negs:
            if self._passes(v, e):
                self._add(v.buf, e, coord, key)  # type: ignore[arg-type]
                if self.tracer is not None:
                    lazy_trace.store(self, v.name, e, negated=True)

    def _add(self, buf: Buf, e: Event, coord: float, key: Any) -> None:
        buf.add(e, coord, key)  # expiry: _expire_bufs at the start of every event
        self.buffered += 1
        self.stats.buffer_entries += 1

    def _prune(self, buf: Buf, now: float) -> None:
        r = buf.prune(now, self.W)  # type: ignore[arg-type]
        if r:
            self.buffered -= r
            self.stats.extra["buffer_removals"] += r

    def _all_bufs(self) -> list[Buf]:
        return [v.buf for v in self.vrts.values() if v.buf is not None]

    def _expire_bufs(self, now: float) -> None:
        """Drop buffered events that no future match can use (``now - coord >= W``), so
        the buffers (and the tree's live counts) hold exactly the window."""
        bufs = self._bufs
        if bufs is None:
            bufs = self._bufs = self._all_bufs()
        W = self.W
        for b in bufs:
            if b.head < len(b.co) and now - b.co[b.head] >= W:
                self._prune(b, now)

    def _sweep(self, now: float) -> None:
        """Periodic housekeeping: prune every buffer, forget de-dup keys whose window closed."""
        if self.W is not None:
            for b in self._all_bufs():
                self._prune(b, now)
            if self.emitted:
                W = self.W
                self.emitted = {k: s for k, s in self.emitted.items() if now - s < W}

    def _peaks(self) -> None:
        st = self.stats
        if self.alive > st.runs_peak:
            st.runs_peak = self.alive
        st.runs_alive = self.alive
        if self.buffered > st.buffer_peak:
            st.buffer_peak = self.buffered
        s = self.alive + self.buffered
        if s > st.extra["state_peak"]:
            st.extra["state_peak"] = s
        if self.alive > self.max_instances or self.buffered > self.max_buffer:
            self._explode()

    def _note_transient(self) -> None:
        cur = self.alive + self._depth
        if cur > self.stats.runs_peak:
            self.stats.runs_peak = cur
        if cur > self.max_instances:
            self._explode()

    unit = "partial matches"

    def _explode_output(self) -> None:
        self.explode(f"one event completed {len(self._out):,} matches and had more to build",
                     f"{self.max_work:,} enumeration steps and matched event ids per event")

    def _explode_work(self, var: str) -> None:
        self.explode(f"more than {self.max_work:,} enumeration steps for one event while combining `{var}`",
                     f"{self.max_work:,} enumeration steps and matched event ids per event")

    def _explode(self, what: str | None = None) -> None:
        what = what or f"{self.alive:,} live partial matches and {self.buffered:,} buffered events"
        self.explode(what, f"{self.max_instances:,} partial matches / {self.max_buffer:,} buffered events")

    # ------------------------------------------------------------------ negation
    def _neg_violated(self, inst: Inst, n: RNeg) -> bool:
        """A qualifying event of ``n`` lies in the forbidden range (a take edge to R)."""
        buf = n.vrt.buf
        assert buf is not None
        vals = inst.vals
        self.stats.extra["negation_checks"] += 1
        lo = _lo(vals, n.lo)
        seqs = buf.seq
        i = bisect_right(seqs, lo, buf.head, len(seqs))
        if n.trailing:
            j = len(seqs)
        else:
            j = bisect_left(seqs, _hi(vals, n.hi), i, len(seqs))
        co = buf.co
        keys = buf.key
        W = self.W
        cmin = inst.cmin
        eq = inst.eq
        check = n.check
        found = False
        for idx in range(i, j):
            if n.trailing and W is not None and co[idx] - cmin >= W:
                break
            if eq is not None and keys[idx] != eq:
                continue
            if check is None:
                found = True
                break
            vals[n.slot] = buf.ev[idx]
            self.stats.predicate_evals += 1
            if check(vals):
                found = True
                break
        if found and self.tracer is not None:
            lazy_trace.negation(self, inst, n.var, buf.ev[idx])
        vals[n.slot] = None
        return found

    def _fc_ok(self, inst: Inst, fcs: list[RNeg]) -> bool:
        for n in fcs:
            if self._neg_violated(inst, n):
                self.stats.extra["instances_rejected"] += 1
                return False
        return True

    def _complete(self, inst: Inst, plan: RPlan) -> None:
        """All positives bound: post-processing negative states, then F (or wait)."""
        for n in plan.between:
            if self._neg_violated(inst, n):
                self.stats.extra["instances_rejected"] += 1
                return
        if plan.trailing:
            heapq.heappush(self.pending, (inst.cmin, next(self._tick), inst, plan))
            self.alive += 1
            if self.tracer is not None:
                lazy_trace.wait_negation(self, inst, inst.cmin + (self.W or 0))
            return
        self._emit(inst)

    def _finalize(self, now: float | None) -> None:
        """Trailing negations whose window has closed (``now - first >= W``), or all at close."""
        W = self.W
        pend = self.pending
        while pend and (now is None or now - pend[0][0] >= W):  # type: ignore[operator]
            _, _, inst, plan = heapq.heappop(pend)
            self.alive -= 1
            if any(self._neg_violated(inst, n) for n in plan.trailing):
                self.stats.extra["instances_rejected"] += 1
                continue
            self._emit(inst)

    def _emit(self, inst: Inst) -> None:
        self._emit_vals(inst.vals, inst.cmin, inst)

    def _emit_vals(self, vals: list[Any], cmin: float, inst: Inst | None) -> None:
        """Emit the match of a complete value vector (``cmin``: its first coordinate, the
        de-duplication key's lifetime; ``inst``: its instance, for the tracer)."""
        bind = self._bind
        if bind is not None:  # one event per variable, in fixed slots
            span = self._span_slots
            if span is not None:
                first, last = vals[span[0]], vals[span[1]]
            else:
                first = last = vals[self._single_slots[0][1]]  # type: ignore[index]
                for _, slot in self._single_slots:  # type: ignore[union-attr]
                    x = vals[slot]
                    if x.seq < first.seq:
                        first = x
                    elif x.seq > last.seq:
                        last = x
            self._emit_match(inst, cmin, Match(bind(vals), first.ts, last.ts, first.seq, last.seq),
                             self._nsingle, last)
            return
        bindings = []
        first = None
        last = None
        size = 1
        for var, slot, k in self.pos_slots:
            x = vals[slot]
            if x is None:
                bindings.append((var, ()))
                continue
            if k:
                bindings.append((var, tuple([e.id for e in x])))
                f, l = x[0], x[-1]
                size += len(x)
            else:
                bindings.append((var, (x.id,)))
                f = l = x
                size += 1
            if first is None or f.seq < first.seq:
                first = f
            if last is None or l.seq > last.seq:
                last = l
        assert first is not None and last is not None
        self._emit_match(inst, cmin, Match(tuple(bindings), first.ts, last.ts, first.seq, last.seq), size, last)

    def _emit_match(self, inst: Inst | None, cmin: float, m: Match, size: int, last: Event) -> None:
        self.work += size  # output is work too: bound what one event emits
        if self.work > self.max_work:
            self._explode_output()
        if self.multi and self.dedupe:
            if m.key in self.emitted:
                return
            self.emitted[m.key] = cmin
        self._out.append(m)
        self.stats.matches += 1
        if self.tracer is not None:
            lazy_trace.matched(self, inst, m, last)

    # ------------------------------------------------------------------ chain machinery
    def _child(self, inst: Inst, slot: int, x: Any, cmin: float, cmax: float, key: Any) -> Inst:
        vals = inst.vals.copy()
        vals[slot] = x
        c = Inst(vals, inst.cmin if inst.cmin < cmin else cmin, inst.cmax if inst.cmax > cmax else cmax,
                 inst.eq if inst.eq is not None else key)
        c.mask = inst.mask
        c.cur = inst.cur
        if self.tracer is not None:
            c.id = next(self._ids)
        return c

    def _enter(self, inst: Inst, plan: RPlan, k: int) -> None:
        """Instance reaches state q_{k+1}: search the buffer, then wait or drop."""
        if k == plan.n:
            self._complete(inst, plan)
            return
        st = self.stats
        st.runs_created += 1
        self._depth += 1
        self._note_transient()
        s = plan.steps[k]
        buf = s.vrt.buf
        vals = inst.vals
        if buf is not None and buf.head < len(buf.seq):
            lo = _lo(vals, s.prec) if s.prec else None
            hi = _hi(vals, s.succ) if s.succ else None
            i, j = buf.range(lo, hi, inst.cmin, inst.cmax, self.W)
            if self.tracer is not None:
                lazy_trace.search(self, inst, s.var, max(0, j - i))
            if i < j:
                if s.kleene:
                    self._iterate(inst, plan, s, buf, i, j, None)
                else:
                    self._take_range(inst, plan, s, buf, i, j)
        self._depth -= 1
        if s.stream_ok:
            inst.plan = plan
            inst.step = k
            self._wait(inst, s.var)
        elif self.tracer is not None:
            lazy_trace.discard(self, inst, "search_failed: the buffer search is over and this state takes "
                                           "nothing from the stream")

    def _wait(self, inst: Inst, var: str) -> None:
        raise NotImplementedError

    def _scan(self, inst: Inst, buf: Buf, i: int, j: int, slot: int, var: str, distinct: Any,
              check: Any) -> list[tuple[Event, float, Any]]:
        """The buffered events in [i, j) that ``inst`` can bind to ``var``: not already bound
        (``distinct``), of its ``[attr]`` partition, satisfying ``check``. Shared by the
        chain's buffer take and the tree's take."""
        vals = inst.vals
        eq = inst.eq
        keys, evs, cos = buf.key, buf.ev, buf.co
        used = _used(vals, distinct) if distinct else None
        self.work += j - i
        if self.work > self.max_work:
            self._explode_work(var)
        out = []
        if check is None and used is None:
            if eq is None:
                return [(evs[idx], cos[idx], keys[idx]) for idx in range(i, j)]
            return [(evs[idx], cos[idx], keys[idx]) for idx in range(i, j) if keys[idx] == eq]
        st = self.stats
        tr = self.tracer
        for idx in range(i, j):
            x = evs[idx]
            if used is not None and x.seq in used:
                continue
            if eq is not None and keys[idx] != eq:
                continue
            if check is not None:
                vals[slot] = x
                st.predicate_evals += 1
                ok = check(vals)
                if not ok and tr is not None:
                    lazy_trace.refuse(self, inst, var, vals, x, "buffer")
                vals[slot] = None
                if not ok:
                    continue
            out.append((x, cos[idx], keys[idx]))
        return out

    def _take_range(self, inst: Inst, plan: RPlan, s: RStep, buf: Buf, i: int, j: int) -> None:
        nxt = s.index + 1
        tr = self.tracer
        for x, c, key in self._scan(inst, buf, i, j, s.slot, s.var, s.distinct, s.check):
            child = self._child(inst, s.slot, x, c, c, key)
            if tr is not None:
                lazy_trace.take(self, inst, child, s.var, x, "buffer")
            if s.fc and not self._fc_ok(child, s.fc):
                continue
            self._enter(child, plan, nxt)

    def _take_stream(self, inst: Inst, plan: RPlan, s: RStep, e: Event, coord: float, key: Any) -> None:
        if inst.eq is not None and key != inst.eq:
            return
        check = s.check
        if check is not None:
            vals = inst.vals
            vals[s.slot] = e
            self.stats.predicate_evals += 1
            ok = check(vals)
            if not ok and self.tracer is not None:
                lazy_trace.refuse(self, inst, s.var, vals, e, "stream")
            vals[s.slot] = None
            if not ok:
                return
        child = self._child(inst, s.slot, e, coord, coord, key)
        if self.tracer is not None:
            lazy_trace.take(self, inst, child, s.var, e, "stream")
        if s.fc and not self._fc_ok(child, s.fc):
            return
        self._enter(child, plan, s.index + 1)

    def _iterate(self, inst: Inst, plan: RPlan, s: RStep, buf: Buf, i: int, j: int, new: Any) -> None:
        """``iterate`` (§4.5): every non-empty subset of the candidates in [i, j) (in stream
        order) that satisfies the conditions; with ``new = (event, coord, key)`` from the
        stream, only the subsets that end with it. Prefix-closed conditions prune the
        depth-first enumeration; the others are checked per subset."""
        vals = inst.vals
        slot = s.slot
        used = _used(vals, s.distinct) if s.distinct else None
        W = self.W
        eq = inst.eq
        if new is not None:
            ne, nc, nk = new
            if eq is not None and nk != eq:
                return
            eq = nk if self.eq_attrs else None
        cands = []
        evs, cos, keys = buf.ev, buf.co, buf.key
        for idx in range(i, j):
            x = evs[idx]
            if used is not None and x.seq in used:
                continue
            if eq is not None and keys[idx] != eq:
                continue
            cands.append((x, cos[idx], keys[idx]))
        mono, final = s.mono, s.final
        st = self.stats
        nxt = s.index + 1
        limit = self.max_subsets
        produced = [0]
        tr = self.tracer

        def spawn(S: tuple[Event, ...], cmin: float, cmax: float, key: Any, source: str) -> None:
            produced[0] += 1
            if produced[0] > limit:
                vals[slot] = None
                self._explode(f"more than {limit:,} subsets of `{s.var}[]` in one iterate step")
            child = self._child(inst, slot, S, cmin, cmax, key)
            if tr is not None:
                lazy_trace.take(self, inst, child, s.var, S[-1], source)
            if s.fc and not self._fc_ok(child, s.fc):
                return
            self._enter(child, plan, nxt)
            vals[slot] = S  # restore after the recursion used the vector's copy

        budget = self.max_work
        work = self.work
        if new is None:
            # depth-first over subsets in stream order, iteratively (no recursion limit): a
            # frame is [next candidate, chosen, cmin, cmax, key]; a subset is spawned before
            # its extensions, as the recursive enumeration did
            stack: list[list[Any]] = [[0, (), inst.cmin, inst.cmax, eq]]
            n = len(cands)
            while stack:
                fr = stack[-1]
                t = fr[0]
                if t >= n:
                    stack.pop()
                    continue
                fr[0] = t + 1
                work += 1
                if work > budget:
                    vals[slot] = None
                    self.work = work
                    self._explode_work(s.var)
                chosen, cmin, cmax, key = fr[1], fr[2], fr[3], fr[4]
                x, cx, kx = cands[t]
                nmin = cmin if cmin < cx else cx
                nmax = cmax if cmax > cx else cx
                if W is not None and nmax - nmin >= W:
                    if cx >= cmax:
                        stack.pop()  # later candidates are later still: this frame is done
                    continue
                if key is not None and kx != key:
                    continue
                S = chosen + (x,)
                vals[slot] = S
                if mono is not None:
                    st.predicate_evals += 1
                    if not mono(vals):
                        continue
                ok = True
                if final is not None:
                    st.predicate_evals += 1
                    ok = final(vals)
                if ok:
                    self.work = work
                    spawn(S, nmin, nmax, kx if key is None else key, "buffer")
                    work = self.work  # the child's own searches counted too
                stack.append([t + 1, S, nmin, nmax, key if key is not None else (kx if self.eq_attrs else None)])
        else:
            # the subsets that end with the new event: every valid prefix of candidates, tried
            # with the new event on first visit, then extended (iteratively)
            stack = [[0, (), inst.cmin, False]]
            n = len(cands)
            while stack:
                fr = stack[-1]
                chosen, cmin = fr[1], fr[2]
                if not fr[3]:
                    fr[3] = True
                    work += 1
                    if work > budget:
                        vals[slot] = None
                        self.work = work
                        self._explode_work(s.var)
                    S = chosen + (ne,)
                    vals[slot] = S
                    ok = True
                    if mono is not None:
                        st.predicate_evals += 1
                        ok = mono(vals)
                    if ok and final is not None:
                        st.predicate_evals += 1
                        ok = final(vals)
                    if ok:
                        self.work = work
                        spawn(S, cmin if cmin < nc else nc, nc, eq, "stream")
                        work = self.work
                t = fr[0]
                if t >= n:
                    stack.pop()
                    continue
                fr[0] = t + 1
                work += 1
                x, cx, kx = cands[t]
                P = chosen + (x,)
                if mono is not None:
                    vals[slot] = P
                    st.predicate_evals += 1
                    if not mono(vals):
                        continue
                stack.append([t + 1, P, cmin if cmin < cx else cx, False])
        self.work = work
        vals[slot] = None
        st.extra["subsets"] += produced[0]

    # ------------------------------------------------------------------ matcher protocol
    def feed(self, e: Event) -> list[Match]:
        raise NotImplementedError

    def close(self) -> list[Match]:
        self._out = out = []
        if self.pending:
            self._finalize(None)
        self.closed = True
        self.stats.runs_alive = self.alive
        return out

    def instances(self) -> list[Inst]:
        raise NotImplementedError

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        """Live partial matches and the per-variable buffers, for the step trace."""
        return lazy_trace.state(self)


# --------------------------------------------------------------------------- chain

class LazyChainMatcher(LazyBase):
    """The lazy (Multi-)Chain NFA. Evaluation order per clause: ``order`` (variables), else
    ascending ``rates`` (by variable or type), else rates estimated from ``sample`` (events),
    else from the first ``warmup`` events of the stream (they are buffered, then replayed;
    never beyond the window of the first one, so no match is reported later than its
    window closes). ``negation``: ``"fc"`` (First-Chance) or ``"pp"`` (Post-Processing)."""

    name = "lazy-chain"

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, order: Sequence[str] | None = None,
                 rates: Mapping[str, float] | None = None, sample: Iterable[Event] | None = None,
                 warmup: int = DEFAULT_WARMUP, negation: str = "fc", dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK) -> None:
        super().__init__(pattern, tracer, dedupe=dedupe, max_instances=max_instances, max_buffer=max_buffer,
                         max_subsets=max_subsets, max_runs=max_runs, max_work=max_work)
        if negation not in ("fc", "pp"):
            raise ValueError(f"negation must be 'fc' or 'pp', not {negation!r}")
        self.negation = negation
        self._order = list(order) if order is not None else None
        self.nfa: ChainNFA | None = None
        self._warm: list[Event] | None = None
        self.warmup = warmup
        if order is None and rates is None and sample is not None:
            rates = estimate_rates(self.info, sample)
        if order is not None or rates is not None or warmup <= 0:
            self._build(rates)
        else:
            self._warm = []

    # ------------------------------------------------------------------ plan
    def _build(self, rates: Mapping[str, float] | None) -> None:
        info = self.info
        self.nfa = nfa = compile_chain(info, order=self._order, rates=rates, negation=self.negation)
        self.stats.extra["orders"] = [list(p.order) for p in nfa.plans]
        negs = {v: self.vrts[v] for v in info.negated}
        for v in negs.values():
            v.buf = Buf()
        self.plans: list[RPlan] = []
        seen = set()
        for p in nfa.plans:
            if p.clause.const_false:
                continue
            if self.dedupe:
                sig = clause_signature(p.clause)
                if sig in seen:
                    continue
                seen.add(sig)
            steps = [RStep(s, info, self.vrts[s.var], negs) for s in p.steps]
            self.plans.append(RPlan(p.clause.index, steps, [RNeg(n, info, negs[n.var]) for n in p.pp], p))
        self.multi = len(self.plans) > 1
        for rp in self.plans:  # buffers for every variable some state can find something in
            for s, search in zip(rp.steps, _searches(rp)):
                if (search or s.kleene) and s.vrt.buf is None:
                    s.vrt.buf = Buf()
        self._type_cache.clear()
        self._routes: dict[str, tuple[list[VarRT], list[VarRT], bool]] = {}  # per type: _vars_for, no filter
        self._bufs = None
        self.waiting: dict[str, list[Inst]] = {}
        self._dead: dict[str, int] = {}
        self.heap: list[tuple[float, int, Inst]] = []
        for rp in self.plans:
            root = Inst([None] * self.nslots, INF, -INF, None)
            root.root = True
            root.plan = rp
            root.step = 0
            rp.root = root
            self.waiting.setdefault(rp.steps[0].var, []).append(root)
        # the variables whose waiting instances all wait in one step (of one plan), a
        # single-event one without First-Chance checks: dispatched by _dispatch_single
        waits: dict[str, list[tuple[RPlan, RStep]]] = {}
        for rp in self.plans:
            for k, s in enumerate(rp.steps):
                if k == 0 or s.stream_ok:
                    waits.setdefault(s.var, []).append((rp, s))
        self._single_waits = {v: w[0] for v, w in waits.items() if len(w) == 1 and not w[0][1].kleene
                              and not w[0][1].fc}

    def _timeout(self, inst: Inst) -> None:
        """A waiting instance's window has passed (timeout -> R). Its list is compacted
        once half of it is dead, so expired instances do not pile up behind a rare type."""
        inst.dead = True
        self.alive -= 1
        var = inst.plan.steps[inst.step].var
        lst = self.waiting.get(var)
        if lst is not None:
            d = self._dead.get(var, 0) + 1
            if d > 32 and 2 * d > len(lst):
                lst[:] = [i for i in lst if not i.dead]
                d = 0
            self._dead[var] = d

    def _wait(self, inst: Inst, var: str) -> None:
        self.waiting.setdefault(var, []).append(inst)
        self.alive += 1
        if self.W is not None:
            heapq.heappush(self.heap, (inst.cmin, next(self._tick), inst))
        if self.tracer is not None:
            lazy_trace.wait(self, inst, var)

    # ------------------------------------------------------------------ stream
    def feed(self, e: Event) -> list[Match]:
        self.stats.events += 1
        if e.type in self._relevant_types or self._warm is not None or self.pending or self.tracer is not None:
            if self._warm is not None:
                return self._warm_feed(e)
            return self._process(e)
        self._since_sweep += 1  # _pass_by, inlined: most events of a stream are of other types
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(e.seq if self.count_window else e.ts)
        return []

    def _pass_by(self, coord: float) -> None:
        """An event no variable can take or forbid changes nothing: timeouts and buffer
        expiry wait for the next relevant event (which checks the window itself) or the
        periodic sweep. (With a tracer they happen on time, for the step view.)"""
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)

    def _warm_feed(self, e: Event) -> list[Match]:
        warm = self._warm
        assert warm is not None
        W = self.W
        if warm:
            c0 = warm[0].seq if self.count_window else warm[0].ts
            c = e.seq if self.count_window else e.ts
            if W is not None and c - c0 >= W:
                out = self._replay()
                out.extend(self._process(e))
                return out
        warm.append(e)
        if len(warm) >= self.warmup:
            return self._replay()
        return []

    def _replay(self) -> list[Match]:
        warm = self._warm or []
        self._warm = None
        self._build(estimate_rates(self.info, warm))
        out: list[Match] = []
        for x in warm:
            out.extend(self._process(x))
        return out

    def _process(self, e: Event) -> list[Match]:
        self._out = out = []
        self.work = 0
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        W = self.W
        tr = self.tracer
        if self.pending:
            self._finalize(coord)
        elif tr is None and e.type not in self._relevant_types:
            self._pass_by(coord)
            return out
        if W is not None:
            heap = self.heap
            while heap and coord - heap[0][0] >= W:
                inst = heapq.heappop(heap)[2]
                if not inst.dead:
                    self._timeout(inst)
                    if tr is not None:
                        lazy_trace.expire(self, inst, e)
            self._expire_bufs(coord)
        route = self._routes.get(e.type)
        if route is None:
            pos, negs = self._vars_for(e.type)
            route = self._routes[e.type] = (pos, negs, all(v.filter is None for v in pos))
        pos, negs, unfiltered = route
        if pos or negs:
            key = self._key(e) if self.eq_attrs else None
            ok = pos if unfiltered else [v for v in pos if self._passes(v, e)]
            if ok:
                # take from the stream: only the instances waiting before this event
                snap = []
                for v in ok:
                    lst = self.waiting.get(v.name)
                    if lst:
                        snap.append((lst, len(lst), self._single_waits.get(v.name) if tr is None else None))
                for lst, n, single in snap:
                    if single is not None:
                        self._dispatch_single(lst, n, e, coord, key, *single)
                    else:
                        self._dispatch(lst, n, e, coord, key)
                for v in ok:  # store
                    if v.buf is not None:
                        self._add(v.buf, e, coord, key)
                        if tr is not None:
                            lazy_trace.store(self, v.name, e)
            if negs:
                self._store_neg(negs, e, coord, key)
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)
            for lst in self.waiting.values():
                if any(i.dead for i in lst):
                    lst[:] = [i for i in lst if not i.dead]
        self._peaks()
        return out

    def _dispatch(self, lst: list[Inst], n: int, e: Event, coord: float, key: Any) -> None:
        """Offer the stream event ``e`` to the first ``n`` instances of ``lst`` (those that
        waited before it), whatever step each waits in."""
        W = self.W
        dead = 0
        for idx in range(n):
            inst = lst[idx]
            if inst.dead:
                dead += 1
                continue
            if W is not None and coord - inst.cmin >= W:
                inst.dead = True
                self.alive -= 1
                dead += 1
                if self.tracer is not None:
                    lazy_trace.expire(self, inst, e)
                continue
            plan = inst.plan
            s = plan.steps[inst.step]
            if s.kleene:
                buf = s.vrt.buf
                if buf is not None:
                    lo = _lo(inst.vals, s.prec) if s.prec else None
                    i, j = buf.range(lo, None, inst.cmin if inst.cmin < coord else coord, coord, W)
                else:
                    i = j = 0
                self._iterate(inst, plan, s, buf or Buf(), i, j, (e, coord, key))
            else:
                self._take_stream(inst, plan, s, e, coord, key)
        if dead:
            lst[:] = [i for i in lst[:n] if not i.dead] + lst[n:]

    def _dispatch_single(self, lst: list[Inst], n: int, e: Event, coord: float, key: Any, plan: RPlan,
                         s: RStep) -> None:
        """``_dispatch`` for a list whose instances all wait in the same step ``s`` of
        ``plan``, a single-event variable without First-Chance checks, and no tracer: the
        stream take inlined, with the step's data read once. The condition is checked with
        ``e`` in the instance's vector; only a passing event costs a child; the child skips
        its next state's buffer search when ``s.next_after`` says it is empty (see
        ``_searches``) and waits directly."""
        W = self.W
        st = self.stats
        slot, check = s.slot, s.check
        k = s.index + 1
        last = k == plan.n
        emit = last and not plan.pp  # complete, nothing left to check
        fresh = not last and s.next_after
        nxt = None if last else plan.steps[k]
        wl = self.waiting.setdefault(nxt.var, []) if fresh and nxt.stream_ok else None  # type: ignore[union-attr]
        heap = self.heap
        tick = self._tick
        dead = 0
        evals = 0
        for idx in range(n):
            inst = lst[idx]
            if inst.dead:
                dead += 1
                continue
            cmin = inst.cmin
            if W is not None and coord - cmin >= W:
                inst.dead = True
                self.alive -= 1
                dead += 1
                continue
            eq = inst.eq
            if eq is not None and key != eq:
                continue
            vals = inst.vals
            vals[slot] = e
            if check is not None:
                evals += 1
                if not check(vals):
                    vals[slot] = None
                    continue
            if emit:  # a match, straight from the vector (no child)
                self._emit_vals(vals, cmin if cmin < coord else coord, None)
                vals[slot] = None
                continue
            child_vals = vals.copy()
            vals[slot] = None
            # e is the newest event: the child's span ends at it
            child = Inst(child_vals, cmin if cmin < coord else coord, coord, eq if eq is not None else key)
            if inst.cur is not None:  # a tree's tail: the tree's consumption state goes along
                child.mask = inst.mask
                child.cur = inst.cur
            if last:
                self._complete(child, plan)
            elif not fresh:
                self._enter(child, plan, k)
            else:  # _enter without the search
                st.runs_created += 1
                transient = self.alive + self._depth + 1
                if transient > st.runs_peak:
                    st.runs_peak = transient
                    if transient > self.max_instances:
                        self._explode()
                if wl is not None:
                    child.plan = plan
                    child.step = k
                    wl.append(child)
                    self.alive += 1
                    if W is not None:
                        heapq.heappush(heap, (child.cmin, next(tick), child))
        if evals:
            st.predicate_evals += evals
        if dead:
            lst[:] = [i for i in lst[:n] if not i.dead] + lst[n:]

    def close(self) -> list[Match]:
        out: list[Match] = []
        if self._warm is not None:
            out.extend(self._replay())
        out.extend(super().close())
        return out

    # ------------------------------------------------------------------ introspection
    def instances(self) -> list[Inst]:
        """Live partial matches (waiting in a state, or waiting for a trailing negation)."""
        if self.nfa is None:
            return []
        out = [i for lst in self.waiting.values() for i in lst if not i.dead and not i.root]
        return out + [p[2] for p in self.pending]


# --------------------------------------------------------------------------- tree

class RTree:
    """A compiled tree (one clause): tree variables with bits, edge cache, chain tail."""

    def __init__(self, tc: TreeClause, info: PatternInfo, vrts: dict[str, VarRT], negs: dict[str, VarRT]) -> None:
        self.tc = tc
        self.info = info
        self.tvars = [vrts[v] for v in tc.tree_vars]
        self.bits = [tc.bit[v] for v in tc.tree_vars]
        self.full = tc.full
        self.kvars = [vrts[s.var] for s in tc.tail]
        self.negs = negs
        self.tail = RPlan(tc.clause.index, [RStep(s, info, vrts[s.var], negs) for s in tc.tail],
                          [RNeg(n, info, negs[n.var]) for n in tc.pp])
        self._edges: dict[tuple[int, int], Any] = {}
        self.okm = 0  # tree variables the current event matches
        self.okk = False  # the current event matches a Kleene variable

    def edge(self, i: int, mask: int) -> Any:
        key = (i, mask)
        e = self._edges.get(key)
        if e is None:
            info = self.info
            ed = self.tc.edge(self.tvars[i].name, mask, info)
            e = self._edges[key] = (
                tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(ed.prec)),
                tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(ed.succ)),
                compile_conds(ed.conds, info),
                tuple((info.vars[u].slot, info.vars[u].kleene) for u in sorted(ed.distinct)),
                [RNeg(n, info, self.negs[n.var]) for n in ed.fc],
            )
        return e


class LazyTreeMatcher(LazyBase):
    """The lazy (Multi-)Tree NFA: no frequencies needed; each partial match continues with
    the rarest remaining variable by live buffer counts (§7, notes §4.4)."""

    name = "lazy-tree"

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, *, dedupe: bool = True,
                 max_instances: int = DEFAULT_MAX_INSTANCES, max_buffer: int = DEFAULT_MAX_BUFFER,
                 max_subsets: int = DEFAULT_MAX_SUBSETS, max_runs: int | None = None,
                 max_work: int = DEFAULT_MAX_WORK, **_: Any) -> None:
        super().__init__(pattern, tracer, dedupe=dedupe, max_instances=max_instances, max_buffer=max_buffer,
                         max_subsets=max_subsets, max_runs=max_runs, max_work=max_work)
        info = self.info
        self.nfa: TreeNFA = compile_tree(info)
        negs = {v: self.vrts[v] for v in info.negated}
        for v in self.vrts.values():
            v.buf = Buf()  # the tree may read any variable's buffer
        self.trees: list[RTree] = []
        seen = set()
        for tc in self.nfa.clauses:
            if tc.clause.const_false:
                continue
            if self.dedupe:
                sig = clause_signature(tc.clause)
                if sig in seen:
                    continue
                seen.add(sig)
            self.trees.append(RTree(tc, info, self.vrts, negs))
        self.multi = len(self.trees) > 1
        self.active: list[Inst] = []
        self.waiting: dict[str, list[Inst]] = {}  # chain-mode tails (Kleene variables)
        self._dead: dict[str, int] = {}
        self.heap: list[tuple[float, int, Inst]] = []
        for rt in self.trees:
            root = Inst([None] * self.nslots, INF, -INF, None)
            root.root = True
            root.plan = rt
            if rt.tvars:
                root.cur = [-1] * len(rt.tvars)
                self.active.append(root)
            else:  # only Kleene variables: the root waits on the tail's first step
                root.plan = rt.tail
                rt.tail.root = root
                self.waiting.setdefault(rt.tail.steps[0].var, []).append(root)
        self.choices: dict[str, int] = {}  # how often each variable was the rarest (for display)
        self._var_trees: dict[str, list[tuple[RTree, int]]] = {}
        for rt in self.trees:
            for i, tv in enumerate(rt.tvars):
                self._var_trees.setdefault(tv.name, []).append((rt, rt.bits[i]))
            for kv in rt.kvars:
                self._var_trees.setdefault(kv.name, []).append((rt, 0))

    def _wait(self, inst: Inst, var: str) -> None:
        LazyChainMatcher._wait(self, inst, var)  # type: ignore[arg-type]

    def feed(self, e: Event) -> list[Match]:
        self.stats.events += 1
        self._out = out = []
        self.work = 0
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        W = self.W
        tr = self.tracer
        if self.pending:
            self._finalize(coord)
        if W is not None:
            heap = self.heap
            while heap and coord - heap[0][0] >= W:
                inst = heapq.heappop(heap)[2]
                if not inst.dead:
                    LazyChainMatcher._timeout(self, inst)  # type: ignore[arg-type]
                    if tr is not None:
                        lazy_trace.expire(self, inst, e)
            self._expire_bufs(coord)  # live counts must be exact
        pos, negs = self._vars_for(e.type)
        if pos or negs:
            key = self._key(e) if self.eq_attrs else None
            ok = [v for v in pos if self._passes(v, e)]
            if ok:
                snap = []
                for v in ok:
                    lst = self.waiting.get(v.name)
                    if lst:
                        snap.append((lst, len(lst)))
                for lst, n in snap:
                    LazyChainMatcher._dispatch(self, lst, n, e, coord, key)  # type: ignore[arg-type]
                for v in ok:
                    self._add(v.buf, e, coord, key)  # type: ignore[arg-type]
                    if tr is not None:
                        lazy_trace.store(self, v.name, e)
            if negs:
                self._store_neg(negs, e, coord, key)
            if ok:
                for rt in self.trees:
                    rt.okm = 0
                    rt.okk = False
                for v in ok:
                    for rt, bit in self._var_trees.get(v.name, ()):
                        if bit:
                            rt.okm |= bit
                        else:
                            rt.okk = True
                act = self.active
                n = len(act)
                dead = 0
                for idx in range(n):
                    inst = act[idx]
                    if inst.dead:
                        dead += 1
                        continue
                    if W is not None and coord - inst.cmin >= W:
                        inst.dead = True
                        self.alive -= 1
                        dead += 1
                        if tr is not None:
                            lazy_trace.expire(self, inst, e)
                        continue
                    rt = inst.plan
                    # only an event of a still unbound variable can change what this instance
                    # finds (it is the last event of any match the instance is part of)
                    if not (rt.okm & ~inst.mask or rt.okk):
                        continue
                    self._advance(inst)
                    if inst.dead:
                        dead += 1
                if dead:
                    self.active = [i for i in act if not i.dead]
        self._since_sweep += 1
        if self._since_sweep >= SWEEP_EVERY:
            self._since_sweep = 0
            self._sweep(coord)
            self.active = [i for i in self.active if not i.dead]
            for lst in self.waiting.values():
                if any(i.dead for i in lst):
                    lst[:] = [i for i in lst if not i.dead]
        self._peaks()
        return out

    def _advance(self, inst: Inst) -> None:
        """Take from the buffer of the rarest remaining variable (if every remaining one is
        non-empty), consuming everything scanned; children advance at once."""
        rt: RTree = inst.plan
        mask = inst.mask
        best = -1
        bc = 0
        tvars = rt.tvars
        bits = rt.bits
        for i in range(len(tvars)):
            if mask & bits[i]:
                continue
            b = tvars[i].buf
            c = len(b.seq) - b.head
            if c == 0:
                return
            if best < 0 or c < bc:
                best, bc = i, c
        for kv in rt.kvars:
            b = kv.buf
            if len(b.seq) == b.head:
                return
        v = tvars[best]
        buf = v.buf
        cur = inst.cur
        last = buf.seq[-1]
        prec, succ, check, distinct, fc = rt.edge(best, mask)
        tr = self.tracer
        if last > cur[best]:
            lo = _lo(inst.vals, prec) if prec else -1
            if cur[best] > lo:
                lo = cur[best]
            hi = _hi(inst.vals, succ) if succ else None
            i, j = buf.range(lo, hi, inst.cmin, inst.cmax, self.W)
            cur[best] = last
            if tr is not None:
                lazy_trace.search(self, inst, v.name, max(0, j - i), rarest=v.name)
            self.choices[v.name] = self.choices.get(v.name, 0) + 1
            if i < j:
                self._take_tree(inst, rt, best, buf, i, j, check, distinct, fc)
        if succ and not inst.root:
            # every event the rarest variable could still take has been consumed
            inst.dead = True
            self.alive -= 1
            if tr is not None:
                lazy_trace.discard(self, inst, "consumed: every event the rarest variable could still take "
                                               "has been scanned")

    def _take_tree(self, inst: Inst, rt: RTree, bi: int, buf: Buf, i: int, j: int, check: Any, distinct: Any,
                   fc: list[RNeg]) -> None:
        v = rt.tvars[bi]
        slot = v.slot
        st = self.stats
        bit = rt.bits[bi]
        tr = self.tracer
        for x, c, key in self._scan(inst, buf, i, j, slot, v.name, distinct, check):
            child = self._child(inst, slot, x, c, c, key)
            child.mask = inst.mask | bit
            child.cur = inst.cur.copy()  # type: ignore[union-attr]
            child.plan = rt
            if tr is not None:
                lazy_trace.take(self, inst, child, v.name, x, "buffer")
            if fc and not self._fc_ok(child, fc):
                continue
            if child.mask == rt.full:
                self._enter(child, rt.tail, 0)
                continue
            st.runs_created += 1
            self.active.append(child)
            self.alive += 1
            self._note_transient()
            self._advance(child)

    def close(self) -> list[Match]:
        return super().close()

    def instances(self) -> list[Inst]:
        out = [i for i in self.active if not i.dead and not i.root]
        out += [i for lst in self.waiting.values() for i in lst if not i.dead and not i.root]
        return out + [p[2] for p in self.pending]


__all__ = ["Buf", "Inst", "LazyBase", "LazyChainMatcher", "LazyTreeMatcher", "RNeg", "RPlan", "RStep",
           "compile_conds", "unsupported_reason"]
