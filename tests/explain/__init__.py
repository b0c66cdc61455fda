"""Tests of ``cep explain`` (engine/explain/).

- test_explanations.py: why a match fired and why chosen events did not match, against the engines
  and the oracle."""
