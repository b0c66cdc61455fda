"""The engines that can be drawn and how each is compiled into a styled ``networkx.MultiDiGraph``:
:data:`COMPILERS`, the engines' help texts, the default engine, the shown formulas, and
:func:`automaton_graph`, which restricts a pattern to what an engine runs and notes what it leaves out.
"""
from __future__ import annotations

import re
from typing import Any, Callable

import networkx as nx

from engine.model import Pattern, Strategy
from visualizers.automaton.folding import fold_states


ANY = Strategy.ANY.value


class AutomatonUnavailable(ValueError):
    """The chosen compiler cannot compile the pattern; the message says why."""


def _nfab(pattern: Pattern) -> nx.MultiDiGraph:
    from engine.engines.nfab.compiler import compile_pattern, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise AutomatonUnavailable(f"NFA^b cannot compile this pattern: {why}")
    g = compile_pattern(pattern).to_networkx(optimised=True)
    w = pattern.window
    if w is not None and w.unit in ("hour", "day") and w.value != 1:  # the engine writes `12 hour`
        raw, nice = f"< {w.value:g} {w.unit}", f"< {w.value:g} {w.unit}s"
        for _u, _v, d in g.edges(data=True):
            for k in ("formula", "formula_optimised", "label"):
                if isinstance(d.get(k), str):
                    d[k] = re.sub(re.escape(raw) + r"(?!s)", nice, d[k])
    return g


def _style(g: nx.MultiDiGraph, engine: str, pattern: Pattern) -> nx.MultiDiGraph:
    """An engine's export ready to draw: ``kind`` becomes the drawing style (begin / take /
    ignore / proceed / negation) and the engine's own kind of move is kept in ``move``
    (the automata write windows as the pattern does: ``span < 16 days``)."""
    for _u, _v, d in g.edges(data=True):
        d["move"] = d["kind"]
        d["kind"] = d.get("style", d["kind"])
    g.graph["engine"] = engine
    return g


def _lazy(which: str) -> Callable[[Pattern], nx.MultiDiGraph]:
    """The lazy chain / tree automata (Kolchinsky & Schuster): states in evaluation order,
    edges drawn by their ``style`` (take/ignore/proceed/negation)."""

    def compile_fn(pattern: Pattern) -> nx.MultiDiGraph:
        from engine.engines.lazy.chain_compiler import unsupported_reason

        why = unsupported_reason(pattern)
        if why:
            raise AutomatonUnavailable(f"the lazy {which} cannot compile this pattern: {why}")
        if which == "chain":
            from engine.engines.lazy.chain_compiler import compile_chain

            g = compile_chain(pattern).to_networkx()
        else:
            from engine.engines.lazy.tree_compiler import compile_tree

            try:
                g = compile_tree(pattern).to_networkx()
            except ValueError as err:
                raise AutomatonUnavailable(f"the lazy tree is not drawn: {err}") from None
        return _style(g, f"lazy-{which}", pattern)

    return compile_fn


def _eager(pattern: Pattern) -> nx.MultiDiGraph:
    """The eager NFA baseline's bound-set lattice (``engine.engines.lazy.eager_compiler``)."""
    from engine.engines.lazy.eager_compiler import eager_graph, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise AutomatonUnavailable(f"the eager NFA cannot compile this pattern: {why}")
    return _style(eager_graph(pattern), "eager", pattern)


def _ses(pattern: Pattern) -> nx.MultiDiGraph:
    """The SES automaton (match-windows §4.8): states (i, S) with the runtime's moves
    (``engine.engines.ses.moves``)."""
    from engine.engines.ses.moves import ses_moves_graph, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise AutomatonUnavailable(f"the SES automaton cannot compile this pattern: {why}")
    return _style(ses_moves_graph(pattern), "ses", pattern)


