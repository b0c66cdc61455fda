"""NFA^b runtime (SASE+ §5.1-§5.3; docs/papers.md, "SASE+ / NFA^b"): runs as computation states evaluated
in lock-step, cloned on non-determinism, over a shared versioned match buffer, with
merging of equivalent runs.

A run is (version, state, pe, start, V): ``pe`` is its latest entry in the shared buffer
and ``V`` the value vector its future edges need (``a[1].symbol``, running sum/count of
``a[..i-1].price``, ``a[a.len].volume``...). The buffer has one stack per state; an
entry is (state, event) with predecessor pointers labelled by the Dewey version of the
run that wrote them; a match is read back by following, from the final entry, the
pointer whose label is the longest prefix of the run's version (§4.9, "split-path
Dewey"). Two runs at the same state that just wrote the same entry and agree on the
part of V their future needs are merged (§4.10); the combined run keeps each member's
start and version path, and a match is produced per member still inside the window.

Semantics fixed by the notes: proceed is atomic with the next state's begin (peek,
§6.4); a Kleene component last in the pattern emits after each begin/take when its
proceed-to-F holds (§8.2.3); negated-type events go to a negation store and never break
contiguity (§8.2.7); matches are de-duplicated per completing event.
"""
from __future__ import annotations

import heapq
from operator import attrgetter
from time import perf_counter
from collections import deque
from typing import Any, Callable

from engine.bindings import Conjunct, conjunct
from engine.events import BUILTIN_FIELDS, Event
from engine.expr import Agg, BoolOp, Cmp, Len, Node, Ref, compile_expr, slot_attr
from engine.model import ANY_TYPE, Pattern, Strategy
from engine.engines.nfab.compiler import Chain, Nfab, compile_pattern
from engine.memory import current_guard
from engine.match import Match, MatcherBase, Tracer, overlap_rank
from engine.engines.nfab import trace as nfab_trace
from engine.engines.nfab.paths import NO_PATH, PathIds, PathMatch

DEFAULT_MAX_RUNS = 2_000_000
DEFAULT_MAX_BUFFER = 6_000_000
DEFAULT_MAX_WORK = 5_000_000  # matched event ids one input event may produce
SWEEP_EVERY = 2048



class Entry:
    """A shared-buffer entry: an event in the stack of a state, with labelled pointers."""

    __slots__ = ("chain", "state", "event", "preds", "writers", "index")

    def __init__(self, chain: int, state: int, event: Event):
        self.chain = chain
        self.state = state
        self.event = event
        self.preds: list[tuple[tuple[int, ...], Entry | None]] = []
        self.writers: list[Run] | None = None
        self.index: dict[tuple[int, ...], Entry | None] | None = None  # label -> pred, for wide entries

    def follow(self, label: tuple[int, ...]) -> "Entry | None":
        """The predecessor whose pointer label is the longest prefix of ``label``."""
        preds = self.preds
        if len(preds) <= 8:
            best, blen = None, -1
            for lab, p in preds:
                n = len(lab)
                if n > blen and label[:n] == lab:
                    best, blen = p, n
            if blen < 0:
                raise AssertionError(f"no compatible pointer at {self!r} for version {label}")
            return best
        idx = self.index
        if idx is None or len(idx) != len(preds):
            idx = self.index = dict(preds)
        for n in range(len(label), 0, -1):
            key = label[:n]
            if key in idx:
                return idx[key]
        raise AssertionError(f"no compatible pointer at {self!r} for version {label}")

    def __repr__(self) -> str:
        return f"Entry({self.state}:{self.event!r})"


class Member:
    """A run merged into another: its start and where its own version path takes over.

    ``cut`` is the depth of the newest switch entry on the representative's path (entries
    from the oldest up to it): the member's match is its own older part (``tail``, read
    back once and kept) and the representative's path after ``cut``."""

    __slots__ = ("start", "start_seq", "switches", "cut", "tail")

    def __init__(self, start: float, start_seq: int, switches: tuple[tuple[Entry, tuple[int, ...]], ...],
                 cut: int = 0):
        self.start = start
        self.start_seq = start_seq
        self.switches = switches
        self.cut = cut
        self.tail: PathIds | None = None




class Members(list):
    """The members of a merged run, with the earliest start among them (``lo``): while it
    is inside the window, every member is, and the window filter is skipped."""

    __slots__ = ("lo",)

    def __init__(self, items: Any = (), lo: float | None = None) -> None:
        super().__init__(items)
        self.lo = lo if lo is not None else min((m.start for m in self), default=float("inf"))


class Run:
    __slots__ = ("chain", "state", "V", "start", "start_seq", "version", "nchild", "pe", "members", "part", "trail",
                 "depth", "memo")

    def __init__(self, chain: int, state: int, V: VRow, start: float, start_seq: int,
                 version: tuple[int, ...], pe: Entry | None, part: Any):
        self.chain = chain
        self.state = state
        self.V = V
        self.start = start
        self.start_seq = start_seq
        self.version = version
        self.nchild = 0
        self.pe = pe
        self.members: list[Member] | None = None
        self.part = part
        # the entries this run (and its ancestors) wrote, newest first, as a cons list
        # (entry, rest): the path §4.9 reads back by following version-labelled pointers,
        # kept so that match construction walks it without choosing among pointers
        self.trail: tuple[Any, Any] | None = None
        self.depth = 0  # entries on the trail
        # the ids of the latest path prefix read back in this run's lineage (shared with
        # its clones), so that the next match extends it (PathIds)
        self.memo: list[PathIds] = [NO_PATH]

    def clone(self) -> "Run":
        self.nchild += 1
        r = Run(self.chain, self.state, self.V.copy(), self.start, self.start_seq,
                self.version + (self.nchild,), self.pe, self.part)
        r.members = self.members
        r.trail = self.trail
        r.depth = self.depth
        r.memo = self.memo
        return r


_POISON = object()


