"""Tests of the engines (engine/engines/): one folder per engine folder, and what spans them.

- test_registry.py: the registry (engine/engines/spec.py and the planner's list): every engine drawn,
  traced, on Spark, and equal to its oracle.
- test_graphs.py: the automaton graphs of the eager, SES and uncertain engines against their traces.
- test_spec.py: EngineSpec, Drawing, Lazy and load (engine/engines/spec.py).
- test_graph_columns.py: centre_columns (engine/engines/graph_columns.py).
- nfab/, lazy/ (lazy chain, tree and eager), ses/, uncertain/, aseq/, windows/, oracle/."""