def _uncertain(which: str) -> Callable[[Pattern], nx.MultiDiGraph]:
    """What ``uncertain-event`` / ``uncertain-point`` run over interval data
    (``engine.engines.uncertain.automaton``)."""

    def compile_fn(pattern: Pattern) -> nx.MultiDiGraph:
        from engine.engines.uncertain.automaton import event_based_graph, point_based_graph
        from engine.engines.uncertain.query import unsupported_reason

        why = unsupported_reason(pattern)
        if why:
            raise AutomatonUnavailable(f"the uncertain engines cannot run this pattern: {why}")
        g = event_based_graph(pattern) if which == "event" else point_based_graph(pattern)
        return _style(g, f"uncertain-{which}", pattern)

    return compile_fn


# engine name -> (title, compile function pattern -> MultiDiGraph, strategies it implements)
COMPILERS: dict[str, tuple[str, Callable[[Pattern], nx.MultiDiGraph]]] = {
    "nfab": ("NFA^b (SASE+)", _nfab),
    "lazy-chain": ("Lazy chain NFA (evaluation in ascending frequency)", _lazy("chain")),
    "lazy-tree": ("Lazy tree NFA (rarest remaining type first)", _lazy("tree")),
    "eager": ("Eager NFA (every event on arrival, pattern order)", _eager),
    "ses": ("SES automaton (event sets, states (i, S))", _ses),
    "uncertain-event": ("Uncertain, event-based (runs over intervals)", _uncertain("event")),
    "uncertain-point": ("Uncertain, point-based (a point NFA, then collapsing)", _uncertain("point")),
}
ANY_ONLY = {"lazy-chain", "lazy-tree", "eager", "ses"}  # skip_till_any_match and OUTPUT ALL only
UNCERTAIN = {"uncertain-event", "uncertain-point"}  # interval data; skip_till_any/next_match
SELECTING = {"ses"}  # the drawn engines that select earliest / maximal matches (the others find all)
ENGINE_HELP: dict[str, str] = {
    "nfab": "NFA^b (SASE+ §4): a state per component (a pair `a[1] → a[i]` for Kleene +) and F. **begin** and "
            "**take** edges consume an event, **ignore** skips it (dashed), **proceed** (ε) moves on without "
            "consuming one. The strategy only changes the ignore formulas.",
    "lazy-chain": "Lazy chain NFA (Kolchinsky & Schuster §4-§5): states q1 … qn take the variables in ascending "
                  "frequency (rarest first; pattern order while the rates are unknown). Events of later variables "
                  "are **stored** in buffers and taken from there; a state only takes from the stream when no later "
                  "variable must precede it. **R** drops a partial match whose window closed (**timeout**) or that "
                  "met a negated event.",
    "lazy-tree": "Lazy tree NFA (Kolchinsky & Schuster §7): from the root, each state takes whichever remaining "
                 "variable has the fewest buffered events (`isMin`), so the order adapts while the stream runs; "
                 "Kleene variables come last (**iterate**). **R** drops partial matches whose window closed.",
    "eager": "Eager NFA, the baseline of the lazy engines (Kolchinsky & Schuster §2.2): every event is applied on "
             "arrival, in pattern order; a state is the set of variables bound so far (`q{c,p}`). A **take** clones "
             "the partial match and the **ignore** loop keeps the original, so partial matches live until their "
             "window closes (**timeout** → R).",
    "ses": "SES automaton (Cadonna et al., as the match-windows paper §4.8 uses it): a pattern is a sequence of "
           "event sets; a state `(i,S)` says set i is being filled and S of its variables are bound. An instance "
           "**begin**s at every event that fits a variable of the first set, **take**s the variables of the current "
           "set in any order (a clone; the original **skip**s), **iterate**s a Kleene variable, and on a complete "
           "set takes the **next set**'s first variable; it **expire**s when the window closes. With "
           "`earliest`/`maximal` the matches of each start event are selected when its window closes.",
    "uncertain-event": "Event-based evaluation over uncertainty intervals (Zhang et al. §4): runs hold whole events "
                       "and a *valid interval* per component, shrunk by order and window. Any-state: a run is any set "
                       "of filled components `q{S}`, so events may arrive out of time order; sorted (exclusive "
                       "components): events wait in a reorder buffer and extend prefixes. Runs are **prune**d "
                       "against the frontier F' (TTL, gap); a complete run is a signature, **emit**ted at once "
                       "(skip_till_any_match) or after it **wait**s for its spoilers (skip_till_next_match, NELT).",
    "uncertain-point": "Point-based evaluation over uncertainty intervals (Zhang et al. §3): every instant t of an "
                       "interval becomes a point `e^t`, released in time order behind the frontier F; a "
                       "skip_till_any_match NFA over points (id check, window, and NELT for skip_till_next_match) "
                       "builds point matches, which are **collapse**d per signature into (signature, range, "
                       "confidence).",
}


