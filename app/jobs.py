"""App runs as guarded background jobs: queued for a slot, limited in time and memory,
cancelled by Stop or by the end of their session.

``submit(work, session)`` starts a thread that first waits for one of ``limits.run_slots()``
slots (a process-wide semaphore: the server keeps answering every session however many
press Run), then calls ``work(guard, progress)`` with an ``engine.memory.MemoryGuard``
holding the server's memory limit, the run's time limit and the job's cancel event. The
work ticks the guard (or hands it to the engine); ``RunStopped`` ends it with a message.
The page polls ``Job.status`` / ``Job.progress`` (``Job.live``: a run's own counters) and
shows a Cancel button that calls ``Job.cancel()``; ``app.sessions`` cancels every job of a
session that went away.

A watchdog backs the guard up: a step the work cannot tick (one engine call that runs away
inside ``feed`` or ``close``) is interrupted once the run has been over its limit, or
cancelled, for ``GRACE`` seconds (``CANCEL_GRACE`` after Cancel): the watchdog raises the guard's exception in the run's
thread (``PyThreadState_SetAsyncExc``; the engines are Python, so it lands at once). Work
that catches ``RunStopped`` keeps what it found before.
"""
from __future__ import annotations

import ctypes
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.memory import Cancelled, MemoryGuard, MemoryLimit, RunStopped, TimeLimit, format_bytes, rss_bytes

from . import limits

__all__ = ["Job", "submit", "slots", "reset_slots"]

# A run's thread holds the GIL for the interpreter's switch interval (5 ms by default) at a
# time; the server's threads (a click, a progress redraw) wait for it at every step, so a page
# drawn while a run works took seconds. Switching every millisecond keeps the page answering
# (Cancel within a second) for a few per cent of the run's speed.
SWITCH_INTERVAL = 0.001
if sys.getswitchinterval() > SWITCH_INTERVAL:
    sys.setswitchinterval(SWITCH_INTERVAL)

GRACE = 1.0  # seconds the guard has to stop a run before the watchdog interrupts it
CANCEL_GRACE = 0.3  # the same after Cancel: a person waits for it, so the run stops within a second
WATCH_PERIOD = 0.2
GUARD_INTERVAL = 0.05  # seconds between two checks of a run's guard (Cancel, limits): a check costs microseconds

_slots_lock = threading.Lock()
_slots: threading.BoundedSemaphore | None = None
_slot_count = 0


def slots() -> threading.BoundedSemaphore:
    """The process's run slots (``limits.run_slots()`` of them)."""
    global _slots, _slot_count
    with _slots_lock:
        if _slots is None:
            _slot_count = limits.run_slots()
            _slots = threading.BoundedSemaphore(_slot_count)
        return _slots


def reset_slots(count: int | None = None) -> None:
    """Make the slots afresh (tests)."""
    global _slots, _slot_count
    with _slots_lock:
        _slot_count = count or limits.run_slots()
        _slots = threading.BoundedSemaphore(_slot_count)


