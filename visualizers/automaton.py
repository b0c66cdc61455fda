"""Compiled automata as plotly figures, drawn from their networkx export.

``automaton_graph(pattern, ...)`` compiles a pattern with a registered compiler (today
NFA^b, ``engine.automata.nfab``; later engines register in :data:`COMPILERS`) and returns
its ``networkx.MultiDiGraph`` with a ``shown`` formula on every edge chosen by the two
optimisation switches of SASE+ §4.5 (papers/sase-nfab.md):

* step 5, *push the window*: the WITHIN test on every edge, not only on the edge into F;
* step 6, *peek before proceed*: a proceed edge also requires the next state's begin
  formula (or that take and ignore both fail).

``automaton_figure(graph)`` draws states left to right (one row per SEQ alternative),
begin and take solid, ignore dashed, proceed as an ε arrow, F as a double circle, negation
checks in red below; hovering over a state or an edge label shows its full formula.
"""
from __future__ import annotations

import math
import textwrap
from typing import Any, Callable

import networkx as nx
import pandas as pd
import plotly.graph_objects as go

from engine.model import Pattern, Strategy

EDGE_STYLE: dict[str, dict[str, Any]] = {
    "begin": {"color": "#1f4e79", "dash": "solid", "width": 2.2},
    "take": {"color": "#2e8b57", "dash": "solid", "width": 2.2},
    "ignore": {"color": "#7f7f7f", "dash": "dash", "width": 1.8},
    "proceed": {"color": "#8e44ad", "dash": "solid", "width": 2.0},
    "negation": {"color": "#c0392b", "dash": "dot", "width": 2.6},
}
STATE_FILL = {"singleton": "#dbe9f6", "kleene_first": "#dbe9f6", "kleene_rest": "#e3f4e8",
              "final": "#fff3cd", "negation": "#fdecea"}

DX = 4.0      # distance between states
ROW = 3.2     # distance between alternatives
R = 0.42      # state radius in data units (for arrow ends and loops)


class AutomatonUnavailable(ValueError):
    """The chosen compiler cannot compile the pattern; the message says why."""


def _nfab(pattern: Pattern) -> nx.MultiDiGraph:
    from engine.automata.nfab import compile_pattern, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise AutomatonUnavailable(f"NFA^b cannot compile this pattern: {why}")
    return compile_pattern(pattern).to_networkx(optimised=True)


def _lazy(which: str) -> Callable[[Pattern], nx.MultiDiGraph]:
    """The lazy chain / tree automata (Kolchinsky & Schuster): states in evaluation order,
    edges drawn by their ``style`` (take/ignore/proceed/negation)."""

    def compile_fn(pattern: Pattern) -> nx.MultiDiGraph:
        from engine.automata.chain import compile_chain, unsupported_reason

        why = unsupported_reason(pattern)
        if why:
            raise AutomatonUnavailable(f"the lazy {which} cannot compile this pattern: {why}")
        if which == "chain":
            g = compile_chain(pattern).to_networkx()
        else:
            from engine.automata.tree import compile_tree

            g = compile_tree(pattern).to_networkx()
        for _u, _v, d in g.edges(data=True):
            d["move"] = d["kind"]
            d["kind"] = d.get("style", d["kind"])
        g.graph["engine"] = f"lazy-{which}"
        return g

    return compile_fn


# engine name -> (title, compile function pattern -> MultiDiGraph)
COMPILERS: dict[str, tuple[str, Callable[[Pattern], nx.MultiDiGraph]]] = {
    "nfab": ("NFA^b (SASE+)", _nfab),
    "lazy-chain": ("Lazy chain NFA (evaluation in ascending frequency)", _lazy("chain")),
    "lazy-tree": ("Lazy tree NFA (rarest remaining type first)", _lazy("tree")),
}


def window_text(pattern: Pattern, first_var: str | None) -> str | None:
    """The WITHIN test as the compiler writes it (``e.ts - a.ts < 1 hour``)."""
    w = pattern.window
    if w is None or first_var is None:
        return None
    unit = "events" if w.is_count else (w.unit or "")
    coord = "seq" if w.is_count else "ts"
    return f"e.{coord} - {first_var}.{coord} < {w.value:g}{(' ' + unit) if unit else ''}".rstrip()


def _and(txt: str, extra: str | None) -> str:
    if not extra:
        return txt
    return extra if txt == "true" else f"{txt} ∧ {extra}"


def _strip(txt: str, extra: str | None) -> str:
    if extra and txt.endswith(" ∧ " + extra):
        return txt[: -len(" ∧ " + extra)]
    if extra and txt == extra:
        return "true"
    return txt


