"""What ``cep stream`` does with each file, and how its output is read back; no Spark here.

- ``read_file``: one arriving file (its name and bytes) is read by the in-process loader
  (``engine.events.load_events``: the same readers, rules and messages as ``cep run``),
  so a rejection names the file and the file's line (``f2.csv: rejected line 7 (data row
  6), column ts: ...``), a ragged CSV line refuses the file as ``cep run`` refuses it, and
  the events come out with their row, line, partition key text and JSON form.
- ``key_text``: the partition key of an event as text (values that compare equal in
  Python give the same text: ``1`` and ``1.0``; a missing value is ``null``).
- ``committed_files`` / ``read_committed``: the part files of a file sink that Spark's
  commit log (``_spark_metadata``) lists, and their rows. Spark writes a micro-batch's part
  files first and its log entry last; a reader that follows the log sees only committed
  batches, never the rows of a batch in progress or of one interrupted by a kill (which
  the restarted query writes again, under new names).
- ``changed_since_listed`` / ``ChangeWatcher``: a file whose size or modification time is
  not what it was when Spark listed (or read) it. Spark's file source reads a file once,
  so rows appended later are never matched: the stream says so, naming the file.

**Write, then rename.** A writer must write a file elsewhere (or under a name the stream
ignores) and rename it into the watched directory when it is complete: a rename is atomic,
so the stream never sees half a file. Names the stream ignores (Spark's file source skips
them, and ``--format`` keeps only its extensions): names starting with ``.`` or ``_``,
names ending in ``._COPYING_``, and any other extension (``f.csv.tmp``, ``f.part``).
"""
from __future__ import annotations

import json
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from engine.events import ColumnMapping, DataError, Event
from engine.events.file_formats import FORMATS
from engine.partition import PartitionKey

__all__ = ["FileEvents", "read_file", "changed_since_listed", "ChangeWatcher", "WRITE_THEN_RENAME", "key_text", "event_json", "event_from_json", "committed_files",
           "read_committed", "EVENT_ROW"]

#: the rule a writer into a watched directory follows (``cep stream --help``, the warnings)
WRITE_THEN_RENAME = ("write each file elsewhere (or as .NAME, _NAME or NAME.tmp, which the stream ignores) and "
                     "rename it into the watched directory when it is complete: the stream reads a file once")

#: the rows ``read_file`` gives for each event, as a Spark schema
EVENT_ROW = "key string, file string, `row` long, line long, ts double, event string"


