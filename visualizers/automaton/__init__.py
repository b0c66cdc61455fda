"""Compiled automata as plotly figures, drawn from their networkx export.

``automaton_graph(pattern, engine, ...)`` compiles a pattern for one engine and returns its
``networkx.MultiDiGraph``, every edge with a ``shown`` formula and a drawing ``kind``
(begin / take / ignore / proceed / negation); the engine's own move is kept in ``move``.
Every graph is built in ``engine.automata``; this module only styles and draws it:

* ``nfab``: NFA^b (``engine.automata.nfab``); the two optimisation switches of SASE+ §4.5
  choose the shown formulas (step 5, *push the window*: the WITHIN test on every edge;
  step 6, *peek before proceed*: a proceed edge also requires the next state's begin);
* ``lazy-chain`` / ``lazy-tree``: the lazy Chain / Tree NFA of Kolchinsky & Schuster
  (``engine.automata.chain`` / ``tree``; moves take, iterate, store, ignore, timeout,
  search_failed, negation);
* ``eager``: the eager NFA baseline's bound-set lattice (``engine.automata.eager``);
* ``ses``: the SES automaton of event-set patterns, states (i, S) (``engine.automata.ses_moves``);
* ``uncertain-event`` / ``uncertain-point``: what the imprecise-timestamps engines run over
  interval data (``engine.automata.uncertain``): any-state or sorted runs with valid
  intervals, pruning against the frontier, emission; a point NFA, then collapsing.

An engine that does not implement the pattern's strategy, OUTPUT or selection is drawn as it
runs without it, with ``graph["note"]`` saying so (``graph["runs_as_designed"]`` is False).
Windows are written in the pattern's own unit.

``automaton_figure(graph)`` draws states left to right (one row per SEQ alternative or
tree level), begin and take solid, ignore dashed, proceed as an ε arrow, F as a double
circle, R (reject) above, negation checks in red. Labels are placed on a pixel grid
(:data:`SCALE` pixels per data unit, figure drawn at its own size) so that no two labels
and no label and state overlap: a label that cannot sit at its edge moves away and is tied
to it by a thin leader line. Hovering over a state or an edge label shows its full formula.
Big automata stay readable: :func:`fold_states` draws the lazy tree's states that bind the
same variables as one, and a compact figure leaves out the loops and edges to R that many
states share (:func:`common_moves`; the legend and edge table keep them).
"""
from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable

import networkx as nx
import pandas as pd
import plotly.graph_objects as go

from engine.automata.columns import centre_columns
from engine.model import Pattern, Strategy
from visualizers.escape import plotly as plotly_text

EDGE_STYLE: dict[str, dict[str, Any]] = {
    "begin": {"color": "#1f4e79", "dash": "solid", "width": 2.2},
    "take": {"color": "#2e8b57", "dash": "solid", "width": 2.2},
    "ignore": {"color": "#7f7f7f", "dash": "dash", "width": 1.8},
    "proceed": {"color": "#8e44ad", "dash": "solid", "width": 2.0},
    "negation": {"color": "#c0392b", "dash": "dot", "width": 2.6},
}
STATE_FILL = {"singleton": "#dbe9f6", "kleene_first": "#dbe9f6", "kleene_rest": "#e3f4e8",
              "final": "#fff3cd", "negation": "#fdecea", "initial": "#eef2f7", "state": "#dbe9f6",
              "negative": "#fdecea", "reject": "#e5e5e5", "signature": "#fde9d9"}

# What each state kind and each move means (the legend under the figure, the hover text).
STATE_MEANING: dict[str, tuple[str, str]] = {
    "singleton": ("state", "waits for the event of a one-event component"),
    "kleene_first": ("a[1]", "first event of a Kleene + component"),
    "kleene_rest": ("a[i]", "further events of a Kleene component (take loop), then proceed"),
    "final": ("F", "accepting: a match is reported"),
    "negation": ("!x", "negation check: a qualifying event of this type kills the run"),
    "initial": ("start", "nothing bound yet; the first variable's events start partial matches"),
    "state": ("q", "some variables bound; waits for the next variable (from the stream or its buffer)"),
    "negative": ("¬x", "post-processing negation: looks for a qualifying negated event"),
    "reject": ("R", "reject: the partial match is dropped (its window closed, or a negated event was found)"),
    "signature": ("α", "a signature emitted as (signature, range, confidence)"),
}
# Where an engine's states mean something else than the generic kinds above.
ENGINE_STATE_MEANING: dict[str, dict[str, tuple[str, str]]] = {
    "ses": {
        "initial": ("(1,{})", "no variable bound: every event that fits a variable of the first set starts an "
                              "instance"),
        "state": ("(i,S)", "event set i is being filled and S holds its variables bound so far; the sets before i "
                           "are complete"),
        "final": ("(k,Bk)", "accepting: the last set is complete; a match is reported (after the conditions that "
                            "need the whole binding)"),
        "reject": ("R", "the instance is dropped: its window closed"),
    },
    "uncertain-event": {
        "initial": ("start", "no run yet: an arriving interval event begins runs"),
        "state": ("q{S}", "a run with one event per component in S and a valid interval [lo, hi] for each"),
        "final": ("F", "a complete run: a signature with its valid intervals"),
        "reject": ("R", "the run or signature is dropped (pruned by TTL or gap, NELT, or confidence 0)"),
    },
    "uncertain-point": {
        "initial": ("a", "waits for a point of the first component's events"),
        "state": ("x", "a point run that waits for a point of component x"),
        "final": ("F", "a point match: one instant per event, in strict order, within the window"),
        "reject": ("R", "the point run or signature is dropped (window passed, or confidence 0)"),
    },
}
MOVE_MEANING: dict[str, str] = {
    "begin": "consume the event and move to the next state",
    "take": "consume the event (Kleene: stay and extend the list; lazy: bind the next variable)",
    "iterate": "extend a Kleene list with one more event",
    "ignore": "skip the event (the strategy decides which may be skipped; eager: the instance stays as it was "
              "while a clone takes the event)",
    "store": "keep the event in a buffer for a later state (lazy evaluation)",
    "proceed": "ε: move on without consuming an event",
    "negation": "a qualifying negated event: the run dies (NFA^b) or goes to R (lazy)",
    "timeout": "the window closed: to R (or, after a trailing negation, to F)",
    "search_failed": "no qualifying negated event was found: on to the next state",
    "epsilon": "ε: start this clause's chain",
    "next_set": "the current event set is complete: the event starts the next set",
    "skip": "the instance ignores the event and stays (a take clones it: skip_till_any_match)",
    "expire": "the window has passed: the run is dropped",
    "stay": "the run stays for later events (a take clones it)",
    "prune": "pruned against the frontier F': TTL (its window closes before F') or gap (an earlier component "
             "can no longer be filled)",
    "emit": "skip_till_any_match: the signature is emitted at once with its exact confidence and range",
    "wait": "skip_till_next_match: held until F > its last event's upper bound (every spoiler seen), then NELT "
            "and the confidence",
    "collapse": "the point matches of one signature, once all are seen, become one (signature, range, confidence)",
    "drop": "the signature has confidence 0 and is not emitted",
}

