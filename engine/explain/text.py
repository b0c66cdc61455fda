"""Either answer of ``cep explain`` as readable text."""
from __future__ import annotations

from typing import Any


def _ids(d: dict[str, list[Any]]) -> str:
    return " ".join(f"{v}=[{','.join(map(str, ids))}]" for v, ids in d.items()) or "(nothing)"


def _num(v: Any) -> str:
    if isinstance(v, float):
        if v.is_integer():
            return str(int(v))
        return f"{v:.6g}"
    return str(v)


def _pred(p: dict[str, Any]) -> str:
    mark = "✓" if p.get("result") else "✗"
    vals = ", ".join(f"{k}={_num(v)}" for k, v in p.get("values", {}).items())
    tag = " [equivalence]" if p.get("equivalence") else ""
    return f"{mark} {p['text']}{tag}" + (f"    ({vals})" if vals else "")


def _event(s: dict[str, Any]) -> str:
    """``event #812 (id 4711)`` (engine.trace.event_label), or ``event 4711`` without a position."""
    if s.get("position") is None:
        return f"event {s['event']}"
    from engine.trace import event_label

    return event_label(s["position"] - 1, s["event"])


def _step(s: dict[str, Any]) -> list[str]:
    kind = s["kind"]
    lines: list[str] = []
    if kind in ("begin", "take"):
        lines.append(f"{_event(s)} ({s['type']} @ {_num(s['ts'])}): {kind} at {s['state']} -> {s['to']}"
                     f" — {s['text']}")
    elif kind == "proceed":
        lines.append(f"proceed {s['state']} -> {s['to']}: {s['text']}")
    elif kind == "skip":
        f = f" [ignore: {s['formula']}]" if s.get("formula") else ""
        lines.append(f"{_event(s)} ({s['type']} @ {_num(s['ts'])}) skipped at {s['state']}{f}: {s['why']}")
    elif kind == "window":
        lines.append(f"window: {s['text']} {'✓' if s['result'] else '✗'}")
    elif kind == "negation":
        lines.append(f"negation {s['text']} {'✓' if s['result'] else '✗'}")
        for c in s.get("candidates", []):
            if c.get("failed"):
                lines.append(f"    {_event(c)} ({c['type']} @ {_num(c['ts'])}) does not qualify: "
                             + _pred(c["failed"]))
            else:
                lines.append(f"    {_event(c)} ({c['type']} @ {_num(c['ts'])}) qualifies")
    else:
        lines.append(f"{kind}: {s.get('text', '')}")
    for p in s.get("predicates", []) if kind != "negation" else []:
        lines.append("    " + _pred(p))
    return lines


def format_text(result: dict[str, Any]) -> str:
    """Readable multi-line text of an :func:`explain_match` or :func:`explain_why_not` result."""
    out: list[str] = []
    if result.get("verdict") == "match":
        out.append(f"match #{result['index']} (engine {result.get('engine', '?')}): {_ids(result['match'])}"
                   f"  ts {_num(result.get('start'))} .. {_num(result.get('end'))}")
        if result.get("match_window"):
            out.append(f"  match windows: {result['match_window']['text']}")
        for s in result.get("steps", []):
            out.extend("  " + line for line in _step(s))
        return "\n".join(out) + "\n"
    cand = result.get("candidate") or {}
    out.append(f"no match (engine {result.get('engine', '?')}): "
               + (_ids(cand) if cand else "events " + ",".join(map(str, result.get("events", [])))))
    r = result.get("reason") or {}
    out.append(f"  furthest partial run: {_ids(result.get('furthest') or {})}")
    out.append(f"  reason ({r.get('kind')}): {r.get('text', '')}")
    vals = r.get("values") or {}
    if vals:
        out.append("    values: " + ", ".join(f"{k}={_num(v)}" for k, v in vals.items()))
    if r.get("event") is not None:
        out.append(f"    event: {r['event']}")
    near = result.get("nearest")
    if near:
        out.append(f"  did you mean match #{near['index']}? {_ids(near['match'])} (shares {near['shared']} "
                   f"event{'s' if near['shared'] != 1 else ''})")
    return "\n".join(out) + "\n"


__all__ = ["format_text"]
