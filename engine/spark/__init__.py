"""Spark execution: the session (``session``), readers (``read/``; ``io`` re-exports them), the batch pipeline
(``pipeline``) and Structured Streaming (``streaming``). The only package of ``engine``
that imports pyspark; import its modules explicitly (``from engine.spark import pipeline``)."""
