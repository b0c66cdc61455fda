"""Tests of the brute-force oracle (engine/engines/oracle/).

- test_oracle.py: hand-checked cases."""
