"""Why did this match fire: the K-th match of ``cep run``, step by step along its NFA^b
run (SASE+ §4): each event it binds with the edge and state, every
predicate with its operand values, the events the run skipped and the ignore formula
that skipped them, the window, each negation, and the final state F."""
from __future__ import annotations

from typing import Any, Sequence

from engine.events import Event
from engine.match import Match
from engine.model import Pattern
from engine.explain.checks import (
    Check,
    coord,
    coord_name,
    equivalence_conjuncts,
    negations,
    plan,
    positive_conjuncts,
    pred_json,
    skip_reason,
    window_ok,
    window_text,
    window_values,
)
from engine.explain.common import Alternative, ExplainError, Naming, alternatives, engine_run, fmt_ids, js, num, partitioner


def explain_match(pattern: Pattern, events: Sequence[Event], k: int, engine: str = "auto", rates: Any = None,
                  match_windows: str = "auto", ran: Any = None) -> dict[str, Any]:
    """The ``k``-th match (1-based, in ``cep run``'s printed order for the same ``engine``
    and ``match_windows`` mode, ``engine.run_choice``) explained step by step.

    ``ran``: the run already made (an ``engine.checkpoints.CheckpointedRun`` of this pattern
    over these events, as the Debug page holds it): its matches are read instead of running
    the engine again.

    Returns ``{"verdict": "match", "index": k, "engine", "match": {var: [ids]}, "start",
    "end", "steps": [...]}`` (docs/trace.md, "cep explain", lists the step fields).
    An out-of-range ``k`` raises :class:`ExplainError` naming how many matches there are."""
    events = events if isinstance(events, list) else list(events)
    if ran is not None and pattern.aggregate is None:  # an AGG run's rows are not the matches explained
        name, inner, n = ran.choice.engine, ran.choice.inner, len(ran.matches)
        found = ran.matches[k - 1].raw if isinstance(k, int) and 1 <= k <= n else None
    else:
        run = engine_run(pattern, events, engine, rates, match_windows)
        if run.error:
            raise ExplainError(run.error, status=1)
        name, inner, n = run.name, run.inner, len(run.matches)
        found = run.matches[k - 1] if isinstance(k, int) and 1 <= k <= n else None
    if found is None:
        what = "no matches" if n == 0 else f"{n} match{'es' if n != 1 else ''} (1..{n})"
        raise ExplainError(f"there is no match #{k}: engine `{name}` reports {what}")
    out = explain_found(pattern, events, found, k, name)
    if inner is not None:
        out["match_window"] = match_window(pattern, events, found, inner)
    return out


def match_window(pattern: Pattern, events: Sequence[Event], m: Match, inner: str) -> dict[str, Any]:
    """Where a match-windows run found ``m``: in the match window of its first event, of
    that event's partition key (Def. 6), which passed the necessary conditions, so the
    matcher A was called on it (Algorithm 1; ``cep trace`` shows every window's verdict)."""
    from engine.engines.windows.analysis import analyse

    first = next(e for e in events if e.seq == m.start_seq)
    plan = analyse(pattern)
    key: dict[str, Any] = {}
    if plan.key is not None:
        vals = plan.key.of(first) or ()
        key = {c: js(v) for c, v in zip(plan.key.columns(), vals)}
    lo = coord(pattern, first)
    hi = lo + pattern.window.size if pattern.window is not None else None
    c = coord_name(pattern)
    where = ", ".join(f"{k}={v}" for k, v in key.items()) or "one window for all events"
    text = (f"the match lies in the match window of its first event {first.id} ({where}; {c} in "
            f"[{_exact(lo)}, {_exact(hi)}), {window_text(pattern)}); the window passed the necessary match conditions, "
            f"so the matcher A = {inner} was called on it and reported this match")
    return {"first": js(first.id), "key": key, "from": js(lo), "until": js(hi), "matcher": inner, "text": text}


