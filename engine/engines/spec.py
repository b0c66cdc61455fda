"""What an engine declares about itself: :class:`EngineSpec`.

Every engine folder under ``engine/engines/`` has a ``spec.py`` with its ``EngineSpec``
(one per engine the folder runs), and ``engine/engines/planner.py`` lists them in ``auto``'s order of
preference. Everything the rest of the code needs to know about an engine is a field here:
the planner, ``engine/run_choice.py``, ``cep run``, the automaton drawings and the app read
these fields; nothing outside an engine's folder and the planner's list names an engine.

Code is named, never imported, by a spec (``"module:attribute"``, loaded on first use), so that
importing the planner imports no engine: ``cep check`` and the app start without them.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

__all__ = ["ALL_SELECTIONS", "Drawing", "EngineSpec", "GraphUnavailable", "Lazy", "load"]

ALL_SELECTIONS = frozenset({"all", "earliest", "maximal", "earliest_maximal"})


def load(ref: str) -> Any:
    """The attribute ``"package.module:name"`` names (the module imported now)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


class Lazy:
    """A function named ``"module:function"``, imported on its first call (then called
    directly). Two ``Lazy`` of the same name are equal, so engines that share one
    ``supports`` function are asked once per pattern."""

    __slots__ = ("ref", "_function")

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self._function: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._function is None:
            self._function = load(self.ref)
        return self._function(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lazy) and other.ref == self.ref

    def __hash__(self) -> int:
        return hash(self.ref)

    def __repr__(self) -> str:
        return f"Lazy({self.ref!r})"


@dataclass(frozen=True)
class Drawing:
    """How the Automaton page draws an engine.

    ``graph``: ``"module:function"`` taking a pattern and returning the engine's automaton as a
    ``networkx.MultiDiGraph`` (edges with ``kind``, and ``style`` where the engine's own move
    is drawn as one of the generic styles); it raises ``ValueError`` with the reason when the
    engine cannot compile the pattern. ``title`` heads the figure and the menu; ``help`` (markdown)
    explains the states and moves; ``cited`` names the paper in notes; ``states`` overrides the
    legend's meaning of generic state kinds for this engine. ``shown_formulas``: the edges carry
    a basic and an optimised formula that the page's switches choose between. ``own_moves``:
    the edges' ``kind`` is the engine's own move, drawn through its ``style`` (False: the
    kinds are the drawing's generic ones). ``names_trace_states``: the drawing names every state
    the engine's trace visits (the Debug page draws it without checking). ``ordered_graph``:
    ``"module:function"`` taking a pattern and an evaluation order (a list of variables), for an
    engine whose automaton depends on the order its run chose (the Debug page draws the order the
    trace reports)."""

    title: str
    graph: str
    help: str = ""
    cited: str = ""
    cited_at: str = ""  # where in the paper the drawing comes from (the app's "In the papers" expander)
    states: dict[str, tuple[str, str]] = field(default_factory=dict)
    shown_formulas: bool = False
    own_moves: bool = True
    names_trace_states: bool = False
    ordered_graph: str = ""


@dataclass(frozen=True)
class EngineSpec:
    """One engine: its name (``cep run --engine NAME``), what it runs, how it is built and what
    it can do. The fields, in the order the planner and the commands read them:

    - ``summary``: one line for ``cep run --help`` and the planner's listings; ``title``: the
      short name menus and messages show.
    - ``factory``: ``"module:Class"`` called as ``Class(pattern, **options)`` (``tracer``,
      ``max_runs``, ``rates`` when ``takes_rates``, ``count_only`` when ``counts_only``).
    - ``supports``: pattern -> None when the engine runs it, else why not (a :class:`Lazy`).
    - ``data``: ``"point"`` timestamps or uncertainty ``"interval"`` events; an engine never
      runs the other kind.
    - ``selections``: the selections it implements (``all`` finds all matches; ``earliest`` and
      ``maximal`` select among them); the planner refuses the others before ``supports``.
    - ``strategies`` and ``output_all_only``: what a drawing restricts a pattern to (None: every
      strategy); the engine's ``supports`` refuses the rest.
    - ``aggregate``: an AGG engine (A-Seq); its ``supports`` decides for AGG patterns.
    - ``takes_rates``: its factory takes the data's type rates; ``prefer_with_rates``: with known
      rates, ``auto`` prefers it for patterns without Kleene components.
    - ``options``: the constructor options a caller may tune beyond ``tracer`` and ``max_runs``
      (every factory ignores options it does not take).
    - ``counts_only``: it can count matches without building them (``cep run --format count``).
    - ``feeds_many``: its matcher has ``feed_many(events, out)``, appending to ``out`` what
      feeding the events one by one returns, in that order.
    - ``trace_note``: what the Debug page says about the engine's buffers or its trace
      (``{order}`` stands for the evaluation order the trace reports, when it reports one);
      ``trace_buffers``: its trace reports buffered events (False: the eager NFA, which buffers
      nothing, shows its partial matches only).
    - ``incremental``: it reports matches as the events arrive (``cep stream`` needs it);
      otherwise ``stream_refusal`` says why it cannot run a stream.
    - ``spark``: how it runs on Spark (``"keyed"``: per partition key, with the key's events in
      time order), or None with ``spark_refusal`` saying why not.
    - ``drawing``: how the Automaton page draws it; or None, with ``drawn_as`` naming the engine
      whose automaton stands for it, or ``drawing_refusal`` saying why there is none.
    - ``menu_title``: its title in the Uncertain time page's menu (interval engines), when it
      differs from ``title``; ``reference``: a reference semantics by enumeration (the
      oracles: small inputs only), left out of the listings of engines that run a pattern.
    - ``language``: ``"dsl"`` engines run studio patterns; ``"sql"`` engines run MATCH_RECOGNIZE
      queries (their factory takes the query bound to its table); each refuses the other's input.
    """

    name: str
    title: str
    summary: str
    factory: str
    supports: Callable[[Any], str | None]
    data: Literal["point", "interval"] = "point"
    selections: frozenset[str] = frozenset({"all"})
    strategies: frozenset[str] | None = None
    output_all_only: bool = False
    aggregate: bool = False
    takes_rates: bool = False
    prefer_with_rates: bool = False
    options: frozenset[str] = frozenset()
    counts_only: bool = False
    feeds_many: bool = False
    trace_note: str = ""
    trace_buffers: bool = True
    incremental: bool = True
    stream_refusal: str = ""
    spark: Literal["keyed"] | None = "keyed"
    spark_refusal: str = ""
    drawing: Drawing | None = None
    drawn_as: str | None = None
    drawing_refusal: str = ""
    menu_title: str = ""
    reference: bool = False
    language: Literal["dsl", "sql"] = "dsl"
    preference: int = 0  # set by the planner: the engine's place in its list (lower is preferred by auto)

    @property
    def interval(self) -> bool:
        """True: it runs interval data (imprecise timestamps) only; False: point data only."""
        return self.data == "interval"

    def load(self) -> Callable[..., Any]:
        """The engine's matcher class (imported now)."""
        return load(self.factory)

    def graph(self, pattern: Any) -> Any:
        """The engine's automaton for ``pattern`` (``drawing.graph``); ValueError says why not."""
        if self.drawing is None:
            raise ValueError(f"engine `{self.name}` has no automaton drawing of its own")
        return load(self.drawing.graph)(pattern)


class GraphUnavailable(ValueError):
    """An engine cannot draw its automaton for this pattern; the message says why."""