def shown_formula(kind: str, basic: str, optimised: str, into_final: bool, wtxt: str | None,
                  push_window: bool, peek: bool) -> str:
    """The formula of an edge with each optimisation switched on or off independently
    (the compiler exports the basic θ and the fully optimised θ*)."""
    if kind == "negation":
        return optimised
    if push_window and peek:
        return optimised
    if not push_window and not peek:
        return basic
    if push_window:  # window everywhere, no peek
        if kind == "proceed" and not into_final:
            return _and(basic, wtxt)
        return optimised
    # peek only
    if kind == "proceed" and not into_final:
        return _strip(optimised, wtxt)
    return basic


def automaton_graph(pattern: Pattern, engine: str = "nfab", strategy: str | Strategy | None = None,
                    push_window: bool = True, peek: bool = True) -> nx.MultiDiGraph:
    """The compiled automaton with ``shown`` formulas; ``strategy`` overrides the pattern's."""
    if strategy is not None:
        pattern = pattern.model_copy(update={"strategy": Strategy(strategy)})
    try:
        _title, compile_fn = COMPILERS[engine]
    except KeyError:
        raise AutomatonUnavailable(f"no automaton view for engine `{engine}`") from None
    g = compile_fn(pattern)
    first = {}
    for n, d in g.nodes(data=True):
        if d.get("start"):
            first[d.get("alternative", 0)] = d.get("var")
    for u, v, k, d in g.edges(keys=True, data=True):
        if g.graph.get("engine", "nfab") != "nfab":
            d["shown"] = d["formula"]
            continue
        alt = g.nodes[u].get("alternative", 0)
        into_final = g.nodes[v].get("kind") == "final"
        d["shown"] = shown_formula(d["kind"], d["formula"], d["formula_optimised"], into_final,
                                   window_text(pattern, first.get(alt)), push_window, peek)
    g.graph["push_window"] = push_window
    g.graph["peek"] = peek
    return g


# --------------------------------------------------------------------------- layout

def layout(g: nx.MultiDiGraph) -> dict[str, tuple[float, float]]:
    """States left to right by ``order``, one row per alternative; negation checks below,
    between the state they follow and the next one."""
    pos: dict[str, tuple[float, float]] = {}
    for n, d in g.nodes(data=True):
        if d.get("kind") != "negation":
            pos[n] = (d.get("order", 0) * DX, -d.get("alternative", 0) * ROW)
    for n, d in g.nodes(data=True):
        if d.get("kind") == "negation":
            src = next((u for u, _v, k in g.in_edges(n, keys=True)), None)
            x, y = pos.get(src, (0.0, 0.0))
            pos[n] = (x + DX / 2, y - 1.6)
    return pos


def _wrap(txt: str, width: int) -> str:
    return "<br>".join(textwrap.wrap(txt, width=width, break_long_words=True)) or txt


def _short(txt: str, limit: int) -> str:
    return txt if len(txt) <= limit else txt[: limit - 1] + "…"


def _bezier(p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float],
            n: int = 30) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for i in range(n + 1):
        t = i / n
        a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
        xs.append(a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0])
        ys.append(a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1])
    return xs, ys


