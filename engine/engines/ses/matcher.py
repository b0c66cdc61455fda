"""The SES automaton runtime (match-windows paper §4.8; automaton in ``engine.engines.ses.compiler``).

An *instance* is a state ``(i, S)`` with its bindings (variable -> events, in stream order).
On every event each live instance may skip it or take any enabled transition; each take
clones the instance (non-determinism by cloning), so the instances that start at an event
enumerate every match of Def. 2 that starts there. A match is reported when an instance
reaches (or loops in) the accepting state ``(k, Bk)`` and the conditions that need a
complete binding hold.

Two modes:

- **eager** (``feed``/``close``; the engine ``ses`` of the planner): an instance starts at
  every event that fits a variable of B1, as the paper's "eager" baseline does. With the
  selection ``all`` a match is emitted when its last event arrives; with ``earliest`` /
  ``maximal`` / ``earliest_maximal`` the matches of a start event are held until its window
  closes (no later event can join them) or the stream ends, then selected (§3.5).
- **window** (:meth:`SesMatcher.match_window`, the lazy call A(P, W) of Algorithm 1): one
  set of instances started at first(W) only, run over W; returns the selected matches
  that start at first(W) (Def. 4).

Guard: at most ``max_runs`` live instances plus the events bound in the matches held for
the selection (default 1,000,000) and ``max_work`` transition checks per event (in window
mode: per call of A, the window's whole run); passing either stops the run with
a state-explosion error naming the cause (a Kleene variable under skip_till_any_match, or
too wide a window). Every transition, every held match and every selection step also ticks
the run's guard (``engine.memory.current_guard``: memory, time, cancellation), so one event
or one ``close()`` that does a great deal of work is stopped inside it.
"""
from __future__ import annotations

from itertools import islice
from typing import Any, Sequence

from engine.engines.ses.compiler import SesAutomaton, compile_ses, unsupported_reason
from engine.events import Event
from engine.memory import current_guard
from engine.model import Pattern, Selection
from engine.engines.ses.selection import drop_reason, select_group
from engine.match import EngineUnsupported, Match, MatcherBase, Tracer

__all__ = ["SesMatcher", "DEFAULT_MAX_INSTANCES", "DEFAULT_MAX_WORK"]

DEFAULT_MAX_INSTANCES = 1_000_000
DEFAULT_MAX_WORK = 5_000_000
INF = float("inf")


class Instance:
    """One automaton instance: the index of its set (``set_index``), the bits of that set's
    variables it has bound (``set_bits``), the bits of every variable bound (``bound``),
    its bindings, its start event and coordinate, the values of the ``[attr]`` equivalence
    attributes (``key_values``), its id."""

    __slots__ = ("set_index", "set_bits", "bound", "bindings", "start", "start_coord", "key_values", "id")

    def __init__(self, set_index: int, set_bits: int, bound: int, bindings: dict[str, tuple[Event, ...]],
                 start: Event, start_coord: float, key_values: tuple[Any, ...] | None, id_: int) -> None:
        self.set_index = set_index
        self.set_bits = set_bits
        self.bound = bound
        self.bindings = bindings
        self.start = start
        self.start_coord = start_coord
        self.key_values = key_values
        self.id = id_