def interval_engines() -> list[str]:
    """The planner's engines for interval data (imprecise timestamps), preferred first."""
    from engine.planner import ENGINES

    return [n for n, i in sorted(ENGINES.items(), key=lambda kv: kv[1].preference) if getattr(i, "interval", False)]


def default_engine(pattern: Pattern, interval: bool = False) -> str:
    """The engine ``auto`` runs the pattern with (on interval data: the interval engine), when
    it is drawn (``match-windows`` calls the SES automaton: drawn as ``ses``); else NFA^b."""
    try:
        from engine.planner import choose

        name = choose(pattern, interval=interval).name
    except Exception:  # noqa: BLE001 - no engine runs it: still draw what can be drawn
        name = "uncertain-event" if interval else "nfab"
    if name == "match-windows":
        name = "ses"
    return name if name in COMPILERS else "nfab"


def window_text(pattern: Pattern, first_var: str | None) -> str | None:
    """The WITHIN test as the compiler writes it (``e.ts - a.ts < 1 hour``)."""
    w = pattern.window
    if w is None or first_var is None:
        return None
    unit = "events" if w.is_count else (w.unit or "")
    if unit in ("hour", "day") and w.value != 1:
        unit += "s"
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


CITED = {"nfab": "SASE+", "ses": "the match-windows paper §4.8", "uncertain-event": "Zhang et al.",
         "uncertain-point": "Zhang et al."}


def _restrict(pattern: Pattern, engine: str, title: str) -> tuple[Pattern, list[str]]:
    """The pattern as ``engine`` can be drawn (strategy, OUTPUT, selection it implements) and
    notes that say what was changed and that the engine cannot run the pattern as designed."""
    from engine.model import Selection

    what: list[str] = []
    update: dict[str, Any] = {}
    allowed = {ANY, Strategy.NEXT.value} if engine in UNCERTAIN else {ANY} if engine in ANY_ONLY else None
    if allowed is not None and pattern.strategy.value not in allowed:
        what.append(pattern.strategy.value)
        update["strategy"] = Strategy.ANY
    if (engine in ANY_ONLY or engine in UNCERTAIN) and pattern.output != "ALL":
        what.append(f"OUTPUT {pattern.output}")
        update["output"] = "ALL"
    sel = pattern.selection
    if sel is not Selection.ALL and engine not in SELECTING:
        what.append(f"the selection {sel.value}")
        update["selection"] = Selection.ALL
    if not what:
        return pattern, []
    name = title.split(" (")[0]
    does = ("skip_till_any_match and skip_till_next_match" if engine in UNCERTAIN else
            "skip_till_any_match" if engine in ANY_ONLY else "every strategy")
    finds = "all matches (no earliest / maximal selection)" if engine not in SELECTING else "OUTPUT ALL"
    cite = CITED.get(engine, "Kolchinsky & Schuster")
    note = (f"The {name} implements {does} with {finds} ({cite}), "
            f"not {' with '.join(what)}: it is drawn as it runs without that and cannot run this pattern as "
            "designed.")
    if "strategy" in update:
        note += " NFA^b runs every strategy."
    if "selection" in update:
        note += " The SES automaton and match windows select earliest / maximal matches."
    return pattern.model_copy(update=update), [note]


