"""The step trace (``engine.trace``) as pictures and tables for the Debug page.

Pure functions from a trace (``list[engine.trace.Step]``) to pandas frames and plotly
figures; no streamlit here. What each view shows:

* :func:`debug_graph` + :func:`live_automaton_figure`: the automaton as the Automaton page
  draws it (``visualizers.automaton``), with the states that hold live runs ringed and
  labelled with their run count, the edges taken on this step drawn over it, and a chosen
  match's path (SASE+ §4.4: a run is its sequence of begin/take/proceed moves).
* :func:`shared_buffer_figure`: NFA^b's shared versioned buffer after a step as the SASE+
  paper's buffer figure (§5.1, papers/sase-nfab.md §4.9, §6.5): one column per stack (state),
  entries in time order, predecessor pointers labelled with their Dewey versions; a match's
  retrieval path follows the pointers whose label is a prefix of its version.
* :func:`lazy_buffer_figure`: the lazy engines' per-variable input buffers, columns in the
  evaluation order (Kolchinsky & Schuster: ascending frequency), with the events this step
  stored or searched marked.
* :func:`cursor_timeline_figure`: the events over time with a cursor at the current event,
  the future faded, a chosen match's events marked and joined.

The trace names states as the Automaton page does (``a[1]``, ``a[i]``, ``b``, ``F`` for
NFA^b; ``q1``, ``q2`` for the lazy chain; ``q[c,b]`` for the tree; ``q{a,b}`` for eager), so
the overlays are placed with :func:`visualizers.automaton.layout`.
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Sequence

import networkx as nx
import pandas as pd
import plotly.graph_objects as go

from engine.model import Pattern
from engine.trace import Action, Step
from visualizers.automaton import (DX, R, AutomatonUnavailable, automaton_figure, automaton_graph,
                                   layout)
from visualizers.escape import plotly as plotly_text
from visualizers.timeline import PALETTE

LIVE = "#e67e22"       # live states and this step's edges
PATH = "#f1c40f"       # the chosen match's path
ADDED = "#abebc6"      # buffer entries written on this step
REMOVED = "#d5d8dc"    # buffer entries pruned on this step
MOVES = ("begin", "take", "proceed", "ignore")



# --------------------------------------------------------------------------- fast figures

class _Fig:
    """A figure built as plain plotly JSON and wrapped without re-validation.

    Building ``go.Figure`` / ``go.Scatter`` objects validates every property, which costs
    more than everything else a step draws (tens of ms per figure); the Debug page draws
    three figures per step while playing. These figures are checked against plotly's
    schema in the tests instead (``go.Figure(fig.to_dict())``)."""

    def __init__(self, base: dict[str, Any] | None = None) -> None:
        base = base or {}
        self.data: list[dict[str, Any]] = list(base.get("data", []))
        self.layout: dict[str, Any] = dict(base.get("layout", {}))

    def add_trace(self, trace: dict[str, Any]) -> None:
        self.data.append(trace)

    def update_layout(self, **kw: Any) -> None:
        for k, v in kw.items():
            if isinstance(v, dict) and isinstance(self.layout.get(k), dict):
                self.layout[k] = {**self.layout[k], **v}
            else:
                self.layout[k] = v

    def figure(self) -> go.Figure:
        # no plotly template: Streamlit themes the chart, and plotly's default template is
        # ~7 KB of JSON sent with every step
        d = {"data": self.data, "layout": {**self.layout, "template": {"layout": {}}}}
        try:
            return go.Figure(d, _validate=False)
        except TypeError:  # pragma: no cover - a plotly without the switch
            return go.Figure(d)


def _sc(**kw: Any) -> dict[str, Any]:
    """A scatter trace as JSON."""
    return {"type": "scatter", **kw}


_BASES: dict[tuple[int, str, int | None], dict[str, Any]] = {}


def automaton_base(g: nx.MultiDiGraph, labels: str = "short", height: int | None = None) -> dict[str, Any]:
    """``automaton_figure(g)`` as JSON, computed once per graph (the step overlays go on a copy)."""
    key = (id(g), labels, height)
    got = _BASES.get(key)
    if got is None or got.get("_graph") is not g:
        got = automaton_figure(g, labels=labels, height=height).to_dict()
        got["_graph"] = g
        if len(_BASES) > 16:
            _BASES.clear()
        _BASES[key] = got
    return got


# --------------------------------------------------------------------------- reading the trace

def event_steps(steps: Sequence[Step]) -> list[Step]:
    """The steps of input events (without the close step)."""
    return [s for s in steps if s.step != "close"]


def step_label(steps: Sequence[Step], k: int) -> str:
    """``event 6 · Stock at ts 6 (step 6 of 8)`` or ``close: end of stream``."""
    s = steps[k]
    n = len(event_steps(steps))
    if s.step == "close" or s.event is None:
        return "close: end of stream"
    e = s.event
    return f"event {e.get('id')} · {e.get('type')} at ts {_num(e.get('ts'))} (step {k + 1} of {n})"


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


# --------------------------------------------------------------------------- tables

def runs_frame(step: Step, touched: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """The live runs after a step: run, state, bindings, start, version, members, and what
    each did on this step."""
    touched = touched if touched is not None else run_moves(step)
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


def run_moves(step: Step) -> dict[str, list[str]]:
    """run id -> ``take e4`` ... for the actions of this step."""
    out: dict[str, list[str]] = {}
    for a in step.actions:
        if a.run is None:
            continue
        txt = a.kind + (f" e{a.event}" if a.event is not None else "")
        if a.kind == "take" and (a.detail or {}).get("child") is not None:
            txt += f" → {a.detail['child']}"
        out.setdefault(str(a.run), []).append(txt)
    return out


def predicate_text(p: Any) -> str:
    vals = ", ".join(f"{k}={_num(v)}" for k, v in p.values.items())
    return f"{'✓' if p.result else '✗'} {p.text}" + (f"  [{vals}]" if vals else "")


def actions_frame(step: Step) -> pd.DataFrame:
    """What the engine did on this step, one row per action, with every predicate it
    evaluated (✓/✗, text, operand values)."""
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
                     "to": a.to or "", "event": "" if a.event is None else str(a.event),
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


# --------------------------------------------------------------------------- the automaton

def trace_engine_order(steps: Sequence[Step]) -> list[list[str]] | None:
    """The lazy chain's evaluation order (per clause) as the trace reports it."""
    for s in steps:
        o = (s.buffer or {}).get("order")
        if o:
            return [list(x) for x in o]
    return None