def explain_found(pattern: Pattern, events: Sequence[Event], m: Match, k: int, engine_name: str,
                  reported: Sequence[Match] = ()) -> dict[str, Any]:
    by_id = {e.id: e for e in events}
    b = {v: [by_id[i] for i in ids] for v, ids in m.bindings if ids}
    steps = steps_for(pattern, events, b, reported=reported, match=m)
    return {"verdict": "match", "index": k, "engine": engine_name,
            "match": {v: [js(i) for i in ids] for v, ids in m.bindings},
            "start": js(m.start), "end": js(m.end), "steps": steps}


def find_alternative(pattern: Pattern, present: set[str]) -> Alternative | None:
    for alt in alternatives(pattern):
        if set(alt.vars) == present:
            return alt
    return None


def steps_for(pattern: Pattern, events: Sequence[Event], b: dict[str, list[Event]],
              reported: Sequence[Match] = (), match: Match | None = None) -> list[dict[str, Any]]:
    """The steps of a run that binds ``b`` (a match: every condition holds)."""
    kleene = {c.var for c in pattern.components() if c.kleene}
    seq_events = sorted((e for evs in b.values() for e in evs), key=lambda e: e.seq)
    var_of = {e.seq: v for v, evs in b.items() for e in evs}
    order: list[str] = []
    for e in seq_events:
        if var_of[e.seq] not in order:
            order.append(var_of[e.seq])
    naming = Naming(pattern, order, kleene)
    anchor = order[0] if order else None
    conjs = positive_conjuncts(pattern) + equivalence_conjuncts(pattern, anchor, kleene, order)
    checks = plan(conjs, b, kleene)
    at: dict[tuple[int, bool], list[Check]] = {}
    for c in checks:
        at.setdefault((c.event.seq, c.edge == "proceed"), []).append(c)
    part = partitioner(pattern)
    by_seq = sorted(events, key=lambda e: e.seq)
    pos = {e.seq: n for n, e in enumerate(by_seq)}
    steps: list[dict[str, Any]] = []
    prefix: dict[str, list[Event]] = {}
    prev: Event | None = None

    def preds(key: tuple[int, bool]) -> list[dict[str, Any]]:
        return [pred_json(c.evaluate(kleene), c) for c in at.get(key, [])]

    def proceed_step(u: str, p: Event, peek: Event | None) -> dict[str, Any]:
        to = naming.after(u) if peek is None else naming.start(var_of[peek.seq])
        ev = peek if peek is not None else p
        s = {"kind": "proceed", "event": js(ev.id), "position": ev.seq + 1, "type": ev.type, "ts": js(ev.ts), "var": u,
             "state": naming.rest(u), "edge": "proceed", "to": to, "predicates": preds((p.seq, True))}
        s["text"] = (f"{u}[] is complete ({len(b[u])} event{'s' if len(b[u]) != 1 else ''}); proceed from "
                     f"{naming.rest(u)} to {to}" + (f", peeking at event {peek.id}" if peek is not None else ""))
        return s

    for x in seq_events:
        v = var_of[x.seq]
        if prev is not None:
            u = var_of[prev.seq]
            # a Kleene run waits at u[i] (take / ignore / proceed); otherwise at the next start state
            wait_var, at_rest = (u, True) if u in kleene else (v, False)
            for y in by_seq[pos[prev.seq] + 1: pos[x.seq]]:
                steps.append(skip_reason(pattern, y, wait_var, at_rest, prefix, conjs, kleene, naming, part,
                                         seq_events[0]))
            if u in kleene and v != u and prev is b[u][-1]:
                steps.append(proceed_step(u, prev, x))
        first_of_var = x is b[v][0]
        if first_of_var:
            state, edge = naming.start(v), "begin"
            to = naming.rest(v) if v in kleene else naming.after(v)
        else:
            state, edge, to = naming.rest(v), "take", naming.rest(v)
        prefix.setdefault(v, []).append(x)
        ps = preds((x.seq, False))
        step = {"kind": edge, "event": js(x.id), "position": x.seq + 1, "type": x.type, "ts": js(x.ts), "var": v,
                "state": state,
                "edge": edge, "to": to, "predicates": ps}
        if prev is None:
            step["text"] = f"event {x.id} starts a run at {state} ({edge} -> {to})"
        elif edge == "begin":
            step["text"] = f"event {x.id} is bound to {v}: {edge} at {state} -> {to}"
        else:
            step["text"] = f"event {x.id} is taken into {v}[] at {state} (element {len(prefix[v])})"
        steps.append(step)
        prev = x
    if prev is not None:
        u = var_of[prev.seq]
        if u in kleene:
            steps.append(proceed_step(u, prev, None))
    first, last = seq_events[0], seq_events[-1]
    if pattern.window is not None:
        ok = window_ok(pattern, first, last)
        c = coord_name(pattern)
        d = coord(pattern, last) - coord(pattern, first)
        steps.append({"kind": "window", "event": js(last.id), "first": js(first.id), "last": js(last.id),
                      "values": window_values(pattern, first, last), "result": ok,
                      "text": f"last.{c} - first.{c} = {num(coord(pattern, last))} - {num(coord(pattern, first))} = "
                              f"{num(d)} {'<' if ok else '>='} {num(pattern.window.size)} ({window_text(pattern)})"})
    alt = find_alternative(pattern, set(order))
    if alt is not None:
        for n in negations(pattern, alt, b, events, kleene, anchor):
            steps.append(negation_step(pattern, n))
    steps.append({"kind": "match", "state": naming.final, "event": js(last.id),
                  "text": f"the run reaches {naming.final}: match {fmt_ids({v: [e.id for e in b[v]] for v in order})}"})
    if pattern.output == "NON_OVERLAP" and match is not None:
        steps.append(_output_step())
    return steps


