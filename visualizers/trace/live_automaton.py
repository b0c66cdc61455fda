"""The automaton under a trace: the graph the Debug page draws (:func:`debug_graph`, the lazy chain in
the trace's evaluation order), trace state names on it (:func:`resolve_state`), and
:func:`live_automaton_figure`: live states ringed with their run counts, this step's edges, a match's path.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import networkx as nx
import plotly.graph_objects as go

from engine.model import Pattern
from engine.trace import Action, Step
from visualizers.automaton import DX, R, AutomatonUnavailable, automaton_graph, layout
from visualizers.trace.plain_figure import LIVE, PATH, _Fig, _sc, automaton_base
from visualizers.trace.reading import MOVES, state_counts, step_edges


def trace_engine_order(steps: Sequence[Step]) -> list[list[str]] | None:
    """The lazy chain's evaluation order (per clause) as the trace reports it."""
    for s in steps:
        o = (s.buffer or {}).get("order")
        if o:
            return [list(x) for x in o]
    return None


def debug_graph(pattern: Pattern, engine: str, steps: Sequence[Step] = ()) -> nx.MultiDiGraph:
    """The automaton the trace's states refer to, drawn as on the Automaton page
    (``visualizers.automaton.automaton_graph``); for an engine whose automaton depends on the
    evaluation order its run chose (the lazy chain: its spec's ``drawing.ordered_graph``), in
    the order the trace reports. When the drawn automaton does not name every state the trace
    visits (or the engine has no drawing, the oracle), the states and moves of the trace itself
    (:func:`trace_graph`)."""
    from engine.engines.planner import ENGINES

    drawing = ENGINES[engine].drawing if engine in ENGINES else None
    candidates = []
    if drawing is not None and drawing.ordered_graph:
        candidates.append(lambda: _in_trace_order(pattern, engine, drawing.ordered_graph, steps))
    candidates.append(lambda: automaton_graph(pattern, engine))
    for make in candidates:
        try:
            g = make()
        except (AutomatonUnavailable, ValueError, KeyError):
            continue
        if (drawing is not None and drawing.names_trace_states) or _covers(g, steps, {c.var for c in pattern.positive}):
            return g
    return trace_graph(steps, engine)


def has_moves(g: nx.MultiDiGraph | None) -> bool:
    """Whether a graph has moves to draw (A-Seq's trace has prefix counters, no automaton)."""
    return g is not None and g.number_of_edges() > 0


def _in_trace_order(pattern: Pattern, engine: str, ordered_graph: str, steps: Sequence[Step]) -> nx.MultiDiGraph:
    """The Automaton page's drawing of ``engine`` (the lazy chain), compiled in the evaluation
    order the trace reports (the page draws it in pattern order while the rates are unknown)."""
    from engine.engines.spec import load
    from visualizers.automaton import _style

    base = automaton_graph(pattern, engine)
    order = trace_engine_order(steps)
    if not order or len(order) != 1 or [list(o) for o in base.graph.get("orders", [])] == order:
        return base
    g = _style(load(ordered_graph)(pattern, order[0]), engine, pattern)
    for k, v in base.graph.items():
        if k not in ("orders", "positions", "labels_drawn"):
            g.graph.setdefault(k, v)
    g.graph["engine"] = engine
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


FOCUS = "#8e44ad"  # the focused predicate's or move's edges


def _squeezed(text: str) -> str:
    return "".join(str(text).split())


def focus_edges(g: nx.MultiDiGraph, focus: Any) -> list[tuple[str, str, str]]:
    """The edges ``(u, v, kind)`` of ``g`` a focus names: ``{"predicate": text}`` (or the
    text alone): every edge whose formula carries that conjunct (whitespace ignored);
    ``{"edge": {"state", "to", "edge"}}`` (or ``(state, to, kind)``): that move, its states
    named as the trace names them (:func:`resolve_state`). Anything else names none."""
    if focus is None:
        return []
    if isinstance(focus, str):
        focus = {"predicate": focus}
    if not isinstance(focus, dict):
        return []
    out: list[tuple[str, str, str]] = []
    pred = focus.get("predicate")
    if pred:
        want = _squeezed(pred)
        for u, v, d in g.edges(data=True):
            texts = (d.get("formula"), d.get("formula_optimised"), d.get("shown"))
            if want and any(t and want in _squeezed(t) for t in texts):
                out.append((u, v, d.get("kind", "")))
    edge = focus.get("edge")
    if edge:
        if isinstance(edge, dict):
            u0, v0, kind = edge.get("state"), edge.get("to"), edge.get("edge")
        else:
            u0, v0, kind = (list(edge) + [None, None, None])[:3]
        u = resolve_state(g, u0)
        v = resolve_state(g, v0) if v0 else u
        if kind == "skip":
            kind = "ignore"
        for a, b, d in g.edges(data=True):
            if a == u and b == v and (kind is None or d.get("kind") == kind):
                out.append((a, b, d.get("kind", "")))
    return list(dict.fromkeys(out))


def live_automaton_figure(g: nx.MultiDiGraph, step: Step | None, path: Sequence[Action] = (),
                          labels: str = "short", height: int | None = None, focus: Any = None) -> go.Figure:
    """The automaton with this step drawn over it: states holding live runs ringed in
    orange with their run count, the moves of this step (begin / take / proceed / ignore,
    ``×n`` when several runs took the same edge) in orange, and a match's path in gold.
    ``focus`` (a predicate's text, ``{"predicate": text}`` or ``{"edge": ...}``,
    :func:`focus_edges`) draws the edges it names in purple under everything else."""
    rows = len({d.get("alternative", 0) for _n, d in g.nodes(data=True)}) or 1
    if height is None:
        height = min(max(380, 250 * rows + 130), 900)
    fig = _Fig(automaton_base(g, labels, height))
    pos = layout(g)
    focused = [(u, v, kind) for u, v, kind in focus_edges(g, focus) if u in pos and v in pos]
    if focused:
        fx: list[Any] = []
        fy: list[Any] = []
        for u, v, kind in focused:
            xs, ys = _edge_xy(pos[u], pos[v], kind)
            fx += xs + [None]
            fy += ys + [None]
        what = focus.get("predicate") if isinstance(focus, dict) else focus
        fig.add_trace(_sc(x=fx, y=fy, mode="lines", name="focus", hoverinfo="skip", opacity=0.6,
                          line=dict(color=FOCUS, width=12),
                          meta={"edges": [list(e) for e in focused], "focus": str(what or "move")}))
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