@dataclass
class Job:
    """One run: ``status`` is queued, running, done, failed or stopped."""

    label: str
    signature: Any = None
    status: str = "queued"
    progress: tuple[float, str] = (0.0, "waiting for a free run slot…")
    result: Any = None
    error: str | None = None
    exception: BaseException | None = None  # what stopped or failed the work
    cancel_event: threading.Event = field(default_factory=threading.Event)
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    thread: threading.Thread | None = None
    live: Any = None  # what the work reports while it runs (app.run_progress.LiveProgress), if anything

    @property
    def done(self) -> bool:
        return self.status in ("done", "failed", "stopped")

    def cancel(self) -> None:
        """Ask the run to stop (it stops at its guard's next check, well within a second)."""
        self.cancel_event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job to finish; True when it has."""
        if self.thread is not None:
            self.thread.join(timeout)
        return self.done

    def set_progress(self, fraction: float, text: str) -> None:
        self.progress = (min(max(fraction, 0.0), 1.0), text)


def _stopping(cls: type[RunStopped], message: str) -> type[RunStopped]:
    """A subclass of ``cls`` made without arguments (as an asynchronous exception is) that
    carries ``message``."""
    def init(self: BaseException) -> None:
        cls.__init__(self, message)

    return type(cls.__name__, (cls,), {"__init__": init})


def _interrupt(thread: threading.Thread, cls: type[BaseException]) -> bool:
    """Raise ``cls`` in ``thread`` at its next Python instruction."""
    ident = thread.ident
    if ident is None or not thread.is_alive():
        return False
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(cls))
    if done > 1:  # should not happen: undo
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)
        return False
    return done == 1


def _watch(job: Job, worker: threading.Thread, time_limit: float, memory_limit: int | None,
           finished: threading.Event) -> None:
    """Interrupt ``worker`` when its run stays cancelled or over a limit for ``GRACE`` s."""
    over_since: float | None = None
    while not finished.wait(WATCH_PERIOD if not job.cancel_event.is_set() else WATCH_PERIOD / 4):
        if job.started is None:
            continue
        reason: type[RunStopped] | None = None
        if job.cancel_event.is_set():
            reason = _stopping(Cancelled, "the run was cancelled")
        elif time.monotonic() - job.started > time_limit:
            reason = _stopping(TimeLimit, f"the run took longer than its time limit of {time_limit:g} s; use a "
                                          "tighter WITHIN, a more selective strategy or less data")
        elif memory_limit is not None and (rss := rss_bytes()) > memory_limit:
            reason = _stopping(MemoryLimit, f"the server's resident memory {format_bytes(rss)} passed its limit "
                                            f"of {format_bytes(memory_limit)}; use a tighter WITHIN or less data")
        if reason is None:
            over_since = None
            continue
        now = time.monotonic()
        if over_since is None:
            over_since = now
        elif now - over_since >= (CANCEL_GRACE if job.cancel_event.is_set() else GRACE) and not finished.is_set():
            _interrupt(worker, reason)
            over_since = now  # again after another GRACE if it is still going


def _run(job: Job, work: Callable[[MemoryGuard, Callable[[float, str], None]], Any],
         time_limit: float, memory_limit: int | None) -> None:
    gate = slots()
    try:
        while not gate.acquire(timeout=0.1):
            if job.cancel_event.is_set():
                job.error = "the run was cancelled before it started"
                job.status = "stopped"
                return
        try:
            if job.cancel_event.is_set():
                job.error = "the run was cancelled before it started"
                job.status = "stopped"
                return
            job.started = time.monotonic()
            job.status = "running"
            job.set_progress(0.02, "running…")
            guard = MemoryGuard(memory_limit, time_limit=time_limit, cancel=job.cancel_event, every=256,
                                interval=GUARD_INTERVAL)
            finished = threading.Event()
            watchdog = threading.Thread(target=_watch, name="cep-studio-watchdog", daemon=True,
                                        args=(job, threading.current_thread(), time_limit, memory_limit, finished))
            watchdog.start()
            try:
                job.result = work(guard, job.set_progress)
            finally:
                finished.set()
            job.status = "done"
        finally:
            gate.release()
    except RunStopped as err:
        job.error, job.exception = str(err), err
        job.status = "stopped"
    except BaseException as err:  # noqa: BLE001 - reported on the page, never a traceback
        job.error, job.exception = limits.message_of(err), err
        job.status = "failed"
    finally:
        job.finished = time.monotonic()


def submit(work: Callable[[MemoryGuard, Callable[[float, str], None]], Any], *, label: str = "run",
           signature: Any = None, session: Any = None, time_limit: float | None = None,
           memory_limit: int | None | str = "server", live: Any = None) -> Job:
    """Start ``work`` as a job of ``session`` (an ``app.sessions.SessionRecord``; default the
    calling script's session). ``live``: what the work updates while it runs (``Job.live``)."""
    from . import sessions

    rec = session if session is not None else sessions.record()
    job = Job(label=label, signature=signature, live=live)
    limit = limits.memory_limit() if memory_limit == "server" else memory_limit
    seconds = time_limit if time_limit is not None else limits.run_time_limit()
    with rec.lock:
        rec.jobs[:] = [j for j in rec.jobs if not j.done]
        rec.jobs.append(job)
    job.thread = threading.Thread(target=_run, args=(job, work, seconds, limit), name=f"cep-studio-{label}",
                                  daemon=True)
    job.thread.start()
    return job


def ticking(events: Any, guard: MemoryGuard) -> Any:
    """``events`` one by one, ticking ``guard`` for each (for loops the engine runs itself,
    e.g. ``engine.trace.record``)."""
    tick = guard.tick
    for e in events:
        tick()
        yield e


def run_and_wait(work: Callable[[MemoryGuard], Any], *, label: str = "computation",
                 time_limit: float | None = None, poll: float = 0.1) -> Any:
    """Run ``work(guard)`` as a job of the calling session (queued for a slot, time and memory
    limits, cancelled with the session) and wait for it; its result, or the work's own
    exception (``RunStopped`` when a guard stopped it; the caller shows its message)."""
    job = submit(lambda guard, _progress: work(guard), label=label, time_limit=time_limit)
    try:
        while not job.wait(poll):
            pass
    except BaseException:
        job.cancel()  # the script was stopped (rerun, session end): the job goes with it
        raise
    if job.status == "done":
        return job.result
    if isinstance(job.exception, Exception):
        raise job.exception.with_traceback(None)
    if job.status == "stopped":
        raise RunStopped(job.error or "the computation was stopped")
    raise limits.EngineFailure(job.error or "the computation failed")
