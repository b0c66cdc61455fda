"""Tests of ``cep explain`` (engine/explain/).

- test_explanations.py: why a match fired and why chosen events did not match, against the engines
  and the oracle.
- test_common.py: what both answers share (engine_run, alternatives, partitions, state names, values).
- test_text.py: the text form of either answer (format_text).
- test_match.py: why a match fired, step by step (explain_match, negation steps, match windows).
- test_whynot.py: why chosen events did not match (parse_spec, the stage checks, assignments).
- test_engine_side.py: the engine's side of "why not" (guard, selections, NON_OVERLAP, strategies).
- test_intervals.py: cep explain on interval data (signatures, confidence, refusals)."""