@dataclass
class FileEvents:
    """The events of one file as rows (``EVENT_ROW``) and what to tell about the file."""

    rows: list[tuple[str, str, int, int | None, float, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def read_file(name: str, content: bytes, mapping: ColumnMapping, fmt: str,
              key: PartitionKey | None) -> FileEvents:
    """Read one file of a stream as ``cep run`` reads a file (see the module)."""
    from engine.events import load_events

    out = FileEvents()
    base = Path(name).name or "data"
    kind = FORMATS.get(fmt, fmt)
    with tempfile.TemporaryDirectory(prefix="cep-stream-") as tmp:
        path = Path(tmp) / base
        path.write_bytes(content)
        try:
            res = load_events(path, mapping, kind)
        except DataError as err:
            out.messages.append(f"{base}: skipped the whole file: {err}")
            return out
        rows = res.rows
        lines = res.lines.lines(rows) if res.lines is not None else {}  # reads the file
    for issue in res.report.issues:
        if issue.severity == "error":
            out.messages.append(f"{base}: rejected {issue.format()}")
        else:
            out.messages.append(f"{base}: warning: {issue.format()}")
    for e in res.events:
        row = rows[e.seq]
        out.rows.append((key_text(key, e), base, int(row), lines.get(row), float(e.ts), event_json(e)))
    return out


def _value_text(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "null"
        if v.is_integer() and abs(v) < 9.0e18:
            return str(int(v))
        return repr(v)
    return str(v)


def key_text(key: PartitionKey | None, e: Event) -> str:
    """The partition key of ``e`` as text; ``*`` without a key (one group)."""
    if key is None:
        return "*"
    attrs = key.attrs_for(e.type)
    if attrs is None:
        return "*"
    values = [_value_text(e.get(a)) for a in attrs]
    return values[0] if len(values) == 1 else json.dumps(values)


def event_json(e: Event) -> str:
    """An event as JSON text (its values are JSON values: numbers, strings, booleans)."""
    d: dict[str, Any] = {"id": e.id, "type": e.type, "ts": e.ts, "attrs": e.attrs}
    if e.lower is not None or e.upper is not None:
        d["lower"], d["upper"] = e.lower, e.upper
    return json.dumps(d)


def event_from_json(text: str, seq: int) -> Event:
    d = json.loads(text)
    return Event(id=d["id"], type=d["type"], ts=d["ts"], seq=seq, attrs=d["attrs"],
                 lower=d.get("lower"), upper=d.get("upper"))


# --------------------------------------------------------------------------- the sink

_BATCH_FILE = re.compile(r"(\d+)(\.compact)?")


def committed_files(out: str | Path) -> list[Path]:
    """The part files Spark's commit log of the file sink at ``out`` lists, in batch order.

    The log (``out/_spark_metadata``) has a file per micro-batch (``0``, ``1``, ...), and
    every ``spark.sql.streaming.fileSink.log.compactInterval`` batches a ``N.compact`` file
    that repeats all entries so far (older ones may then be deleted); each file is ``v1``
    and a JSON object per line (``path``, ``action``: ``add`` or ``delete``). Temporary files
    of a log entry being written are not entries. No log: nothing is committed yet."""
    out = Path(out)
    meta = out / "_spark_metadata"
    if not meta.is_dir():
        return []
    batches: dict[int, Path] = {}
    for f in meta.iterdir():
        m = _BATCH_FILE.fullmatch(f.name)
        if m is not None:
            batches[int(m.group(1))] = f
    if not batches:
        return []
    compacts = [b for b, f in batches.items() if f.name.endswith(".compact")]
    start = max(compacts) if compacts else min(batches)
    files: dict[str, Path] = {}
    for b in sorted(k for k in batches if k >= start):
        for entry in _log_entries(batches[b]):
            p = _local_path(entry.get("path", ""), out)
            if entry.get("action", "add") == "delete":
                files.pop(str(p), None)
            else:
                files[str(p)] = p
    return list(files.values())


def _log_entries(f: Path) -> list[dict[str, Any]]:
    lines = f.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("v"):
        raise DataError(f"'{f}' is not a Spark file sink log entry (no version line)")
    return [json.loads(ln) for ln in lines[1:] if ln.strip()]


def _local_path(uri: str, out: Path) -> Path:
    """A log entry's path on this machine: its ``file:`` URI, else the part file of that
    name in ``out`` (the directory was moved)."""
    p = Path(unquote(urlparse(uri).path))
    if p.exists():
        return p
    return out / p.name


def read_committed(out: str | Path) -> list[dict[str, Any]]:
    """The rows (JSON Lines part files) of the committed micro-batches at ``out``."""
    rows: list[dict[str, Any]] = []
    for f in committed_files(out):
        if not f.exists():
            raise DataError(f"'{f.name}' is listed in the commit log of '{out}' but is missing")
        for ln in f.read_text(encoding="utf-8").splitlines():
            if ln.strip():
                rows.append(json.loads(ln))
    return rows


def _stat(path: str | Path) -> tuple[int, float] | None:
    import os

    p = str(path)
    if p.startswith("file:"):
        p = unquote(urlparse(p).path)
    try:
        st = os.stat(p)
    except OSError:
        return None
    return st.st_size, st.st_mtime


def changed_since_listed(path: str | Path, listed_size: int | None, listed_mtime: float | None,
                         read_size: int | None = None) -> str | None:
    """Why ``path`` is not the file Spark listed (``listed_size`` bytes, modified at
    ``listed_mtime`` seconds) or read (``read_size`` bytes), or None when it is the same."""
    name = str(path).rsplit("/", 1)[-1]
    now = _stat(path)
    why = None
    if read_size is not None and listed_size is not None and read_size != listed_size:
        why = f"it had {listed_size:,} bytes when listed and {read_size:,} when read"
    elif now is not None and listed_size is not None and now[0] != listed_size:
        why = f"it had {listed_size:,} bytes when read and has {now[0]:,} now"
    elif now is not None and listed_mtime is not None and abs(now[1] - listed_mtime) > 1e-3:
        why = "it was modified after it was read"
    if why is None:
        return None
    return (f"file {name} changed after the stream read it ({why}): rows written after the read are not "
            f"matched; {WRITE_THEN_RENAME}")


class ChangeWatcher:
    """Remembers the size and modification time of each file of a watched directory when
    first seen (``poll``), and says once per file when it changes afterwards (a writer that
    does not follow the write-then-rename rule). Names the stream ignores are skipped."""

    def __init__(self, source: str | Path, extensions: tuple[str, ...]) -> None:
        self.source = Path(source)
        self.extensions = tuple(e.lower() for e in extensions)
        self.seen: dict[str, tuple[int, float]] = {}
        self.told: set[str] = set()

    def ignored(self, name: str) -> bool:
        """Spark's file source skips ``.``/``_`` names and ``._COPYING_``; ``--format`` other extensions."""
        return (name.startswith((".", "_")) or name.endswith("._COPYING_")
                or not name.lower().endswith(tuple("." + e for e in self.extensions)))

    def poll(self) -> list[str]:
        """Messages for the files that changed since first seen (each file once)."""
        out: list[str] = []
        try:
            entries = list(self.source.iterdir())
        except OSError:
            return out
        for p in entries:
            if self.ignored(p.name) or not p.is_file():
                continue
            st = _stat(p)
            if st is None:
                continue
            first = self.seen.setdefault(p.name, st)
            if st != first and p.name not in self.told:
                self.told.add(p.name)
                why = (f"{first[0]:,} bytes when first seen, {st[0]:,} now" if st[0] != first[0]
                       else "modified after it was first seen")
                out.append(f"file {p.name} changed after the stream saw it ({why}): Spark reads a file once, so "
                           f"rows written later are not matched; {WRITE_THEN_RENAME}")
        return out
