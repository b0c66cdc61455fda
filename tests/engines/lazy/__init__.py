"""Tests of the lazy chain and tree NFA and the eager baseline (engine/engines/lazy/).

- test_matcher.py: the chain and tree matchers (chain_matcher.py, tree_matcher.py): the worked
  examples, compiled automata, planner entries, refusals, guard and tracer.
- test_eager_matcher.py: the eager NFA baseline (engine/engines/lazy/eager_matcher.py).
- test_fast_paths.py: the chain's fast paths against its general ones.
- test_emission_parity.py: the emission fast path (emission.match_binder) against the general loop.
- test_predicates.py: the compiled predicates (engine/expr.py's slot comparisons) against the generic one.
- test_properties.py: every evaluation order, the tree and eager against the oracle (hypothesis).
- test_graph.py: the chain, tree and eager drawings (engine/engines/lazy/graph.py).
- test_trace.py: the step trace the chain, tree and eager matchers record (engine/engines/lazy/trace.py)."""
