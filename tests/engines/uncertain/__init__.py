"""Tests of the imprecise-timestamp engines (engine/engines/uncertain/).

- test_matchers.py: the possible-worlds oracle on the worked examples, the point-based and event-based
  engines against it.
- test_graph.py: the event-based and point-based drawings (engine/engines/uncertain/graph.py)."""