def _styled(g: nx.MultiDiGraph, engine: str) -> nx.MultiDiGraph:
    """Lazy graphs drawn with the Automaton page's conventions (``kind`` = drawing style)."""
    for _u, _v, d in g.edges(data=True):
        d["move"] = d["kind"]
        d["kind"] = d.get("style", d["kind"])
        d.setdefault("shown", d.get("formula", ""))
    g.graph["engine"] = engine
    return g


def debug_graph(pattern: Pattern, engine: str, steps: Sequence[Step] = ()) -> nx.MultiDiGraph:
    """The automaton the trace's states refer to, drawn as on the Automaton page
    (``visualizers.automaton.automaton_graph``): NFA^b; the lazy chain in the evaluation
    order the trace used; the lazy tree; the eager NFA's bound-set lattice. When the drawn
    automaton does not name every state the trace visits (or the engine has no drawing, the
    oracle), the states and moves of the trace itself (:func:`trace_graph`)."""
    candidates = []
    if engine == "lazy-chain":
        candidates.append(lambda: _chain_in_trace_order(pattern, steps))
    candidates.append(lambda: automaton_graph(pattern, engine))
    if engine == "lazy-tree":
        def tree() -> nx.MultiDiGraph:
            from engine.automata.tree import compile_tree, tree_graph

            return _styled(tree_graph(compile_tree(pattern)), "lazy-tree")
        candidates.append(tree)
    for make in candidates:
        try:
            g = make()
        except (AutomatonUnavailable, ValueError, KeyError):
            continue
        if engine == "nfab" or _covers(g, steps, {c.var for c in pattern.positive}):
            return g
    return trace_graph(steps, engine)


def has_moves(g: nx.MultiDiGraph | None) -> bool:
    """Whether a graph has moves to draw (A-Seq's trace has prefix counters, no automaton)."""
    return g is not None and g.number_of_edges() > 0


def _chain_in_trace_order(pattern: Pattern, steps: Sequence[Step]) -> nx.MultiDiGraph:
    """The Automaton page's lazy chain, compiled in the evaluation order the trace reports
    (the page draws the chain in pattern order while the rates are unknown)."""
    from engine.automata.chain import compile_chain
    from visualizers import automaton as A

    base = automaton_graph(pattern, "lazy-chain")
    order = trace_engine_order(steps)
    if not order or len(order) != 1 or [list(o) for o in base.graph.get("orders", [])] == order:
        return base
    g = compile_chain(pattern, order=order[0]).to_networkx()
    style = getattr(A, "_style", None)
    g = style(g, "lazy-chain", pattern) if style is not None else _styled(g, "lazy-chain")
    for k, v in base.graph.items():
        if k not in ("orders", "positions", "labels_drawn"):
            g.graph.setdefault(k, v)
    g.graph["engine"] = "lazy-chain"
    for _u, _v, d in g.edges(data=True):
        d.setdefault("formula", d.get("label", ""))
        d.setdefault("formula_optimised", d["formula"])
        d["shown"] = d["formula"]
    return g


def _states_in(steps: Sequence[Step]) -> set[str]:
    out: set[str] = set()
    for s in steps:
        for r in s.runs:
            out.add(r.state)
        for a in s.actions:
            if a.kind in MOVES and a.state:
                out.add(a.state)
    return out