def automaton_figure(g: nx.MultiDiGraph, labels: str = "short", label_width: int = 26,
                     height: int | None = None) -> go.Figure:
    """Plotly figure of an automaton graph from :func:`automaton_graph`.

    ``labels``: ``short`` (wrapped, cut at 90 characters), ``full`` or ``none``; the hover
    text always has the full formulas (basic θ and optimised θ*)."""
    pos = layout(g)
    fig = go.Figure()
    annotations: list[dict[str, Any]] = []
    hover_x: list[float] = []
    hover_y: list[float] = []
    hover_text: list[str] = []
    hover_data: list[list[str]] = []
    label_x: list[float] = []
    label_y: list[float] = []
    label_text: list[str] = []
    label_colour: list[str] = []
    label_pos: list[str] = []

    def label(x: float, y: float, kind: str, formula: str, d: dict[str, Any], u: str, v: str,
              where: str = "top center", hx: float | None = None, hy: float | None = None) -> None:
        head = {"proceed": "ε proceed", "negation": "¬ check"}.get(kind, kind)
        full = (f"<b>{head}</b> {u} → {v}<br>shown: {_wrap(formula, 70)}"
                f"<br>θ: {_wrap(d.get('formula', ''), 70)}<br>θ*: {_wrap(d.get('formula_optimised', ''), 70)}")
        hover_x.append(x if hx is None else hx)
        hover_y.append(y if hy is None else hy)
        hover_text.append(full)
        hover_data.append([kind, u, v, formula, d.get("formula", ""), d.get("formula_optimised", "")])
        if labels == "none":
            return
        txt = formula if labels == "full" else _short(formula, 90)
        label_x.append(x)
        label_y.append(y)
        label_text.append(f"<b>{head}</b><br>" + _wrap(txt, label_width))
        label_colour.append(EDGE_STYLE[kind]["color"])
        label_pos.append(where)

    def line(xs: list[float], ys: list[float], kind: str) -> None:
        st = EDGE_STYLE[kind]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=st["color"], dash=st["dash"], width=st["width"])))

    def arrowhead(x0: float, y0: float, x1: float, y1: float, kind: str) -> None:
        st = EDGE_STYLE[kind]
        annotations.append(dict(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y",
                                showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=st["width"],
                                arrowcolor=st["color"], text=""))

    for u, v, k, d in g.edges(keys=True, data=True):
        kind = d.get("kind", k)
        formula = d.get("shown", d.get("label", ""))
        (x0, y0), (x1, y1) = pos[u], pos[v]
        if u == v:  # take loop above, ignore loop below
            s = 1 if kind == "take" else -1
            p0 = (x0 - R * 0.7, y0 + s * R * 0.7)
            p3 = (x0 + R * 0.7, y0 + s * R * 0.7)
            xs, ys = _bezier(p0, (x0 - 1.0, y0 + s * 1.5), (x0 + 1.0, y0 + s * 1.5), p3)
            line(xs, ys, kind)
            arrowhead(xs[-4], ys[-4], xs[-1], ys[-1], kind)
            label(x0, y0 + s * 1.2, kind, formula, d, u, v, "top center" if s > 0 else "bottom center",
                  hy=y0 + s * 1.1)
        elif kind == "negation":
            ang = math.atan2(y1 - y0, x1 - x0)
            sx, sy = x0 + R * math.cos(ang), y0 + R * math.sin(ang)
            ex, ey = x1 - R * math.cos(ang), y1 - R * math.sin(ang)
            line([sx, ex], [sy, ey], kind)
            arrowhead(sx, sy, ex, ey, kind)
            label(x1 + R + 0.1, y1, kind, formula, d, u, v, "middle right", hx=(sx + ex) / 2, hy=(sy + ey) / 2)
        else:
            # begin straight; proceed (ε) bends below so that it is told apart
            if kind == "proceed":
                xs, ys = _bezier((x0 + R * 0.8, y0 - R * 0.5), (x0 + DX * 0.35, y0 - 0.9),
                                 (x1 - DX * 0.35, y1 - 0.9), (x1 - R * 0.8, y1 - R * 0.5))
                line(xs, ys, kind)
                arrowhead(xs[-4], ys[-4], xs[-1], ys[-1], kind)
                annotations.append(dict(x=(x0 + x1) / 2, y=y0 - 0.45, text="<b>ε</b>", showarrow=False,
                                        font=dict(size=16, color=EDGE_STYLE[kind]["color"])))
                label((x0 + x1) / 2, y0 - 0.85, kind, formula, d, u, v, "bottom center", hy=y0 - 0.72)
            else:
                line([x0 + R, x1 - R], [y0, y1], kind)
                arrowhead(x0 + R, y0, x1 - R, y1, kind)
                label((x0 + x1) / 2, y0 + 0.12, kind, formula, d, u, v, "top center", hy=y0)

    # start arrows
    for n, d in g.nodes(data=True):
        if d.get("start"):
            x, y = pos[n]
            line([x - 1.3, x - R], [y, y], "begin")
            arrowhead(x - 1.3, y, x - R, y, "begin")
            annotations.append(dict(x=x - 1.35, y=y, text="start", showarrow=False, xanchor="right",
                                    font=dict(size=12, color="#555")))
            if g.graph.get("alternatives", 1) > 1:
                annotations.append(dict(x=x - 1.35, y=y + 0.45, text=f"alternative {d.get('alternative', 0) + 1}",
                                        showarrow=False, xanchor="right", font=dict(size=11, color="#888")))

    # states
    xs, ys, texts, hovers, fills, lines, custom = [], [], [], [], [], [], []
    for n, d in g.nodes(data=True):
        x, y = pos[n]
        kind = d.get("kind", "singleton")
        xs.append(x)
        ys.append(y)
        texts.append(d.get("label", n))
        info = f"<b>state {d.get('label', n)}</b><br>kind: {kind}"
        if d.get("type"):
            info += f"<br>event type: {d.get('type')}"
        if d.get("var"):
            info += f"<br>variable: {d.get('var')}"
        if d.get("formula"):
            info += f"<br>check: {_wrap(d.get('formula'), 70)}"
        hovers.append(info)
        fills.append(STATE_FILL.get(kind, "#eeeeee"))
        lines.append("#c0392b" if kind == "negation" else "#1f2d3d")
        custom.append(["state", n, "", d.get("formula", "") or "", "", ""])
    finals = [(pos[n][0], pos[n][1]) for n, d in g.nodes(data=True) if d.get("kind") == "final"]
    if finals:  # the outer ring of F's double circle
        fig.add_trace(go.Scatter(x=[p[0] for p in finals], y=[p[1] for p in finals], mode="markers",
                                 hoverinfo="skip", showlegend=False,
                                 marker=dict(size=60, color="rgba(0,0,0,0)", line=dict(color="#1f2d3d", width=2))))
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=texts, textposition="middle center",
                             hovertext=hovers, hoverinfo="text", customdata=custom, showlegend=False,
                             name="states", textfont=dict(size=13, color="#111"),
                             marker=dict(size=48, color=fills, line=dict(color=lines, width=2))))
    if label_x:
        fig.add_trace(go.Scatter(x=label_x, y=label_y, mode="text", text=label_text, hoverinfo="skip",
                                 textposition=label_pos,
                                 showlegend=False, textfont=dict(size=11, color=label_colour)))
    fig.add_trace(go.Scatter(x=hover_x, y=hover_y, mode="markers", hovertext=hover_text, hoverinfo="text",
                             customdata=hover_data, showlegend=False, name="edges",
                             marker=dict(size=22, color="rgba(0,0,0,0)")))
    # legend entries for edge kinds
    for kind, st in EDGE_STYLE.items():
        if any(d.get("kind") == kind for _u, _v, d in g.edges(data=True)):
            name = {"proceed": "proceed (ε)", "negation": "negation check"}.get(kind, kind)
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                     line=dict(color=st["color"], dash=st["dash"], width=st["width"])))
    allx = [p[0] for p in pos.values()]
    ally = [p[1] for p in pos.values()]
    rows = int(g.graph.get("alternatives", 1) or 1)
    fig.update_layout(
        annotations=annotations,
        xaxis=dict(visible=False, range=[min(allx) - 2.2, max(allx) + 1.6]),
        yaxis=dict(visible=False, range=[min(ally) - 2.9, max(ally) + 2.9]),
        height=height or max(380, 330 * rows + (120 if any(d.get("kind") == "negation" for _n, d in g.nodes(data=True)) else 0)),
        margin=dict(l=10, r=10, t=40, b=10),
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0),
        hoverlabel=dict(align="left"),
        title=dict(text=f"strategy: {g.graph.get('strategy', '')}"
                   + (f" · partition: [{', '.join(g.graph.get('partition') or [])}]" if g.graph.get("partition") else ""),
                   font=dict(size=13), x=0.99, xanchor="right", y=0.98),
    )
    return fig


