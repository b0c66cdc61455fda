"""The engine's side of "why not": every declarative condition holds (skip_till_any_match
would report the candidate), yet ``cep run`` does not print it. The reason is then one of

- ``guard``: the engine was stopped (state explosion, the oracle's size limit);
- ``selection``: ``WHERE earliest | maximal | earliest_maximal`` dropped it (match-windows
  §3.5): another match from the same start event binds every variable's first event no
  later (not earliest), or extends it by one event of a Kleene variable (not maximal);
- ``output``: OUTPUT NON_OVERLAP dropped it (the same pattern with OUTPUT ALL reports it),
  naming the reported match it overlaps;
- ``strategy`` / ``contiguity``: what NFA^b's own run did, read from its step trace
  (engine/trace.py): the furthest run whose bindings are a prefix of the candidate, and the
  action it took on the next event (skip_till_next_match took a relevant event it cannot
  ignore; strict / partition contiguity took or was ended by the next event).
"""
from __future__ import annotations

from typing import Any, Sequence

from engine.events import Event
from engine.match import Match
from engine.model import Pattern, Selection, Strategy
from engine.explain.common import ExplainError, engine_run, fmt_ids, js, match_dict, part_text, partitioner


def _flat_values(preds: Sequence[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in preds:
        out.update({k: js(v) for k, v in p.values.items()})
    return out


def engine_reason(pattern: Pattern, events: Sequence[Event], b: dict[str, list[Event]], run: Any,
                  order: list[str]) -> tuple[dict[str, Any], dict[str, list[Event]]]:
    """Every declarative condition holds, yet ``cep run`` does not print the candidate."""
    cand = match_dict(order, b)
    if run.error:
        return {"kind": "guard", "event": None, "values": {}, "text": f"the engine `{run.name}` was {run.error}; "
                "cep run prints no match"}, dict(b)
    if pattern.selection is not Selection.ALL:
        dropped = _selection_reason(pattern, events, run, cand)
        if dropped is not None:
            return dropped, dict(b)
    probe = pattern
    if pattern.output == "NON_OVERLAP":
        probe = pattern.model_copy(update={"output": "ALL"})
        try:
            every = engine_run(probe, events, run.engine, run.rates, run.match_windows)
        except ExplainError:
            every = engine_run(probe, events, "auto", None, run.match_windows)
        if any(m.as_dict() == cand for m in every.matches):
            return _overlap_reason(pattern, events, run.matches, b), dict(b)
    if pattern.strategy is not Strategy.ANY:
        return _trace_reason(probe, events, b, order)
    return {"kind": "strategy", "event": None, "values": {},
            "text": f"every condition of docs/semantics.md holds, but engine `{run.name}` does not report it"}, dict(b)


def _selection_reason(pattern: Pattern, events: Sequence[Event], run: Any, cand: dict[str, list[Any]]
                      ) -> dict[str, Any] | None:
    """Why the selection drops the candidate: a match of all matches from the same start
    event that binds every variable's first event no later (not earliest), or one that adds
    a single event to a Kleene variable (not maximal); None when neither is found."""
    every = engine_run(pattern.model_copy(update={"selection": Selection.ALL}), events, "auto", None, "off")
    if every.error:
        return None
    key = {v: list(ids) for v, ids in cand.items()}
    mine = next((m for m in every.matches if m.as_dict() == key), None)
    if mine is None:
        return None
    seq = {e.id: e.seq for e in events}
    group = [m for m in every.matches if m.start_seq == mine.start_seq and m.as_dict() != key]
    kleene = {c.var for c in pattern.positive if c.kleene}
    sel = pattern.selection.value
    start = next(i for _, ids in mine.bindings for i in ids if seq[i] == mine.start_seq)

    def firsts(m: Match) -> list[int]:
        return [min(seq[i] for i in ids) if ids else -1 for _, ids in m.bindings]

    def named(m: Match) -> str:
        j = next((n for n, r in enumerate(run.matches, 1) if r.bindings == m.bindings), None)
        return (f"match #{j} " if j else "the match ") + fmt_ids(m.as_dict())

    base = {"event": js(start), "values": {"selection": sel}}
    if sel in ("earliest", "earliest_maximal"):
        mf = firsts(mine)
        for m in group:
            f = firsts(m)
            if f != mf and all(a <= b for a, b in zip(f, mf)):
                return {**base, "kind": "selection", "by": {v: [js(i) for i in ids] for v, ids in m.bindings},
                        "text": f"WHERE {sel}: not earliest — {named(m)} starts at the same event {start} and binds "
                                f"the first event of every variable no later"}
    if sel in ("maximal", "earliest_maximal"):
        size = sum(len(ids) for ids in key.values())
        for m in group:
            d = m.as_dict()
            extra = [(v, i) for v in d for i in d[v] if i not in key.get(v, [])]
            if (sum(len(ids) for ids in d.values()) == size + 1 and len(extra) == 1 and extra[0][0] in kleene
                    and all(set(key.get(v, [])) <= set(d[v]) for v in d)):
                v, i = extra[0]
                return {**base, "kind": "selection", "by": {w: [js(x) for x in ids] for w, ids in m.bindings},
                        "text": f"WHERE {sel}: not maximal — {named(m)} adds event {i} to {v}[]"}
    return None


def _overlap_reason(pattern: Pattern, events: Sequence[Event], reported: Sequence[Match],
                    b: dict[str, list[Event]]) -> dict[str, Any]:
    """The reported match this one overlaps: the latest-ending one of its partition that
    completed no later than it and ended at or after its start (docs/semantics.md, Output)."""
    evs = sorted((e for v in b.values() for e in v), key=lambda e: e.seq)
    start, end = evs[0].seq, evs[-1].seq
    part = partitioner(pattern)
    by_seq = {e.seq: e for e in events}
    mine = part(evs[0]) if part else None
    blocker: tuple[int, Match] | None = None
    for j, m in enumerate(reported, 1):
        if m.end_seq > end or m.end_seq < start:
            continue
        if part is not None and m.start_seq in by_seq and part(by_seq[m.start_seq]) != mine:
            continue
        if blocker is None or m.end_seq > blocker[1].end_seq:
            blocker = (j, m)
    out: dict[str, Any] = {"kind": "output", "event": js(evs[0].id)}
    values: dict[str, Any] = {"start.seq": start}
    text = "OUTPUT NON_OVERLAP: it overlaps a match reported before it in its partition"
    if blocker is not None:
        j, m = blocker
        text = (f"OUTPUT NON_OVERLAP: match #{j} ({fmt_ids(m.as_dict())}) was reported first and ends at "
                f"stream position {m.end_seq}; this one starts at position {start} (event {evs[0].id}), "
                "not after it")
        values["previous.end_seq"] = m.end_seq
        out["blocked_by"] = {"index": j, "match": {v: [js(i) for i in ids] for v, ids in m.bindings}}
    out.update(values=values, text=text)
    return out


def _trace_reason(pattern: Pattern, events: Sequence[Event], b: dict[str, list[Event]], order: list[str]
                  ) -> tuple[dict[str, Any], dict[str, list[Event]]]:
    """Follow NFA^b's own step trace (merging off, so every run keeps its own bindings) from
    the candidate's first event: the furthest run whose bindings are a prefix of the
    candidate, and what it did on the next event."""
    from engine.match import StateExplosion
    from engine.engines.planner import EXPLAIN_ENGINE, make_matcher
    from engine.trace import Recorder

    target = sorted(((e, v) for v, evs in b.items() for e in evs), key=lambda t: t[0].seq)
    want = [(v, e.id) for e, v in target]
    cand_seqs = {e.seq for e, _ in target}
    by_seq = sorted(events, key=lambda e: e.seq)
    lo = next(n for n, e in enumerate(by_seq) if e.seq == target[0][0].seq)
    hi = next(n for n, e in enumerate(by_seq) if e.seq == target[-1][0].seq)
    window = by_seq[lo:hi + 1]
    seq_of = {e.id: e.seq for e in window}
    strat = pattern.strategy
    rec = Recorder()
    try:
        m = make_matcher(pattern, EXPLAIN_ENGINE, tracer=rec, merge=False)
    except Exception as err:  # noqa: BLE001
        return _generic(pattern, b, f"(no trace: {err})"), dict(b)
    history: list[tuple[dict[str, int], list[Any]]] = []
    try:
        # the events before the candidate without a tracer: runs keep the numbers `cep trace` gives them
        m.tracer = None
        for x in by_seq[:lo]:
            m.feed(x)
        m.tracer = rec
        for n, x in enumerate(window):
            m.feed(x)
            acts = rec.take_actions()
            runs, _ = m.trace_state()
            pref: dict[str, int] = {}
            for r in runs:
                seq = sorted(((seq_of.get(i, -1), v, i) for v, ids in r.bindings.items() for i in ids))
                got = [(v, i) for _, v, i in seq]
                if got and got == want[:len(got)]:
                    pref[r.id] = len(got)
            history.append((pref, acts))
            if not pref and n > 0 and any(h[0] for h in history):
                break
    except StateExplosion as err:  # the engine itself ran (merging on); following its runs unmerged did not
        return _generic(pattern, b, f"(following the runs one by one, without merging, stopped: {err})"), dict(b)
    best = max((k for pref, _ in history for k in pref.values()), default=0)
    furthest = _prefix(b, target, best)
    if best == 0:
        return _generic(pattern, b, f"no run starts at event {target[0][0].id}"), {}
    t_star = max(t for t, (pref, _) in enumerate(history) if best in pref.values())
    runs = [r for r, k in history[t_star][0].items() if k == best]
    if t_star + 1 >= len(history):
        return _generic(pattern, b, f"run {runs[0]} bound {fmt_ids(_ids(furthest))} and then waited"), furthest
    x = window[t_star + 1]
    acts = history[t_star + 1][1]
    nxt = target[best][0] if best < len(target) else None
    prefix_txt = fmt_ids(_ids(furthest))
    for r in runs:
        for a in acts:
            if a.run != r or a.kind not in ("take", "begin", "proceed", "discard", "expire"):
                continue
            state = a.state
            vals = _flat_values(a.predicates)
            base = {"event": js(x.id), "run": r, "state": state, "values": vals,
                    "predicates": [p.to_json() for p in a.predicates]}
            goal = f"event {nxt.id}" if nxt is not None else "the end of the candidate"
            if a.kind == "expire":
                return {**base, "kind": "window", "text": f"run {r} ({prefix_txt}) left the window at event "
                                                          f"{x.id}"}, furthest
            if a.kind == "discard":
                kind = "contiguity" if strat in (Strategy.STRICT, Strategy.PARTITION) else "strategy"
                return {**base, "kind": kind, "text": f"{strat.value}: run {r} ({prefix_txt}) ended at event {x.id}"
                                                      f": {a.reason}"}, furthest
            if x.seq in cand_seqs:
                what = {"take": "took it into", "begin": "bound it to", "proceed": "proceeded with it to"}[a.kind]
                return {**base, "kind": "strategy",
                        "text": f"{strat.value}: run {r} ({prefix_txt}) {what} {a.to or state} instead of binding "
                                f"event {x.id} as the candidate does"}, furthest
            moved = "took it" if a.kind in ("take", "begin") else f"moved on with it to {a.to}"
            if strat is Strategy.NEXT:
                edge = "take" if a.kind == "take" else "begin"
                text = (f"skip_till_next_match: run {r} had bound {prefix_txt}; event {x.id} satisfies the "
                        f"{edge} formula at {state}, so the run {moved} (ignore = ¬{edge} is false) and cannot "
                        f"skip it to reach {goal}")
                return {**base, "kind": "strategy", "text": text}, furthest
            scope = "stream" if strat is Strategy.STRICT else "partition"
            part = partitioner(pattern)
            where = f" ({part_text(part, x)})" if part is not None and strat is Strategy.PARTITION else ""
            text = (f"{strat.value}: event {x.id}{where} is the next event of the {scope} after run {r} bound "
                    f"{prefix_txt}; the run {moved}, so {goal} cannot be the next selected event")
            return {**base, "kind": "contiguity", "text": text}, furthest
    return _generic(pattern, b, f"run {runs[0]} ({prefix_txt}) was dropped at event {x.id}"), furthest


def _prefix(b: dict[str, list[Event]], target: list[tuple[Event, str]], k: int) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e, v in target[:k]:
        out.setdefault(v, []).append(e)
    return out


def _ids(b: dict[str, list[Event]]) -> dict[str, list[Any]]:
    return {v: [e.id for e in evs] for v, evs in b.items()}


def _generic(pattern: Pattern, b: dict[str, list[Event]], detail: str) -> dict[str, Any]:
    kind = "contiguity" if pattern.strategy in (Strategy.STRICT, Strategy.PARTITION) else "strategy"
    return {"kind": kind, "event": None, "values": {},
            "text": f"{pattern.strategy.value}: every declarative condition holds, but the engine's run does not "
                    f"select these events: {detail}"}
