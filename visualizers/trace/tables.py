"""A step's tables: the live runs and their moves, the actions with their predicates, the events.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import pandas as pd

from engine.trace import Step
from visualizers.trace.reading import _num, event_steps, match_text


def runs_frame(step: Step, touched: dict[str, list[str]] | None = None,
               label: Callable[[Any], str] | None = None) -> pd.DataFrame:
    """The live runs after a step: run, state, bindings, start, version, members, and what
    each did on this step (``label`` names an event id in the moves, as ``run_moves``).
    Values are whole: a table shows them in wide columns, never cut here."""
    touched = touched if touched is not None else run_moves(step, label)
    rows = []
    for r in step.runs:
        rows.append({"run": r.id, "state": r.state, "this step": ", ".join(touched.get(r.id, [])),
                     "bindings": " ".join(f"{v}=[{', '.join(str(i) for i in ids)}]" for v, ids in r.bindings.items()),
                     "start": r.start, "version": r.version or "", "members": r.members})
    cols = ["run", "state", "this step", "bindings", "start", "version", "members"]
    df = pd.DataFrame(rows, columns=cols)
    if all(r.version in (None, r.id) for r in step.runs):
        df = df.drop(columns=["version"])  # NFA^b: the id is the version
    if all(r.members == 1 for r in step.runs):
        df = df.drop(columns=["members"])
    return df


def run_moves(step: Step, label: Callable[[Any], str] | None = None) -> dict[str, list[str]]:
    """run id -> ``take e4`` ... for the actions of this step (``label``: how an event id is
    named, ``e4`` without it)."""
    out: dict[str, list[str]] = {}
    for a in step.actions:
        if a.run is None:
            continue
        txt = a.kind + ((f" {label(a.event)}" if label else f" e{a.event}") if a.event is not None else "")
        if a.kind == "take" and (a.detail or {}).get("child") is not None:
            txt += f" → {a.detail['child']}"
        out.setdefault(str(a.run), []).append(txt)
    return out


def predicate_text(p: Any) -> str:
    vals = ", ".join(f"{k}={_num(v)}" for k, v in p.values.items())
    return f"{'✓' if p.result else '✗'} {p.text}" + (f"  [{vals}]" if vals else "")


def actions_frame(step: Step, label: Callable[[Any], str] | None = None) -> pd.DataFrame:
    """What the engine did on this step, one row per action, with every predicate it
    evaluated (✓/✗, text, operand values); ``label`` names the action's event (its id
    without it). Values are whole, never cut."""
    rows = []
    for a in step.actions:
        d = a.detail or {}
        extra = []
        for k in ("clone_of", "child", "into", "formula", "source", "candidates", "blocker", "var"):
            if d.get(k) is not None:
                extra.append(f"{k}={d[k]}")
        if a.kind == "match" and isinstance(d.get("match"), dict):
            extra.append(match_text(d["match"]))
        rows.append({"action": a.kind, "run": a.run or "", "state": a.state or "",
                     "to": a.to or "", "event": "" if a.event is None else (label(a.event) if label else str(a.event)),
                     "predicates": "\n".join(predicate_text(p) for p in a.predicates),
                     "why / detail": "; ".join(x for x in [a.reason or "", " ".join(extra)] if x)})
    return pd.DataFrame(rows, columns=["action", "run", "state", "to", "event", "predicates", "why / detail"])


def events_table(steps: Sequence[Step]) -> pd.DataFrame:
    """The traced events: step, id, type, ts, then the attributes."""
    rows = []
    for s in event_steps(steps):
        e = dict(s.event or {})
        r = {"step": s.step, "id": e.pop("id", None), "type": e.pop("type", None), "ts": e.pop("ts", None)}
        r.update(e)
        rows.append(r)
    return pd.DataFrame(rows)
