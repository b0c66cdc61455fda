"""Why didn't these events match: the candidate's furthest partial run and the first
condition that fails.

The conditions are checked in this order, each on the whole candidate:

1. ``type``: each event's type (and count: one event for ``Type v``, at least one for
   ``Type+ v[]``; every required component bound);
2. ``order``: SEQ order (engine/engines/oracle/oracle.py's definition);
3. ``predicate``: the WHERE conjuncts in evaluation order (checks.plan), the first false one;
4. ``equivalence``: ``[attr]``;
5. ``window``: ``last - first < W``;
6. ``negation``: a qualifying negated event (the blocker);

and when all of them hold (skip_till_any_match would report it) but the engine does
not: ``guard`` (the engine was stopped), ``output`` (OUTPUT NON_OVERLAP dropped it), or
what the engine's own run did, read from its step trace (engine/trace.py) by following
the run whose bindings are a prefix of the candidate: ``strategy`` (skip_till_next_match
took an earlier relevant event) or ``contiguity`` (strict / partition contiguity).
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from engine.events import Event
from engine.match import Match
from engine.model import Component, Pattern, suggest
from engine.explain.checks import (
    coord,
    coord_name,
    equivalence_conjuncts,
    negations,
    plan,
    positive_conjuncts,
    window_text,
    window_values,
)
from engine.explain.common import Alternative, ExplainError, Naming, alternatives, engine_run, js, num
from engine.explain.engine_side import engine_reason
from engine.explain.match import explain_found

STAGES = ("type", "order", "predicate", "equivalence", "window", "negation", "engine")
MAX_ASSIGNMENTS = 2_000
MAX_SEARCH = 200_000


# --------------------------------------------------------------------------- the spec

def parse_spec(spec: str, pattern: Pattern, events: Sequence[Event]
               ) -> tuple[dict[str, list[Event]] | None, list[Event]]:
    """``"1,2,3,6"`` -> (None, events) or ``"a=1,2,3;b=6"`` -> ({var: events}, events).
    Ids are matched to event ids by ``str()``; unknown ids, unknown or negated variables
    and repeated events are an :class:`ExplainError`."""
    text = (spec or "").strip()
    if not text:
        raise ExplainError("no events given: write ids like `1,2,3,6`, or fix variables: `a=1,2,3;b=6`")
    index: dict[str, Event] = {}
    dup: set[str] = set()
    for e in events:
        k = str(e.id)
        if k in index:
            dup.add(k)
        else:
            index[k] = e

    def event(tok: str) -> Event:
        t = tok.strip()
        if t not in index:
            ids = [str(e.id) for e in events]
            known = (f"ids {', '.join(ids)}" if len(ids) <= 12 else f"ids {', '.join(ids[:5])}, ..., {ids[-1]}")
            raise ExplainError(f"unknown event id `{t}`: the data has {len(events)} event"
                               f"{'s' if len(events) != 1 else ''}" + (f" ({known})" if ids else ""))
        if t in dup:
            raise ExplainError(f"event id `{t}` is not unique in the data; give the data unique ids (--id-col)")
        return index[t]

    fixed: dict[str, list[Event]] | None = None
    if "=" in text:
        fixed = {}
        pos = [c.var for c in pattern.positive]
        negs = {c.var for c in pattern.negated}
        for part in text.split(";"):
            if not part.strip():
                continue
            var, eq, ids = part.partition("=")
            var = var.strip()
            if not eq or not var:
                raise ExplainError(f"cannot read `{part.strip()}`: write `var=id,id,...` parts separated by `;`")
            if var in negs:
                raise ExplainError(f"`{var}` is a negated component: a match binds no event to it")
            if var not in pos:
                hint = suggest(var, set(pos))
                raise ExplainError(f"unknown variable `{var}`; the pattern's variables are "
                                   f"{', '.join(pos)}" + (f" ({hint})" if hint else ""))
            if var in fixed:
                raise ExplainError(f"variable `{var}` is given twice")
            toks = [t for t in ids.split(",") if t.strip()]
            if not toks:
                raise ExplainError(f"no event ids for `{var}`")
            fixed[var] = sorted((event(t) for t in toks), key=lambda e: e.seq)
        evs = [e for v in fixed.values() for e in v]
    else:
        evs = [event(t) for t in text.split(",") if t.strip()]
    if not evs:
        raise ExplainError("no events given")
    seen: set[int] = set()
    for e in evs:
        if e.seq in seen:
            raise ExplainError(f"event {e.id} is given twice: a match uses an event at most once")
        seen.add(e.seq)
    return fixed, sorted(evs, key=lambda e: e.seq)


# --------------------------------------------------------------------------- one candidate

class Outcome:
    """How far one assignment gets: the stage it fails at (``engine`` = every declarative
    condition holds), the reason, and the furthest bindings."""

    def __init__(self, alt: Alternative | None, b: dict[str, list[Event]], stage: str,
                 reason: dict[str, Any] | None, furthest: dict[str, list[Event]]):
        self.alt, self.b, self.stage, self.reason, self.furthest = alt, b, stage, reason, furthest

    @property
    def score(self) -> tuple[int, int]:
        return (STAGES.index(self.stage), sum(len(v) for v in self.furthest.values()))


def _before(b: dict[str, list[Event]], seq: int, inclusive: bool = False) -> dict[str, list[Event]]:
    out = {v: [e for e in evs if e.seq < seq or (inclusive and e.seq == seq)] for v, evs in b.items()}
    return {v: evs for v, evs in out.items() if evs}


def _comp_text(c: Component) -> str:
    suffix = {"one": "", "plus": "+", "star": "*", "opt": "?"}[c.quant]
    return f"{c.type}{suffix} {c.var}" + ("[]" if c.kleene else "")


def _type_check(alt: Alternative, b: dict[str, list[Event]]) -> tuple[dict[str, Any], Event | None] | None:
    comps = {c.var: c for c in alt.comps}
    bad: list[tuple[Event, Component]] = []
    for v, evs in b.items():
        c = comps[v]
        for e in evs:
            if not c.matches_type(e.type):
                bad.append((e, c))
    if bad:
        e, c = min(bad, key=lambda t: t[0].seq)
        return ({"kind": "type", "event": js(e.id), "var": c.var, "values": {"type": e.type, "expected": c.type},
                 "text": f"event {e.id} has type {e.type}, but `{c.var}` is `{_comp_text(c)}`"}, e)
    for v, evs in b.items():
        c = comps[v]
        if not c.kleene and len(evs) > 1:
            e = evs[1]
            return ({"kind": "type", "event": js(e.id), "var": v, "values": {"events": len(evs)},
                     "text": f"`{v}` is `{_comp_text(c)}`, one event, but {len(evs)} were given "
                             f"({', '.join(str(x.id) for x in evs)})"}, e)
    return None


def _order_check(tree: Any, b: dict[str, list[Event]]) -> tuple[dict[str, Any], Event] | None:
    """The earliest event that comes before an event of an earlier SEQ item."""
    worst: tuple[Event, str, str, Event] | None = None
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, Component):
            continue
        stack.extend(item.items)
        if item.op != "SEQ":
            continue
        kids = []
        for ch in item.items:
            vs = [c.var for c in _comps(ch) if not c.negated]
            evs = [e for v in vs for e in b.get(v, [])]
            if evs:
                kids.append((evs, vs))
        for j in range(len(kids)):
            late = max(kids[j][0], key=lambda e: e.seq)
            for evs, vs in kids[j + 1:]:
                for e in evs:
                    if e.seq < late.seq and (worst is None or e.seq < worst[0].seq):
                        var_e = next(v for v in vs if e in b.get(v, []))
                        var_l = next(v for v in kids[j][1] if late in b.get(v, []))
                        worst = (e, var_e, var_l, late)
    if worst is None:
        return None
    e, ve, vl, late = worst
    return ({"kind": "order", "event": js(e.id), "var": ve,
             "values": {f"{ve}.seq": e.seq, f"{vl}.seq": late.seq},
             "text": f"event {e.id} (`{ve}`) comes before event {late.id} (`{vl}`), but SEQ puts `{vl}` before "
                     f"`{ve}`"}, e)


def _comps(item: Any) -> list[Component]:
    if isinstance(item, Component):
        return [item]
    return [c for i in item.items for c in _comps(i)]


def evaluate(pattern: Pattern, events: Sequence[Event], alt: Alternative, b: dict[str, list[Event]]) -> Outcome:
    """Check one assignment (every variable of ``alt`` bound) in the order of the stages."""
    kleene = {c.var for c in pattern.components() if c.kleene}
    t = _type_check(alt, b)
    if t is not None:
        return Outcome(alt, b, "type", t[0], _before(b, t[1].seq) if t[1] is not None else {})
    o = _order_check(alt.tree, b)
    if o is not None:
        return Outcome(alt, b, "order", o[0], _before(b, o[1].seq))
    seq_events = sorted((e for evs in b.values() for e in evs), key=lambda e: e.seq)
    var_of = {e.seq: v for v, evs in b.items() for e in evs}
    order: list[str] = []
    for e in seq_events:
        if var_of[e.seq] not in order:
            order.append(var_of[e.seq])
    naming = Naming(pattern, order, kleene)
    anchor = order[0]
    for stage, conjs in (("predicate", positive_conjuncts(pattern)),
                         ("equivalence", equivalence_conjuncts(pattern, anchor, kleene, order))):
        for chk in plan(conjs, b, kleene):
            pc = chk.evaluate(kleene)
            if pc.result:
                continue
            v = chk.var
            state = (naming.rest(v) if chk.edge in ("take", "proceed") else naming.start(v))
            reason = {"kind": stage, "event": js(chk.event.id), "var": v, "predicate": pc.text,
                      "values": {k: js(x) for k, x in pc.values.items()}, "edge": chk.edge, "state": state,
                      "bindings": {k: [js(e.id) for e in evs] for k, evs in chk.bindings.items() if evs},
                      "current": chk.current}
            vals = ", ".join(f"{k}={num(x)}" for k, x in pc.values.items())
            if chk.edge == "proceed":
                reason["text"] = (f"when `{v}[]` is complete (last event {chk.event.id}), {pc.text} is false"
                                  + (f" ({vals})" if vals else ""))
                furthest = _before(b, chk.event.seq, inclusive=True)
            else:
                reason["text"] = (f"adding event {chk.event.id} to `{v}` ({chk.edge} at {state}): {pc.text} is "
                                  "false" + (f" ({vals})" if vals else ""))
                furthest = _before(b, chk.event.seq)
            return Outcome(alt, b, stage, reason, furthest)
    w = pattern.window
    if w is not None:
        first = seq_events[0]
        for e in seq_events[1:]:
            if coord(pattern, e) - coord(pattern, first) >= w.size:
                c = coord_name(pattern)
                d = coord(pattern, e) - coord(pattern, first)
                reason = {"kind": "window", "event": js(e.id), "values": window_values(pattern, first, e),
                          "text": f"event {e.id} is outside the window: {c} {num(coord(pattern, e))} - "
                                  f"{num(coord(pattern, first))} = {num(d)} is not < {num(w.size)} "
                                  f"({window_text(pattern)}, first event {first.id})"}
                return Outcome(alt, b, "window", reason, _before(b, e.seq))
    for n in negations(pattern, alt, b, events, kleene, anchor):
        blk = n.blocker
        if blk is None:
            continue
        where = (f"between event {n.lo.id} and event {n.hi.id}" if n.hi is not None
                 else f"after event {n.lo.id}, inside the window")
        vals: dict[str, Any] = {}
        for p in blk.predicates:
            vals.update({k: js(x) for k, x in p.values.items()})
        reason = {"kind": "negation", "event": js(blk.event.id), "var": n.comp.var, "values": vals,
                  "predicates": [p.to_json() for p in blk.predicates],
                  "text": f"event {blk.event.id} ({blk.event.type}) lies {where} and qualifies for "
                          f"`!{n.comp.type} {n.comp.var}`" + (": " + "; ".join(p.text for p in blk.predicates)
                                                              if blk.predicates else "")}
        return Outcome(alt, b, "negation", reason, dict(b))
    return Outcome(alt, b, "engine", None, dict(b))


# --------------------------------------------------------------------------- assignments

def _seq_paths(tree: Any) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    stack: list[tuple[Any, list[tuple[int, int]]]] = [(tree, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, Component):
            out[item.var] = path
            continue
        for j, ch in enumerate(item.items):
            stack.append((ch, path + [(id(item), j)] if item.op == "SEQ" else path))
    return out


def assignments(pattern: Pattern, evs: list[Event], ordered: bool) -> Iterator[tuple[Alternative, dict]]:
    """Assignments of ``evs`` (stream order) to the positive components of each
    alternative, consistent with types and counts (and SEQ order when ``ordered``)."""
    budget = [MAX_SEARCH]
    for alt in alternatives(pattern):
        comps = alt.comps
        if len(evs) < len(comps):
            continue
        paths = _seq_paths(alt.tree)
        cpaths = [paths.get(c.var, []) for c in comps]
        counts = [0] * len(comps)
        chosen: list[int] = []
        maxused: dict[int, int] = {}

        def rec(t: int) -> Iterator[dict[str, list[Event]]]:
            budget[0] -= 1
            if budget[0] < 0:
                return
            if len(evs) - t < sum(1 for n in counts if n == 0):
                return
            if t == len(evs):
                b: dict[str, list[Event]] = {c.var: [] for c in comps}
                for e, ci in zip(evs, chosen):
                    b[comps[ci].var].append(e)
                yield b
                return
            e = evs[t]
            for ci, c in enumerate(comps):
                if not c.matches_type(e.type) or (not c.kleene and counts[ci]):
                    continue
                saved = None
                if ordered:
                    if any(j < maxused.get(g, 0) for g, j in cpaths[ci]):
                        continue
                    saved = [(g, maxused.get(g)) for g, _ in cpaths[ci]]
                    for g, j in cpaths[ci]:
                        maxused[g] = max(maxused.get(g, 0), j)
                counts[ci] += 1
                chosen.append(ci)
                yield from rec(t + 1)
                chosen.pop()
                counts[ci] -= 1
                if saved is not None:
                    for g, old in saved:
                        if old is None:
                            maxused.pop(g, None)
                        else:
                            maxused[g] = old

        for b in rec(0):
            yield alt, b


def _no_assignment(pattern: Pattern, evs: list[Event]) -> Outcome:
    alts = alternatives(pattern)
    for e in evs:
        if not any(c.matches_type(e.type) for a in alts for c in a.comps):
            comps = ", ".join(_comp_text(c) for c in pattern.positive)
            return Outcome(None, {}, "type", {"kind": "type", "event": js(e.id), "values": {"type": e.type},
                                              "text": f"event {e.id} has type {e.type}, which no positive component "
                                                      f"takes ({comps})"}, {})
    for a in alts:
        missing = [c for c in a.comps if not any(c.matches_type(e.type) for e in evs)]
        if missing and len(missing) < len(a.comps):
            c = missing[0]
            return Outcome(None, {}, "type", {"kind": "type", "event": None, "var": c.var, "values": {},
                                              "text": f"no event given for `{c.var}` (`{_comp_text(c)}`): a match "
                                                      "binds every component"}, {})
    comps = ", ".join(_comp_text(c) for c in pattern.positive)
    return Outcome(None, {}, "type", {"kind": "type", "event": None, "values": {"events": len(evs)},
                                      "text": f"the {len(evs)} events cannot be assigned to the components "
                                              f"({comps}) by type and count: a one-event component takes exactly "
                                              "one event, a `+` component at least one"}, {})


def _fixed_outcome(pattern: Pattern, events: Sequence[Event], fixed: dict[str, list[Event]]) -> Outcome:
    present = set(fixed)
    alts = alternatives(pattern)
    alt = next((a for a in alts if set(a.vars) == present), None)
    if alt is None:
        sup = sorted((a for a in alts if set(a.vars) >= present), key=lambda a: len(a.vars))
        if sup:
            miss = [c for c in sup[0].comps if c.var not in present]
            c = miss[0]
            return Outcome(None, fixed, "type", {"kind": "type", "event": None, "var": c.var, "values": {},
                                                 "text": f"no event given for `{c.var}` (`{_comp_text(c)}`): a match "
                                                         "binds every component"}, dict(fixed))
        return Outcome(None, fixed, "type", {"kind": "type", "event": None, "values": {},
                                             "text": f"no match binds all of {', '.join(f'`{v}`' for v in fixed)} "
                                                     "together (they are alternatives of an OR)"}, {})
    b = {c.var: list(fixed[c.var]) for c in alt.comps}
    return evaluate(pattern, events, alt, b)


# --------------------------------------------------------------------------- the answer

def explain_why_not(pattern: Pattern, events: Sequence[Event], spec: str, engine: str = "auto",
                    rates: Any = None, match_windows: str = "auto", run: Any = None) -> dict[str, Any]:
    """Do the events of ``spec`` form a match that ``cep run`` reports (for the same
    ``engine`` and ``match_windows`` mode)?

    ``spec`` is ``"1,2,3,6"`` (the variables are assigned in stream order, every
    assignment consistent with types and order is tried, the one that gets furthest is
    reported) or ``"a=1,2,3;b=6"`` (variables fixed). Returns ``{"verdict": "match",
    "index", "match", "start", "end", "steps"}`` or ``{"verdict": "no_match", "candidate",
    "furthest", "reason": {"kind", "text", "values", "event", ...}, "nearest"}``.
    ``run``: the engine's run already made (``engine.explain.common.engine_run`` for the same
    pattern, events, engine and mode), so that many questions on one run run it once."""
    events = list(events)
    fixed, evs = parse_spec(spec, pattern, events)
    if run is None:
        run = engine_run(pattern, events, engine, rates, match_windows)
    order = [c.var for c in pattern.positive]
    ids = {e.id for e in evs}
    for j, m in enumerate(run.matches, 1):
        d = m.as_dict()
        if fixed is not None:
            hit = all(d.get(v, []) == [e.id for e in fixed.get(v, [])] for v in order)
        else:
            got = [i for v in order for i in d.get(v, [])]
            hit = len(got) == len(ids) and set(got) == ids
        if hit:
            out = explain_found(pattern, events, m, j, run.name, run.matches)
            return out
    if fixed is not None:
        best = _fixed_outcome(pattern, events, fixed)
    else:
        best = None
        for ordered in (True, False):
            n = 0
            for alt, b in assignments(pattern, evs, ordered):
                o = evaluate(pattern, events, alt, b)
                if best is None or o.score > best.score:
                    best = o
                n += 1
                if n >= MAX_ASSIGNMENTS or best.stage == "engine":
                    break
            if best is not None:
                break
        if best is None:
            best = _no_assignment(pattern, evs)
    reason, furthest = best.reason, best.furthest
    if best.stage == "engine":
        var_order = [c.var for c in pattern.positive]
        reason, furthest = engine_reason(pattern, events, best.b, run, var_order)
    rest = {k: v for k, v in reason.items() if k not in ("kind", "text", "event", "values")}
    reason = {"kind": reason["kind"], "text": reason["text"], "event": reason.get("event"),
              "values": reason.get("values", {}), **rest}
    cand = best.b if best.b else (fixed or {})
    return {"verdict": "no_match", "engine": run.name, "events": [js(e.id) for e in evs],
            "candidate": {v: [js(e.id) for e in x] for v, x in cand.items()},
            "furthest": {v: [js(e.id) for e in x] for v, x in furthest.items() if x},
            "reason": reason, "nearest": _nearest(run.matches, ids)}


def _nearest(matches: Sequence[Match], ids: set[Any]) -> dict[str, Any] | None:
    best: tuple[int, int, Match] | None = None
    for j, m in enumerate(matches, 1):
        got = {i for _, x in m.bindings for i in x}
        n = len(got & ids)
        if n and (best is None or n > best[0]):
            best = (n, j, m)
    if best is None:
        return None
    n, j, m = best
    return {"index": j, "match": {v: [js(i) for i in x] for v, x in m.bindings}, "shared": n,
            "start": js(m.start), "end": js(m.end)}


__all__ = ["explain_why_not", "parse_spec", "evaluate", "assignments"]
