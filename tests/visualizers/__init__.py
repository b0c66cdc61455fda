"""Tests of the figures and views (visualizers/).

- test_figures.py: canvas <-> pattern and pattern edits (app/edit.py), automaton and timeline figures.
- test_canvas_escape.py: the Design canvas hands no markup from a pattern to streamlit-flow.
- test_escape.py: visualizers/escape.py, one function per output context.
- test_escape_views.py: figures and tables hold no tag made from the data.
- test_trace_views.py: the Debug and Learn views (visualizers/trace_view.py, learn_view.py).
- test_windows_view.py: the match-window views on the Chemo example (visualizers/windows_view.py).
- trace/: the trace views' modules on their own (reading, tables, buffers).
- automaton/: the automaton drawing's modules on their own (folding, styles, tables)."""
