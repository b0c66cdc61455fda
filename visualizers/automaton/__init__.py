"""Compiled automata as plotly figures, drawn from their networkx export.

``automaton_graph(pattern, engine, ...)`` compiles a pattern for one engine and returns its
``networkx.MultiDiGraph``, every edge with a ``shown`` formula and a drawing ``kind``
(begin / take / ignore / proceed / negation); the engine's own move is kept in ``move``.
Every graph is built in ``engine.automata``; this package only styles and draws it:

* ``nfab``: NFA^b (``engine.engines.nfab.compiler``); the two optimisation switches of SASE+ §4.5
  choose the shown formulas (step 5, *push the window*: the WITHIN test on every edge;
  step 6, *peek before proceed*: a proceed edge also requires the next state's begin);
* ``lazy-chain`` / ``lazy-tree``: the lazy Chain / Tree NFA of Kolchinsky & Schuster
  (``engine.engines.lazy.chain_compiler`` / ``tree``; moves take, iterate, store, ignore, timeout,
  search_failed, negation);
* ``eager``: the eager NFA baseline's bound-set lattice (``engine.engines.lazy.eager_compiler``);
* ``ses``: the SES automaton of event-set patterns, states (i, S) (``engine.engines.ses.moves``);
* ``uncertain-event`` / ``uncertain-point``: what the imprecise-timestamps engines run over
  interval data (``engine.engines.uncertain.automaton``): any-state or sorted runs with valid
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

| module        | what                                                                                       |
|---------------|--------------------------------------------------------------------------------------------|
| ``styles``    | edge styles, state fills, what each state kind and move means, scale and state radius      |
| ``folding``   | ``fold_states`` / ``foldable``: the lazy tree's states that bind the same variables as one |
| ``catalogue`` | the drawable engines (``COMPILERS``, ``ENGINE_HELP``), shown formulas, ``automaton_graph`` |
| ``placement`` | state positions and label placement on the pixel grid (``layout``, ``_best_plan``)         |
| ``tables``    | the legend, edge and state tables under the figure                                         |
| ``figure``    | ``automaton_figure``, its compact form (``common_moves``), ``label_boxes``                 |

Each module imports only the ones above it in this table.
"""
from __future__ import annotations

from .catalogue import (ANY, ANY_ONLY, CITED, CITED_AT, COMPILERS, ENGINE_HELP, SELECTING, UNCERTAIN, AutomatonUnavailable,
                        _style, automaton_graph, default_engine, interval_engines, shown_formula, window_text)
from .figure import COMPACT_EDGES, automaton_figure, common_moves, label_boxes
from .folding import fold_states, foldable
from .placement import (BOLD_W, CHAR_W, FONT, HEADS, LINE_H, LOOP_PX, MANY_STATES, MAX_WIDTH, PAD, STATE_PX, STUB_PX,
                        _Label, _bezier, _place, layout)
from .styles import (DX, EDGE_STYLE, MOVE_MEANING, R, ROW, SCALE, STATE_FILL, STATE_MEANING,
                     state_meaning)
from .tables import edge_table, legend_rows, state_table

__all__ = ["ANY", "ANY_ONLY", "CITED", "CITED_AT", "COMPILERS", "ENGINE_HELP", "SELECTING", "UNCERTAIN", "AutomatonUnavailable",
           "_style", "automaton_graph", "default_engine", "interval_engines", "shown_formula", "window_text",
           "COMPACT_EDGES", "automaton_figure", "common_moves", "label_boxes", "fold_states", "foldable", "BOLD_W",
           "CHAR_W", "FONT", "HEADS", "LINE_H", "LOOP_PX", "MANY_STATES", "MAX_WIDTH", "PAD", "STATE_PX", "STUB_PX",
           "_Label", "_bezier", "_place", "layout", "DX", "EDGE_STYLE", "MOVE_MEANING", "R",
           "ROW", "SCALE", "STATE_FILL", "STATE_MEANING", "state_meaning", "edge_table", "legend_rows", "state_table"]
