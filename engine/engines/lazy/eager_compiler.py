"""The eager NFA baseline (Kolchinsky & Schuster §2.2; runtime ``engine.engines.lazy.eager_matcher``) as a
networkx graph, like ``chain.py`` / ``tree.py`` export the lazy automata.

Per DNF clause of the pattern (``chain.analyse``), a state per set of bound variables that
respects the pattern's order (``q{}`` → ``q{a}`` → ``q{a,b}``): every event is applied on arrival
in pattern order; a **take** clones the partial match (the **ignore** loop keeps the original),
a Kleene variable **iterate**\\s while nothing after it is bound, a partial match whose window
closes goes to R (**timeout**), and negations are checked on the complete match
(post-processing: **complete** → ``¬x`` → R on a qualifying negated event, else on to F).
State names are the engine's trace names (``engine.engines.lazy.trace``).

Edges carry ``kind`` (the move: take / iterate / ignore / timeout / epsilon / negation /
search_failed), ``style`` (how it is drawn: take / ignore / proceed / negation), ``label``
and ``formula``; nodes carry ``kind``, ``order`` (column = number of bound variables),
``alternative`` (row) and ``start``, as ``chain._finish`` sets them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.model import Pattern
from engine.engines.lazy.chain_compiler import STYLE, _conds_text, analyse, filter_text, unsupported_reason

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["eager_graph", "unsupported_reason"]


def _written_window(p: Pattern) -> str | None:
    from engine.dsl import _window_text  # the window as written: `16 days`, `500 events`

    return None if p.window is None else _window_text(p.window)


def eager_graph(pattern: Pattern) -> "nx.MultiDiGraph":
    """The bound-set lattice of every clause, with F, R and the post-processing negations
    (raises ValueError with the reason when the eager engine cannot run ``pattern``)."""
    import networkx as nx

    from engine.expr import uses_iteration

    why = unsupported_reason(pattern)
    if why:
        raise ValueError(why)
    info = analyse(pattern)
    multi = len(info.clauses) > 1
    win = _written_window(pattern)
    g = nx.MultiDiGraph(engine="eager", clauses=len(info.clauses), window=info.window,
                        count_window=info.count_window)
    g.add_node("R", kind="reject", label="R", order=None, alternative=-1)
    last_col = 0
    row_base = 0
    for cl in info.clauses:
        pre = f"c{cl.index}:" if multi else ""
        order = [v for v in info.positive if v in cl.vars]
        full = frozenset(cl.vars)
        negs = sorted(cl.negations, key=lambda n: (n.trailing, n.pos))
        klee = {v for v in cl.vars if info.vars[v].kleene}

        def name(s: frozenset[str]) -> str:
            if s == full and not negs:
                return "F"
            return f"{pre}q{{{','.join(v for v in order if v in s)}}}"

        states: list[frozenset[str]] = [frozenset()]
        seen = {frozenset()}
        takes: list[tuple[frozenset[str], frozenset[str], str]] = []
        k = 0
        while k < len(states):
            s = states[k]
            k += 1
            for v in order:
                if v in s or not cl.before[v] <= s or cl.after[v] & s:
                    continue
                t = s | {v}
                takes.append((s, t, v))
                if t not in seen:
                    seen.add(t)
                    states.append(t)
        rows: dict[int, int] = {}
        for s in sorted(states, key=lambda x: (len(x), [order.index(v) for v in order if v in x])):
            n = name(s)
            col = len(s)
            r = rows.get(col, 0)
            rows[col] = r + 1
            kind = "initial" if not s else ("final" if n == "F" else "state")
            if not g.has_node(n):
                g.add_node(n, kind=kind, label=n.split(":")[-1], order=col, alternative=row_base + r,
                           clause=cl.index, var=None, bound=sorted(s))
            last_col = max(last_col, col)
        for s, t, v in takes:
            conds = [c for c in cl.conds if v in c.vars and c.vars <= t and not uses_iteration(c.node)]
            vi = info.vars[v]
            parts = [f"take {v}:{vi.type}"]
            f = filter_text(info, v)
            if f != "true":
                parts.append(f"filter: {f}")
            if conds:
                parts.append(f"cond: {_conds_text(conds)}")
            if win and s:
                parts.append(f"span < {win}")
            g.add_edge(name(s), name(t), key=f"take:{v}", kind="take", var=v, type=vi.type, label=parts[0],
                       formula=" | ".join(parts))
        for s in states:
            n = name(s)
            for v in order:
                if v in s and v in klee and not (cl.after[v] & s):
                    lab = f"iterate {v}:{info.vars[v].type}"
                    conds = [c for c in cl.conds if v in c.vars and c.vars <= s]
                    g.add_edge(n, n, key=f"iterate:{v}", kind="iterate", var=v, label=lab,
                               formula=lab + (f" | cond: {_conds_text(conds)}" if conds else ""))
            if s and n != "F":
                g.add_edge(n, n, key="ignore", kind="ignore", label="ignore", formula="ignore")
                if info.window is not None:
                    g.add_edge(n, "R", key="timeout", kind="timeout", label="timeout",
                               formula=f"timeout | span ≥ {win}")
        prev = name(full)
        for j, neg in enumerate(negs):
            nm = f"{pre}¬{neg.var}"
            nxt = "F" if j + 1 == len(negs) else f"{pre}¬{negs[j + 1].var}"
            g.add_node(nm, kind="negative", label=f"¬{neg.var}", order=len(full) + 1 + j, alternative=row_base,
                       clause=cl.index, var=neg.var)
            if j == 0:
                g.add_edge(prev, nm, key="complete", kind="epsilon", label="complete",
                           formula="complete: check the negations")
            cond = _conds_text(neg.conds)
            lab = f"take ¬{neg.var}:{neg.type}"
            g.add_edge(nm, "R", key=f"take:{neg.var}", kind="negation", var=neg.var, label=lab,
                       formula=lab + (f" | cond: {cond}" if cond != "true" else ""))
            ev = "timeout" if neg.trailing else "search_failed"
            g.add_edge(nm, nxt, key=ev, kind=ev, label=ev, formula=ev)
            last_col = max(last_col, len(full) + 1 + j)
        row_base += max(rows.values(), default=1)
    if "F" not in g or "kind" not in g.nodes["F"]:  # a negation's last edge creates F without its fields
        g.add_node("F", kind="final", label="F", order=None, alternative=0)
    if not any(v == "R" for _u, v in g.edges()):
        g.remove_node("R")
    for _n, d in g.nodes(data=True):
        if d.get("order") is None:
            d["order"] = last_col + 1
        d["start"] = d.get("kind") == "initial"
    for _u, _v, d in g.edges(data=True):
        d["formula_optimised"] = d["formula"]
        d["style"] = STYLE.get(d["kind"], "take")
    return g
