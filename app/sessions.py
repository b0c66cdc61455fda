"""What the server holds for each browser session, and its end.

Streamlit 1.x has no "session ended" hook: a closed tab only disconnects its session, which
Streamlit keeps (state, uploaded bytes) for a reconnect and never shuts down on its own. So
a janitor thread (one per server process, started by the first page that runs) looks every
second at the sessions that have a record here:

- a session that is not connected has its runs cancelled at once (a run never outlives its
  browser);
- once it has been away for ``limits.session_grace()`` seconds it has ended: its cached
  data is dropped, its upload directory removed, Streamlit is asked to close it (which frees
  its state and uploaded bytes), and the freed memory is handed back to the system.

``cached(slot, key, compute)`` is the per-session cache of loaded data: one value per
slot (the Run page's data, Debug's data), replaced when the key changes, gone with the
session; nothing is shared between sessions, so one session's uploads cannot pin memory
for everyone. ``record()`` is the calling session's record (the script thread's session;
tests without a Streamlit server get one record per AppTest session id).
"""
from __future__ import annotations

import ctypes
import gc
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from . import limits

T = TypeVar("T")

__all__ = ["SessionRecord", "record", "current_id", "cached", "forget", "sweep", "end", "records", "trim_memory"]

JANITOR_PERIOD = 1.0  # seconds between looks at the sessions


@dataclass
class SessionRecord:
    """One browser session's server-side belongings."""

    id: str
    slots: dict[str, tuple[str, Any]] = field(default_factory=dict)  # slot -> (key, value)
    jobs: list[Any] = field(default_factory=list)                   # app.jobs.Job
    upload_dir: Path | None = None
    away_since: float | None = None                                 # monotonic time it disconnected
    state: Any = field(default=None, repr=False)                    # Streamlit's SessionState of the session
    lock: threading.RLock = field(default_factory=threading.RLock)

    def cancel_jobs(self) -> None:
        """Cancel every run of this session that has not finished."""
        with self.lock:
            for job in self.jobs:
                job.cancel()


_records: dict[str, SessionRecord] = {}
_lock = threading.Lock()
_janitor: threading.Thread | None = None
_trim_again_at: float | None = None  # when the janitor trims the memory again (a session ended)


def _context() -> Any:
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        return get_script_run_ctx(suppress_warning=True)
    except Exception:  # noqa: BLE001 - outside Streamlit
        return None


def current_id() -> str:
    """The session id of the running script (``"no-session"`` outside a script)."""
    ctx = _context()
    return ctx.session_id if ctx is not None else "no-session"


def record(session_id: str | None = None) -> SessionRecord:
    """The record of ``session_id`` (default: the running script's session), made on first use."""
    sid = session_id or current_id()
    with _lock:
        rec = _records.get(sid)
        if rec is None:
            rec = _records[sid] = SessionRecord(sid)
    _start_janitor()
    rec.away_since = None
    if rec.state is None and session_id is None:
        try:  # Streamlit's SessionState of this session (not weakly referable), emptied when the session ends
            rec.state = object.__getattribute__(_context().session_state, "_state")
        except Exception:  # noqa: BLE001 - no script context (tests)
            pass
    return rec


def records() -> dict[str, SessionRecord]:
    """A copy of the live records (for tests and the janitor)."""
    with _lock:
        return dict(_records)


def cached(slot: str, key: str, compute: Callable[[], T], session_id: str | None = None) -> T:
    """This session's value for ``slot`` when it was made for ``key``; else ``compute()``,
    which replaces the slot's old value (dropped first, so two never sit in memory)."""
    rec = record(session_id)
    with rec.lock:
        got = rec.slots.get(slot)
        if got is not None and got[0] == key:
            return got[1]
        rec.slots.pop(slot, None)
    got = None
    value = compute()
    with rec.lock:
        rec.slots[slot] = (key, value)
    return value


def forget(slot: str, session_id: str | None = None) -> None:
    """Drop this session's value for ``slot``."""
    rec = record(session_id)
    with rec.lock:
        rec.slots.pop(slot, None)


# --------------------------------------------------------------------------- the end of a session