SCALE = 57.0  # pixels per data unit: the figure is drawn at its own size, so labels never scale
DX = 4.0      # nominal distance between states (data units)
ROW = 3.2     # nominal distance between alternatives (data units)
R = 0.42      # state radius in data units (for arrow ends and loops)

ANY = Strategy.ANY.value


class AutomatonUnavailable(ValueError):
    """The chosen compiler cannot compile the pattern; the message says why."""


# --------------------------------------------------------------------------- compilers

def _nfab(pattern: Pattern) -> nx.MultiDiGraph:
    from engine.automata.nfab import compile_pattern, unsupported_reason

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
        from engine.automata.chain import unsupported_reason

        why = unsupported_reason(pattern)
        if why:
            raise AutomatonUnavailable(f"the lazy {which} cannot compile this pattern: {why}")
        if which == "chain":
            from engine.automata.chain import compile_chain

            g = compile_chain(pattern).to_networkx()
        else:
            from engine.automata.tree import compile_tree

            try:
                g = compile_tree(pattern).to_networkx()
            except ValueError as err:
                raise AutomatonUnavailable(f"the lazy tree is not drawn: {err}") from None
        return _style(g, f"lazy-{which}", pattern)

    return compile_fn


def _eager(pattern: Pattern) -> nx.MultiDiGraph:
    """The eager NFA baseline's bound-set lattice (``engine.automata.eager``)."""
    from engine.automata.eager import eager_graph, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise AutomatonUnavailable(f"the eager NFA cannot compile this pattern: {why}")
    return _style(eager_graph(pattern), "eager", pattern)


def _ses(pattern: Pattern) -> nx.MultiDiGraph:
    """The SES automaton (match-windows §4.8): states (i, S) with the runtime's moves
    (``engine.automata.ses_moves``)."""
    from engine.automata.ses_moves import ses_moves_graph, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise AutomatonUnavailable(f"the SES automaton cannot compile this pattern: {why}")
    return _style(ses_moves_graph(pattern), "ses", pattern)


def _uncertain(which: str) -> Callable[[Pattern], nx.MultiDiGraph]:
    """What ``uncertain-event`` / ``uncertain-point`` run over interval data
    (``engine.automata.uncertain``)."""

    def compile_fn(pattern: Pattern) -> nx.MultiDiGraph:
        from engine.automata.uncertain import event_based_graph, point_based_graph
        from engine.uncertain.query import unsupported_reason

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


def foldable(g: nx.MultiDiGraph) -> int:
    """How many states :func:`fold_states` would save (0: nothing to fold)."""
    keys = {_fold_key(n, d) for n, d in g.nodes(data=True)}
    return g.number_of_nodes() - len(keys)


def _fold_key(n: str, d: dict[str, Any]) -> tuple[Any, ...]:
    path = d.get("path")
    if d.get("kind") == "state" and isinstance(path, tuple) and path:
        return ("set", d.get("clause"), frozenset(path))
    return ("node", n)


