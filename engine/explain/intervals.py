"""``cep explain`` on interval data (``--lower-col/--upper-col``): the verdict of the
interval engine ``cep run`` uses, never of a point engine.

A result on interval data is a signature with its range and confidence (docs/semantics.md,
"Imprecise timestamps"), not a match of point events: ``--match K`` shows the K-th
signature in ``cep run``'s order; ``--why-not SPEC`` says whether the given events are a
signature ``cep run`` prints (with its range and confidence), or that no possible world
makes them a match (confidence 0: their types, predicates, order, window or a spoiler rule
them out in every world). The run is guarded as ``cep run`` is (``engine.memory``).
"""
from __future__ import annotations

from typing import Any, Sequence

from engine.events import Event
from engine.model import Pattern
from engine.explain.common import ExplainError
from engine.explain.whynot import parse_spec

__all__ = ["interval_signatures", "explain_interval_match", "explain_interval_why_not", "format_interval_text"]


def interval_signatures(pattern: Pattern, events: Sequence[Event], engine: str = "auto",
                        u_max: int | None = None, pmf: str | None = None) -> tuple[str, list[Any]]:
    """(engine name, the signatures of ``cep run`` on interval data, in its order)."""
    from engine.match import EngineUnsupported, StateExplosion
    from engine.memory import RunStopped
    from engine.engines.planner import choose, make_matcher
    from engine.engines.uncertain.pmf import derived_u_max
    from engine.engines.uncertain.result import sort_uncertain

    try:
        info = choose(pattern, engine, interval=True)
    except EngineUnsupported as err:
        raise ExplainError(str(err)) from None
    try:
        um = u_max if u_max is not None else derived_u_max(events)
        m = make_matcher(pattern, info.name, interval=True, u_max=um, pmf=pmf)
        out: list[Any] = []
        for e in events:
            out.extend(m.feed(e))
        out.extend(m.close())
    except (StateExplosion, RunStopped) as err:
        raise ExplainError(f"stopped: {err}", status=1) from None
    except ValueError as err:
        raise ExplainError(f"stopped: {err}", status=1) from None
    return info.name, sort_uncertain(out)


def _signature_json(k: int, m: Any, engine: str) -> dict[str, Any]:
    from engine.engines.uncertain.result import exact_text

    return {"verdict": "match", "engine": engine, "index": k, "match": m.as_dict(),
            "range": [m.range[0], m.range[1]], "confidence": float(m.confidence),
            "confidence_exact": exact_text(m.confidence)}


def explain_interval_match(pattern: Pattern, events: Sequence[Event], k: int, engine: str = "auto",
                           u_max: int | None = None, pmf: str | None = None) -> dict[str, Any]:
    """The K-th signature (1-based) of ``cep run`` on interval data."""
    name, sigs = interval_signatures(pattern, events, engine, u_max, pmf)
    if not 1 <= k <= len(sigs):
        raise ExplainError(f"there is no signature {k}: `cep run` prints {len(sigs)} signature"
                           f"{'s' if len(sigs) != 1 else ''} on this data (engine {name})")
    return _signature_json(k, sigs[k - 1], name)


def explain_interval_why_not(pattern: Pattern, events: Sequence[Event], spec: str, engine: str = "auto",
                             u_max: int | None = None, pmf: str | None = None) -> dict[str, Any]:
    """Are the events of ``spec`` a signature ``cep run`` prints on interval data?"""
    events = list(events)
    fixed, evs = parse_spec(spec, pattern, events)
    name, sigs = interval_signatures(pattern, events, engine, u_max, pmf)
    order = [c.var for c in pattern.positive]
    ids = [e.id for e in evs]
    for k, m in enumerate(sigs, 1):
        d = m.as_dict()
        if fixed is not None:
            hit = all(d.get(v, []) == [e.id for e in fixed.get(v, [])] for v in order)
        else:
            got = [i for v in order for i in d.get(v, [])]
            hit = len(got) == len(ids) and set(got) == set(ids)
        if hit:
            return _signature_json(k, m, name)
    text = ("no possible world makes these events a match (confidence 0): their types or predicates do not "
            "fit the pattern in this order, or in every world their order, the window or an event in between "
            "(skip_till_next_match) rules them out")
    if len(ids) != len(order):
        text = (f"a signature binds one event to each of the {len(order)} components "
                f"({', '.join(order)}); {len(ids)} event{'s were' if len(ids) != 1 else ' was'} given")
    return {"verdict": "no_match", "engine": name, "events": list(ids),
            "candidate": {v: [e.id for e in x] for v, x in (fixed or {}).items()},
            "reason": {"kind": "interval", "text": text, "event": None, "values": {}}}


def format_interval_text(result: dict[str, Any]) -> str:
    """The text form of an interval verdict."""
    if result["verdict"] == "match":
        binds = " ".join(f"{v}={list(ids)}" for v, ids in result["match"].items())
        return (f"signature {result['index']} of `cep run` (engine {result['engine']}): {binds}\n"
                f"  range [{result['range'][0]}, {result['range'][1]}], confidence {result['confidence_exact']} "
                f"(~{result['confidence']:.4f})\n")
    return (f"no match (engine {result['engine']}): events {', '.join(map(str, result['events']))}\n"
            f"  reason: {result['reason']['text']}\n")