def _interval_note(engine: str, interval: bool) -> str | None:
    if engine in UNCERTAIN:
        if interval:
            return (f"The data has uncertainty intervals [lower, upper]: drawn is what `{engine}` runs under the "
                    "possible-worlds semantics of the imprecise-timestamps paper (the other is "
                    f"`{(UNCERTAIN - {engine}).pop()}`; both give the same signatures, ranges and confidences).")
        return (f"`{engine}` runs events with uncertainty intervals only (map the lower/upper columns); the data in "
                "use has point timestamps, so the point engines run it.")
    if not interval:
        return None
    runners = interval_engines()
    if runners:
        return ("The data has uncertainty intervals [lower, upper]: it is run by "
                + ", ".join(f"`{n}`" for n in runners) + " under the possible-worlds semantics of the "
                "imprecise-timestamps paper, not by this automaton. Drawn here is the pattern's point automaton "
                "(what the point engines run on point data); choose an uncertain engine above for what runs it.")
    return ("The data has uncertainty intervals [lower, upper]; the engines of this build match interval events as "
            "points at their lower bound, so this is the point automaton they run.")


def automaton_graph(pattern: Pattern, engine: str = "nfab", strategy: str | Strategy | None = None,
                    push_window: bool = True, peek: bool = True, interval: bool = False,
                    fold: bool = False) -> nx.MultiDiGraph:
    """The compiled automaton with ``shown`` formulas; ``strategy`` overrides the pattern's.

    An engine that does not implement the pattern's strategy, OUTPUT or selection (the lazy,
    eager and SES engines: skip_till_any_match with OUTPUT ALL; the uncertain engines:
    skip_till_any/next_match; only SES selects earliest/maximal matches) is drawn as it runs
    without it, and ``graph["note"]`` says so (``graph["runs_as_designed"]`` is False).
    ``interval``: the data has uncertainty intervals (noted in ``graph["note"]`` and the title).
    ``fold``: draw states that behave alike as one (:func:`fold_states`)."""
    if strategy is not None:
        pattern = pattern.model_copy(update={"strategy": Strategy(strategy)})
    try:
        title, compile_fn = COMPILERS[engine]
    except KeyError:
        raise AutomatonUnavailable(f"no automaton view for engine `{engine}`") from None
    pattern, notes = _restrict(pattern, engine, title)
    as_designed = not notes
    g = compile_fn(pattern)
    if fold:
        g = fold_states(g)
    g.graph["engine"] = engine
    g.graph["title"] = title
    g.graph["strategy"] = pattern.strategy.value
    g.graph.setdefault("partition", list(pattern.equivalence))
    g.graph["runs_as_designed"] = as_designed
    inote = _interval_note(engine, interval)
    if inote:
        notes.append(inote)
    g.graph["interval"] = interval
    g.graph["note"] = " ".join(notes)
    first = {}
    for n, d in g.nodes(data=True):
        if d.get("start"):
            first[d.get("alternative", 0)] = d.get("var")
    for u, v, k, d in g.edges(keys=True, data=True):
        d.setdefault("formula", d.get("label", ""))
        d.setdefault("formula_optimised", d["formula"])
        if engine != "nfab":
            d["shown"] = d["formula"]
            continue
        alt = g.nodes[u].get("alternative", 0)
        into_final = g.nodes[v].get("kind") == "final"
        d["shown"] = shown_formula(d["kind"], d["formula"], d["formula_optimised"], into_final,
                                   window_text(pattern, first.get(alt)), push_window, peek)
    g.graph["push_window"] = push_window
    g.graph["peek"] = peek
    return g
