"""Spark execution. The only package of ``engine`` that imports pyspark; import its modules
explicitly (``from engine.spark import pipeline``).

| module             | what it holds                                                              |
|--------------------|----------------------------------------------------------------------------|
| ``session``        | ``get_spark``: the local session and its settings                          |
| ``read/``          | ``read_events``: CSV, JSON Lines, Parquet read and validated on Spark      |
| ``io``             | the names of ``read/`` under their older module name                       |
| ``local_source``   | ``read_local``: a small file read on the driver, then parallelised         |
| ``keys``           | ``key_expr``: an event's partition key as normalised text                  |
| ``partition_runner`` | ``run_partition``: the per-group worker of every path; ``sort_by_group`` |
| ``match_rows``     | match rows built column-wise (``MatchColumns``), the ``events`` column     |
| ``pipeline``       | ``run``: matches on Spark (keyed, time-chunked, single-partition)          |
| ``aseq``           | ``run``: AGG rows (A-Seq) on Spark                                         |
| ``intervals``      | ``run_intervals``: interval data through the uncertain engines            |
| ``result``         | ``SparkResult``: what a run gives back                                     |
| ``errors``         | ``PipelineError``, ``task_error``: a matcher's failure in a task           |
| ``streaming``      | ``cep stream``: Structured Streaming over a directory                      |
| ``stream_files``   | what ``cep stream`` does with each file (no Spark)                         |
| ``daemon``         | the Python worker daemon that preloads the engine                          |
"""
