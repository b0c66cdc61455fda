"""The columns the Spark readers add and the patterns they use to type text values.

``SEQ_COL``, ``JSON_COL`` and ``KEY_COL`` are read by the Spark engines; the private names are
the side columns of the validation pass (segment, kind of row, info). ``_with_segment`` adds
each row's segment (file, byte offset of its split) at read time.
"""
from __future__ import annotations

from typing import Any

SEQ_COL = "__cep_seq"
JSON_COL = "__cep_json"
KEY_COL = "__cep_key"
_SEG = "__cep_seg"
_FILE = "__cep_file"
_BLOCK = "__cep_block"
_LVALID = "__cep_lvalid"
_KIND = "__cep_kind"
_INFO = "__cep_info"
_CORRUPT = "__cep_corrupt"
_LINE = "value"

# The cells that are missing values: only the empty one, as in the in-process reader ("NA",
# "null" and the like are text; docs/semantics.md, "Values are what the file says").
NA_STRINGS = [""]
_BOOL_STRINGS = ["True", "TRUE", "true", "False", "FALSE", "false"]
_INT_RE = r"^\s*[+-]?\d{1,18}\s*$"
_FLOAT_RE = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"
# ISO 8601 dates / date-times (only to decide whether a mixed time column holds mostly
# date-times; validate_frame does the actual parsing)
_DATE_RE = r"^\s*\d{4}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?\s*$"


def _with_segment(df: Any) -> Any:
    from pyspark.sql import functions as F

    return df.select("*", F.col("_metadata.file_path").alias(_FILE),
                     F.col("_metadata.file_block_start").alias(_BLOCK))
