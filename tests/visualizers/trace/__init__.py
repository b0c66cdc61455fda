"""Tests of the trace views' modules (visualizers/trace/), each on its own.

- test_reading.py: reading a recorded trace: event steps, labels, matches, live states, a match's path.
- test_tables.py: a step's tables: live runs and their moves, actions with predicates, events.
- test_buffers.py: NFA^b's shared buffer (view, retrieval path, stacks, figure) and the lazy buffers figure.
"""
