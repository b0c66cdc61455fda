"""Uploaded files on disk: one directory per session, one current upload per session.

Spark and the loaders read paths, so an upload is written to
``<tmp>/cep-studio-uploads-<pid>/<session>/<digest>/<name>``. Saving a new upload removes
the session's previous one; the directory goes when the session ends (``app.sessions``)
and the process's root when the server exits (and, at the next start, the roots of
servers that are gone). Two caps: one upload at most ``limits.UPLOAD_MAX_BYTES``, all the
sessions' uploads together at most ``limits.UPLOADS_TOTAL_MAX_BYTES``; past either the
upload is refused with a message (``UploadRefused``).
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

from . import limits

__all__ = ["UploadRefused", "root", "save", "remove_session_dir", "total_bytes", "content_problem", "file_problem",
           "read_error", "expected"]

PREFIX = "cep-studio-uploads-"
_lock = threading.RLock()
_root: Path | None = None


class UploadRefused(ValueError):
    """An upload over a cap; the message says which and what to do."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_roots(base: Path) -> None:
    """Remove the upload roots of server processes that no longer run."""
    for d in base.glob(PREFIX + "*"):
        try:
            pid = int(d.name[len(PREFIX):])
        except ValueError:
            continue
        if pid != os.getpid() and not _pid_alive(pid):
            shutil.rmtree(d, ignore_errors=True)


def root() -> Path:
    """This process's upload root (made on first use, removed at exit)."""
    global _root
    with _lock:
        if _root is None:
            base = Path(tempfile.gettempdir())
            _remove_stale_roots(base)
            _root = base / f"{PREFIX}{os.getpid()}"
            _root.mkdir(mode=0o700, exist_ok=True)
            atexit.register(shutil.rmtree, _root, True)
        return _root


def total_bytes(folder: Path | None = None) -> int:
    """Bytes of every file under ``folder`` (default: the upload root)."""
    top = folder or root()
    total = 0
    for dirpath, _dirs, files in os.walk(top):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def _safe_name(name: str) -> str:
    base = Path(name.replace("\\", "/")).name
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in base).lstrip(".") or "data"


def save(record, name: str, data: bytes, *, cap: int | None = None, total_cap: int | None = None) -> str:
    """Write ``data`` as the session's (``record``: ``app.sessions.SessionRecord``) current
    upload and return its path; the same content again gives the same path. The session's
    previous upload is removed first. ``UploadRefused`` past a cap."""
    cap = limits.UPLOAD_MAX_BYTES if cap is None else cap
    total_cap = limits.UPLOADS_TOTAL_MAX_BYTES if total_cap is None else total_cap
    problem = limits.upload_problem(name, len(data), cap)
    if problem:
        raise UploadRefused(problem)
    digest = hashlib.sha1(data).hexdigest()[:16]
    with record.lock:
        session_dir = record.upload_dir
        if session_dir is None:
            session_dir = root() / hashlib.sha1(record.id.encode()).hexdigest()[:16]
            record.upload_dir = session_dir
        target = session_dir / digest / _safe_name(name)
        if target.is_file() and target.stat().st_size == len(data):
            return str(target)
        with _lock:
            if session_dir.exists():  # one current upload per session
                shutil.rmtree(session_dir, ignore_errors=True)
            others = total_bytes()
            if others + len(data) > total_cap:
                raise UploadRefused(
                    f"the server holds {others / (1 << 20):,.1f} MB of other sessions' uploads and takes "
                    f"{total_cap / (1 << 20):,.0f} MB in all; '{name}' ({len(data) / (1 << 20):,.1f} MB) does not "
                    "fit now. Try again when other sessions have ended, or run big files with `cep run`.")
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(data)
            tmp.replace(target)
    return str(target)


def remove_session_dir(record) -> None:
    """Remove the session's upload directory (its session ended)."""
    with record.lock:
        folder, record.upload_dir = record.upload_dir, None
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------- plain words

