"""Tests of the trace views' modules (visualizers/trace/), each on its own.

- test_reading.py: reading a recorded trace: event steps, labels, matches, live states, a match's path.
"""
