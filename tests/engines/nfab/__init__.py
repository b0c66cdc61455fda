"""Tests of NFA^b (engine/engines/nfab/).

- test_matcher.py: differential tests against the oracle and the SASE+ paper's worked examples.
- test_count.py: count mode (matches counted without being built).
- test_paths.py: match construction from run paths (engine/engines/nfab/paths.py).
- test_graph.py: the automaton drawing (engine/engines/nfab/graph.py).
- test_trace.py: the step trace NfabMatcher records (engine/engines/nfab/trace.py)."""
