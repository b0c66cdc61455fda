"""Tests of A-Seq (engine/engines/aseq/).

- test_engine.py: the public entry points (AseqMatcher, the row sinks, plan, engine names) on small
  hand-checked streams.
- test_paper_cases.py: the paper's test cases T1-T11 against the baseline and the oracle; plan,
  fallback, refusal, trace, guard.
- test_properties.py: random streams and patterns, A-Seq against the oracle's aggregate.
- test_prefix_counters.py: the prefix counters (prefix_tree, counter_updates, core): the fast update path against the general one.
- test_shared_starts.py: counters shared across STARTs (shared_starts, shared_feed) against one vector per START.
- test_select.py: how the planner runs an AGG pattern (supports, choose_aggregate).
- test_output.py: writing aggregate rows as table, CSV, JSON Lines, count and Parquet.
"""
