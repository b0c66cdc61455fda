"""The step trace (``engine.trace``) as pictures and tables for the Debug page.

Pure functions from a trace (``list[engine.trace.Step]``) to pandas frames and plotly
figures; no streamlit here. What each view shows:

* :func:`debug_graph` + :func:`live_automaton_figure`: the automaton as the Automaton page
  draws it (``visualizers.automaton``), with the states that hold live runs ringed and
  labelled with their run count, the edges taken on this step drawn over it, and a chosen
  match's path (SASE+ §4.4: a run is its sequence of begin/take/proceed moves).
* :func:`shared_buffer_figure`: NFA^b's shared versioned buffer after a step as the SASE+
  paper's buffer figure (§5.1; docs/papers.md, "SASE+ / NFA^b"): one column per stack (state),
  entries in time order, predecessor pointers labelled with their Dewey versions; a match's
  retrieval path follows the pointers whose label is a prefix of its version.
* :func:`lazy_buffer_figure`: the lazy engines' per-variable input buffers, columns in the
  evaluation order (Kolchinsky & Schuster: ascending frequency), with the events this step
  stored or searched marked.
* :func:`cursor_timeline_figure`: the events over time with a cursor at the current event,
  the future faded, a chosen match's events marked and joined.

The trace names states as the Automaton page does (``a[1]``, ``a[i]``, ``b``, ``F`` for
NFA^b; ``q1``, ``q2`` for the lazy chain; ``q[c,b]`` for the tree; ``q{a,b}`` for eager), so
the overlays are placed with :func:`visualizers.automaton.layout`.

| module              | what                                                                                          |
|---------------------|-----------------------------------------------------------------------------------------------|
| ``plain_figure``    | the views' colours, figures written as plain plotly JSON, the cached automaton drawing        |
| ``reading``         | a trace's event steps, step labels, matches and their identities, live states, a match's path |
| ``tables``          | the live runs, the actions with their predicates, the events                                  |
| ``live_automaton``  | ``debug_graph``, ``resolve_state``, ``live_automaton_figure``                                 |
| ``buffers``         | ``shared_buffer_figure`` (NFA^b), ``retrieval_path``, ``lazy_buffer_figure``                  |
| ``cursor_timeline`` | ``cursor_timeline_figure``                                                                    |

Each module imports only the ones above it in this table.
"""
from __future__ import annotations

from .buffers import buffer_view, lazy_buffer_figure, retrieval_path, shared_buffer_figure, stack_order
from .cursor_timeline import cursor_timeline_figure
from .live_automaton import (debug_graph, has_moves, live_automaton_figure, resolve_state, trace_engine_order,
                             trace_graph)
from .plain_figure import ADDED, LIVE, PATH, REMOVED, automaton_base
from .reading import (MOVES, event_steps, is_match, live_event_ids, match_action, match_ids, match_key, match_numbers,
                      match_path, match_text, matches_so_far, state_counts, step_edges, step_label, step_matches,
                      step_rows, steps_to_json)
from .tables import actions_frame, events_table, predicate_text, run_moves, runs_frame

__all__ = ["ADDED", "LIVE", "PATH", "REMOVED", "automaton_base", "MOVES", "event_steps", "is_match", "live_event_ids",
           "match_action", "match_ids", "match_key", "match_numbers", "match_path", "match_text", "matches_so_far",
           "state_counts", "step_edges", "step_label", "step_matches", "step_rows", "steps_to_json", "actions_frame",
           "events_table", "predicate_text", "run_moves", "runs_frame", "debug_graph", "has_moves",
           "live_automaton_figure", "resolve_state", "trace_engine_order", "trace_graph", "buffer_view",
           "lazy_buffer_figure", "retrieval_path", "shared_buffer_figure", "stack_order", "cursor_timeline_figure"]
