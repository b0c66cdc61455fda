"""Tests of reading events (engine/events/).

- test_loading.py: CSV, JSON Lines, Parquet and DataFrames, and validation.
- test_small_csv.py: the small-CSV path (no pandas) against the pandas path.
- test_file_formats.py: the one file-extension -> format table (engine/events/file_formats.py).
"""