def fold_states(g: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """The lazy tree with the states that bound the same variables (in another order) drawn
    as one: their outgoing edges depend on the set bound, not on its order (``tree.py``
    builds each edge from the bound mask), so the folded graph has the same moves. A folded
    state ``q{b,c}`` stands for ``folded`` tree states; ``graph["folded"]`` is (before, after)."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for n, d in g.nodes(data=True):
        groups.setdefault(_fold_key(n, d), []).append(n)
    if all(len(ns) == 1 for ns in groups.values()):
        return g
    order = list(g.nodes["root"].get("reads") or []) if "root" in g else []  # pattern order
    rep: dict[str, str] = {}
    out = nx.MultiDiGraph(**g.graph)
    rows: dict[Any, int] = {}
    for key, ns in groups.items():
        d0 = dict(g.nodes[ns[0]])
        if key[0] == "set":
            path = d0["path"]
            pre = ns[0].split(":")[0] + ":" if ":" in ns[0] else ""
            bound = sorted(path, key=lambda v: (order.index(v) if v in order else len(order), v))
            name = f"{pre}q{{{','.join(bound)}}}"
            d0.update(label=name.split(":")[-1], folded=len(ns), orders=[g.nodes[n]["path"] for n in ns])
            if len(ns) > 1:
                d0["formula"] = f"{len(ns)} tree states (every order of {{{', '.join(bound)}}}) folded into one"
        else:
            name = ns[0]
        for n in ns:
            rep[n] = name
        out.add_node(name, **d0)
    for n, d in out.nodes(data=True):  # rows again: one per state in its column, centred
        if d.get("kind") != "reject" and isinstance(d.get("order"), int):
            d["alternative"] = rows.get(d["order"], 0)
            rows[d["order"]] = d["alternative"] + 1
    centre_columns(out)
    seen: set[tuple[str, str, Any]] = set()
    for u, v, k, d in g.edges(keys=True, data=True):
        ru, rv = rep[u], rep[v]
        if (ru, rv, k) in seen:
            continue
        seen.add((ru, rv, k))
        out.add_edge(ru, rv, key=k, **d)
    out.graph["folded"] = (g.number_of_nodes(), out.number_of_nodes())
    return out


# --------------------------------------------------------------------------- drawing

FONT = 11          # label font size (px)
CHAR_W = 6.4       # a generous average character width at FONT (px): boxes are never too small
BOLD_W = 7.0
LINE_H = 14.5
PAD = 4.0          # label box padding (px)
STATE_PX = 48      # state marker diameter (px)
LOOP_PX = 70       # from a state's centre to the far side of its self-loop (px)
STUB_PX = 12       # horizontal offset of a route to R from the state's centre (px)
HEADS = {"proceed": "ε proceed", "negation": "¬ check"}


def _wrap(txt: str, width: int) -> str:
    return "<br>".join(textwrap.wrap(txt, width=width, break_long_words=True)) or txt


def _short(txt: str, limit: int) -> str:
    return txt if len(txt) <= limit else txt[: limit - 1] + "…"


def _esc(txt: str) -> str:
    """Pattern text (formulas hold its string literals) as plotly text: see ``visualizers.escape``."""
    return plotly_text(txt)


def _bezier(p0: tuple[float, float], p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float],
            n: int = 30) -> tuple[list[float], list[float]]:
    xs, ys = [], []
    for i in range(n + 1):
        t = i / n
        a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
        xs.append(a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0])
        ys.append(a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1])
    return xs, ys


def _loop_units(x: float, y: float, above: bool) -> tuple[list[float], list[float]]:
    """A self-loop in data units (y up): take above, ignore / store below."""
    s = 1 if above else -1
    return _bezier((x - R * 0.7, y + s * R * 0.7), (x - 1.0, y + s * 1.5), (x + 1.0, y + s * 1.5),
                   (x + R * 0.7, y + s * R * 0.7))


def _proceed_units(x0: float, y0: float, x1: float, y1: float) -> tuple[list[float], list[float]]:
    return _bezier((x0 + R * 0.8, y0 - R * 0.5), (x0 + DX * 0.35, y0 - 0.9), (x1 - DX * 0.35, y1 - 0.9),
                   (x1 - R * 0.8, y1 - R * 0.5))


@dataclass
class _Label:
    """One edge label in screen pixels (x right, y down)."""

    key: str
    lines: list[tuple[str, bool]]  # (text, bold)
    colour: str
    anchor: tuple[float, float]
    side: str  # above | below | right
    hover: str
    data: list[str]
    hover_at: tuple[float, float] | None = None
    box: tuple[float, float, float, float] | None = None
    anchors: list[tuple[float, float]] = field(default_factory=list)  # other places along the edge

    @property
    def w(self) -> float:
        return max((len(t) * (BOLD_W if b else CHAR_W) for t, b in self.lines), default=0) + 2 * PAD

    @property
    def h(self) -> float:
        return len(self.lines) * LINE_H + 2 * PAD

    def at(self, dx: float, dy: float, anchor: tuple[float, float] | None = None) -> tuple[float, float, float, float]:
        return self.corner(anchor or self.anchor, self.w, self.h, dx, dy)

    def corner(self, anchor: tuple[float, float], w: float, h: float, dx: float,
               dy: float) -> tuple[float, float, float, float]:
        """The box of a w × h label moved by (dx, dy) from its place beside ``anchor``."""
        ax, ay = anchor
        if self.side == "above":
            x0, y0 = ax - w / 2, ay - h - 2
        elif self.side == "below":
            x0, y0 = ax - w / 2, ay + 2
        else:
            x0, y0 = ax + 4, ay - h / 2
        return (x0 + dx, y0 + dy, x0 + dx + w, y0 + dy + h)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float], gap: float = 2.0) -> float:
    w = min(a[2], b[2]) + gap - max(a[0], b[0])
    h = min(a[3], b[3]) + gap - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _candidates(lab: _Label) -> list[tuple[tuple[float, float, float, float], tuple[float, float]]]:
    """The spots tried for a label, in order (box, anchor): at the edge, then staggered away
    from it (beside a vertical route: alternately up and down) and sideways."""
    step = 7.0
    direction = {"above": -1.0, "below": 1.0}.get(lab.side)
    shifts = [0.0, -0.35, 0.35, -0.7, 0.7, -1.05, 1.05]
    anchors = [lab.anchor] + list(lab.anchors)
    w, h = lab.w, lab.h
    out = []
    for k in range(0, 22):
        if direction is None:
            dy = (k + 1) // 2 * step * (1 if k % 2 else -1)
        else:
            dy = direction * k * step
        for anchor in (anchors if k < 4 else anchors[:1]):
            for sx in (shifts if k >= 1 else [0.0]):
                out.append((lab.corner(anchor, w, h, sx * w, dy), anchor))
    return out


def _place(labels: list[_Label], obstacles: list[tuple[float, float, float, float]]) -> int:
    """Put every label at the first free spot near its anchor (:func:`_candidates`); returns
    how many could only be placed overlapping (at the spot that overlaps least). Only the
    boxes already placed near the label's candidate spots are compared (the others cannot
    touch any of them)."""
    placed = list(obstacles)
    bad = 0
    for lab in labels:
        first = lab.at(0.0, 0.0)
        if not any(_overlap(first, o) for o in placed):  # most labels fit where they belong
            lab.box = first
            placed.append(first)
            continue
        spots = _candidates(lab)
        gx0 = min(b[0] for b, _a in spots) - 2
        gy0 = min(b[1] for b, _a in spots) - 2
        gx1 = max(b[2] for b, _a in spots) + 2
        gy1 = max(b[3] for b, _a in spots) + 2
        near = [o for o in placed if o[0] < gx1 and o[2] > gx0 and o[1] < gy1 and o[3] > gy0]
        best, best_cost = None, None
        found = None
        for box, anchor in spots:
            cost = sum(_overlap(box, o) for o in near) if near else 0.0
            if cost == 0:
                found = box
                lab.anchor = anchor
                break
            if best_cost is None or cost < best_cost:
                best, best_cost = box, cost
        if found is None:
            found = best
            bad += 1
        lab.box = found
        placed.append(found)  # type: ignore[arg-type]
    return bad


def _display(d: dict[str, Any], n: str) -> str:
    """The name drawn in a state: the tree's Kleene tail ``iterate p`` as ``p[i]`` (NFA^b's name)."""
    label = str(d.get("label", n))
    if label.startswith("iterate "):
        return f"{label[8:]}[i]"
    return label


def _state_px(label: str) -> float:
    return max(STATE_PX, len(label) * 7.6 + 16)


def _move_name(head: str) -> str:
    """``take c:TaskFinish`` -> ``take c``, ``take a if rarest`` -> ``take a``, ``next set: take b:B``
    -> ``next set: b``; a head without a variable stays as it is (``skip``, ``timeout``)."""
    m = re.search(r"\b(begin|take|iterate|store|ignore)\s+(¬?[\w^]+(?:,[\w^]+)*)", head)
    if m is None:
        return head
    name = f"{m.group(1)} {m.group(2)}"
    return f"next set: {m.group(2)}" if head.startswith("next set") else name


def _label_lines(head: str, body: str, mode: str, width: int) -> list[tuple[str, bool]]:
    """The bold name (``take b:CPU · prec={a}`` on two lines), then the formula by ``mode``."""
    if mode == "names":  # the move and its variable only: `take c`, `begin a^t`, `next set: b`
        first = head.split(" · ")[0]
        return [(_short(_move_name(first), width), True)] if first else []
    lines: list[tuple[str, bool]] = [(_short(part, width), True) for part in head.split(" · ") if part]
    if mode == "none" or not body:
        return lines
    if mode == "short":
        wrapped = textwrap.wrap(_short(body, 2 * width), width=width, break_long_words=True)
    else:
        wrapped = textwrap.wrap(body, width=width + 8, break_long_words=True)
    return lines + [(t, False) for t in wrapped]


def _edge_head_body(g: nx.MultiDiGraph, d: dict[str, Any]) -> tuple[str, str]:
    kind = d.get("kind", "take")
    shown = d.get("shown", d.get("label", "")) or ""
    if g.graph.get("engine", "nfab") == "nfab" or "move" not in d:
        return HEADS.get(kind, kind), shown
    parts = [p.strip() for p in shown.split(" | ")]
    return parts[0] or d.get("move", kind), " · ".join(parts[1:])


@dataclass
class _Plan:
    pos: dict[str, tuple[float, float]]       # px, screen coordinates
    labels: list[_Label]
    paths: list[tuple[str, list[float], list[float], tuple[float, float], tuple[float, float]]]  # kind, xs, ys (px)
    overlaps: int
    extra: list[tuple[float, float, float, float]] = field(default_factory=list)  # other drawn boxes


def _plan(g: nx.MultiDiGraph, labels: str, label_width: int, gap_min: float, row_pad: float) -> _Plan:
    nodes = dict(g.nodes(data=True))
    is_nfab = g.graph.get("engine", "nfab") == "nfab"

    def col_of(n: str) -> Any:
        o = nodes[n].get("order", 0)
        return o if isinstance(o, (int, float)) else 0

    main = [n for n in nodes if nodes[n].get("kind") != "negation"]
    cols = sorted({col_of(n) for n in main})
    ci = {c: i for i, c in enumerate(cols)}
    rows = sorted({int(nodes[n].get("alternative", 0) or 0) for n in main})

    # ---- edges, grouped by how they are drawn
    loops: dict[tuple[str, bool], list[tuple[str, str, str, dict[str, Any]]]] = {}
    others: list[tuple[str, str, str, dict[str, Any], str]] = []
    for u, v, k, d in g.edges(keys=True, data=True):
        kind = d.get("kind", k)
        if u == v:
            loops.setdefault((u, kind == "take"), []).append((u, v, k, d))
            continue
        vk = nodes[v].get("kind")
        if vk == "reject":
            how = "bus"
        elif vk == "negation":
            how = "neg"
        elif kind == "proceed" and is_nfab:
            how = "curve"
        else:
            how = "straight"
        others.append((u, v, k, d, how))

    def make(u: str, v: str, dd: list[dict[str, Any]], key: str, terse: bool = False) -> _Label:
        lines: list[tuple[str, bool]] = []
        hover, data = [], []
        for d in dd:
            head, body = _edge_head_body(g, d)
            lines += _label_lines(head, body, "none" if terse and labels != "full" else labels, label_width)
            hover.append(f"<b>{_esc(HEADS.get(d.get('kind', ''), d.get('move', d.get('kind', ''))))}</b> "
                         f"{_esc(u)} → {_esc(v)}<br>shown: {_wrap(_esc(d.get('shown', '')), 70)}"
                         f"<br>θ: {_wrap(_esc(d.get('formula', '')), 70)}"
                         f"<br>θ*: {_wrap(_esc(d.get('formula_optimised', '')), 70)}")
            data = [d.get("kind", ""), u, v, d.get("shown", ""), d.get("formula", ""), d.get("formula_optimised", "")]
        colour = EDGE_STYLE.get(dd[0].get("kind", "take"), EDGE_STYLE["take"])["color"]
        return _Label(key, lines, colour, (0.0, 0.0), "above", "<br>".join(hover), data)

    loop_labels = {key: make(key[0], key[0], [x[3] for x in items], f"loop:{key[0]}:{key[1]}")
                   for key, items in loops.items()}
    edge_labels = [(u, v, d, how, make(u, v, [d], f"edge:{u}->{v}:{k}", terse=how == "bus"))
                   for u, v, k, d, how in others]

    # ---- column gaps from what sits between two columns
    gaps = [gap_min] * max(len(cols) - 1, 0)
    for u, v, d, how, lab in edge_labels:
        if how in ("straight", "curve"):
            a, b = ci.get(col_of(u)), ci.get(col_of(v))
            if a is not None and b is not None and b == a + 1:
                gaps[a] = max(gaps[a], lab.w + 2 * STATE_PX / 2 + 20)
        if how == "neg":
            a = ci.get(col_of(u))
            if a is not None and a < len(gaps):
                gaps[a] = max(gaps[a], lab.w + 30)
    for (n1, above1), l1 in loop_labels.items():
        for (n2, above2), l2 in loop_labels.items():
            if above1 != above2 or n1 == n2:
                continue
            a, b = ci.get(col_of(n1)), ci.get(col_of(n2))
            if a is not None and b == a + 1 and nodes[n1].get("alternative", 0) == nodes[n2].get("alternative", 0):
                gaps[a] = max(gaps[a], l1.w / 2 + l2.w / 2 + 16)
    xs_col = [0.0]
    for gp in gaps:
        xs_col.append(xs_col[-1] + gp)

    # ---- row bands
    above = {r: 34.0 for r in rows}
    below = {r: 34.0 for r in rows}
    for (n, up), lab in loop_labels.items():
        r = int(nodes[n].get("alternative", 0) or 0)
        if up:
            above[r] = max(above[r], LOOP_PX + lab.h + 6)
        else:
            below[r] = max(below[r], LOOP_PX + lab.h + 6)
    for u, v, d, how, lab in edge_labels:
        r = int(nodes[u].get("alternative", 0) or 0)
        if r not in above:
            continue
        if how == "straight":
            above[r] = max(above[r], lab.h + 16)
        elif how == "curve":
            below[r] = max(below[r], 50 + lab.h + 6)
        elif how == "neg":
            below[r] = max(below[r], 1.6 * SCALE + STATE_PX / 2 + lab.h + 10)
    ys_row: dict[int, float] = {}
    y = 0.0
    first = True
    for r in rows:
        if r < 0:
            continue
        y = (y + above[r]) if first else (y + row_pad + above[r])
        ys_row[r] = y
        y += below[r]
        first = False
    bus_rows = [r for r in rows if r < 0]
    if bus_rows:
        top = min((ys_row[r] - above[r] for r in ys_row), default=0.0)
        bus_labels = [lab for u, v, d, how, lab in edge_labels if how == "bus"]
        need = max((lab.h for lab in bus_labels), default=20.0) + 40
        for r in bus_rows:
            ys_row[r] = top - need - STATE_PX / 2

    # ---- positions
    pos: dict[str, tuple[float, float]] = {}
    for n in main:
        pos[n] = (xs_col[ci[col_of(n)]], ys_row.get(int(nodes[n].get("alternative", 0) or 0), 0.0))
    for n, d in nodes.items():
        if d.get("kind") == "negation":
            src = next((u for u, _v in g.in_edges(n)), None)
            x, yy = pos.get(src, (0.0, 0.0)) if src is not None else (0.0, 0.0)
            a = ci.get(col_of(src)) if src is not None else None
            gp = gaps[a] if a is not None and a < len(gaps) else gap_min
            pos[n] = (x + gp / 2, yy + 1.6 * SCALE)

    def radius(n: str) -> float:
        return _state_px(_display(nodes[n], n)) / 2

    # ---- geometry and label anchors
    paths: list[tuple[str, list[float], list[float], tuple[float, float], tuple[float, float]]] = []
    labs: list[_Label] = []
    u2p = (lambda xs, ys: ([x * SCALE for x in xs], [-y * SCALE for y in ys]))
    stubs: dict[str, int] = {}
    order_of = {"straight": 0, "curve": 1, "neg": 3, "bus": 4}
    for u, v, d, how, lab in sorted(edge_labels, key=lambda t: order_of[t[3]]):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        kind = d.get("kind", "take")
        if how == "curve":
            xs, ys = u2p(*_proceed_units(x0 / SCALE, -y0 / SCALE, x1 / SCALE, -y1 / SCALE))
            lab.anchor, lab.side = ((x0 + x1) / 2, max(ys) + 2), "below"
        elif how == "bus":
            k = stubs.get(u, 0)
            stubs[u] = k + 1
            sx = x0 + STUB_PX + 10 * k
            r0 = radius(u)
            # states above in the way (same column, another row): go up beside them
            block = [radius(n2) for n2, (bx, by) in pos.items()
                     if n2 not in (u, v) and y1 < by < y0 and abs(bx - sx) < radius(n2) + 6]
            if (u, True) in loop_labels:  # a take loop above the state: go up beside it
                block.append(32.0)
            if block:
                sx = x0 + max(block) + 12 + 10 * k
                ang = math.radians(-35)
                jx, jy = x0 + r0 * math.cos(ang), y0 + r0 * math.sin(ang)
                start = [(jx, jy), (sx, jy - (sx - jx) * 0.4)]
            else:
                start = [(sx, y0 - math.sqrt(max(r0 * r0 - (sx - x0) ** 2, 0.0)))]
            if abs(sx - x1) < 1:
                pts = start + [(sx, y1 + radius(v))]
            else:
                end_x = x1 - radius(v) if x1 > sx else x1 + radius(v)
                pts = start + [(sx, y1), (end_x, y1)]
            xs, ys = [p_[0] for p_ in pts], [p_[1] for p_ in pts]
            start_y = start[-1][1]
            lab.anchor, lab.side = (sx, (start_y + y1) / 2), "right"
        elif how == "neg":
            ang = math.atan2(y1 - y0, x1 - x0)
            xs = [x0 + radius(u) * math.cos(ang), x1 - radius(v) * math.cos(ang)]
            ys = [y0 + radius(u) * math.sin(ang), y1 - radius(v) * math.sin(ang)]
            lab.anchor, lab.side = (x1, y1 + radius(v) + 2), "below"
        else:
            ang = math.atan2(y1 - y0, x1 - x0)
            xs = [x0 + radius(u) * math.cos(ang), x1 - radius(v) * math.cos(ang)]
            ys = [y0 + radius(u) * math.sin(ang), y1 - radius(v) * math.sin(ang)]
            mx, my = (xs[0] + xs[1]) / 2, (ys[0] + ys[1]) / 2
            lab.anchor, lab.side = (mx, my - 3), "above"
            lab.anchors = [(xs[0] + t * (xs[1] - xs[0]), ys[0] + t * (ys[1] - ys[0]) - 3) for t in (0.35, 0.65, 0.25, 0.75)]
        lab.hover_at = ((xs[0] + xs[-1]) / 2, (ys[0] + ys[-1]) / 2) if how != "curve" else (
            (x0 + x1) / 2, max(ys) - 4)
        paths.append((kind, xs, ys, (xs[-2], ys[-2]), (xs[-1], ys[-1])))
        labs.append(lab)
    for (n, up), lab in loop_labels.items():
        x, yy = pos[n]
        for _u, _v, _k, d in loops[(n, up)]:
            xs, ys = u2p(*_loop_units(x / SCALE, -yy / SCALE, up))
            paths.append((d.get("kind", "take"), xs, ys, (xs[-4], ys[-4]), (xs[-1], ys[-1])))
        lab.anchor = (x, yy - LOOP_PX if up else yy + LOOP_PX)
        lab.side = "above" if up else "below"
        lab.hover_at = (x, yy - LOOP_PX + 6 if up else yy + LOOP_PX - 6)
        labs.append(lab)
    # forward labels first, then loops, ε curves, negation and reject routes
    prio = {"above": 0, "below": 1, "right": 2}
    labs.sort(key=lambda lb: (0 if lb.key.startswith("edge") and lb.side == "above" else
                              1 if lb.key.startswith("loop") else 2 + prio[lb.side]))
    obstacles = []
    for n, (x, yy) in pos.items():
        r = radius(n) + (6 if nodes[n].get("kind") == "final" else 0)
        obstacles.append((x - r, yy - r, x + r, yy + r))
        if nodes[n].get("start"):
            obstacles.append((x - 1.35 * SCALE - 44, yy - 9, x - 1.35 * SCALE, yy + 9))  # "start"
            if g.graph.get("alternatives", 1) > 1:
                obstacles.append((x - 1.35 * SCALE - 96, yy - 0.45 * SCALE - 9, x - 1.35 * SCALE, yy - 0.45 * SCALE + 9))
    shown = [lb for lb in labs if lb.lines]
    bad = _place(shown, obstacles)
    return _Plan(pos, labs, paths, bad, obstacles)


def layout(g: nx.MultiDiGraph, labels: str | None = None) -> dict[str, tuple[float, float]]:
    """State positions in data units (y up) as :func:`automaton_figure` draws them (the
    positions of its last drawing of ``g``; otherwise those of a drawing with short labels)."""
    if labels is None and "positions" in g.graph:
        return dict(g.graph["positions"])
    plan = _best_plan(g, labels or "short", 26)
    return {n: (x / SCALE, -y / SCALE) for n, (x, y) in plan.pos.items()}


MAX_WIDTH = 1000  # pixels: wider drawings get shorter labels (Streamlit would shrink them)
MANY_STATES = 20  # a drawing with more states shows the edges' names only (formulas on hover)


def _extent(plan: _Plan) -> tuple[float, float, float, float]:
    boxes = list(plan.extra) + [lab.box for lab in plan.labels if lab.box is not None]
    for _kind, pxs, pys, _a, _b in plan.paths:
        boxes.append((min(pxs), min(pys), max(pxs), max(pys)))
    return (min(b[0] for b in boxes) - 14, min(b[1] for b in boxes) - 10,
            max(b[2] for b in boxes) + 14, max(b[3] for b in boxes) + 10)


def _best_plan(g: nx.MultiDiGraph, labels: str, label_width: int) -> _Plan:
    """The first of: the labels asked for, narrower labels, the edges' names only, that fits
    in :data:`MAX_WIDTH` pixels with no label overlapping another label or a state (gaps and
    rows widen until every label has a free spot)."""
    tries = [(labels, label_width)]
    if labels == "short":
        tries = ([("none", label_width)] if g.number_of_nodes() > MANY_STATES else
                 [("short", label_width), ("short", max(14, label_width - 8)), ("none", label_width)])
    if labels != "full":
        tries.append(("names", label_width))  # the last resort: `take c` without the type
    plan: _Plan | None = None
    for mode, width in tries:
        terse = mode in ("none", "names")
        gap, pad = 130.0 if terse else 170.0, 16.0 if terse else 40.0
        plan = _plan(g, mode, width, gap, pad)
        for _ in range(4):
            if plan.overlaps == 0:
                break
            gap, pad = gap * 1.35, pad + 40
            plan = _plan(g, mode, width, gap, pad)
        x0, _y0, x1, _y1 = _extent(plan)
        g.graph["labels_drawn"] = mode if (mode, width) == tries[0] or terse else f"{mode} (narrower)"
        if plan.overlaps == 0 and x1 - x0 <= MAX_WIDTH:
            break
    assert plan is not None
    return plan


def label_boxes(fig: go.Figure) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The edge labels of a figure from :func:`automaton_figure` as pixel boxes (x0, y0, x1,
    y1; y down), as the figure estimates them (tests; the browser test measures the SVG)."""
    out = []
    for a in fig.layout.annotations:
        if a.name and a.name.startswith(("edge:", "loop:")):
            bx = (a.x - fig.layout.xaxis.range[0]) * SCALE
            by = (fig.layout.yaxis.range[1] - a.y) * SCALE
            w, h = a.width, a.height
            out.append((a.name, (bx - w / 2, by - h / 2, bx + w / 2, by + h / 2)))
    return out