def trim_memory() -> None:
    """Collect garbage and hand freed heap pages back to the system (glibc's
    ``malloc_trim``, and Arrow's memory pool), so the server's resident memory falls when
    a session's data goes."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        import sys

        if "pyarrow" in sys.modules:
            sys.modules["pyarrow"].default_memory_pool().release_unused()
    except Exception:  # noqa: BLE001 - best effort
        pass


def _empty_state(state: Any) -> None:
    """Empty a Streamlit SessionState: its values and its widgets' callbacks (which hold the
    page script's globals, and through them the data the script had loaded)."""
    try:
        state.clear()
        for part in ("_new_widget_state", "_old_state"):
            held = getattr(state, part, None)
            metadata = getattr(held, "widget_metadata", None)
            if metadata is not None:
                metadata.clear()
            if hasattr(held, "states"):
                held.states.clear()
    except Exception:  # noqa: BLE001 - best effort
        pass


def _close_streamlit_session(session_id: str, state: Any = None) -> None:
    """Ask Streamlit to close a disconnected session for good (it frees the session's
    uploaded files) and empty its state (``state``), on Streamlit's event loop, unless it
    has reconnected meanwhile. (A closed session's AppSession can stay referenced inside
    Streamlit; emptied, it no longer holds the data.)"""
    try:
        from streamlit import runtime

        if not runtime.exists():
            return
        rt = runtime.get_instance()
        manager = rt._session_mgr  # noqa: SLF001 - no public API closes a disconnected session
        loop = rt._get_async_objs().eventloop  # noqa: SLF001

        def close() -> None:
            if manager.get_active_session_info(session_id) is None:
                manager.close_session(session_id)
                if state is not None:
                    _empty_state(state)

        loop.call_soon_threadsafe(close)
    except Exception:  # noqa: BLE001 - best effort; the session's own data is gone already
        pass


def end(session_id: str) -> None:
    """The session has ended: cancel its runs, drop its data and uploads, close it."""
    from . import uploads

    with _lock:
        rec = _records.pop(session_id, None)
    if rec is None:
        return
    with rec.lock:
        rec.cancel_jobs()
        rec.jobs.clear()
        rec.slots.clear()
    uploads.remove_session_dir(rec)
    state, rec.state = rec.state, None
    _close_streamlit_session(session_id, state)
    del state
    del rec
    trim_memory()
    global _trim_again_at
    _trim_again_at = time.monotonic() + 2 * JANITOR_PERIOD  # after Streamlit has let the session go


def _is_connected(session_id: str) -> bool | None:
    """True/False from the running server; None when there is no server (AppTest)."""
    try:
        from streamlit import runtime

        if not runtime.exists():
            return None
        return runtime.get_instance().is_active_session(session_id)
    except Exception:  # noqa: BLE001
        return None


def sweep(now: float | None = None, connected: Callable[[str], bool | None] = _is_connected,
          grace: float | None = None) -> list[str]:
    """One look at every record (see the module); returns the ids of the sessions ended."""
    now = time.monotonic() if now is None else now
    grace = limits.session_grace() if grace is None else grace
    ended: list[str] = []
    for sid, rec in records().items():
        alive = connected(sid)
        if alive is None or alive:
            rec.away_since = None
            continue
        if rec.away_since is None:
            rec.away_since = now
        rec.cancel_jobs()
        if now - rec.away_since >= grace:
            end(sid)
            ended.append(sid)
    return ended


def _janitor_loop() -> None:
    global _trim_again_at
    while True:
        time.sleep(JANITOR_PERIOD)
        try:
            sweep()
            if _trim_again_at is not None and time.monotonic() >= _trim_again_at:
                _trim_again_at = None
                trim_memory()
        except Exception:  # noqa: BLE001 - the janitor must keep going
            pass


def _start_janitor() -> None:
    """Start the janitor once per process, only under a running Streamlit server."""
    global _janitor
    if _janitor is not None:
        return
    if _is_connected("") is None:  # no server (AppTest, a plain import)
        return
    with _lock:
        if _janitor is None:
            _janitor = threading.Thread(target=_janitor_loop, name="cep-studio-session-janitor", daemon=True)
            _janitor.start()