class VRow:
    """A run's value vector V (``attrs``, indexed by column), in the place of an event in
    the predicate context ``(V, event)``: ``expr.slot_attr(0, column)`` reads it like an
    event attribute, so that comparing a column with the event's attribute compiles to
    one closure (expr._fast_cmp). ``get`` reads a poisoned column (an aggregate over values
    that do not add up or order) as None."""

    __slots__ = ("attrs",)

    def __init__(self, values: list[Any]):
        self.attrs = values

    def get(self, i: int) -> Any:
        v = self.attrs[i]
        return None if v is _POISON else v

    def copy(self) -> "VRow":
        return VRow(self.attrs.copy())


def key_attr(nfa: Nfab) -> str | None:
    """The partition attribute when the key is one attribute of the events' dict for every
    type (``[symbol]``): events of one partition then have equal values of it (a NaN value
    is a partition of its own, see ``NfabMatcher._partitioner``), so an equality of two of
    its references within a run always holds and is not evaluated."""
    key = nfa.key
    uni = key.uniform if key is not None else None
    if uni is not None and len(uni) == 1 and uni[0] not in BUILTIN_FIELDS:
        return uni[0]
    return None


def _implied(x: Node, attr: str | None, variables: set[str]) -> bool:
    """``v.attr = w.attr`` for the partition attribute between two different events of a
    run: two positive variables of the chain, or ``a[i]`` and ``a[1]`` / ``a[i-1]`` (the take
    edge, i >= 2). True for every run, since a run sees only its partition; an equality of
    an event with itself is kept (NaN)."""
    if not (attr is not None and isinstance(x, Cmp) and x.op == "=" and isinstance(x.left, Ref)
            and isinstance(x.right, Ref) and x.left.attr == attr and x.right.attr == attr
            and x.left.var in variables and x.right.var in variables):
        return False
    if x.left.var != x.right.var:
        return True
    return {x.left.index, x.right.index} in ({"i", "1"}, {"i", "i-1"})


class _ChainRT:
    """Compiled, runnable form of one chain: per state the edge closures and V updates."""

    def __init__(self, nfa: Nfab, chain: Chain):
        self.chain = chain
        self._key_attr = key_attr(nfa)
        self._vars = {c.var for c in chain.comps}
        self.states = chain.states
        self.final = chain.final
        self.cols: dict[tuple[Any, ...], int] = {}
        self._op: list[str] = []  # per V column: first, last, len, cnt, sum, min, max
        self._reads: dict[int, set[int]] = {}
        # first pass: find V columns by compiling; second pass builds closures
        n = len(self.states)
        self.begin: list[Callable[[Any], bool] | None] = [None] * n
        self.take: list[Callable[[Any], bool] | None] = [None] * n
        self.proceed: list[Callable[[Any], bool] | None] = [None] * n
        self.type: list[str | None] = [s.type for s in self.states]
        for si, s in enumerate(self.states):
            if s.kind in ("singleton", "kleene_first"):
                self.begin[si] = self._compile(s.begin, si, "begin")
            elif s.kind == "kleene_rest":
                self.take[si] = self._compile(s.take, si, "take")
                self.proceed[si] = self._compile(s.proceed, si, "proceed")
        self.width = len(self.cols)
        self.var_of: list[str | None] = [st.var for st in self.states]
        self.empty = VRow([None] * self.width)  # start states read no V
        # V updates per state on begin/take
        self.updates: list[list[tuple[str, int, str | None, bool]]] = [[] for _ in range(n)]
        for key, idx in self.cols.items():
            op, var = key[0], key[1]
            attr = key[2] if len(key) > 2 else None
            for si, s in enumerate(self.states):
                if s.var == var and s.kind != "final":
                    self.updates[si].append((op, idx, attr, attr in BUILTIN_FIELDS if attr else False))
        # the step's view of each waiting state (NfabMatcher._step): (is kleene_rest,
        # type, any type, take/begin formula, next state, its type, any type, proceed
        # formula, next begin formula, next is F, has V updates)
        self.plan: list[tuple[Any, ...]] = []
        final = self.final
        for si, s in enumerate(self.states):
            nsi = si + 1
            ntyp = self.type[nsi] if nsi < n else None
            rest = s.kind == "kleene_rest"
            self.plan.append((rest, self.type[si], self.type[si] == ANY_TYPE,
                              self.take[si] if rest else self.begin[si], nsi, ntyp, ntyp == ANY_TYPE,
                              self.proceed[si], self.begin[nsi] if nsi < n else None, nsi == final,
                              bool(self.updates[si])))
        # merge masks: columns read at this state or later
        self.mask: list[tuple[int, ...]] = []
        for si in range(n):
            used = set()
            for sj in range(si, n):
                used |= self._reads.get(sj, set())
            self.mask.append(tuple(sorted(used)))

    def _col(self, si: int, key: tuple[Any, ...]) -> int:
        if key not in self.cols:
            self.cols[key] = len(self.cols)
            self._op.append(key[0])
        idx = self.cols[key]
        self._reads.setdefault(si, set()).add(idx)
        return idx

    def _compile(self, exprs: list[Node], si: int, edge: str) -> Callable[[Any], bool] | None:
        exprs = [x for x in exprs if not _implied(x, self._key_attr, self._vars)]
        if not exprs:
            return None
        s = self.states[si]
        cur = s.var

        def attr_getter(a: str) -> Callable[[Any], Any]:
            # the current event is ctx[1]: a getter tagged as expr.slot_attr tags its own, so
            # that a comparison of it with a constant or another tagged value compiles to
            # one closure (expr._fast_cmp); an attribute that is no built-in field is read
            # from the event's dict directly (what Event.get does for it)
            if a in BUILTIN_FIELDS:
                return slot_attr(1, a)

            def get(c: Any) -> Any:
                return c[1].attrs.get(a)
            get.slot_attr = (1, a)  # type: ignore[attr-defined]
            return get

        def v_getter(idx: int) -> Callable[[Any], Any]:
            # V is ctx[0] (a VRow); columns that never hold _POISON (first, last, len, cnt)
            # are tagged like event attributes, so that comparisons with them are one closure
            if self._op[idx] in ("first", "last", "len", "cnt"):
                def col(c: Any) -> Any:
                    return c[0].attrs[idx]
                col.slot_attr = (0, idx)  # type: ignore[attr-defined]
                return col

            def g(c: Any) -> Any:
                v = c[0].attrs[idx]
                return None if v is _POISON else v
            return g

        def resolve(n: Node) -> Callable[[Any], Any]:
            if isinstance(n, Ref):
                var, a, ix = n.var, n.attr, n.index
                if var == cur:
                    if edge == "begin" and ix in (None, "1"):
                        return attr_getter(a)
                    if edge == "take" and ix in (None, "i"):
                        return attr_getter(a)
                    if edge == "take" and ix == "1":
                        return v_getter(self._col(si, ("first", var, a)))
                    if edge == "take" and ix == "i-1":
                        return v_getter(self._col(si, ("last", var, a)))
                    if edge == "proceed" and ix == "1":
                        return v_getter(self._col(si, ("first", var, a)))
                    if edge == "proceed" and ix in ("last", None):
                        return v_getter(self._col(si, ("last", var, a)))
                    raise ValueError(f"cannot place {n} on {edge} of {s.name}")
                if ix in (None, "1"):
                    return v_getter(self._col(si, ("first", var, a)))
                if ix == "last":
                    return v_getter(self._col(si, ("last", var, a)))
                raise ValueError(f"`{var}[{ix}]` used outside {var}'s take edge")
            if isinstance(n, Len):
                return v_getter(self._col(si, ("len", n.var)))
            if isinstance(n, Agg):
                var, a, f = n.var, n.attr, n.func
                if f == "count":
                    return v_getter(self._col(si, ("cnt", var, a)))
                if f in ("sum", "avg"):
                    cnt = self._col(si, ("cnt", var, a))
                    sm = self._col(si, ("sum", var, a))
                    if f == "sum":
                        return v_getter(sm)

                    def avg(c: Any) -> Any:
                        V = c[0].attrs
                        s_, k = V[sm], V[cnt]
                        if s_ is _POISON or s_ is None or not k:
                            return None
                        return s_ / k
                    return avg
                return v_getter(self._col(si, (f, var, a)))
            raise TypeError(n)

        expr: Node = exprs[0] if len(exprs) == 1 else BoolOp(op="AND", items=exprs)
        return compile_expr(expr, resolve)

    def update(self, si: int, V: list[Any], e: Event, first: bool) -> None:
        attrs = e.attrs
        for op, idx, attr, builtin in self.updates[si]:
            if op == "len":
                V[idx] = (V[idx] or 0) + 1
                continue
            x = (e.get(attr) if builtin else attrs.get(attr)) if attr else None
            if op == "first":
                if first:
                    V[idx] = x
            elif op == "last":
                V[idx] = x
            elif op == "cnt":
                if x is not None:
                    V[idx] = (V[idx] or 0) + 1
                elif V[idx] is None:
                    V[idx] = 0
            elif x is None:
                continue
            else:
                cur = V[idx]
                if cur is _POISON:
                    continue
                try:
                    if cur is None:
                        V[idx] = x + 0 if op == "sum" else x
                        if op != "sum":
                            x < x  # noqa: B015 - type must be orderable
                    elif op == "sum":
                        V[idx] = cur + x
                    elif op == "min":
                        if x < cur:
                            V[idx] = x
                    elif op == "max":
                        if x > cur:
                            V[idx] = x
                except TypeError:
                    V[idx] = _POISON


