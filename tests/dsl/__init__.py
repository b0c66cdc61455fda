"""Tests of the pattern text language (engine/dsl/).

- test_parse_and_print.py: round trips, the papers' queries, syntax details, error messages."""
