"""What the uncertain engines run (imprecise-timestamps notes §2-§3; runtimes
``engine.engines.uncertain.point`` and ``engine.engines.uncertain.event``), as networkx graphs for drawing.

**uncertain-event** (:func:`event_based_graph`; notes §3). A run keeps one event per filled
component and a *valid interval* ``[lo, hi]`` per filled component, shrunk by the order and
window constraints (``bounds.tighten``). In the *any-state* mode (§3.3) a run is any subset of
filled components: states ``q{S}`` (the trace's names), an event **begin**\\s a run alone at every
component it can take and **take**\\s an unfilled component of every run it fits (the run is
cloned: the original **stays**). In the *sorted* mode (§3.6, exclusive components) events wait in
a reorder buffer until safe and only extend prefix runs ``q{a}``, ``q{a,b}``, … A run is
**prune**\\d (to R) by TTL (its window closes before the frontier ``F'``) or by a gap (an unfilled
earlier component could only be filled before ``F'``). A complete run is a signature (F):
under skip_till_any_match it is **emit**\\ted at once with its exact confidence (the DP of Eq. 1
with the window); under skip_till_next_match it must pass NELT and **wait**\\s until
``F > e_l.upper`` (every spoiler seen) for its Θ-factor confidence (Eq. 2). A signature of
confidence 0 is **drop**\\ped.

**uncertain-point** (:func:`point_based_graph`; notes §2). Every instant t of an event's
interval is a point ``e^t``, popped in time order once ``t < F`` (the frontier
``F = now.lower − U_max``). A skip_till_any_match NFA over points, whatever the strategy:
states named by the component a run waits for (the trace's names), **begin** / **take** a
point later than the run's last one, within the window, not of an event already in the run (id
check), and under skip_till_next_match not after ``NELT`` of the run's last event; the run
**stays** for later points; **expire** when the window has passed. Point matches (F) are
**collapse**\\d by signature once ``F > e_l.upper`` (α): the confidence is Eq. 1 (STAM) or Eq. 2 with
the spoilers Θ (STNM); a signature of confidence 0 is **drop**\\ped.

Edges carry ``kind`` (the move), ``style`` (how it is drawn: begin / take / ignore / proceed /
negation), ``label`` and ``formula``; nodes ``kind``, ``order`` (column), ``alternative``
(row) and ``start``. ``graph["terms"]`` lists (term, meaning) pairs for the legend.
"""
from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from engine.expr import to_text
from engine.model import Pattern
from engine.engines.graph_columns import centre_columns

if TYPE_CHECKING:
    import networkx as nx

    from engine.engines.uncertain.query import UQuery

__all__ = ["event_based_graph", "point_based_graph", "event_mode", "STYLE", "SIGNATURE"]

STYLE = {"begin": "begin", "take": "take", "stay": "ignore", "prune": "proceed", "expire": "proceed",
         "emit": "proceed", "wait": "proceed", "collapse": "proceed", "drop": "negation"}
SIGNATURE = "α"  # the node of emitted signatures (signature, range, confidence)


def event_mode(pattern: Pattern, mode: str = "auto") -> str:
    """The evaluation order ``EventBasedMatcher`` uses for ``mode`` (``auto``: sorted when
    every event can match one component only, else any-state)."""
    from engine.engines.uncertain.query import compile_query

    q = compile_query(pattern)
    if mode == "auto" or (mode == "sorted" and not q.exclusive()):
        return "sorted" if q.exclusive() else "any-state"
    return mode


def _window(q: "UQuery") -> str | None:
    if q.span is None:
        return None
    from engine.dsl import _window_text

    return _window_text(q.pattern.window)  # type: ignore[arg-type]


def _type(q: "UQuery", j: int) -> str:
    return q.comps[j].type


def _conds(q: "UQuery", j: int, mask: int) -> list[str]:
    """The conjuncts checked when component j is filled given the filled ``mask`` (any-state:
    those that mention j and only filled components)."""
    full = mask | 1 << j
    return [to_text(cj.expr) for s, cj in q.conj_sets if j in s and all(full >> k & 1 for k in s)]


def _local(q: "UQuery", j: int) -> list[str]:
    return [to_text(cj.expr) for s, cj in q.conj_sets if s == frozenset({j})]


