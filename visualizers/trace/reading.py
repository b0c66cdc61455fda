"""Reading a trace: its event steps and their labels, the matches found so far and their identities,
the states that hold live runs, the edges a step took, a match's path, and the trace as JSON Lines.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from engine.trace import Action, Step, event_label


MOVES = ("begin", "take", "proceed", "ignore")


def event_steps(steps: Sequence[Step]) -> list[Step]:
    """The steps of input events (without the close step)."""
    return [s for s in steps if s.step != "close"]


def step_label(steps: Sequence[Step], k: int) -> str:
    """``event #6 (id 6) · Stock at ts 6`` for ``steps[k]`` (named by its own position in
    the stream, ``Step.step``: a window of a trace names its steps as the whole trace does),
    or ``end of stream`` for the close step."""
    s = steps[k]
    if s.step == "close" or s.event is None:
        return "end of stream"
    e = s.event
    return f"{event_label(int(s.step), e.get('id'))} · {e.get('type')} at ts {_num(e.get('ts'))}"


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def is_match(m: Any) -> bool:
    """A match ``{"match": {var: [ids]}, ...}``, not an aggregate row ``{"ts", "event",
    "group", "value"}`` (AGG patterns under A-Seq)."""
    return isinstance(m, dict) and isinstance(m.get("match"), dict)


def step_matches(step: Step) -> list[dict[str, Any]]:
    """The matches a step completed (aggregate rows left out)."""
    return [m for m in step.matches if is_match(m)]


def step_rows(step: Step) -> list[dict[str, Any]]:
    """The aggregate rows a step emitted (AGG patterns)."""
    return [m for m in step.matches if not is_match(m)]


def match_key(m: dict[str, Any]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """A match's identity: its bindings in pattern order."""
    return tuple((v, tuple(ids)) for v, ids in m["match"].items())


def match_text(m: dict[str, Any]) -> str:
    """``a=1,2,3 b=6`` (variables that bound nothing left out)."""
    return " ".join(f"{v}={','.join(str(i) for i in ids)}" for v, ids in m["match"].items() if ids)


def match_ids(m: dict[str, Any]) -> list[Any]:
    return [i for ids in m["match"].values() for i in ids]


def matches_so_far(steps: Sequence[Step], k: int) -> list[tuple[int, dict[str, Any]]]:
    """``(step index, match)`` for every match completed at or before step ``k``."""
    out = []
    for j, s in enumerate(steps[: k + 1]):
        for m in step_matches(s):
            out.append((j, m))
    return out


def match_numbers(steps: Sequence[Step]) -> dict[Any, int]:
    """Match identity -> its 1-based number in ``cep run``'s output (the order the engine
    emits matches, which is the trace's order; ``cep explain --match K`` uses it)."""
    out: dict[Any, int] = {}
    for s in steps:
        for m in step_matches(s):
            out.setdefault(match_key(m), len(out) + 1)
    return out


def state_counts(step: Step) -> dict[str, int]:
    """Live runs (partial matches) per state after ``step`` (merged NFA^b runs count once)."""
    out: dict[str, int] = {}
    for r in step.runs:
        out[r.state] = out.get(r.state, 0) + 1
    return out


def step_edges(step: Step) -> list[tuple[str, str, str, int]]:
    """The moves of this step: ``(state, to, kind, how many runs)``, in first-seen order."""
    seen: dict[tuple[str, str, str], int] = {}
    for a in step.actions:
        if a.kind in MOVES and a.state and (a.to or a.kind == "ignore"):
            k = (a.state, a.to or a.state, a.kind)
            seen[k] = seen.get(k, 0) + 1
    return [(u, v, kind, n) for (u, v, kind), n in seen.items()]


def match_action(steps: Sequence[Step], m: dict[str, Any]) -> tuple[int, int, Action] | None:
    """``(step index, action index, action)`` of the ``match`` action that emitted ``m``."""
    key = match_key(m)
    for j, s in enumerate(steps):
        for i, a in enumerate(s.actions):
            if a.kind == "match":
                mm = (a.detail or {}).get("match")
                if isinstance(mm, dict) and "match" in mm and match_key(mm) == key:
                    return j, i, a
    return None


def match_path(steps: Sequence[Step], m: dict[str, Any], found: tuple[int, int, Action] | None = None
               ) -> list[Action]:
    """The moves (begin / take / proceed) that built match ``m``, oldest first.

    Walks back from the ``match`` action: actions of the tracked run count, and when the
    run was split from another (an NFA^b clone, a lazy partial match's parent), the parent
    is tracked from that point back. Only moves on the match's own events are kept (a
    proceed moves on the event the next state then begins with)."""
    found = found or match_action(steps, m)
    if found is None:
        return []
    j0, i0, act = found
    ids = set(match_ids(m))
    tracked = {str(act.run)} if act.run is not None else set()
    path: list[Action] = []
    for j in range(j0, -1, -1):
        acts = steps[j].actions
        start = i0 - 1 if j == j0 else len(acts) - 1
        for i in range(start, -1, -1):
            a = acts[i]
            d = a.detail or {}
            run = str(a.run) if a.run is not None else None
            if d.get("child") is not None and str(d["child"]) in tracked and run is not None:
                if a.kind in MOVES and a.event in ids:
                    path.append(a)
                tracked.add(run)
                continue
            if run in tracked:
                if a.kind in ("begin", "take", "proceed") and (a.event in ids or a.kind == "proceed"):
                    path.append(a)
                if d.get("clone_of"):
                    tracked.add(str(d["clone_of"]))
    path.reverse()
    if path and path[-1].kind == "proceed" and path[-1].to and act.state and path[-1].to != act.state:
        # NFA^b's peek: the proceed and the begin of the next state happen on one event (§4.5 step 6)
        last = path[-1]
        path.append(Action(kind="begin", run=last.run, state=last.to, edge="begin", to=act.state, event=last.event))
    return path


def live_event_ids(step: Step) -> set[Any]:
    """Every event bound by a live run after ``step``."""
    return {i for r in step.runs for ids in r.bindings.values() for i in ids}


def steps_to_json(steps: Sequence[Step]) -> str:
    """A trace as JSON Lines (the ``cep trace`` form), for download."""
    return "".join(json.dumps(s.to_json(), default=str) + "\n" for s in steps)
