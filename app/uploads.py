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

__all__ = ["UploadRefused", "root", "save", "remove_session_dir", "total_bytes"]

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
