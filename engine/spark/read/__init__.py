"""Reading events with Spark: CSV, JSON Lines and Parquet.

``read_events(path, mapping)`` gives the same events, the same ``seq`` and the same
validation report as ``engine.events.load_events`` on the same file, but reads and checks
the data in Spark tasks:

1. ``spark.read`` (CSV with every column as text; JSON Lines as text lines parsed in Python
   exactly as the in-process reader parses them; Parquet as typed). Every row carries its
   *segment* (file, byte offset of the split) captured at read time; input order is (file
   path, split offset, position in the split).
2. ``mapInArrow`` runs ``engine.events.validate_frame`` on every Arrow batch with the row
   offset of the batch inside its segment, so bad rows are named exactly as in-process.
   The valid rows come out in canonical columns (``__cep_type``, ``__cep_ts``, ...); the
   issues and per-segment counts come out as side rows. A CSV is typed in the same task
   (``one_pass``: each batch by the in-process CSV typing, the whole input's types decided on
   the driver from the batches' kinds, the text columns cast to them): one Spark job reads,
   types and validates. Where batches disagree in a way no cast mends, the older CSV reader
   (``csv``: a typing scan over the whole file first) reads it.
3. The driver turns segment-local row numbers into global ones (prefix sums in input
   order) and computes ``seq``, the position after a stable sort by ts (ties by input
   order): when the input is sorted it is the rank among valid rows, otherwise a range
   sort on (ts, row).

Attribute values: columns Spark can type (numbers, strings, booleans) stay Spark columns;
columns whose values have mixed kinds (JSON Lines; CSV text columns that also hold
numbers, which pandas turns back into numbers value by value) travel as one JSON object
per row in ``__cep_json`` and are decoded when events are built. ``build_events`` turns an
Arrow batch of canonical rows into ``Event`` objects with the values the in-process loader
produces.

Modules, from the bottom up (each imports only the ones above it):

- ``columns``: the names of the columns the readers add (``SEQ_COL``, ``JSON_COL``, ``KEY_COL``
  and the side columns of the validation pass), the missing-value cells, the patterns that type
  text values, and ``_with_segment``.
- ``errors``: the ``DataError`` for an input Spark could not read.
- ``kinds``: column kinds (Spark type decisions, Arrow kinds, number or date-time time columns).
- ``events``: the result, ``SparkEvents``, and ``EventSpec`` / ``build_events`` (Events from
  canonical Arrow rows, on the driver and the workers).
- ``validate``: the validation pass on the workers (``_Plan``, ``_SegState``, the ``mapInArrow``
  function ``_validate_partition``, JSON lines parsed as in-process).
- ``assemble``: the validation pass on the driver (global rows, ``seq``, duplicate ids, report,
  schema).
- ``csv``: CSV and TSV read as text and typed per column over the whole file (a typing scan:
  the fallback of ``one_pass``).
- ``one_pass``: CSV and TSV typed and validated in one Spark job.
- ``jsonl``: JSON Lines (and a JSON array rewritten as JSON Lines).
- ``sources``: ``read_events`` (format of a file, a directory or a glob; Parquet) and
  ``from_spark_frame``.

``engine.spark.io`` is the older name of this package's face and re-exports the same names.
"""
from __future__ import annotations

from engine.spark.read.columns import _FLOAT_RE, _INT_RE, JSON_COL, KEY_COL, NA_STRINGS, SEQ_COL
from engine.spark.read.events import EventSpec, SparkEvents, build_events
from engine.spark.read.sources import from_spark_frame, read_events

__all__ = ["SparkEvents", "read_events", "from_spark_frame", "build_events", "SEQ_COL", "JSON_COL",
           "KEY_COL", "NA_STRINGS"]