_COMPILED: dict[str, tuple[Nfab, list[_ChainRT]]] = {}


def _compiled(pattern: Pattern) -> tuple[Nfab, list[_ChainRT]]:
    """Compile once per pattern: the automaton and its closures are immutable, so the
    matchers of many partitions (Spark keys) share them."""
    key = pattern.model_dump_json()
    hit = _COMPILED.get(key)
    if hit is None:
        nfa = compile_pattern(pattern)
        hit = (nfa, [_ChainRT(nfa, ch) for ch in nfa.chains])
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        _COMPILED[key] = hit
    return hit


class NfabMatcher(MatcherBase):
    """NFA^b matcher. Options: ``share`` (shared versioned buffer; off = one entry per
    write), ``merge`` (merge equivalent runs; needs share), ``max_runs`` / ``max_buffer``
    (state guard), ``tracer`` (receives one dict per step)."""

    name = "nfab"

    def __init__(self, pattern: Pattern, tracer: Tracer | None = None, share: bool = True, merge: bool = True,
                 max_runs: int = DEFAULT_MAX_RUNS, max_buffer: int = DEFAULT_MAX_BUFFER,
                 push_window: bool = True, peek: bool = True, max_work: int = DEFAULT_MAX_WORK,
                 count_only: bool = False):
        super().__init__(pattern, tracer)
        # §4.5 optimisations. push_window (step 5): a run dies on any edge once it left the
        # window (off: only the edge into F checks it; same matches, more live runs).
        # peek (step 6): proceed is atomic with the next state's begin (off: the proceed
        # edge is `true` and the next state decides on the same event; under
        # skip_till_next_match this changes the matches, see sase-nfab.md §6.4).
        self.push_window = push_window
        self.peek = peek
        self.nfa, self.rts = _compiled(pattern)
        self.share = share
        self.merge = merge and share
        self.max_runs = max_runs
        self.max_buffer = max_buffer
        self.max_work = max_work
        # count_only: matches are counted, never built (``cep run --format count``), where
        # that is exact: one SEQ alternative (no de-duplication across alternatives), no
        # negation to check per match, OUTPUT ALL. Elsewhere matches are built as usual.
        self.count_only = count_only
        # Without the peek (the unoptimised proceed), runs reaching the same state by an
        # ε-move can complete the same match, so the count needs de-duplication there.
        self._countable = (len(self.rts) == 1 and not self.rts[0].chain.negations
                           and pattern.output != "NON_OVERLAP" and peek)
        self.counted = 0
        # lean: counting where that is exact and nobody traces. No match is ever read back,
        # so the buffer keeps no entries (a write only marks what the runs of this step
        # wrote, for merging) and an emit only counts the live members.
        self._lean = count_only and self._countable and tracer is None
        if self._lean:
            self._write = self._write_mark  # type: ignore[method-assign]
            self._emit = self._count  # type: ignore[method-assign]
        self.work = 0  # matched event ids built for the current event
        self.stats.extra.update({"clones_take_proceed": 0, "clones_ignore_proceed": 0, "clones_take_ignore": 0,
                                 "clones_begin_ignore": 0, "runs_merged": 0, "runs_killed": 0})
        self.strategy = pattern.strategy
        w = pattern.window
        self.W: float | None = w.size if w else None
        self._push_w = self.W if push_window else None  # the window every edge checks
        self.count_window = bool(w and w.is_count)
        self.key = self.nfa.key
        self.key_any = self.key.uniform if self.key else None
        self._part_of = self._partitioner()
        comps = pattern.components()
        self.pos_types = {c.type for c in comps if not c.negated}
        self.neg_types = {c.type for c in comps if c.negated}
        self.any_pos = ANY_TYPE in self.pos_types
        self.any_neg = ANY_TYPE in self.neg_types
        self.order = self.nfa.order
        # the start states: (type, any type, chain, begin formula)
        self._starts = [(rt.type[0], rt.type[0] == ANY_TYPE, rt, rt.begin[0]) for rt in self.rts]
        self._order = tuple(self.order)
        kleene = {c.var for c in comps if c.kleene}
        self.neg_conj: dict[str, list[Conjunct]] = {}
        for ch in self.nfa.chains:
            for n in ch.negations:
                self.neg_conj.setdefault(n.comp.var, [conjunct(e, kleene) for e in n.conjuncts])
        self.parts: dict[Any, list[Run]] = {}
        self.neg_store: dict[Any, deque[Event]] = {}
        self.stacks: dict[tuple[int, int], deque[Entry]] = {}
        self.pending: list[tuple[float, int, Any]] = []  # trailing negation: (deadline, tiebreak, payload)
        self._tiebreak = 0
        self.next_id = 0
        self.alive = 0
        self.buffer_live = 0
        self.non_overlap = pattern.output == "NON_OVERLAP"
        self.last_end: dict[Any, int] = {}
        self._events_since_sweep = 0
        self.now: float = float("-inf")

    # ------------------------------------------------------------------ helpers
    def _coord(self, e: Event) -> float:
        return e.seq if self.count_window else e.ts

    def _partitioner(self) -> Callable[[Event], Any]:
        """The partition of an event (its key value; None when unpartitioned)."""
        key = self.key
        if key is None:
            return lambda e: None
        uni = self.key_any
        a = key_attr(self.nfa)
        if a is not None:
            def part_of(e: Event) -> Any:
                v = e.attrs.get(a)
                # NaN equals nothing, not even itself: its events share no partition (the
                # key's equalities, not evaluated within a partition, would not hold)
                return (v,) if v == v else object()
            return part_of

        def part(e: Event) -> Any:
            k = key.of(e)
            if k is None and uni is not None:
                return tuple(e.get(a) for a in uni)
            return k
        return part

    def _write(self, r: Run, si: int, e: Event, cur: dict[tuple[int, int], Entry]) -> Entry:
        key = (r.chain, si)
        ent = cur.get(key) if self.share else None
        if ent is None:
            ent = Entry(r.chain, si, e)
            if self.share:
                cur[key] = ent
            st = self.stacks.get(key)
            if st is None:
                st = self.stacks[key] = deque()
            st.append(ent)
            self.buffer_live += 1
            self.stats.buffer_entries += 1
        ent.preds.append((r.version, r.pe))
        if ent.index is not None:
            ent.index[r.version] = r.pe
        if self.merge:
            if ent.writers is None:
                ent.writers = [r]
            else:
                ent.writers.append(r)
        if self.tracer is not None:
            nfab_trace.buffer_write(self, ent, r)
        r.pe = ent
        r.trail = (ent, r.trail)
        r.depth += 1
        return ent

    def _write_mark(self, r: Run, si: int, e: Event, cur: dict[tuple[int, int], Entry]) -> Entry | None:
        """``_write`` in lean count mode: the entry this step's runs share at state ``si``
        (so that merging sees who wrote it), counted but never stacked nor pointed to."""
        if not self.share:
            self.stats.buffer_entries += 1
            return None
        key = (r.chain, si)
        ent = cur.get(key)
        if ent is None:
            ent = cur[key] = Entry(r.chain, si, e)
            self.stats.buffer_entries += 1
            if self.merge:
                ent.writers = [r]
        elif self.merge:
            ent.writers.append(r)  # type: ignore[union-attr]
        r.pe = ent
        return ent

    def _count(self, r: Run, rt: _ChainRT, e: Event, emitted: dict) -> None:
        """``_emit`` in lean count mode: the run's members still inside the window."""
        W = self.W
        end = self.now
        if r.members:
            n = len(self._live(r, end))
        else:
            n = 1 if W is None or end - r.start < W else 0
        self.counted += n
        self.stats.matches += n

    # ------------------------------------------------------------------ the step
    def feed(self, e: Event) -> list[Match]:
        st = self.stats
        st.events += 1
        self.work = 0
        out: list[Match] = []
        coord = e.seq if self.count_window else e.ts
        self.now = coord
        if self.pending:
            self._finalize_pending(coord, out)
        et = e.type
        pos_rel = self.any_pos or et in self.pos_types
        neg_rel = self.any_neg or et in self.neg_types
        part = self._part_of(e)
        if neg_rel:
            q = self.neg_store.get(part)
            if q is None:
                q = self.neg_store[part] = deque()
            q.append(e)
        if not pos_rel:
            if not neg_rel and self.strategy in (Strategy.STRICT, Strategy.PARTITION):
                self._contiguity_break(e, part)
            self._events_since_sweep += 1
            if self._events_since_sweep >= SWEEP_EVERY:
                self._maybe_sweep(coord)
            return out
        runs = self.parts.get(part)
        cur: dict[tuple[int, int], Entry] = {}
        emitted: dict[Any, Match] = {}
        nxt: list[Run] = []
        evals = 0
        if runs:
            step = self._step
            for r in runs:
                evals += step(r, e, coord, nxt, cur, emitted)
        # new runs: every event satisfying a start state's begin starts one
        for t0, any0, rt, f in self._starts:
            if any0 or t0 == et:
                evals += 1
                if f is None or f((rt.empty, e)):
                    self.next_id += 1
                    r = Run(rt.chain.index, 0, VRow([None] * rt.width), coord, e.seq, (self.next_id,), None, part)
                    st.runs_created += 1
                    if self.tracer is not None:
                        nfab_trace.edge(self, "begin", r, rt, 0, e, True)
                    self._apply_begin(r, rt, 0, e, nxt, cur, emitted)
                elif self.tracer is not None:
                    nfab_trace.no_start(self, rt, e)
        st.predicate_evals += evals
        if cur and self.merge:
            nxt = self._merge(cur, nxt)
        if nxt:
            self.parts[part] = nxt
        elif runs is not None:
            del self.parts[part]
        alive = self.alive = self.alive + len(nxt) - (len(runs) if runs else 0)
        if emitted:
            ms = [m for m in emitted.values() if m is not None]
            if self.non_overlap:
                ms = self._non_overlap(part, ms)
            out.extend(ms)
            alive = self.alive  # NON_OVERLAP may have pruned the partition
        if alive > st.runs_peak:
            st.runs_peak = alive
        st.runs_alive = alive
        bl = self.buffer_live
        if bl > st.buffer_peak:
            st.buffer_peak = bl
        self._events_since_sweep += 1
        if self._events_since_sweep >= SWEEP_EVERY:
            self._maybe_sweep(coord)
            alive, bl = self.alive, self.buffer_live
        if alive > self.max_runs or bl > self.max_buffer:
            self._explode()
        if out:
            st.matches += len(out)
        return out

    def _step(self, r: Run, e: Event, coord: float, nxt: list[Run], cur: dict, emitted: dict) -> int:
        """One waiting run on event ``e`` (§4.8): its enabled edges, reading the state's
        precomputed plan; clones where several are. Returns the predicates evaluated
        (``feed`` adds them up)."""
        rt = self.rts[r.chain]
        si = r.state
        W = self._push_w
        if W is not None and coord - r.start >= W:
            self._kill(r, e, "window")
            return 0
        rest, typ, typ_any, f, nsi, ntyp, ntyp_any, pf, bf, next_final, upd = rt.plan[si]
        et = e.type
        tmatch = typ_any or typ == et
        ctx = (r.V, e)
        evals = 0
        strat = self.strategy
        tr = self.tracer
        if rest:
            take = False
            if tmatch:
                evals += 1
                take = f is None or f(ctx)
            proceed = False
            if not next_final:
                if not self.peek:
                    evals += 1
                    proceed = pf is None or pf(ctx)
                elif ntyp_any or ntyp == et:
                    evals += 1
                    if pf is None or pf(ctx):
                        evals += 1
                        proceed = bf is None or bf(ctx)
            # ignore formulas (§3.4): any true, next ¬take, strict/partition false (events
            # reaching this run are in its partition)
            ignore = strat is Strategy.ANY or (strat is Strategy.NEXT and not take)
            if proceed:
                if not (take or ignore):  # the run itself moves on (opportunistic proceed)
                    p = r
                else:
                    p = r.clone()
                    st = self.stats
                    st.runs_created += 1
                    st.extra["clones_take_proceed" if take else "clones_ignore_proceed"] += 1
                if tr is not None:
                    nfab_trace.edge(self, "proceed", p, rt, si, e, True, parent=r)
                if self.peek:
                    self._apply_begin(p, rt, nsi, e, nxt, cur, emitted)
                else:  # ε-move: the next state reads the same event
                    p.state = nsi
                    evals += self._step(p, e, coord, nxt, cur, emitted)
                if p is r:
                    return evals
            elif not (take or ignore):
                if tr is not None:
                    nfab_trace.no_edge(self, r, rt, si, e, tmatch)
                self._kill(r, e, "no edge enabled")
                return evals
            if take:
                if ignore:
                    c = r.clone()
                    st = self.stats
                    st.runs_created += 1
                    st.extra["clones_take_ignore"] += 1
                    nxt.append(c)  # the ignoring branch
                    if tr is not None:
                        nfab_trace.edge(self, "ignore", c, rt, si, e, tmatch, parent=r)
                if tr is not None:
                    nfab_trace.edge(self, "take", r, rt, si, e, True)
                self._write(r, si, e, cur)
                if upd:
                    rt.update(si, r.V.attrs, e, False)
                nxt.append(r)
                if next_final:
                    self._check_final(r, rt, si, e, emitted)
            else:
                if tr is not None:
                    nfab_trace.edge(self, "ignore", r, rt, si, e, tmatch)
                nxt.append(r)  # ignore
            return evals
        # singleton or kleene_first, waiting (never the start state)
        begin = False
        if tmatch:
            evals += 1
            begin = f is None or f(ctx)
        ignore = strat is Strategy.ANY or (strat is Strategy.NEXT and not begin)
        if begin:
            if ignore:
                c = r.clone()
                st = self.stats
                st.runs_created += 1
                st.extra["clones_begin_ignore"] += 1
                nxt.append(c)
                if tr is not None:
                    nfab_trace.edge(self, "ignore", c, rt, si, e, tmatch, parent=r)
            if tr is not None:
                nfab_trace.edge(self, "begin", r, rt, si, e, True)
            self._apply_begin(r, rt, si, e, nxt, cur, emitted)
        elif ignore:
            if tr is not None:
                nfab_trace.edge(self, "ignore", r, rt, si, e, tmatch)
            nxt.append(r)
        else:
            if tr is not None:
                nfab_trace.no_edge(self, r, rt, si, e, tmatch)
            self._kill(r, e, "no edge enabled")
        return evals

    def _apply_begin(self, r: Run, rt: _ChainRT, si: int, e: Event, nxt: list[Run], cur: dict,
                     emitted: dict) -> None:
        self._write(r, si, e, cur)
        rt.update(si, r.V.attrs, e, True)
        r.state = si + 1
        if r.state == rt.final:
            self._emit(r, rt, e, emitted)
            return
        nxt.append(r)
        if rt.final == si + 2 and rt.states[si + 1].kind == "kleene_rest":
            self._check_final(r, rt, si + 1, e, emitted)

    def _check_final(self, r: Run, rt: _ChainRT, si: int, e: Event, emitted: dict) -> None:
        """A Kleene component last in the pattern: proceed to F after each begin/take."""
        f = rt.proceed[si]
        self.stats.predicate_evals += 1
        if f is None or f((r.V, e)):
            self._emit(r, rt, e, emitted)

    def _kill(self, r: Run, e: Event, why: str) -> None:
        self.stats.extra["runs_killed"] += 1
        if self.tracer is not None and why == "window":
            nfab_trace.expired(self, r, e)

    # ------------------------------------------------------------------ matches
    @staticmethod
    def _walk(x: Entry | None, label: tuple[int, ...],
              switches: tuple[tuple[Entry, tuple[int, ...]], ...] = ()) -> list[Entry]:
        """Entries from ``x`` back to the run's first, following at each entry the pointer
        whose label is the longest prefix of the version (§4.9); at a member's switch entry
        the member's own version takes over. Returned newest first."""
        out = []
        sw = 0
        nsw = len(switches)
        while x is not None:
            if sw < nsw and switches[sw][0] is x:
                label = switches[sw][1]
                sw += 1
            out.append(x)
            preds = x.preds
            x = preds[0][1] if len(preds) == 1 else x.follow(label)
        return out

    def _emit(self, r: Run, rt: _ChainRT, e: Event, emitted: dict) -> None:
        t0 = perf_counter()
        try:
            self._construct(r, rt, e, emitted)
        finally:
            ps = self.stats.phase_seconds
            ps["construction"] = ps.get("construction", 0.0) + perf_counter() - t0

    def _live(self, r: Run, end: float) -> Members:
        """The members of merged run ``r`` still inside the window at coordinate ``end``."""
        live: Members = r.members  # type: ignore[assignment]
        W = self.W
        if W is not None and end - live.lo >= W:
            if self.tracer is None:
                # expired members never match again, for no run sharing the list (time
                # only advances): drop them in place, once for the whole lineage
                live[:] = [m for m in live if end - m.start < W]
                live.lo = min((m.start for m in live), default=float("inf"))
            else:  # the trace shows each run's members as they were
                live = r.members = Members([m for m in live if end - m.start < W])
        return live

    def _construct(self, r: Run, rt: _ChainRT, e: Event, emitted: dict) -> None:
        """Match construction (§4.8 second phase): read each live member's match back from
        the shared buffer, check negations, de-duplicate."""
        W = self.W
        end = self.now  # the coordinate of e, the event being fed
        chain = rt.chain
        if r.members:
            live = self._live(r, end)
            if self.count_only and self._countable:
                self.counted += len(live)
                self.stats.matches += len(live)
                return
            members = [(m.start, m.switches) for m in live]
        else:
            members = [(r.start, ())] if W is None or end - r.start < W else []
            if self.count_only and self._countable:
                self.counted += len(members)
                self.stats.matches += len(members)
                return
        if not members:
            return
        order = self.order
        var_of = rt.var_of
        if not chain.negations:
            self._construct_paths(r, rt, e, emitted, live if r.members else None)
            return
        # Walk the representative's path once, as deep as the live members need (§4.9).
        need_full = any(not sw for _, sw in members)
        targets = {id(sw[0][0]) for _, sw in members if sw}
        rep: list[Entry] = []
        rep_pos: dict[int, int] = {}
        trail = r.trail
        while trail is not None and (need_full or targets):
            x, trail = trail
            xid = id(x)
            if xid in targets:
                targets.discard(xid)
                rep_pos[xid] = len(rep)
            rep.append(x)
        if targets:
            raise AssertionError("merge entry not on the representative's path")
        # The representative's path oldest first, cut into runs of one variable, so that a
        # member's ids are slices of it plus its own older part.
        rev = rep[::-1]
        n = len(rev)
        rev_ids = [x.event.id for x in rev]
        segments: list[tuple[str, int, int]] = []
        for k, x in enumerate(rev):
            v = var_of[x.state]
            if segments and segments[-1][0] == v:
                segments[-1] = (v, segments[-1][1], k + 1)
            else:
                segments.append((v, k, k + 1))  # type: ignore[arg-type]
        for start, switches in members:
            if not switches:
                k = 0
                tail: list[Entry] = []
            else:  # shared with the representative up to the first switch entry
                k = n - rep_pos[id(switches[0][0])]
                tail = self._walk(switches[0][0], r.version, switches)[::-1]
            ids: dict[str, list[Any]] = {v: [] for v in order}
            for ent in tail:
                ids[var_of[ent.state]].append(ent.event.id)  # type: ignore[index]
            for v, s0, s1 in segments:
                if s1 > k:
                    ids[v].extend(rev_ids[max(s0, k):s1])  # type: ignore[index]
            first_ev = tail[0].event if tail else rev[k].event
            last_ev = rev[-1].event
            if chain.negations:
                bound: dict[str, list[Event]] = {v: [] for v in order}
                for ent in tail + rev[k:]:
                    bound[var_of[ent.state]].append(ent.event)  # type: ignore[index]
            if chain.negations:
                blocker = self._negation_blocker(chain, bound, r.part, trailing=False)
                if blocker is not None:
                    if self.tracer is not None:
                        nfab_trace.negated(self, r, rt, bound, blocker, e)
                    continue
            m = Match(tuple((v, tuple(ids[v])) for v in order), first_ev.ts, last_ev.ts,
                      first_ev.seq, last_ev.seq)
            self.work += 1 + len(rev) - k + len(tail)
            if self.work > self.max_work:
                self.explode(f"one event completed {len(emitted):,} matches and had more to build",
                             f"{self.max_work:,} matched event ids per event")
            if m.key in emitted:
                continue
            if chain.negations and any(n.before is None for n in chain.negations):
                self._tiebreak += 1
                deadline = self._coord(first_ev) + (W or 0)
                emitted[m.key] = None  # de-dup marker; the match waits for its window to close
                heapq.heappush(self.pending, (deadline, self._tiebreak, (m, chain, bound, r.part)))
                if self.tracer is not None:
                    nfab_trace.wait_negation(self, r, rt, m, deadline, e)
                continue
            emitted[m.key] = m
            if self.tracer is not None:
                nfab_trace.matched(self, r, rt, m, e)

    def _construct_paths(self, r: Run, rt: _ChainRT, e: Event, emitted: dict, live: list[Member] | None) -> None:
        """No negation: each live member's match is read from the run's path (extending the
        lineage's memo) and, for a merged member, its own older part (kept on the member).
        The matches are :class:`PathMatch`: bindings built when read, JSON text by slicing."""
        lo = 0 if live is None or any(not mem.switches for mem in live) else min(mem.cut for mem in live)
        path = self._path(r, rt.var_of, lo)
        order = self._order
        last_ev = r.trail[0].event  # type: ignore[index]
        if live is None:
            first = path.first
            self._add(PathMatch(path, None, 0, order, first.ts, last_ev.ts, first.seq, last_ev.seq),
                      path.depth, r, rt, e, emitted)
            return
        tick = current_guard().tick  # one tick per match read
        for mem in live:
            tick()
            if not mem.switches:
                first = path.first
                m = PathMatch(path, None, 0, order, first.ts, last_ev.ts, first.seq, last_ev.seq)
                n = path.depth
            else:
                tail = mem.tail
                if tail is None:
                    ents = self._walk(mem.switches[0][0], r.version, mem.switches)
                    ents.reverse()
                    tail = mem.tail = NO_PATH.extend(None, len(ents), ents, rt.var_of)
                first = tail.first
                m = PathMatch(path, tail, mem.cut, order, first.ts, last_ev.ts, first.seq, last_ev.seq)
                n = len(tail.ids) + path.depth - mem.cut
            self._add(m, n, r, rt, e, emitted)

    def _path(self, r: Run, var_of: list[Any], lo: int) -> PathIds:
        """The ids of the run's path from position ``lo`` on. The path without its newest
        entry is kept as the lineage's memo; a later match of the lineage walks back only
        to it. Positions before ``lo`` (read by no live member: they only expire) are
        dropped from the memo once they are most of it."""
        head, rest = r.trail  # type: ignore[misc]
        depth = r.depth - 1
        holder = r.memo
        memo = holder[0]
        newer: list[Entry] = []
        c = rest
        steps = depth - memo.depth
        if memo.cell is not None and steps >= 0 and memo.depth - len(memo.ids) <= lo:
            for _ in range(steps):
                newer.append(c[0])
                c = c[1]
            if c is not memo.cell:
                memo = None  # another branch's prefix
        else:
            memo = None
        if memo is None:  # read from the trail, as deep as position lo
            newer = []
            c = rest
            for _ in range(depth - lo if depth > lo else 0):
                newer.append(c[0])
                c = c[1]
            memo = NO_PATH if depth <= lo or lo == 0 else PathIds(None, lo, (), (), None, "", [])
        newer.reverse()
        prefix = memo.extend(rest, depth, newer, var_of)
        if lo - prefix.base > len(prefix.ids) // 2:
            prefix = prefix.trim(lo)
        if rest is not None:
            holder[0] = prefix
        return prefix.extend(r.trail, depth + 1, [head], var_of)

    def _add(self, m: Match, n: int, r: Run, rt: _ChainRT, e: Event, emitted: dict) -> None:
        """A built match of ``n`` events: counted against the work limit, de-duplicated."""
        self.work += 1 + n
        if self.work > self.max_work:
            self.explode(f"one event completed {len(emitted):,} matches and had more to build",
                         f"{self.max_work:,} matched event ids per event")
        if self._countable:
            # one SEQ alternative without negation: distinct runs and members have distinct
            # paths, so nothing to de-duplicate and the bindings are not built here
            key: Any = id(m)
        else:
            key = m.key
            if key in emitted:
                return
        emitted[key] = m
        if self.tracer is not None:
            nfab_trace.matched(self, r, rt, m, e)

    def _negation_blocker(self, chain: Chain, bound: dict[str, list[Event]], part: Any,
                          trailing: bool) -> Event | None:
        """The first qualifying negated event that forbids this match, or None."""
        store = self.neg_store.get(part)
        if not store:
            return None
        comps = chain.comps
        first = min((ev for evs in bound.values() for ev in evs), key=lambda x: x.seq)
        for n in chain.negations:
            if (n.before is None) != trailing:
                continue
            lo = bound[comps[n.after].var][-1].seq
            if n.before is not None:
                hi = bound[comps[n.before].var][0].seq
            else:
                hi = None
            t = n.comp.type
            conj = self.neg_conj[n.comp.var]
            for x in store:
                if x.seq <= lo:
                    continue
                if hi is not None and x.seq >= hi:
                    break
                if hi is None and self.W is not None and self._coord(x) - self._coord(first) >= self.W:
                    break
                if t != ANY_TYPE and x.type != t:
                    continue
                b2 = dict(bound)
                b2[n.comp.var] = [x]
                self.stats.predicate_evals += 1
                if all(c.holds(b2) for c in conj):
                    return x
        return None

    def _finalize_pending(self, now: float | None, out: list[Match]) -> None:
        while self.pending and (now is None or self.pending[0][0] <= now):
            _, _, (m, chain, bound, part) = heapq.heappop(self.pending)
            blocker = self._negation_blocker(chain, bound, part, trailing=True)
            if self.tracer is not None:
                nfab_trace.pending_done(self, m, chain, bound, blocker)
            if blocker is None:
                out.append(m)
                self.stats.matches += 1 if now is None else 0

    def _non_overlap(self, part: Any, ms: list[Match]) -> list[Match]:
        ms = [m for m in ms if m is not None]
        ms.sort(key=overlap_rank)
        keep = []
        last = self.last_end.get(part, -1)
        for m in ms:
            if m.start_seq > last:
                keep.append(m)
                last = m.end_seq
        if keep:
            self.last_end[part] = last
            runs = self.parts.pop(part, None)
            if runs:
                self.alive -= len(runs)
        return keep

    # ------------------------------------------------------------------ merging (§4.10)
    def _merge(self, cur: dict[tuple[int, int], Entry], nxt: list[Run]) -> list[Run]:
        dropped: set[int] = set()
        tick = current_guard().tick  # the run's guard (engine.memory): one tick per run merged
        for ent in cur.values():
            ws = ent.writers
            ent.writers = None
            if ws is None or len(ws) < 2:
                continue
            groups: dict[Any, Run] = {}
            for r in ws:
                tick()
                if r.pe is not ent or r.state == self.rts[r.chain].final:
                    continue
                rt = self.rts[r.chain]
                V = r.V.attrs
                sig = (r.state, tuple(V[i] if V[i] is not _POISON else "<poison>" for i in rt.mask[r.state]))
                rep = groups.get(sig)
                if rep is None:
                    groups[sig] = r
                    continue
                # merge r into rep: members keep their own version path from this entry back
                if rep.members is None:
                    rep.members = Members([Member(rep.start, rep.start_seq, ())], rep.start)
                else:
                    rep.members = Members(rep.members, rep.members.lo)
                own = r.members or [Member(r.start, r.start_seq, ())]
                if len(rep.members) + len(own) > self.max_runs:
                    self._explode(members=len(rep.members) + len(own))
                mem = rep.members
                cut = rep.depth
                for m in own:
                    mem.append(Member(m.start, m.start_seq, ((ent, r.version),) + m.switches, cut))
                    if m.start < mem.lo:
                        mem.lo = m.start
                if r.start > rep.start:
                    rep.start, rep.start_seq = r.start, r.start_seq
                dropped.add(id(r))
                self.stats.extra["runs_merged"] += 1
                if self.tracer is not None:
                    nfab_trace.merged(self, r, rep, ent)
        if not dropped:
            return nxt
        return [r for r in nxt if id(r) not in dropped]

    # ------------------------------------------------------------------ housekeeping
    def _contiguity_break(self, e: Event, part: Any) -> None:
        """An event of a type outside the pattern: under strict contiguity it ends every
        run; under partition contiguity, the runs of its partition."""
        if self.strategy is Strategy.STRICT:
            victims = list(self.parts.keys())
        else:
            victims = [part] if part is not None or self.key is None else []
        for p in victims:
            runs = self.parts.pop(p, None)
            if runs:
                self.alive -= len(runs)
                self.stats.extra["runs_killed"] += len(runs)
                if self.tracer is not None:
                    for r in runs:
                        nfab_trace.contiguity(self, r, e)
        self.stats.runs_alive = self.alive

    def _maybe_sweep(self, now: float) -> None:
        """Every SWEEP_EVERY events (``feed`` counts them), a sweep."""
        self._events_since_sweep = 0
        if self.W is not None:
            self.sweep(now)

    def sweep(self, now: float) -> None:
        """Drop expired runs (also in partitions that receive no events), buffer entries and
        negation-store events older than the window (§4.12)."""
        W = self.W
        if W is None:
            return
        horizon = now - W
        for p in list(self.parts):
            runs = [r for r in self.parts[p] if r.start > horizon]
            self.alive -= len(self.parts[p]) - len(runs)
            if runs:
                self.parts[p] = runs
            else:
                del self.parts[p]
        coord = attrgetter("seq" if self.count_window else "ts")
        for k, stq in list(self.stacks.items()):
            while stq and coord(stq[0].event) <= horizon:
                old = stq.popleft()
                if self.tracer is not None:
                    nfab_trace.entry_removed(self, old)
                old.preds = []  # no live member reaches back past the window (§4.12)
                self.buffer_live -= 1
            if not stq:
                del self.stacks[k]
        for p, q in list(self.neg_store.items()):
            while q and coord(q[0]) <= horizon:
                q.popleft()
            if not q:
                del self.neg_store[p]
        self.stats.runs_alive = self.alive

    def _explode(self, members: int = 0) -> None:
        what = f"{self.alive:,} live runs and {self.buffer_live:,} buffer entries"
        if members:
            what = f"one merged run standing for {members:,} partial matches"
        self.explode(what, f"{self.max_runs:,} runs / {self.max_buffer:,} entries")

    def close(self) -> list[Match]:
        out: list[Match] = []
        self._finalize_pending(None, out)
        return out

    # ------------------------------------------------------------------ introspection
    def runs(self) -> list[Run]:
        return [r for rs in self.parts.values() for r in rs]

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        """Live runs and this step's shared-buffer change, for the step trace."""
        return nfab_trace.state(self)