def _terms(q: "UQuery") -> list[tuple[str, str]]:
    terms = [("frontier F", "F = now.lower − U_max: every event still to come has lower ≥ F (the arrival "
                            "assumption); instants before F are closed"),
             ("STAM / STNM", "skip_till_any_match: a signature depends on its own events only; "
                             "skip_till_next_match: also on the spoilers Θ, events that fit a component and may lie "
                             "between its neighbours")]
    if q.next:
        terms.append(("NELT", "next event's latest time: the smallest upper bound of the events that fit the next "
                              "component and start after the last one ends; nothing later can be next"))
    return terms


def _name(q: "UQuery", mask: int) -> str:
    return "q{" + ",".join(v for k, v in enumerate(q.vars) if mask >> k & 1) + "}"


def _graph(engine: str, q: "UQuery", **attrs: object) -> "nx.MultiDiGraph":
    import networkx as nx

    g = nx.MultiDiGraph(engine=engine, window=q.window, count_window=False, partition=list(q.equiv),
                        strategy_next=q.next, **attrs)
    return g


def _add(g: "nx.MultiDiGraph", u: str, v: str, kind: str, label: str, parts: list[str],
         var: str | None = None) -> None:
    f = " | ".join([label, *parts])
    g.add_edge(u, v, key=f"{kind}:{var}" if var else kind, kind=kind, style=STYLE[kind], var=var, label=label,
               formula=f, formula_optimised=f)


def _outputs(g: "nx.MultiDiGraph", q: "UQuery", final: str, col: int, point: bool) -> None:
    """F → α (emit / wait / collapse) and α → R (confidence 0)."""
    g.add_node(SIGNATURE, kind="signature", label=SIGNATURE, order=col + 1, alternative=0, start=False,
               formula="emitted as (signature, range, confidence)")
    if point:
        rule = "Eq. 2: Σ over point matches of Π p(t_j) · P[Θ = ∅] (spoilers)" if q.next else \
            "Eq. 1: Σ over point matches of Π p(t_j)"
        _add(g, final, SIGNATURE, "collapse", "collapse", ["group point matches by signature",
                                                         "once F > e_l.upper", rule])
    elif q.next:
        _add(g, final, SIGNATURE, "wait", "wait", ["NELT holds on every adjacent pair", "until F > e_l.upper",
                                                 "confidence by Θ factors (Eq. 2)"])
    else:
        _add(g, final, SIGNATURE, "emit", "emit", ["at once", "confidence by the DP of Eq. 1 with the window"])
    _add(g, SIGNATURE, "R", "drop", "drop", ["confidence 0: in every world a spoiler lies in between" if q.next
                                             else "confidence 0: no world orders the events within the window"])