#: What each format is expected to hold, for the messages below.
EXPECTED = {
    "csv": "a CSV text file: a header line with the column names (such as type, ts and the attributes), "
           "then one line per event",
    "tsv": "a tab-separated text file: a header line with the column names, then one line per event",
    "jsonl": "JSON Lines: one JSON object per line, such as {\"type\": \"Stock\", \"ts\": 1, \"price\": 10} "
             "(or one JSON array of such objects)",
    "parquet": "a Parquet file (as pandas, Spark or Arrow write it)",
}
_SIGNATURES = [(b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
               (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a ZIP archive (or an Excel or Word file)"),
               (b"\x1f\x8b", "a gzip archive"), (b"PAR1", "a Parquet file"),
               (b"\xd0\xcf\x11\xe0", "an old Excel or Word file"), (b"SQLite format 3", "an SQLite database")]
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")
HEAD_BYTES = 1 << 20  # bytes of a file the content checks read


def expected(fmt: str | None) -> str:
    """What a file of format ``fmt`` should hold, in a few words."""
    return EXPECTED.get(fmt or "", "a CSV, TSV, JSON Lines or Parquet file")


def _binary_kind(head: bytes) -> str | None:
    for magic, what in _SIGNATURES:
        if head.startswith(magic):
            return what
    if b"\x00" in head[:8192]:
        return "a binary file"
    return None


def content_problem(name: str, head: bytes, fmt: str | None, complete: bool = True) -> str | None:
    """One line saying why ``head`` (the first bytes of file ``name``; ``complete``: the whole
    file) cannot be read as ``fmt``: empty, binary where text is expected, not UTF-8, or not
    Parquet; None when it looks right (the reader may still find a malformed line)."""
    shown = Path(name).name
    if name.lower().endswith(_COMPRESSED):
        return None  # compressed: the reader decompresses it and reports what it finds
    if not head.strip() and complete:
        return f"'{shown}' is empty; expected {expected(fmt)}."
    if fmt == "parquet":
        if head[:4] != b"PAR1":
            kind = _binary_kind(head)
            what = kind if kind else "text" if _is_utf8(head, complete) else "some other file"
            return f"'{shown}' is not a Parquet file (it holds {what}); expected {expected(fmt)}."
        return None
    kind = _binary_kind(head)
    if kind is not None:
        return f"'{shown}' is {kind}, not text; expected {expected(fmt)}."
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if complete or err.start < len(head) - 4:  # not a character cut at the end of the head
            line = head[:err.start].count(b"\n") + 1
            return (f"'{shown}' is not UTF-8 text (byte 0x{head[err.start]:02x} on line {line} is not UTF-8); "
                    "save it as UTF-8 (in a spreadsheet: CSV UTF-8) and upload it again.")
    return None


def _is_utf8(head: bytes, complete: bool) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        return not complete and err.start >= len(head) - 4
    return True


def file_problem(path: str | Path, fmt: str | None, name: str | None = None) -> str | None:
    """``content_problem`` of the file at ``path`` (its first ``HEAD_BYTES``)."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(HEAD_BYTES + 1)
    except OSError:
        return None  # the reader says what is wrong
    return content_problem(name or p.name, head[:HEAD_BYTES], fmt, complete=len(head) <= HEAD_BYTES)


def _first_bad_json_line(path: Path) -> tuple[int, str] | None:
    """The first line of a JSON Lines file that is not a JSON object: (line, what it starts with)."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            for k, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except ValueError:
                    return k, line.strip()[:30]
                if not isinstance(value, dict):
                    return k, line.strip()[:30]
                if k > 100_000:
                    break
    except (OSError, UnicodeDecodeError):
        return None
    return None


def read_error(name: str, fmt: str | None, err: BaseException, path: str | Path | None = None) -> str:
    """A reader's exception (pandas, Arrow, the JSON parser) as one line for a person: what is
    wrong with file ``name`` and what was expected."""
    import re

    shown = Path(name).name
    text = str(err).strip()
    first = text.splitlines()[0] if text else type(err).__name__
    kinds = {c.__name__ for c in type(err).__mro__}
    if isinstance(err, UnicodeDecodeError):
        return (f"'{shown}' is not UTF-8 text (byte 0x{err.object[err.start]:02x} is not UTF-8); "
                "save it as UTF-8 (in a spreadsheet: CSV UTF-8) and upload it again.")
    if "EmptyDataError" in kinds or "No columns to parse" in text:
        return f"'{shown}' has no columns; expected {expected(fmt)}."
    if fmt in ("csv", "tsv"):
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
        if m:
            want, line, saw = m.groups()
            return (f"'{shown}' is not a well-formed {fmt.upper()} file: line {line} has {saw} values where the "
                    f"header names {want} columns; expected one value per column on every line.")
        if "ParserError" in kinds or "EOF inside string" in text:
            return f"'{shown}' is not a well-formed {fmt.upper()} file ({first}); expected {expected(fmt)}."
    if fmt == "jsonl":
        try:
            with open(Path(path), encoding="utf-8") as fh:
                array = fh.read(4096).lstrip().startswith("[") if path is not None else False
        except (OSError, UnicodeDecodeError):
            array = False
        if array:
            return (f"'{shown}' is not valid JSON: its array of events is malformed or cut short; "
                    f"expected {expected(fmt)}.")
        bad = _first_bad_json_line(Path(path)) if path is not None else None
        where = f" (line {bad[0]} is not a JSON object: {bad[1]})" if bad else ""
        return f"'{shown}' is not valid JSON Lines{where}; expected {expected(fmt)}."
    if fmt == "parquet":
        return f"'{shown}' is not a readable Parquet file (it is damaged or cut short); expected {expected(fmt)}."
    return f"cannot read '{shown}': {first}"
