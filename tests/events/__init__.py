"""Tests of reading events (engine/events/).

- test_loading.py: CSV, JSON Lines, Parquet and DataFrames, and validation.
- test_small_csv.py: the small-CSV path (no pandas) against the pandas path.
- test_file_formats.py: the one file-extension -> format table (engine/events/file_formats.py).
- test_columns.py: the Table / Column protocols and the time codes; both readers provide them.
- test_frame_check.py: FrameCheck, the state the validation rules share (issues, bad rows, ts).
- test_frames.py: validated frames to events (stable sort, column-wise events, schema).
- test_intervals.py: the interval rules one by one (exact bounds, unit, order, instants, U_max, pmf, arrival).
- test_mapping.py: ColumnMapping's checks and guessing it from column names.
- test_pandas_table.py: FrameTable / SeriesColumn over a DataFrame.
- test_pmf_column.py: pmf cells and integer instants read exactly, and their refusals.
- test_records.py: Event, make_stream, schemas, assemble_events.
- test_report.py: ValidationIssue / ValidationReport and their format.
- test_times.py: parse_time on every kind of time column.
- test_values.py: pandas values to plain values, kinds, number text.
"""