def _bound_set(name: str) -> set[str] | None:
    """``{a, b}`` of a lazy/eager state name ``q{a,b}``, ``q[b,a]`` or ``c1:q{a}``."""
    core = name.split(":")[-1]
    if len(core) >= 3 and core[0] == "q" and core[1] in "[{" and core[-1] in "]}":
        return {v for v in core[2:-1].split(",") if v}
    return None


def _covers(g: nx.MultiDiGraph, steps: Sequence[Step], positive: set[str] | None = None) -> bool:
    """Every state the trace visits is drawn on ``g`` (a state binding every positive
    variable counts as F: a Kleene variable last keeps its complete runs alive there)."""
    for n in _states_in(steps):
        if n in g:
            continue
        bound = _bound_set(n)
        if positive and bound is not None and bound >= positive and "F" in g:
            continue
        return False
    return True


def resolve_state(g: nx.MultiDiGraph, name: str | None) -> str | None:
    """A trace state name on graph ``g``: itself, or ``F`` for a complete binding the graph
    draws as F (the lazy tree's last take goes to ``q[b,c,a]``, drawn as F)."""
    if name is None:
        return None
    if name in g:
        return name
    if "F" in g:  # a complete binding the graph draws as F (``q4`` of a 3-state chain, ``q[b,c,a]``)
        return "F"
    return None


def trace_graph(steps: Sequence[Step], engine: str = "") -> nx.MultiDiGraph:
    """States and moves as the trace shows them, for engines without a drawn automaton
    (the eager NFA's bound sets ``q{}`` → ``q{a}`` → ``q{a,b}`` → F): column = depth from
    the initial state, one row per state of that depth. A state no run ever stays in and
    that leads nowhere (a complete binding) is drawn as F."""
    live: set[str] = set()
    moves: dict[tuple[str, str, str], int] = {}
    for s in steps:
        for r in s.runs:
            live.add(r.state)
        for a in s.actions:
            if a.kind in ("begin", "take", "proceed") and a.state and a.to:
                moves[(a.state, a.to, a.kind)] = 1
    outs = {u for (u, v, _k) in moves if u != v}
    complete = {v for (_u, v, _k) in moves if v not in live and v not in outs}
    g = nx.MultiDiGraph(engine=engine, strategy="", partition=[], alternatives=1)
    for n in live:
        g.add_node(n)
    g.add_node("F")
    for (u, v, kind) in moves:
        v2 = "F" if v in complete else v
        u2 = "F" if u in complete else u
        if not g.has_edge(u2, v2, key=kind):
            g.add_edge(u2, v2, key=kind, kind=kind, formula=kind, formula_optimised=kind, shown="")
    dag = nx.DiGraph([(u, v) for u, v in g.edges() if u != v])
    dag.add_nodes_from(g.nodes)
    depth = {n: 0 for n in g.nodes}
    if nx.is_directed_acyclic_graph(dag):
        for n in nx.topological_sort(dag):
            for v in dag.successors(n):
                depth[v] = max(depth[v], depth[n] + 1)
    depth["F"] = max([d for n, d in depth.items() if n != "F"], default=0) + 1
    rows: dict[int, int] = {}
    for n in sorted(g.nodes, key=lambda x: (depth[x], x)):
        d = depth[n]
        row = rows.get(d, 0)
        rows[d] = row + 1
        g.nodes[n].update(kind="final" if n == "F" else ("kleene_rest" if g.has_edge(n, n) else "singleton"),
                          label=n, order=d, alternative=row, start=d == 0 and n != "F", var=None, type=None)
    g.graph["rows"] = max(rows.values(), default=1)  # not SEQ alternatives: no "alternative k" labels
    return g


def _loop_xy(x: float, y: float, kind: str) -> tuple[list[float], list[float]]:
    """The self-loop of ``automaton_figure``: take above, ignore (and store) below."""
    from visualizers.automaton import _bezier

    s = 1 if kind == "take" else -1
    return _bezier((x - R * 0.7, y + s * R * 0.7), (x - 1.0, y + s * 1.5), (x + 1.0, y + s * 1.5),
                   (x + R * 0.7, y + s * R * 0.7))


def _edge_xy(p0: tuple[float, float], p1: tuple[float, float], kind: str) -> tuple[list[float], list[float]]:
    from visualizers.automaton import _bezier

    (x0, y0), (x1, y1) = p0, p1
    if p0 == p1:
        return _loop_xy(x0, y0, kind)
    if kind == "proceed" and abs(y0 - y1) < 1e-9:
        return _bezier((x0 + R * 0.8, y0 - R * 0.5), (x0 + DX * 0.35, y0 - 0.9), (x1 - DX * 0.35, y1 - 0.9),
                       (x1 - R * 0.8, y1 - R * 0.5))
    ang = math.atan2(y1 - y0, x1 - x0)
    return ([x0 + R * math.cos(ang), x1 - R * math.cos(ang)], [y0 + R * math.sin(ang), y1 - R * math.sin(ang)])