def event_based_graph(pattern: Pattern, mode: str = "auto") -> "nx.MultiDiGraph":
    """The runs of ``uncertain-event`` (see the module docstring); ``mode`` as the engine's
    option (auto / any-state / sorted / selectivity). Raises ValueError
    (``UncertainUnsupported``) with the reason when the engine cannot run ``pattern``."""
    from engine.engines.uncertain.query import compile_query

    q = compile_query(pattern)
    mode = event_mode(pattern, mode)
    ell = q.length
    full = (1 << ell) - 1
    win = _window(q)
    g = _graph("uncertain-event", q, mode=mode, terms=_terms(q) + [
        ("valid interval", "per filled component, [lo, hi] shrunk by the order and the window (tighten); a take "
                           "that leaves one empty is refused")])
    start = "q{}"
    g.add_node(start, kind="initial", label="start", order=0, alternative=0, start=True, bound=[],
               formula="no run: an arriving event begins runs")
    if mode == "sorted":
        masks = [(1 << k) - 1 for k in range(1, ell)]
    else:
        masks = [sum(1 << k for k in c) for n in range(1, ell) for c in combinations(range(ell), n)]
    rows: dict[int, int] = {}
    for m in masks:
        col = bin(m).count("1")
        g.add_node(_name(q, m), kind="state", label=_name(q, m), order=col, alternative=rows.get(col, 0),
                   start=False, bound=[v for k, v in enumerate(q.vars) if m >> k & 1])
        rows[col] = rows.get(col, 0) + 1
    final = _name(q, full)
    g.add_node(final, kind="final", label="F", order=ell, alternative=0, start=False, bound=list(q.vars),
               formula="a complete run: a signature with its valid intervals")
    g.add_node("R", kind="reject", label="R", order=ell + 1, alternative=-1, start=False, formula="")
    source = "released from the reorder buffer (upper < F, nothing earlier overlapping buffered)"
    for j in (range(ell) if mode != "sorted" else [0]):
        parts = []
        if _local(q, j):
            parts.append("filter: " + " ∧ ".join(_local(q, j)))
        parts.append("valid interval = [lower, upper]")
        _add(g, start, _name(q, 1 << j), "begin", f"begin {q.vars[j]}:{_type(q, j)}", parts, q.vars[j])
    for m in masks:
        src = _name(q, m)
        free = [j for j in range(ell) if not m >> j & 1]
        if mode == "sorted":
            free = free[:1]
        for j in free:
            parts = []
            conds = _conds(q, j, m)
            if conds:
                parts.append("cond: " + " ∧ ".join(conds))
            if q.equiv:
                parts.append("same " + ", ".join(f"[{a}]" for a in q.equiv))
            parts.append("valid intervals non-empty (order" + (", window" if win else "") + ")")
            if q.next:
                parts.append("NELT when the prefix grows")
            if mode == "sorted" and j > 0:
                parts.append(source)
            _add(g, src, _name(q, m | 1 << j), "take", f"take {q.vars[j]}:{_type(q, j)}", parts, q.vars[j])
        _add(g, src, src, "stay", "stay", ["the run stays for later events (a take clones it)"])
        rules = []  # EventBasedMatcher._deadline: the run is pruned once its deadline < F'
        first = next(k for k in range(ell) if m >> k & 1)
        if win:
            rules.append(f"TTL: {q.vars[first]}.vub + {q.span} < F' (WITHIN {win})")
        c = next(k for k in range(ell) if not m >> k & 1)
        after = next((k for k in range(c + 1, ell) if m >> k & 1), None)
        if after is not None:
            rules.append(f"gap: {q.vars[c]} is unfilled and must come before {q.vars[after]}: "
                         f"{q.vars[after]}.vub − {after - c} < F'")
        if rules:
            _add(g, src, "R", "prune", "prune", rules)
    _outputs(g, q, final, ell, point=False)
    centre_columns(g)
    return g


def point_based_graph(pattern: Pattern) -> "nx.MultiDiGraph":
    """The point NFA of ``uncertain-point`` and its match collapsing (see the module
    docstring). Raises ValueError (``UncertainUnsupported``) with the reason when the engine
    cannot run ``pattern``."""
    from engine.engines.uncertain.query import compile_query

    q = compile_query(pattern)
    ell = q.length
    win = _window(q)
    g = _graph("uncertain-point", q, terms=_terms(q) + [
        ("point e^t", "one instant t of event e's interval with its probability p_e(t); points are popped in time "
                      "order once t < F (stream expansion)")])
    names = [*q.vars, "F"]
    for k, v in enumerate(q.vars):
        g.add_node(v, kind="initial" if k == 0 else "state", label=v, order=k, alternative=0, start=k == 0,
                   var=v, type=_type(q, k), formula=f"waits for a point of a {_type(q, k)} event for {v}")
    g.add_node("F", kind="final", label="F", order=ell, alternative=0, start=False,
               formula="a point match (one instant per event)")
    g.add_node("R", kind="reject", label="R", order=ell + 1, alternative=-1, start=False, formula="")
    for k, v in enumerate(q.vars):
        parts = []
        own = [to_text(cj.expr) for cj in q.own[k]]
        if own:
            parts.append(("filter: " if k == 0 else "cond: ") + " ∧ ".join(own))
        if k > 0:
            if q.equiv:
                parts.append("same " + ", ".join(f"[{a}]" for a in q.equiv))
            parts.append(f"t > {q.vars[k - 1]}.t")
            if win:
                parts.append(f"t − {q.vars[0]}.t ≤ {q.span}")
            parts.append("not an event of the run (id check)")
            if q.next:
                parts.append(f"t ≤ NELT({q.vars[k - 1]})")
        _add(g, v, names[k + 1], "begin" if k == 0 else "take", f"{'begin' if k == 0 else 'take'} {v}^t:{_type(q, k)}",
             parts, v)
        if k > 0:
            _add(g, v, v, "stay", "stay", ["the run stays for later points (skip_till_any_match over points, "
                                           "whatever the strategy)"])
            if win:
                _add(g, v, "R", "expire", "expire", [f"a point t with t − {q.vars[0]}.t > {q.span} arrived: "
                                                     f"WITHIN {win} has passed"])
    _outputs(g, q, "F", ell, point=True)
    return g
