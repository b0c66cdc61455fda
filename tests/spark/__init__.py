"""Tests of the Spark side (engine/spark/); marked ``spark``, they use the session fixtures of
tests/conftest.py.

- test_session.py: a clear message when Java is missing or too old.
- test_read.py: the Spark readers against engine.events.load_events (engine/spark/read/).
- test_short_rows.py: a short CSV record refused as the in-process readers do.
- test_pipeline.py: the Spark result equals the in-process result (engine/spark/pipeline.py).
- test_fast_paths.py: the pipeline's fast paths against the plain ones.
- test_streaming.py: files dropped into a watched directory (engine/spark/streaming.py).
- test_aseq.py: A-Seq on Spark (engine/spark/aseq.py).
- test_intervals.py: interval data on Spark (engine/spark/intervals.py).
- test_windows.py: match windows on Spark, partitioned by the derived key.
- test_partition_runner.py: the one partition runner of the match, A-Seq and interval paths."""