def live_automaton_figure(g: nx.MultiDiGraph, step: Step | None, path: Sequence[Action] = (),
                          labels: str = "short", height: int | None = None) -> go.Figure:
    """The automaton with this step drawn over it: states holding live runs ringed in
    orange with their run count, the moves of this step (begin / take / proceed / ignore,
    ``×n`` when several runs took the same edge) in orange, and a match's path in gold."""
    rows = len({d.get("alternative", 0) for _n, d in g.nodes(data=True)}) or 1
    if height is None:
        height = min(max(380, 250 * rows + 130), 900)
    fig = _Fig(automaton_base(g, labels, height))
    pos = layout(g)
    # the chosen match's path, under this step's moves
    if path:
        px: list[Any] = []
        py: list[Any] = []
        states = []
        for a in path:
            u, v = resolve_state(g, a.state), resolve_state(g, a.to or a.state)
            if u is None or v is None or u not in pos or v not in pos:
                continue
            xs, ys = _edge_xy(pos[u], pos[v], a.kind)
            px += xs + [None]
            py += ys + [None]
            states += [u, v]
        if px:
            fig.add_trace(_sc(x=px, y=py, mode="lines", name="match path", hoverinfo="skip",
                                     line=dict(color=PATH, width=9), opacity=0.75))
            seen = list(dict.fromkeys(states))
            fig.add_trace(_sc(x=[pos[n][0] for n in seen], y=[pos[n][1] for n in seen], mode="markers",
                                     hoverinfo="skip", showlegend=False,
                                     marker=dict(size=66, color="rgba(0,0,0,0)", line=dict(color=PATH, width=5))))
    if step is None:
        return fig.figure()
    ex: list[Any] = []
    ey: list[Any] = []
    notes: list[dict[str, Any]] = []
    for u0, v0, kind, n in step_edges(step):
        u, v = resolve_state(g, u0), resolve_state(g, v0)
        if u is None or v is None or u not in pos or v not in pos:
            continue
        xs, ys = _edge_xy(pos[u], pos[v], kind)
        ex += xs + [None]
        ey += ys + [None]
        label = f"<b>{kind}{' ×' + str(n) if n > 1 else ''}</b>"
        if u == v:  # left of the state, level with its loop (above for take, below for ignore)
            x, y = pos[u]
            up = 1 if kind == "take" else -1
            note = dict(x=x - R * 1.15, y=y + up * R * 1.3, xanchor="right", yanchor="middle")
        else:
            if len(xs) > 4:
                at = len(xs) // 4
                nx_, ny_ = xs[at], ys[at]
            else:  # a straight edge: a third of the way along
                nx_, ny_ = xs[0] + (xs[-1] - xs[0]) / 3, ys[0] + (ys[-1] - ys[0]) / 3
            note = dict(x=nx_, y=ny_, xanchor="center", yanchor="top" if kind != "proceed" else "bottom")
        notes.append(dict(note, text=label, showarrow=False, xref="x", yref="y", font=dict(size=12, color=LIVE),
                          bgcolor="rgba(255,255,255,0.9)", bordercolor=LIVE, borderwidth=1, borderpad=2))
    if ex:
        fig.add_trace(_sc(x=ex, y=ey, mode="lines", name="this step", hoverinfo="skip",
                          line=dict(color=LIVE, width=5)))
        fig.layout["annotations"] = list(fig.layout.get("annotations") or []) + notes
    counts: dict[str, int] = {}
    for st_name, n in state_counts(step).items():
        u = resolve_state(g, st_name)
        if u is not None and u in pos:
            counts[u] = counts.get(u, 0) + n
    if counts:
        names = list(counts)
        fig.add_trace(_sc(
            x=[pos[n][0] for n in names], y=[pos[n][1] for n in names], mode="markers", name="live runs",
            hovertext=[f"{counts[n]} live run(s) in {n}" for n in names], hoverinfo="text",
            marker=dict(size=60, color="rgba(230,126,34,0.18)", line=dict(color=LIVE, width=4))))
        for n_tr, tr in enumerate(fig.data):  # the run count under the state's name, inside its circle
            if tr.get("name") == "states" and tr.get("customdata") is not None:
                texts = list(tr["text"])
                for i, cd in enumerate(tr["customdata"]):
                    if cd[1] in counts:
                        texts[i] = f"{texts[i]}<br><span style='color:{LIVE}'><b>{counts[cd[1]]}</b></span>"
                fig.data[n_tr] = {**tr, "text": texts}
    more = step.runs_total - len(step.runs)
    title = (fig.layout.get("title") or {}).get("text") or ""
    live = step.runs_total
    fig.update_layout(title=dict(text=f"{live} live run{'s' if live != 1 else ''}"
                                 + (f" ({more} not listed)" if more > 0 else "") + (f" · {title}" if title else "")))
    return fig.figure()


# --------------------------------------------------------------------------- NFA^b shared buffer