def _legend_name(kind: str, moves: set[str]) -> str:
    if kind == "proceed":
        names = sorted(moves - {"proceed"}) + (["proceed (ε)"] if "proceed" in moves else [])
        return " / ".join(names) or "proceed (ε)"
    if kind == "negation":
        return "negation check" if moves <= {"negation"} else " / ".join(sorted(moves))
    return " / ".join(sorted(moves)) or kind


def legend_rows(g: nx.MultiDiGraph) -> pd.DataFrame:
    """Every state kind and every move the drawing shows, with what it means."""
    rows = []
    kinds = []
    for _n, d in g.nodes(data=True):
        k = d.get("kind", "singleton")
        if k not in kinds:
            kinds.append(k)
    for k in kinds:
        sym, meaning = state_meaning(g, k)
        rows.append({"drawn as": f"state {sym}" if k not in ("final", "reject") else f"state {sym} ({k})",
                     "kind": k, "meaning": meaning})
    moves = []
    for _u, _v, d in g.edges(data=True):
        m = d.get("move", d.get("kind", ""))
        if (m, d.get("kind")) not in moves:
            moves.append((m, d.get("kind")))
    for m, style in moves:
        st = EDGE_STYLE.get(style or "take", EDGE_STYLE["take"])
        line = {"solid": "solid", "dash": "dashed", "dot": "dotted"}[st["dash"]]
        rows.append({"drawn as": f"{line} {_colour_name(style)} edge", "kind": m, "meaning": MOVE_MEANING.get(m, m)})
    for term, meaning in g.graph.get("terms", []):
        rows.append({"drawn as": "term", "kind": term, "meaning": meaning})
    return pd.DataFrame(rows, columns=["drawn as", "kind", "meaning"])


