"""The SES automaton (``ses.py``) with every move its runtime makes (``engine.engines.ses.matcher``),
as a networkx graph for drawing, like ``chain.py`` / ``tree.py`` / ``eager.py`` export theirs.

States are the pairs ``(i, S)`` of :func:`engine.engines.ses.compiler.ses_graph` (same names, which the
matcher's trace uses). Edges, by ``kind`` (the move) and ``style`` (how it is drawn):

- **begin** ``(1,∅) → (1,{v})``: an instance starts at every event that fits a variable v of B1;
- **take** ``(i,S) → (i,S∪{v})``: bind v of the current set (a clone; the original stays);
- **iterate** ``(i,S) ↺``: append the event to a Kleene variable ``v ∈ S`` (``prev`` checked);
- **next_set** ``(i,Bi) → (i+1,{u})``: the next set starts with u;
- **skip** ``(i,S) ↺``: the instance ignores the event (skip_till_any_match); with an
  earliest / maximal selection the skip branch is pruned when it can give no selected match (§3.5);
- **expire** ``(i,S) → R``: the window closed (``e - start ≥ W``).

The accepting state ``(k,Bk)`` reports a match when the conditions that need a complete
binding hold (node attribute ``formula``). Nodes carry ``order`` (column: variables bound so
far), ``alternative`` (row in the column) and ``start``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import ANY_TYPE, Pattern, Selection
from engine.engines.ses.compiler import SesAutomaton, compile_ses, unsupported_reason
from engine.engines.graph_columns import centre_columns

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["ses_moves_graph", "unsupported_reason", "STYLE"]

STYLE = {"begin": "begin", "take": "take", "iterate": "take", "next_set": "begin", "skip": "ignore",
         "expire": "proceed"}


def _guard(a: SesAutomaton, v: str, window: str | None, first: bool) -> str:
    sv = a.vars[v]
    parts = [f"{'take' if not first else 'begin'} {v}:{sv.type if sv.type != ANY_TYPE else 'ANY'}"]
    if sv.props_text:
        parts.append("filter: " + " ∧ ".join(sv.props_text))
    conds = [c.text for c in a.conds_on[v]]
    if conds:
        parts.append("cond: " + " ∧ ".join(conds))
    if a.equivalence and not first:
        parts.append("same " + ", ".join(f"[{x}]" for x in a.equivalence))
    if window and not first:
        parts.append(f"span < {window}")
    return " | ".join(parts)


def ses_moves_graph(pattern: Pattern) -> "nx.MultiDiGraph":
    """The SES automaton of ``pattern`` with begin / take / iterate / next_set / skip / expire
    edges (raises ValueError with the reason when the SES automaton cannot run it)."""
    import networkx as nx

    from engine.dsl import _window_text  # the window as written: `16 days`, `20 ms`

    a = compile_ses(pattern)
    win = _window_text(pattern.window) if pattern.window is not None else None
    sel = pattern.selection
    g = nx.MultiDiGraph(engine="ses", sets=[list(s) for s in a.sets], window=a.window, count_window=a.count_window,
                        partition=list(a.equivalence), selection=sel.value)
    last = a.k - 1
    offset = [sum(len(s) for s in a.sets[:i]) for i in range(a.k)]
    rows: dict[int, int] = {}
    final_text = " ∧ ".join(c.text for c in a.final_conds)
    kleene_last = any(a.vars[v].kleene for v in a.sets[last])
    for i, s in a.states():
        name = a.state(i, s)
        bound = [v for v in a.order if s >> a.vars[v].bit & 1]
        col = 0 if (i, s) == (0, 0) else offset[i] + len(bound)
        row = rows.get(col, 0)
        rows[col] = row + 1
        final = i == last and s == a.set_mask[last]
        kind = "initial" if (i, s) == (0, 0) else ("final" if final else "state")
        g.add_node(name, kind=kind, label=name, set=i + 1, bound=bound, order=col, alternative=row,
                   start=kind == "initial",
                   formula=("report a match" + (f" if {final_text}" if final_text else "")) if final else "")
    if a.window is not None:
        g.add_node("R", kind="reject", label="R", order=max(rows) + 1, alternative=-1, start=False, formula="")

    def add(u: str, v: str, key: str, kind: str, label: str, formula: str, var: str | None = None) -> None:
        g.add_edge(u, v, key=key, kind=kind, style=STYLE[kind], var=var, label=label, formula=formula,
                   formula_optimised=formula)

    pruned = {Selection.EARLIEST: "earliest", Selection.MAXIMAL: "maximal",
              Selection.EARLIEST_MAXIMAL: "earliest and maximal"}.get(sel)
    for i, s in a.states():
        src = a.state(i, s)
        start = (i, s) == (0, 0)
        for v in a.sets[i]:
            bit = 1 << a.vars[v].bit
            if not s & bit:
                f = _guard(a, v, win, start)
                add(src, a.state(i, s | bit), f"take:{v}", "begin" if start else "take", f.split(" | ")[0], f, v)
            elif a.vars[v].kleene:
                f = _guard(a, v, win, False).replace(f"take {v}:", f"iterate {v}:", 1)
                add(src, src, f"iterate:{v}", "iterate", f"iterate {v}", f, v)
        if s == a.set_mask[i] and i < last and not start:
            for u in a.sets[i + 1]:
                f = _guard(a, u, win, False).replace(f"take {u}:", f"next set: take {u}:", 1)
                add(src, a.state(i + 1, 1 << a.vars[u].bit), f"next:{u}", "next_set", f"next set: {u}", f, u)
        if start:
            continue
        final = i == last and s == a.set_mask[last]
        if final and not kleene_last:
            continue  # an accepting instance without a Kleene variable left never moves again
        skip = "skip | a take clones the instance"
        if pruned:
            skip += f" | pruned after a take that only that event allows, when skipping can give no {pruned} match"
        add(src, src, "skip", "skip", "skip", skip)
        if a.window is not None:
            add(src, "R", "expire", "expire", "expire", f"expire | span ≥ {win}")
    centre_columns(g)
    return g
