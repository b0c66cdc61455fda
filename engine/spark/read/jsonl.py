"""Reading JSON Lines: the file as text lines, parsed on the workers exactly as the in-process
reader parses them (``validate._jsonl_frame``); the mapped keys and the kinds of time values
are probed once in the JVM. A JSON array of objects is rewritten as JSON Lines first."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.events import ColumnMapping, DataError, guess_mapping
from engine.events.formats import loads as _json_loads
from engine.events.lines import LineIndex
from engine.spark.read.assemble import _run_validation
from engine.spark.read.columns import _DATE_RE, _FLOAT_RE, _LINE, _with_segment
from engine.spark.read.errors import _spark_error
from engine.spark.read.events import SparkEvents
from engine.spark.read.kinds import _time_kinds_from_counts
from engine.spark.read.validate import _Plan


def _starts_with_bracket(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
    except OSError:
        return False
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:].lstrip()
    return head.startswith(b"[")


def _read_json_array(spark: Any, path: Path, mapping: ColumnMapping | None) -> SparkEvents:
    """A JSON array of objects (accepted by load_events too): rewritten as JSON Lines in a
    temporary file (rows keep their array index) and read as such."""
    import tempfile

    try:
        data = _json_loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataError(f"cannot read '{path.name}' as JSON: {e.msg} at line {e.lineno}, "
                        f"column {e.colno}") from None
    except UnicodeDecodeError:
        raise DataError(f"cannot read '{path.name}' as JSON Lines: it is not UTF-8 text "
                        f"(is it a binary file?)") from None
    except RecursionError:
        raise DataError(f"cannot read '{path.name}' as JSON: nested too deeply") from None
    tmp = Path(tempfile.mkdtemp(prefix="cep-jsonarr-")) / (path.stem + ".jsonl")
    with open(tmp, "w", encoding="utf-8") as f:
        for item in data if isinstance(data, list) else [data]:
            f.write(_array_item_line(item) + "\n")
    return _read_jsonl(spark, tmp, mapping, str(path), lines=None)


def _array_item_line(item: Any) -> str:
    """An array item as one JSON line; an object that repeated a key repeats it again, so
    the line is rejected with the same message as in-process."""
    text = json.dumps(item)
    dup = getattr(item, "duplicate", "") if isinstance(item, dict) else ""
    if dup:
        text = text[:-1] + ", " + json.dumps(dup) + ": null}"
    return text


def _read_jsonl(spark: Any, path: Path, mapping: ColumnMapping | None, name: str,
                lines: LineIndex | None = None) -> SparkEvents:
    from pyspark.sql import functions as F

    try:
        raw = _with_segment(spark.read.text(str(path)))
    except Exception as e:  # noqa: BLE001
        raise _spark_error(path, "JSON Lines", e) from None
    if mapping is None:  # guess from every key of every object, as load_events does
        try:
            keys_seen = [r[0] for r in raw.select(F.explode(F.expr("json_object_keys(value)")).alias("k"))
                         .distinct().collect()]
        except Exception as e:  # noqa: BLE001
            raise _spark_error(path, "JSON Lines", e) from None
        mapping = guess_mapping(sorted(keys_seen))
    # which mapped keys occur at all, and the kinds of time values (one scan, in the JVM)
    probe_map = mapping
    keys = [probe_map.type_col, *probe_map.time_columns] + ([probe_map.id_col] if probe_map.id_col else [])
    aggs = [F.count(F.lit(1)).alias("__n"),
            F.sum(F.when(F.trim(F.col(_LINE)) != "", 1).otherwise(0)).alias("__nonblank")]
    for i, k in enumerate(keys):
        present = F.col(_LINE).rlike(_key_regex(k))
        aggs.append(F.max(F.when(present, 1).otherwise(0)).alias(f"p{i}"))
    for i, c in enumerate(probe_map.time_columns):
        v = F.get_json_object(F.col(_LINE), _json_path(c))
        aggs += [F.sum(F.when(v.rlike(_FLOAT_RE), 1).otherwise(0)).alias(f"f{i}"),
                 F.sum(F.when(v.rlike(_DATE_RE), 1).otherwise(0)).alias(f"d{i}")]
    try:
        row = raw.agg(*aggs).collect()[0].asDict()
    except Exception as e:  # noqa: BLE001
        raise _spark_error(path, "JSON Lines", e) from None
    if not row["__nonblank"]:
        raise DataError(f"'{path.name}' is empty: no rows")
    counts = {c: {"n": None, "num": row[f"f{i}"] or 0, "dt": row[f"d{i}"] or 0}
              for i, c in enumerate(probe_map.time_columns)}
    present = [k for i, k in enumerate(keys) if row[f"p{i}"]]
    m = mapping
    plan = _Plan(kind="jsonl", mapping=m, columns=[], plain_attrs=[], json_attrs=[],
                 id_mode="json", time_kinds=_time_kinds_from_counts(m, counts), text_source=False,
                 mapped_present=[k for k in present if k in m.mapped_columns()])
    return _run_validation(spark, raw, plan, [], [], name, lines)


def _key_regex(key: str) -> str:
    import re

    return '"' + re.escape(json.dumps(key)[1:-1]) + r'"\s*:'


def _json_path(key: str) -> str:
    return "$['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"