def buffer_view(steps: Sequence[Step], k: int) -> tuple[dict[str, dict[str, Any]], set[str], set[str], set[str]]:
    """The shared buffer after step ``k``: ``(entries, added, new_pointer_entries, removed)``;
    entries pruned on step ``k`` are kept (flagged ``removed``) so that they can be greyed."""
    entries: dict[str, dict[str, Any]] = {}
    removed_now: dict[str, dict[str, Any]] = {}
    added: set[str] = set()
    pointed: set[str] = set()
    for j, s in enumerate(steps[: k + 1]):
        b = s.buffer or {}
        if b.get("kind") not in (None, "shared"):
            continue
        last = j == k
        for ent in b.get("added", ()):
            entries[ent["id"]] = {"id": ent["id"], "state": ent["state"], "event": ent["event"],
                                  "preds": [dict(p) for p in ent["preds"]], "step": j}
            if last:
                added.add(ent["id"])
        for p in b.get("pointers", ()):
            if p["entry"] in entries:
                entries[p["entry"]]["preds"].append({"label": p["label"], "to": p["to"], "new": last})
                if last:
                    pointed.add(p["entry"])
        for rid in b.get("removed", ()):
            ent = entries.pop(rid, None)
            if last and ent is not None:
                removed_now[rid] = dict(ent, removed=True)
    entries.update(removed_now)
    return entries, added, pointed, set(removed_now)


def _compatible(label: str, version: str) -> bool:
    return version == label or version.startswith(label + ".")


def retrieval_path(entries: dict[str, dict[str, Any]], last_event: Any, version: str | None
                   ) -> list[tuple[str, str | None, str]]:
    """The match's entries from its last event back to its first, following at each entry
    the pointer whose version label is the longest prefix of the run's version (§4.9):
    ``[(entry, next entry or None, label)]``."""
    if version is None:
        return []
    start = None
    for eid, ent in entries.items():
        if ent["event"] == last_event and any(_compatible(p["label"], version) for p in ent["preds"]):
            if start is None or any(p["label"] == version for p in ent["preds"]):
                start = eid
    out: list[tuple[str, str | None, str]] = []
    cur = start
    seen: set[str] = set()
    while cur is not None and cur in entries and cur not in seen:
        seen.add(cur)
        preds = [p for p in entries[cur]["preds"] if _compatible(p["label"], version)]
        if not preds:
            out.append((cur, None, ""))
            break
        p = max(preds, key=lambda q: len(q["label"]))
        out.append((cur, p["to"], p["label"]))
        cur = p["to"]
    return out


def stack_order(g: nx.MultiDiGraph | None, entries: dict[str, dict[str, Any]]) -> list[str]:
    """Stacks (states) left to right: the automaton's order, then any others."""
    states = list(dict.fromkeys(e["state"] for e in entries.values()))
    if g is None:
        return states
    rank = {n: (d.get("alternative", 0), d.get("order", 99)) for n, d in g.nodes(data=True)}
    named = [n for n in sorted(rank, key=lambda n: rank[n]) if g.nodes[n].get("kind") not in ("final", "negation")]
    return named + [s for s in states if s not in named]