def state_meaning(g: nx.MultiDiGraph, kind: str) -> tuple[str, str]:
    """(symbol, meaning) of a state kind in this engine's drawing."""
    own = ENGINE_STATE_MEANING.get(g.graph.get("engine", ""), {})
    return own.get(kind) or STATE_MEANING.get(kind, (kind, ""))


def _colour_name(kind: str | None) -> str:
    return {"begin": "dark blue", "take": "green", "ignore": "grey", "proceed": "purple",
            "negation": "red"}.get(kind or "", "")


COMPACT_EDGES = 30  # the Automaton page draws a graph with more edges compact (see common_moves)


def common_moves(g: nx.MultiDiGraph, least: int = 4) -> dict[str, int]:
    """Moves that are not takes, from a state to itself or to R, that ``least`` or more states
    have (skip / stay / ignore loops, timeout / expire / prune to R): move -> how many states."""
    count: dict[str, set[str]] = {}
    for u, v, d in g.edges(data=True):
        if d.get("kind") in ("ignore", "proceed") and (u == v or g.nodes[v].get("kind") == "reject"):
            count.setdefault(d.get("move", d.get("kind", "")), set()).add(u)
    return {m: len(us) for m, us in count.items() if len(us) >= least}


def _without(g: nx.MultiDiGraph, moves: dict[str, int]) -> nx.MultiDiGraph:
    h = g.copy()
    drop = [(u, v, k) for u, v, k, d in h.edges(keys=True, data=True)
            if d.get("move", d.get("kind")) in moves and d.get("kind") in ("ignore", "proceed")
            and (u == v or h.nodes[v].get("kind") == "reject")]
    h.remove_edges_from(drop)
    for n, d in list(h.nodes(data=True)):
        if d.get("kind") == "reject" and h.degree(n) == 0:
            h.remove_node(n)
    return h


