"""The engines that can be drawn and how each is compiled into a styled ``networkx.MultiDiGraph``:
:data:`COMPILERS`, the engines' help texts, the default engine, the shown formulas, and
:func:`automaton_graph`, which restricts a pattern to what an engine runs and notes what it leaves out.
"""
from __future__ import annotations

from typing import Any, Callable

import networkx as nx

from engine.engines.spec import EngineSpec, GraphUnavailable
from engine.model import Pattern, Strategy
from engine.engines.planner import ENGINES, SPECS
from visualizers.automaton.folding import fold_states


ANY = Strategy.ANY.value


class AutomatonUnavailable(ValueError):
    """The chosen compiler cannot compile the pattern; the message says why."""


def _style(g: nx.MultiDiGraph, engine: str, pattern: Pattern) -> nx.MultiDiGraph:
    """An engine's export ready to draw: ``kind`` becomes the drawing style (begin / take /
    ignore / proceed / negation) and the engine's own kind of move is kept in ``move``
    (the automata write windows as the pattern does: ``span < 16 days``)."""
    for _u, _v, d in g.edges(data=True):
        d["move"] = d["kind"]
        d["kind"] = d.get("style", d["kind"])
    g.graph["engine"] = engine
    return g


def _compiler(spec: EngineSpec) -> Callable[[Pattern], nx.MultiDiGraph]:
    """The engine's ``graph`` (its spec's drawing), styled; its refusal as AutomatonUnavailable."""

    def compile_fn(pattern: Pattern) -> nx.MultiDiGraph:
        try:
            g = spec.graph(pattern)
        except GraphUnavailable as err:
            raise AutomatonUnavailable(str(err)) from None
        return _style(g, spec.name, pattern) if spec.drawing is not None and spec.drawing.own_moves else g

    return compile_fn


_DRAWN = [s for s in SPECS if s.drawing is not None and s.language == "dsl"]  # SQL: engine/engines/sql/graph.py
# engine name -> (title, compile function pattern -> MultiDiGraph), in the planner's order
COMPILERS: dict[str, tuple[str, Callable[[Pattern], nx.MultiDiGraph]]] = {
    s.name: (s.drawing.title, _compiler(s)) for s in _DRAWN}  # type: ignore[union-attr]
ANY_ONLY = {s.name for s in _DRAWN if s.strategies == {ANY}}  # skip_till_any_match and OUTPUT ALL only
UNCERTAIN = {s.name for s in _DRAWN if s.interval}  # interval data; skip_till_any/next_match
SELECTING = {s.name for s in _DRAWN if s.selections != {"all"}}  # the drawn engines that select earliest / maximal
ENGINE_HELP: dict[str, str] = {s.name: s.drawing.help for s in _DRAWN}  # type: ignore[union-attr]
CITED = {s.name: s.drawing.cited for s in _DRAWN}  # type: ignore[union-attr]
CITED_AT = {s.name: s.drawing.cited_at or s.drawing.cited for s in _DRAWN}  # type: ignore[union-attr]
STATES = {s.name: s.drawing.states for s in _DRAWN if s.drawing.states}  # type: ignore[union-attr]


def interval_engines() -> list[str]:
    """The planner's engines for interval data (imprecise timestamps), preferred first."""
    return [s.name for s in SPECS if s.interval]


def _first_drawn(interval: bool) -> str:
    return next(s.name for s in _DRAWN if s.interval == interval)


def default_engine(pattern: Pattern, interval: bool = False) -> str:
    """The engine ``auto`` runs the pattern with (on interval data: the interval engine), when
    it is drawn (an engine drawn as another, such as match windows around the SES automaton,
    as that one); else the first drawn engine of the planner's list for the data."""
    try:
        from engine.engines.planner import choose

        chosen = choose(pattern, interval=interval)
    except Exception:  # noqa: BLE001 - no engine runs it: still draw what can be drawn
        return _first_drawn(interval)
    name = chosen.drawn_as or chosen.name
    return name if name in COMPILERS else _first_drawn(False)


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


def _restrict(pattern: Pattern, engine: str, title: str) -> tuple[Pattern, list[str]]:
    """The pattern as ``engine`` can be drawn (strategy, OUTPUT, selection it implements) and
    notes that say what was changed and that the engine cannot run the pattern as designed."""
    from engine.model import Selection

    what: list[str] = []
    update: dict[str, Any] = {}
    spec = ENGINES[engine]
    allowed = spec.strategies
    if allowed is not None and pattern.strategy.value not in allowed:
        what.append(pattern.strategy.value)
        update["strategy"] = Strategy.ANY
    if spec.output_all_only and pattern.output != "ALL":
        what.append(f"OUTPUT {pattern.output}")
        update["output"] = "ALL"
    sel = pattern.selection
    if sel.value not in spec.selections:
        what.append(f"the selection {sel.value}")
        update["selection"] = Selection.ALL
    if not what:
        return pattern, []
    name = title.split(" (")[0]
    does = " and ".join(sorted(allowed)) if allowed is not None else "every strategy"
    finds = "all matches (no earliest / maximal selection)" if spec.selections == {"all"} else "OUTPUT ALL"
    cite = CITED[engine]
    note = (f"The {name} implements {does} with {finds} ({cite}), "
            f"not {' with '.join(what)}: it is drawn as it runs without that and cannot run this pattern as "
            "designed.")
    if "strategy" in update:
        note += " NFA^b runs every strategy."
    if "selection" in update:
        note += " The event-set automaton and match windows select earliest / maximal matches."
    return pattern.model_copy(update=update), [note]


def _interval_note(engine: str, interval: bool) -> str | None:
    if engine in UNCERTAIN:
        if interval:
            return (f"The data has uncertainty intervals [lower, upper]: drawn is what `{engine}` runs under the "
                    "possible-worlds semantics, each uncertain event at each of its possible instants (the other is "
                    f"`{sorted(UNCERTAIN - {engine})[0]}`; both give the same signatures, ranges and confidences).")
        return (f"`{engine}` runs events with uncertainty intervals only (map the lower/upper columns); the data in "
                "use has point timestamps, so the point engines run it.")
    if not interval:
        return None
    runners = interval_engines()
    if runners:
        return ("The data has uncertainty intervals [lower, upper]: it is run by "
                + ", ".join(f"`{n}`" for n in runners) + " under the possible-worlds semantics (each uncertain "
                "event at each of its possible instants), not by this automaton. Drawn here is the pattern's point automaton "
                "(what the point engines run on point data); choose an uncertain engine above for what runs it.")
    return ("The data has uncertainty intervals [lower, upper]; the engines of this build match interval events as "
            "points at their lower bound, so this is the point automaton they run.")


def automaton_graph(pattern: Pattern, engine: str | None = None, strategy: str | Strategy | None = None,
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
    engine = engine or _first_drawn(False)
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
    shown_formulas = bool(ENGINES[engine].drawing.shown_formulas)  # type: ignore[union-attr]
    g.graph["shown_formulas"] = shown_formulas
    g.graph["states"] = STATES.get(engine, {})
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
        if not shown_formulas:
            d["shown"] = d["formula"]
            continue
        alt = g.nodes[u].get("alternative", 0)
        into_final = g.nodes[v].get("kind") == "final"
        d["shown"] = shown_formula(d["kind"], d["formula"], d["formula_optimised"], into_final,
                                   window_text(pattern, first.get(alt)), push_window, peek)
    g.graph["push_window"] = push_window
    g.graph["peek"] = peek
    return g