def edge_table(g: nx.MultiDiGraph) -> pd.DataFrame:
    """One row per edge: from, to, kind, the shown formula, basic θ and optimised θ*."""
    rows = []
    for u, v, k, d in g.edges(keys=True, data=True):
        rows.append({"from": u, "to": v, "edge": d.get("kind", k), "shown": d.get("shown", d.get("label", "")),
                     "θ (basic)": d.get("formula", ""), "θ* (optimised)": d.get("formula_optimised", "")})
    order = {"begin": 0, "take": 1, "ignore": 2, "proceed": 3, "negation": 4}
    df = pd.DataFrame(rows, columns=["from", "to", "edge", "shown", "θ (basic)", "θ* (optimised)"])
    if len(df):
        state_order = {n: (d.get("alternative", 0), d.get("order", 99)) for n, d in g.nodes(data=True)}
        df["_s"] = df["from"].map(lambda n: state_order.get(n, (0, 99)))
        df["_k"] = df["edge"].map(lambda k: order.get(k, 9))
        df = df.sort_values(["_s", "_k"]).drop(columns=["_s", "_k"]).reset_index(drop=True)
    return df


def state_table(g: nx.MultiDiGraph) -> pd.DataFrame:
    rows = [{"state": n, "kind": d.get("kind"), "variable": d.get("var"), "event type": d.get("type"),
             "alternative": d.get("alternative", 0)} for n, d in g.nodes(data=True)]
    return pd.DataFrame(rows)