def _exact(v: Any) -> str:
    """A bound to 12 significant digits (``34200.009``, not ``34200``)."""
    v = js(v)
    return f"{v:.12g}" if isinstance(v, float) else str(v)


def negation_step(pattern: Pattern, n: Any) -> dict[str, Any]:
    blk = n.blocker
    where = (f"between event {n.lo.id} and event {n.hi.id}" if n.hi is not None
             else f"after event {n.lo.id} until the window closes")
    cands = []
    for c in n.candidates:
        seq = getattr(c.event, "seq", None)
        d: dict[str, Any] = {"event": js(c.event.id), **({} if seq is None else {"position": seq + 1}),
                             "type": c.event.type, "ts": js(c.event.ts),
                             "qualifies": c.qualifies}
        if c.failed is not None:
            d["failed"] = c.failed.to_json()
        else:
            d["predicates"] = [p.to_json() for p in c.predicates]
        cands.append(d)
    if blk is not None:
        text = f"!{n.comp.var}: event {blk.event.id} ({n.comp.type}) {where} qualifies, so no match"
    elif not cands:
        text = f"!{n.comp.var}: no {n.comp.type} event {where}"
    else:
        text = (f"!{n.comp.var}: {len(cands)} {n.comp.type} event{'s' if len(cands) != 1 else ''} {where}, "
                "none qualifies: " + "; ".join(f"event {c['event']} fails {c['failed']['text']}" for c in cands
                                              if "failed" in c))
    return {"kind": "negation", "var": n.comp.var, "neg_type": n.comp.type, "event": js(blk.event.id) if blk else None,
            "between": [js(n.lo.id), js(n.hi.id) if n.hi is not None else None], "candidates": cands,
            "result": blk is None, "text": text}


def _output_step() -> dict[str, Any]:
    return {"kind": "output", "state": "F", "result": True,
            "text": "OUTPUT NON_OVERLAP: kept, because it starts after the previous reported match of its "
                    "partition ended"}


__all__ = ["explain_match", "explain_found", "steps_for", "negation_step"]
