"""The Debug page's trace views under their first name; they live in the package :mod:`visualizers.trace`."""
from __future__ import annotations

from visualizers.trace import (actions_frame, buffer_view, cursor_timeline_figure, debug_graph, event_steps,
                               events_table, has_moves, is_match, lazy_buffer_figure, live_automaton_figure,
                               live_event_ids, match_action, match_ids, match_key, match_numbers, match_path,
                               match_text, matches_so_far, resolve_state, retrieval_path, run_moves, runs_frame,
                               shared_buffer_figure, stack_order, state_counts, step_edges, step_label, step_matches,
                               step_rows, steps_to_json, trace_engine_order, trace_graph)
from visualizers.trace.reading import _num

__all__ = ["actions_frame", "buffer_view", "cursor_timeline_figure", "debug_graph", "event_steps", "events_table",
           "has_moves", "is_match", "lazy_buffer_figure", "live_automaton_figure", "live_event_ids", "match_action",
           "match_ids", "match_key", "match_numbers", "match_path", "match_text", "matches_so_far", "resolve_state",
           "retrieval_path", "run_moves", "runs_frame", "shared_buffer_figure", "stack_order", "state_counts",
           "step_edges", "step_label", "step_matches", "step_rows", "steps_to_json", "trace_engine_order",
           "trace_graph", "_num"]