class SesMatcher(MatcherBase):
    """The SES automaton behind the Matcher interface (eager mode), and A for match windows."""

    name = "ses"
    unit = "automaton instances"

    def __init__(self, pattern: Pattern, tracer: Tracer = None, *, max_runs: int | None = None,
                 max_work: int | None = None, **_: Any) -> None:
        super().__init__(pattern, tracer)
        why = unsupported_reason(pattern)
        if why:
            raise EngineUnsupported(f"engine `ses` cannot run this pattern: {why}")
        self.automaton: SesAutomaton = compile_ses(pattern)
        self.max_runs = max_runs or DEFAULT_MAX_INSTANCES
        self.max_work = max_work or DEFAULT_MAX_WORK
        self.selection = pattern.selection
        self.kleene = frozenset(v for v, sv in self.automaton.vars.items() if sv.kleene)
        self.live: list[Instance] = []
        self._ids = 0
        self._pending: dict[int, list[Match]] = {}   # start seq -> its matches (eager mode with a selection)
        self._held = 0  # events bound in the matches of _pending (the guard counts them)
        self._found = 0  # events bound in the matches found by the event being fed
        self._window_work = 0  # transitions in the current call of match_window (its work budget)
        self._tick = current_guard().tick  # the run's guard, taken up again by feed and match_window
        self._seq: dict[Any, int] = {}
        self._window_mode = False  # A(P, W): the caller (Algorithm 1) reports the matches
        self._full_last = self.automaton.set_mask[-1]
        automaton = self.automaton
        self._conditions_on = {v: automaton.conds_on[v] for v in automaton.order}
        self._variable_bit = {v: 1 << automaton.vars[v].bit for v in automaton.order}
        self._set_variables = [[(v, 1 << automaton.vars[v].bit, automaton.vars[v].kleene) for v in s]
                               for s in automaton.sets]
        self._set_kleene = [any(automaton.vars[v].kleene for v in s) for s in automaton.sets]
        self._free = {v: not any(c.mask >> automaton.vars[v].bit & 1 for c in automaton.conds)
                      for v in automaton.order}
        self._earliest = self.selection in (Selection.EARLIEST, Selection.EARLIEST_MAXIMAL)
        self._maximal = self.selection in (Selection.MAXIMAL, Selection.EARLIEST_MAXIMAL)

    # ------------------------------------------------------------------ helpers

    def _coord(self, e: Event) -> float:
        return e.seq if self.automaton.count_window else e.ts

    def _new_id(self) -> int:
        self._ids += 1
        return self._ids

    def _key_values_ok(self, key_values: tuple[Any, ...] | None, e: Event) -> bool:
        if key_values is None:
            return True
        for a, v in zip(self.automaton.equivalence, key_values):
            if e.get(a) != v:
                return False
        return True

    def _conds_ok(self, b: dict[str, tuple[Event, ...]], bound: int, var: str, grew: bool) -> bool:
        st = self.stats
        for c in self._conditions_on[var]:
            if c.mask & ~bound:
                continue
            st.predicate_evals += 1
            ok = c.conj.holds_last(b, var) if grew else c.conj.holds(b)  # type: ignore[arg-type]
            if not ok:
                return False
        return True

    def _trace_predicates(self, b: dict[str, tuple[Event, ...]], bound: int, var: str) -> list[Any]:
        from engine.trace import check_conjunct

        lists = {v: list(es) for v, es in b.items()}
        out = [check_conjunct(c.node, lists, set(self.kleene), current=var)
               for c in self._conditions_on[var] if not c.mask & ~bound]
        return out

    def _final_ok(self, b: dict[str, tuple[Event, ...]]) -> bool:
        if not self.automaton.final_conds:
            return True
        for c in self.automaton.final_conds:
            self.stats.predicate_evals += 1
            if not c.conj.holds(b):  # type: ignore[arg-type]
                return False
        return True

    def _match(self, inst: Instance) -> Match:
        b = inst.bindings
        order = self.automaton.order
        evs = [e for v in order for e in b[v]]
        first = min(evs, key=lambda e: e.seq)
        last = max(evs, key=lambda e: e.seq)
        return Match(bindings=tuple((v, tuple(e.id for e in b[v])) for v in order), start=first.ts, end=last.ts,
                     start_seq=first.seq, end_seq=last.seq)

    def _state(self, inst: Instance) -> str:
        return self.automaton.state(inst.set_index, inst.set_bits)

    # ------------------------------------------------------------------ one event

    def _start(self, e: Event, cand: int, out: list[Instance], found: list[Match]) -> None:
        """Instances that begin at e: one per variable of B1 that e fits."""
        automaton = self.automaton
        start_coord = self._coord(e)
        key_values = tuple(e.get(a) for a in automaton.equivalence) if automaton.equivalence else None
        tr = self.tracer
        for v, bit, _k in self._set_variables[0]:
            if not cand & bit:
                continue
            b = {v: (e,)}
            if not self._conds_ok(b, bit, v, False):
                if tr is not None:
                    tr.act("discard", state=automaton.state(0, 0), to=automaton.state(0, bit), event=e.id,
                           predicates=self._trace_predicates(b, bit, v), reason="a condition is false")
                continue
            inst = Instance(0, bit, bit, b, e, start_coord, key_values, self._new_id())
            self.stats.runs_created += 1
            if tr is not None:
                tr.act("begin", run=str(inst.id), state=automaton.state(0, 0), edge="take", to=self._state(inst),
                       event=e.id, predicates=self._trace_predicates(b, bit, v))
            self._arrive(inst, e, out, found)

    def _prunes(self, move: tuple[int, int, str, bool], i: int) -> bool:
        """Whether the instance that took ``move`` on an event fitting only that move's
        variable v may drop its skip branch (§3.5): every match of the skip branch binds v
        later (or leaves the event out of v's Kleene binding), and the same match with v
        given this event is a match too when v is *free* (no condition relates it to other
        variables or its own elements): so the skip branch gives no earliest match (bind, or
        start of the next set when the current one has no Kleene variable) or no maximal
        one (a Kleene extension)."""
        ni, _ns, v, grew = move
        if not self._free[v]:
            return False
        if grew:
            return self._maximal
        if ni == i:
            return self._earliest
        return self._earliest and not self._set_kleene[i]

    def _arrive(self, inst: Instance, e: Event, out: list[Instance], found: list[Match]) -> None:
        accepting = inst.set_index == self.automaton.k - 1 and inst.set_bits == self._full_last
        if not (accepting and not self._set_kleene[-1]):
            out.append(inst)  # an accepting instance without a Kleene variable left can never move again
        if accepting and self._final_ok(inst.bindings):
            m = self._match(inst)
            found.append(m)
            self._found += sum(len(es) for es in inst.bindings.values())
            if self.tracer is not None and self.selection is Selection.ALL and not self._window_mode:
                self.tracer.act("match", run=str(inst.id), state=self._state(inst), event=e.id,
                                detail={"match": m.to_json()})

    def _step(self, e: Event, cand: int, live: list[Instance], found: list[Match]) -> list[Instance]:
        """Every live instance on e: expire, skip, or clone along each enabled transition."""
        automaton = self.automaton
        c = self._coord(e)
        W = automaton.window
        out: list[Instance] = []
        tr = self.tracer
        work = 0
        last_set = automaton.k - 1
        tick = self._tick
        budget = self.max_work - self._window_work  # window mode: one budget for the whole call of A
        holds = self.selection is not Selection.ALL  # else the matches go out at once
        for inst in live:
            if W is not None and c - inst.start_coord >= W:
                if tr is not None:
                    tr.act("expire", run=str(inst.id), state=self._state(inst), event=e.id, reason="window")
                continue
            if not cand:
                out.append(inst)  # skip e
                continue
            i, s = inst.set_index, inst.set_bits
            moves: list[tuple[int, int, str, bool]] = []
            for v, bit, kl in self._set_variables[i]:
                if cand & bit:
                    if not s & bit:
                        moves.append((i, s | bit, v, False))
                    elif kl:
                        moves.append((i, s, v, True))
            if i < last_set and s == automaton.set_mask[i]:
                for u, bit, _k in self._set_variables[i + 1]:
                    if cand & bit:
                        moves.append((i + 1, bit, u, False))
            if not moves or not self._key_values_ok(inst.key_values, e):
                out.append(inst)
                continue
            keep = len(out)
            out.append(inst)  # skip e (unless pruned below)
            taken = False
            for ni, ns, v, grew in moves:
                work += 1
                tick()
                b = dict(inst.bindings)
                b[v] = b[v] + (e,) if grew else (e,)
                bound = inst.bound | self._variable_bit[v]
                if not self._conds_ok(b, bound, v, grew):
                    if tr is not None:
                        tr.act("discard", run=str(inst.id), state=self._state(inst), to=automaton.state(ni, ns),
                               event=e.id, predicates=self._trace_predicates(b, bound, v),
                               reason="a condition is false")
                    continue
                child = Instance(ni, ns, bound, b, inst.start, inst.start_coord, inst.key_values, self._new_id())
                self.stats.runs_created += 1
                if tr is not None:
                    edge = "take" if ni == i else "proceed"
                    tr.act("take", run=str(child.id), state=self._state(inst), edge=edge, to=self._state(child),
                           event=e.id, predicates=self._trace_predicates(b, bound, v),
                           detail={"parent": str(inst.id), "var": v})
                self._arrive(child, e, out, found)
                taken = True
            if taken and len(moves) == 1 and cand & (cand - 1) == 0 and self._prunes(moves[0], i):
                del out[keep]
                if tr is not None:
                    tr.act("discard", run=str(inst.id), state=self._state(inst), event=e.id,
                           reason="pruned: skipping this event can only give matches that are not "
                                  f"{self.selection.value.replace('_', ' and ')} (§3.5)")
            if len(out) + (self._held + self._found if holds else 0) > self.max_runs:
                self._explode_held(len(out), len(found) if holds else 0)
            if work > budget:
                if self._window_mode:
                    self.explode(f"{self._window_work + work:,} transitions in one match window "
                                 f"({len(out):,} live automaton instances)", f"{self.max_work:,} per window")
                self.explode(f"{work:,} transitions on one event", f"{self.max_work:,}")
        if self._window_mode:
            self._window_work += work
        return out

    # ------------------------------------------------------------------ eager mode

    def feed(self, e: Event) -> list[Match]:
        st = self.stats
        st.events += 1
        automaton = self.automaton
        cand = automaton.cand_bits(e)
        found: list[Match] = []
        out: list[Match] = []
        self._found = 0
        self._tick = current_guard().tick
        if self.selection is not Selection.ALL:
            out = self._finish_groups(self._coord(e))
            if not self._pending and not self.live:
                self._seq.clear()  # no match to select refers to an earlier event
            self._seq[e.id] = e.seq
        live = self._step(e, cand, self.live, found)
        if cand & automaton.set_mask[0]:
            self._start(e, cand, live, found)
        self.live = live
        st.runs_alive = len(live)
        st.runs_peak = max(st.runs_peak, len(live))
        if self.selection is Selection.ALL:
            st.matches += len(found)
            return found
        for m in found:
            self._pending.setdefault(m.start_seq, []).append(m)
        self._held += self._found
        self._found = 0
        return out

    def _explode_held(self, live: int, found: int) -> None:
        entries = self._held + self._found
        matches = sum(len(ms) for ms in self._pending.values()) + found
        what = f"{live:,} live automaton instances"
        if entries:
            what += (f" and {entries:,} events bound in the {matches:,} matches held for the "
                     f"{self.selection.value} selection")
        self.explode(what, f"{self.max_runs:,}")

    def _finish_groups(self, now: float | None) -> list[Match]:
        """Select and emit the matches of every start event whose window has closed."""
        W = self.automaton.window
        done = []
        for s, ms in self._pending.items():
            start = ms[0]
            c0 = start.start_seq if self.automaton.count_window else start.start
            if now is None or (W is not None and now - c0 >= W):
                done.append(s)
        out: list[Match] = []
        for s in sorted(done):
            ms = self._pending.pop(s)
            self._held -= sum(len(ids) for m in ms for _v, ids in m.bindings)
            out.extend(self._select(ms))
        self.stats.matches += len(out)
        return out

    def _select(self, group: list[Match]) -> list[Match]:
        kept = select_group(self.selection, group, self.kleene, self._seq, tick=current_guard().tick)
        tr = self.tracer
        if tr is not None:
            why = drop_reason(self.selection, group, self.kleene, self._seq)
            for m in group:
                if m.key in why:
                    tr.act("discard", reason=why[m.key], detail={"match": m.to_json()})
            for m in kept:
                tr.act("match", event=m.bindings[-1][1][-1] if m.bindings[-1][1] else None,
                       detail={"match": m.to_json(), "selection": self.selection.value})
        return kept

    def close(self) -> list[Match]:
        self.live = []
        self.stats.runs_alive = 0
        if self.selection is Selection.ALL:
            return []
        return self._finish_groups(None)

    def trace_state(self) -> tuple[list[Any], dict[str, Any]]:
        from engine.trace import RunView

        runs = [RunView(id=str(i.id), state=self._state(i),
                        bindings={v: [e.id for e in es] for v, es in i.bindings.items()}, start=i.start.ts)
                for i in self.live]
        return runs, {}

    # ------------------------------------------------------------------ window mode (A of Algorithm 1)

    def match_window(self, events: Sequence[Event], bits: Sequence[int] | None = None) -> list[Match]:
        """A(P, W) (Def. 4): the selected matches of W that start at W's first event.
        ``bits`` are the events' candidate-variable masks when the caller has them (the
        positive variables in pattern order, as ``engine.engines.windows`` numbers them)."""
        automaton = self.automaton
        if not len(events):
            return []
        first = events[0]
        cand0 = bits[0] if bits is not None else automaton.cand_bits(first)
        if not cand0 & automaton.set_mask[0]:
            return []  # no instance starts at first(W): no match starts there (nothing else is read)
        found: list[Match] = []
        live: list[Instance] = []
        self._window_mode = True
        self._found = 0
        self._window_work = 0
        self._tick = current_guard().tick
        try:
            self._start(first, cand0, live, found)
            peak = len(live)
            rest = islice(events, 1, None)
            more = islice(bits, 1, None) if bits is not None else None
            for e in rest:
                if not live:
                    break
                cand = next(more) if more is not None else automaton.cand_bits(e)  # type: ignore[arg-type]
                if cand:  # an event no variable fits changes nothing inside W (nothing expires there)
                    live = self._step(e, cand, live, found)
                    peak = max(peak, len(live))
        finally:
            self._window_mode = False
            self._found = 0
            self._window_work = 0
        self.stats.runs_peak = max(self.stats.runs_peak, peak)
        if self.selection is Selection.ALL or len(found) <= 1:
            return found
        seq = {e.id: e.seq for e in events}
        return select_group(self.selection, found, self.kleene, seq, tick=self._tick)

