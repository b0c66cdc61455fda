"""Hostile inputs through the whole engine.

- test_patterns.py: hostile pattern text through the DSL, the printer, the planner and the matchers
  (benchmarks/fuzz_patterns.py runs its checks longer).
- test_inputs.py: random event-set selections, workloads and data files.
- test_numbers.py: hostile number cells and huge interval bounds through ``cep run``."""