def automaton_figure(g: nx.MultiDiGraph, labels: str = "short", label_width: int = 26,
                     height: int | None = None, compact: bool = False) -> go.Figure:
    """Plotly figure of an automaton graph from :func:`automaton_graph`, drawn at its own
    pixel size (show it with ``width="content"``).

    ``labels``: ``short`` (wrapped, two lines of formula), ``full`` or ``none`` (the edge's
    name only); the hover text always has the full formulas (basic θ and optimised θ*).
    ``height``: a minimum height in pixels. ``compact`` (the Automaton page's default for more
    than :data:`COMPACT_EDGES` edges): the moves that many states share (:func:`common_moves`)
    are not drawn; ``g.graph["omitted"]`` names them (the legend and the edge table keep them)."""
    omitted = common_moves(g) if compact else {}
    g.graph["omitted"] = omitted
    drawn = _without(g, omitted) if omitted else g
    fig = _figure(drawn, labels, label_width, height)
    for k in ("positions", "label_overlaps", "labels_drawn"):
        if k in drawn.graph:
            g.graph[k] = drawn.graph[k]
    return fig


def _figure(g: nx.MultiDiGraph, labels: str, label_width: int, height: int | None) -> go.Figure:
    plan = _best_plan(g, labels, label_width)
    nodes = dict(g.nodes(data=True))
    fig = go.Figure()
    annotations: list[dict[str, Any]] = []

    def U(x: float, y: float) -> tuple[float, float]:
        return x / SCALE, -y / SCALE

    # edges, one trace per drawing kind
    by_kind: dict[str, tuple[list[Any], list[Any]]] = {}
    for kind, xs, ys, (ax0, ay0), (ax1, ay1) in plan.paths:
        tx, ty = by_kind.setdefault(kind, ([], []))
        for x, y in zip(xs, ys):
            ux, uy = U(x, y)
            tx.append(ux)
            ty.append(uy)
        tx.append(None)
        ty.append(None)
        st = EDGE_STYLE.get(kind, EDGE_STYLE["take"])
        (bx0, by0), (bx1, by1) = U(ax0, ay0), U(ax1, ay1)
        annotations.append(dict(x=bx1, y=by1, ax=bx0, ay=by0, xref="x", yref="y", axref="x", ayref="y",
                                showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=st["width"],
                                arrowcolor=st["color"], text=""))
    for kind, (tx, ty) in by_kind.items():
        st = EDGE_STYLE.get(kind, EDGE_STYLE["take"])
        fig.add_trace(go.Scatter(x=tx, y=ty, mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=st["color"], dash=st["dash"], width=st["width"])))

    # labels (with white backgrounds) and leader lines for the ones that had to move
    hover_x, hover_y, hover_text, hover_data = [], [], [], []
    lead_x: list[Any] = []
    lead_y: list[Any] = []
    for lab in plan.labels:
        if lab.hover_at is not None:
            hx, hy = U(*lab.hover_at)
            hover_x.append(hx)
            hover_y.append(hy)
            hover_text.append(lab.hover)
            hover_data.append(lab.data)
        if lab.box is None:
            continue
        x0, y0, x1, y1 = lab.box
        cx, cy = U((x0 + x1) / 2, (y0 + y1) / 2)
        text = "<br>".join(f"<b>{_esc(t)}</b>" if b else _esc(t) for t, b in lab.lines)
        annotations.append(dict(x=cx, y=cy, xref="x", yref="y", text=text, showarrow=False, name=lab.key,
                                font=dict(size=FONT, color=lab.colour), align="left" if lab.side == "right" else "center",
                                bgcolor="rgba(255,255,255,0.9)", borderpad=0, width=x1 - x0, height=y1 - y0,
                                xanchor="center", yanchor="middle", valign="middle"))
        ax, ay = lab.anchor
        nx_ = min(max(ax, x0), x1)
        ny_ = min(max(ay, y0), y1)
        if math.hypot(nx_ - ax, ny_ - ay) > 12:
            for x, y in ((ax, ay), (nx_, ny_)):
                ux, uy = U(x, y)
                lead_x.append(ux)
                lead_y.append(uy)
            lead_x.append(None)
            lead_y.append(None)
    if lead_x:
        fig.add_trace(go.Scatter(x=lead_x, y=lead_y, mode="lines", hoverinfo="skip", showlegend=False,
                                 name="label leaders", line=dict(color="#999", dash="dot", width=1)))

    # start arrows
    for n, d in nodes.items():
        if d.get("start"):
            x, y = U(*plan.pos[n])
            r = _state_px(_display(d, n)) / 2 / SCALE
            fig.add_trace(go.Scatter(x=[x - 1.3, x - r], y=[y, y], mode="lines", hoverinfo="skip", showlegend=False,
                                     line=dict(color=EDGE_STYLE["begin"]["color"], width=2.2)))
            annotations.append(dict(x=x - r, y=y, ax=x - 1.3, ay=y, xref="x", yref="y", axref="x", ayref="y",
                                    showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=2.2,
                                    arrowcolor=EDGE_STYLE["begin"]["color"], text=""))
            annotations.append(dict(x=x - 1.35, y=y, text="start", showarrow=False, xanchor="right",
                                    font=dict(size=12, color="#555")))
            if g.graph.get("alternatives", 1) > 1:
                annotations.append(dict(x=x - 1.35, y=y + 0.45, text=f"alternative {d.get('alternative', 0) + 1}",
                                        showarrow=False, xanchor="right", font=dict(size=11, color="#888")))

    # states
    xs, ys, texts, hovers, fills, lines, custom, sizes = [], [], [], [], [], [], [], []
    for n, d in nodes.items():
        x, y = U(*plan.pos[n])
        kind = d.get("kind", "singleton")
        xs.append(x)
        ys.append(y)
        label = _display(d, n)
        texts.append(_esc(label))
        sizes.append(_state_px(label))
        info = f"<b>state {_esc(label)}</b><br>kind: {kind} — {_esc(state_meaning(g, kind)[1])}"
        if d.get("type"):
            info += f"<br>event type: {_esc(str(d.get('type')))}"
        if d.get("var"):
            info += f"<br>variable: {_esc(str(d.get('var')))}"
        if d.get("formula"):
            info += f"<br>check: {_wrap(_esc(d.get('formula')), 70)}"
        hovers.append(info)
        fills.append(STATE_FILL.get(kind, "#eeeeee"))
        lines.append("#c0392b" if kind in ("negation", "negative") else "#1f2d3d")
        custom.append(["state", n, "", d.get("formula", "") or "", "", ""])
    finals = [(*U(*plan.pos[n]), _state_px(_display(d, n)) + 12) for n, d in nodes.items() if d.get("kind") == "final"]
    if finals:  # the outer ring of F's double circle
        fig.add_trace(go.Scatter(x=[p[0] for p in finals], y=[p[1] for p in finals], mode="markers",
                                 hoverinfo="skip", showlegend=False, name="final ring",
                                 marker=dict(size=[p[2] for p in finals], color="rgba(0,0,0,0)",
                                             line=dict(color="#1f2d3d", width=2))))
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=texts, textposition="middle center",
                             hovertext=hovers, hoverinfo="text", customdata=custom, showlegend=False,
                             name="states", textfont=dict(size=12, color="#111"),
                             marker=dict(size=sizes, color=fills, line=dict(color=lines, width=2))))
    fig.add_trace(go.Scatter(x=hover_x, y=hover_y, mode="markers", hovertext=hover_text, hoverinfo="text",
                             customdata=hover_data, showlegend=False, name="edges",
                             marker=dict(size=22, color="rgba(0,0,0,0)")))

    # legend: every edge kind and every state kind drawn
    legend_names: list[str] = []
    moves: dict[str, set[str]] = {}
    for _u, _v, d in g.edges(data=True):
        moves.setdefault(d.get("kind", "take"), set()).add(d.get("move", d.get("kind", "take")))
    for kind, st in EDGE_STYLE.items():
        if kind in moves:
            name = _legend_name(kind, moves[kind])
            legend_names.append(name)
            fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name,
                                     line=dict(color=st["color"], dash=st["dash"], width=st["width"])))
    seen_kinds: list[str] = []
    for _n, d in nodes.items():
        k = d.get("kind", "singleton")
        if k not in seen_kinds:
            seen_kinds.append(k)
    for k in seen_kinds:
        sym = state_meaning(g, k)[0]
        name = f"{sym}: {k.replace('_', ' ')}" if sym not in (k,) else k
        legend_names.append(name)
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(size=12, color=STATE_FILL.get(k, "#eee"),
                                             line=dict(color="#c0392b" if k in ("negation", "negative") else "#1f2d3d",
                                                       width=1.5))))

    # extent: every state, label, loop and the start text, in pixels
    x0, y0, x1, y1 = _extent(plan)
    plot_w = x1 - x0
    legend_w = sum(len(n) * 6.6 + 48 for n in legend_names)
    legend_rows_n = max(1, math.ceil(legend_w / max(plot_w - 20, 280)) + 1)
    top, bottom = 40, 14 + 22 * legend_rows_n
    plot_h = y1 - y0
    if height and plot_h + top + bottom < height:
        extra = (height - top - bottom - plot_h) / 2
        y0 -= extra
        y1 += extra
        plot_h = y1 - y0
    title = g.graph.get("title") or COMPILERS.get(g.graph.get("engine", "nfab"), ("", None))[0]
    parts = [f"strategy: {g.graph.get('strategy', '') or ANY}"]
    if g.graph.get("partition"):
        parts.append(f"partition: [{', '.join(g.graph.get('partition') or [])}]")
    if g.graph.get("interval"):
        parts.append("interval data" + ("" if g.graph.get("engine") in UNCERTAIN else ": point automaton"))
    if g.graph.get("mode"):
        parts.append(f"mode: {g.graph['mode']}")
    fig.update_layout(
        annotations=annotations,
        xaxis=dict(visible=False, range=[x0 / SCALE, x1 / SCALE], fixedrange=True),
        yaxis=dict(visible=False, range=[-y1 / SCALE, -y0 / SCALE], fixedrange=True),
        width=int(plot_w + 20), height=int(plot_h + top + bottom), autosize=False,
        margin=dict(l=10, r=10, t=top, b=bottom, autoexpand=False),  # 1 unit = SCALE pixels, always
        plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="top", y=-4 / max(plot_h, 1), xanchor="left", x=0,
                    font=dict(size=11), itemwidth=30),
        hoverlabel=dict(align="left"),
        title=dict(text=(f"{title} · " if title else "") + " · ".join(parts), font=dict(size=13), x=0.01,
                   xanchor="left", y=1 - 8 / (plot_h + top + bottom), yanchor="top"),
    )
    g.graph["positions"] = {n: U(*p) for n, p in plan.pos.items()}
    g.graph["label_overlaps"] = plan.overlaps
    return fig


def edge_table(g: nx.MultiDiGraph) -> pd.DataFrame:
    """One row per edge: from, to, its drawing kind (edge), the engine's move, the shown
    formula, basic θ and optimised θ*."""
    rows = []
    for u, v, k, d in g.edges(keys=True, data=True):
        rows.append({"from": u, "to": v, "edge": d.get("kind", k), "move": d.get("move", d.get("kind", k)),
                     "shown": d.get("shown", d.get("label", "")), "θ (basic)": d.get("formula", ""),
                     "θ* (optimised)": d.get("formula_optimised", "")})
    order = {"begin": 0, "take": 1, "ignore": 2, "proceed": 3, "negation": 4}
    df = pd.DataFrame(rows, columns=["from", "to", "edge", "move", "shown", "θ (basic)", "θ* (optimised)"])
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
