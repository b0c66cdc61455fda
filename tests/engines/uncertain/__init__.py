"""Tests of the imprecise-timestamp engines (engine/engines/uncertain/).

- test_matchers.py: the possible-worlds oracle on the worked examples, the point-based and event-based
  engines against it.
- test_graph.py: the event-based and point-based drawings (engine/engines/uncertain/graph.py).
- test_confidence.py: the exact confidence of one signature (Eq. 1-3) by hand and against a brute force.
- test_index.py: EventIndex (overlapping events, NELT, forgetting) against a brute force.
- test_explain.py: the signature explainer, NELT history and one possible world."""
