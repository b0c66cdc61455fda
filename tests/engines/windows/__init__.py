"""Tests of match windows (engine/engines/windows/).

- test_chemo_example.py: the paper's Chemo example: windows, filtering, partitioning, the statistic.
- test_fast_paths.py: Algorithm 1's fast paths against its reference forms (beta.py).
- test_statistic_fast_paths.py: the counters' fast paths (statistic.py) against the general code.
- test_properties.py: match windows on equal match windows off (hypothesis).
- test_run_chunks.py: ``cep run`` feeds the matcher in chunks, byte for byte as one event at a time.
- test_samples.py: the match-window samples, generators and presets.
- test_beta.py: beta.py on its own: β_e, the gate and the prefilter on hand-written specs and against a
  reference."""