def _labels_text(labels: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(labels[:limit])
    return f"[{shown}{', +' + str(len(labels) - limit) if len(labels) > limit else ''}]"


def shared_buffer_figure(entries: dict[str, dict[str, Any]], stacks: Sequence[str], seq_of: dict[Any, int],
                         added: Iterable[str] = (), pointed: Iterable[str] = (), path: Sequence[tuple] = (),
                         max_events: int = 40, height: int | None = None) -> go.Figure:
    """The SASE+ buffer figure: a column per stack, entries bottom (old) to top (new) by
    event, an arrow from each entry to each predecessor labelled with its version(s)
    (several runs sharing one pointer target are one arrow listing their labels). Entries
    written on this step are orange, pruned ones grey, a match's retrieval path gold. Only
    the latest ``max_events`` events are drawn (the title says so)."""
    from visualizers.automaton import _bezier

    added, pointed = set(added), set(pointed)
    path_entries = {p[0] for p in path}
    path_ptrs = {(p[0], p[1]) for p in path if p[1] is not None}
    evs = sorted({e["event"] for e in entries.values()}, key=lambda i: seq_of.get(i, 0))
    cut = len(evs) - max_events if len(evs) > max_events else 0
    row = {ev: r for r, ev in enumerate(evs[cut:])}
    col = {s: c for c, s in enumerate(stacks)}
    for e in entries.values():
        col.setdefault(e["state"], len(col))
    X = 3.0
    pos = {eid: (col[e["state"]] * X, float(row[e["event"]])) for eid, e in entries.items() if e["event"] in row}
    # one arrow per (entry, predecessor), its labels joined; grouped by style into few traces
    arrows: dict[tuple[str, str], dict[str, Any]] = {}
    below: list[tuple[float, float]] = []
    for eid, e in entries.items():
        if eid not in pos:
            continue
        for p in e["preds"]:
            to = p.get("to")
            if to is None:
                continue
            if to not in pos:
                below.append(pos[eid])
                continue
            a = arrows.setdefault((eid, to), {"labels": [], "new": False})
            a["labels"].append(str(p["label"]))
            a["new"] = a["new"] or bool(p.get("new")) or eid in added
    styles = {"path": (PATH, 4.5), "new": (LIVE, 2.6), "old": ("#5d6d7e", 1.4)}
    lines: dict[str, tuple[list[Any], list[Any], list[Any]]] = {k: ([], [], []) for k in styles}
    tx, ty, tt, tc = [], [], [], []
    for (eid, to), a in arrows.items():
        (x0, y0), (x1, y1) = pos[eid], pos[to]
        if abs(x0 - x1) < 1e-9:  # same stack: bend right, more for longer jumps
            bend = 0.35 + 0.22 * min(abs(y0 - y1), 6)
            xs, ys = _bezier((x0 + 0.3, y0), (x0 + 0.3 + bend, y0 - 0.15), (x1 + 0.3 + bend, y1 + 0.15),
                             (x1 + 0.3, y1), n=10)
        else:
            xs, ys = _bezier((x0 - 0.3, y0), (x0 - 1.2, y0), (x1 + 1.2, y1), (x1 + 0.3, y1), n=10)
        xs, ys = [round(v, 3) for v in xs], [round(v, 3) for v in ys]
        kind = "path" if (eid, to) in path_ptrs else ("new" if a["new"] else "old")
        lx, ly, ls = lines[kind]
        lx += xs + [None]
        ly += ys + [None]
        ls += [0] * (len(xs) - 1) + [11 if kind != "old" else 8, 0]
        mid = len(xs) // 2
        tx.append(xs[mid] + (0.05 if abs(x0 - x1) < 1e-9 else 0))
        ty.append(ys[mid])
        tt.append(plotly_text(_labels_text(a["labels"])))
        tc.append({"path": "#9a7d0a", "new": "#ba4a00"}.get(kind, "#34495e"))
    fig = _Fig()
    for kind in ("old", "new", "path"):
        lx, ly, ls = lines[kind]
        if not lx:
            continue
        colour, width = styles[kind]
        fig.add_trace(_sc(x=lx, y=ly, mode="lines+markers", hoverinfo="skip", showlegend=False,
                                 line=dict(color=colour, width=width),
                                 marker=dict(symbol="arrow", size=ls, color=colour, angleref="previous")))
    if tx:
        fig.add_trace(_sc(x=tx, y=ty, mode="text", text=tt, hoverinfo="skip", showlegend=False,
                                 textposition="middle right", textfont=dict(size=12, color=tc)))
    if below:
        fig.add_trace(_sc(x=[b[0] for b in below], y=[b[1] - 0.42 for b in below], mode="text", text=["↓"] * len(below),
                                 hoverinfo="skip", showlegend=False, textfont=dict(size=12, color="#888")))
    xs, ys, texts, fills, lcol, hovers = [], [], [], [], [], []
    for eid, e in entries.items():
        if eid not in pos:
            continue
        x, y = pos[eid]
        xs.append(x)
        ys.append(y)
        texts.append(plotly_text(f"e{e['event']}"))  # event ids come from the data
        removed = e.get("removed")
        fills.append(REMOVED if removed else (PATH if eid in path_entries else (ADDED if eid in added else "#eaf2f8")))
        lcol.append("#999" if removed else ("#b9770e" if eid in path_entries else "#1f4e79"))
        ptrs = [plotly_text(f"[{p['label']}] → {p['to'] or '∅'}") for p in e["preds"]]
        hovers.append(f"<b>{plotly_text(eid)}</b><br>stack {plotly_text(e['state'])} · event "
                      f"{plotly_text(e['event'])}<br>pointers: "
                      + ", ".join(ptrs[:8]) + (f" … (+{len(ptrs) - 8})" if len(ptrs) > 8 else "")
                      + ("<br><i>pruned on this step</i>" if removed else "")
                      + ("<br><i>written on this step</i>" if eid in added else ""))
    fig.add_trace(_sc(x=xs, y=ys, mode="markers+text", text=texts, hovertext=hovers, hoverinfo="text",
                             textfont=dict(size=12, color="#111"), showlegend=False, name="entries",
                             marker=dict(symbol="square", size=34, color=fills, line=dict(color=lcol, width=2))))
    n_rows = max(len(row), 1)
    fig.add_trace(_sc(x=[c * X for c in col.values()], y=[n_rows - 0.25] * len(col), mode="text",
                             text=[f"<b>{plotly_text(s)}</b>" for s in col], textposition="top center", hoverinfo="skip",
                             showlegend=False, textfont=dict(size=14, color="#1f2d3d")))
    for kind, colour in (("written on this step", ADDED), ("match retrieval path", PATH), ("pruned", REMOVED)):
        fig.add_trace(_sc(x=[None], y=[None], mode="markers", name=kind,
                                 marker=dict(symbol="square", size=12, color=colour)))
    title = f"the latest {max_events} events drawn; {cut} older not drawn" if cut else ""
    fig.update_layout(
        title=dict(text=title, font=dict(size=13)),
        xaxis=dict(visible=False, range=[-1.2, max(len(col) - 1, 0) * X + 2.4]),
        yaxis=dict(visible=False, range=[-0.8, n_rows + 0.7]),
        height=height or min(max(280, 44 * n_rows + 110), 1400), plot_bgcolor="white",
        margin=dict(l=10, r=10, t=30 if title else 10, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.01, x=0))
    return fig.figure()


# --------------------------------------------------------------------------- lazy buffers

def lazy_buffer_figure(step: Step, pattern_order: Sequence[str], types: dict[str, str] | None = None,
                       max_events: int = 30, height: int | None = None) -> go.Figure:
    """The lazy engines' per-variable input buffers after a step (Kolchinsky & Schuster §3):
    one column per variable, in the evaluation order when the engine has one (the chain:
    ascending frequency), the buffered event ids stacked oldest at the bottom; events stored
    on this step green, events a partial match took from a buffer on this step gold. A
    variable with no buffer is read from the stream only (the chain's first)."""
    b = step.buffer or {}
    bufs: dict[str, list[Any]] = dict(b.get("buffers") or {})
    order = (b.get("order") or [[]])[0] or []
    cols = list(dict.fromkeys([*order, *pattern_order, *bufs]))
    stored = {a.event for a in step.actions if a.kind == "store"}
    taken = {a.event for a in step.actions if a.kind == "take" and (a.detail or {}).get("source") == "buffer"}
    fig = _Fig()
    xs, ys, texts, fills, hovers = [], [], [], [], []
    annotations = []
    tallest = max([min(len(bufs.get(v, [])), max_events) for v in cols] + [1])
    for c, v in enumerate(cols):
        ids = list(bufs.get(v, []))
        more = len(ids) - max_events
        shown = ids[-max_events:]
        for r, i in enumerate(shown):
            xs.append(c)
            ys.append(r)
            texts.append(plotly_text(i))  # event ids come from the data
            fills.append(PATH if i in taken else (ADDED if i in stored else "#eaf2f8"))
            hovers.append(f"event {plotly_text(i)} in the buffer of {plotly_text(v)}")
        head = f"<b>{plotly_text(v)}</b>" + (f" ({plotly_text(types[v])})" if types and v in types else "")
        if v in order:
            head = f"{order.index(v) + 1}. " + head
        sub = f"{len(ids)} buffered" if v in bufs else "from the stream"
        annotations.append(dict(x=c, y=tallest - 0.3, text=head + f"<br>{sub}", showarrow=False, yanchor="bottom",
                                font=dict(size=13)))
        if more > 0:
            annotations.append(dict(x=c, y=-0.6, text=f"+{more} older", showarrow=False, yanchor="top",
                                    font=dict(size=11, color="#888")))
    if xs:
        fig.add_trace(_sc(x=xs, y=ys, mode="markers+text", text=texts, hovertext=hovers, hoverinfo="text",
                          showlegend=False, textfont=dict(size=11),
                          marker=dict(symbol="square", size=30, color=fills, line=dict(color="#1f4e79", width=1.5))))
    for kind, colour in (("stored on this step", ADDED), ("taken from the buffer on this step", PATH)):
        fig.add_trace(_sc(x=[None], y=[None], mode="markers", name=kind,
                          marker=dict(symbol="square", size=12, color=colour)))
    title = f"{b.get('partial', 0)} partial match(es)"
    if order:
        title += plotly_text(f" · evaluation order {' → '.join(order)} (pattern order {' → '.join(pattern_order)})")
    fig.update_layout(annotations=annotations, title=dict(text=title, font=dict(size=13)),
                      xaxis=dict(visible=False, range=[-0.7, max(len(cols), 1) - 0.3]),
                      yaxis=dict(visible=False, range=[-1.3, tallest + 1.2]),
                      height=height or min(max(260, 34 * tallest + 170), 1200), plot_bgcolor="white",
                      margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", yanchor="top", y=-0.01, x=0))
    return fig.figure()


# --------------------------------------------------------------------------- timeline

def cursor_timeline_figure(steps: Sequence[Step], k: int, match: dict[str, Any] | None = None,
                           live_ids: Iterable[Any] = (), height: int = 300, max_events: int = 3000,
                           marked: Any = None, marked_label: str | None = None, cursor: bool = True,
                           match_label: str = "chosen match") -> go.Figure:
    """Events by type over time; the events up to step ``k`` in colour, the rest faded; a
    cursor at step ``k``'s event; events bound by live runs ringed orange; the chosen
    match's events gold, joined in order, labelled with their variable."""
    evs = [s.event for s in event_steps(steps)][:max_events]
    # types, ids and values come from the data: escaped wherever plotly shows them (it reads
    # tags such as <a href> in category labels, legend names and hover text)
    types = sorted({plotly_text(e["type"]) for e in evs})
    colour = {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(types)}
    live = set(live_ids)
    fig = _Fig()
    cur = steps[k].event if 0 <= k < len(steps) and steps[k].step != "close" else None
    kk = k if cur is not None else len(evs) - 1
    for t in types:
        past = [(i, e) for i, e in enumerate(evs) if plotly_text(e["type"]) == t and i <= kk]
        fut = [(i, e) for i, e in enumerate(evs) if plotly_text(e["type"]) == t and i > kk]
        for grp, faded in ((past, False), (fut, True)):
            if not grp:
                continue
            fig.add_trace(_sc(
                x=[e["ts"] for _i, e in grp], y=[t] * len(grp), mode="markers", name=t, legendgroup=t,
                showlegend=not faded, opacity=0.25 if faded else 1.0, customdata=[e["id"] for _i, e in grp],
                marker=dict(size=[12 if e["id"] in live else 9 for _i, e in grp], color=colour[t],
                            line=dict(width=[2.5 if e["id"] in live else 0 for _i, e in grp], color=LIVE)),
                hovertext=[f"step {i} · id {plotly_text(e['id'])}<br>{t} at {_num(e['ts'])}<br>"
                           + plotly_text(", ".join(f"{a}={_num(b)}" for a, b in list(e.items())[3:9]))
                           for i, e in grp],
                hoverinfo="text"))
    if match is not None:
        by_id = {e["id"]: e for e in evs}
        pts = []
        for v, ids in match["match"].items():
            for n, i in enumerate(ids, 1):
                e = by_id.get(i)
                if e is not None:
                    pts.append((e["ts"], plotly_text(e["type"]), plotly_text(f"{v}[{n}]" if len(ids) > 1 else v)))
        pts.sort(key=lambda p: p[0])
        fig.add_trace(_sc(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines+markers+text",
                                 name=match_label, text=[p[2] for p in pts], textposition="top center",
                                 textfont=dict(size=11, color="#9a7d0a"), hoverinfo="skip",
                                 line=dict(color=PATH, width=3),
                                 marker=dict(size=16, color="rgba(0,0,0,0)", line=dict(color="#d4ac0d", width=3))))
    if marked is not None:
        e = next((x for x in evs if x["id"] == marked), None)
        if e is not None:
            fig.add_trace(_sc(x=[e["ts"]], y=[plotly_text(e["type"])], mode="markers+text",
                              name=plotly_text(marked_label or "reason"),
                              text=[plotly_text(f"e{marked}: {marked_label}" if marked_label else f"e{marked}")],
                              textposition="bottom center", textfont=dict(color="#c0392b", size=12),
                              hoverinfo="skip", marker=dict(size=18, symbol="x-thin-open", color="#c0392b",
                                                           line=dict(width=3, color="#c0392b"))))
    if cur is not None and cursor:
        fig.update_layout(shapes=[dict(type="line", x0=cur["ts"], x1=cur["ts"], xref="x", yref="paper", y0=0, y1=1,
                                       line=dict(color=LIVE, width=2, dash="dot"))])
        fig.add_trace(_sc(x=[cur["ts"]], y=[plotly_text(cur["type"])], mode="markers", name="this event",
                                 hoverinfo="skip", marker=dict(size=20, symbol="circle-open", color=LIVE,
                                                               line=dict(width=3, color=LIVE))))
    fig.update_layout(yaxis=dict(type="category", categoryorder="array", categoryarray=types,
                                 title=dict(text="event type")),
                      xaxis=dict(title=dict(text="ts"), showgrid=True, gridcolor="#eee"),
                      height=max(height, 90 + 40 * len(types)), margin=dict(l=10, r=10, t=30, b=10),
                      plot_bgcolor="white", legend=dict(orientation="h", yanchor="bottom", y=1.01, x=0))
    return fig.figure()


def live_event_ids(step: Step) -> set[Any]:
    """Every event bound by a live run after ``step``."""
    return {i for r in step.runs for ids in r.bindings.values() for i in ids}


def steps_to_json(steps: Sequence[Step]) -> str:
    """A trace as JSON Lines (the ``cep trace`` form), for download."""
    return "".join(json.dumps(s.to_json(), default=str) + "\n" for s in steps)


__all__ = ["is_match", "step_matches", "step_rows", "actions_frame", "buffer_view", "match_numbers", "cursor_timeline_figure", "debug_graph",
           "event_steps", "events_table", "lazy_buffer_figure", "live_automaton_figure", "live_event_ids",
           "match_action", "match_ids", "match_key", "match_path", "match_text", "matches_so_far",
           "resolve_state", "retrieval_path", "run_moves", "runs_frame", "shared_buffer_figure", "stack_order",
           "state_counts", "step_edges", "step_label", "steps_to_json", "trace_graph"]
