"""A guard on a run: its resident memory (``cep run --max-memory``), its time and its
cancellation.

``MemoryGuard.check()`` reads the process's resident set size (``/proc/self/statm``; where
there is no /proc, the peak from ``resource.getrusage``) and raises ``MemoryLimit`` past
the limit; with a ``time_limit`` it raises ``TimeLimit`` once the run has taken that many
seconds, and with a ``cancel`` event (a ``threading.Event``) ``Cancelled`` once it is set.
All three are ``RunStopped``: a run stopped by its guard, with a message for a person.

A run calls ``tick()`` per event, per match and per item it drains in ``close()``: a tick
only counts, and every ``every`` ticks it checks. ``every`` adapts so that a check happens
about every ``interval`` seconds whatever one step costs (halved when the last ``every``
ticks took longer, doubled up to ``max_every`` when they took far less): a slow step cannot
hide a runaway from the guard, and a fast loop pays one counter increment a step.
The message names the limit, what was being done and, from the caller, what holds the
memory (live runs, buffered events).

``parse_size`` reads a limit as a person writes it: ``2GB``, ``1.5g``, ``800M``, ``50%`` (of
the machine's memory), a number of bytes, or ``off``; NaN, infinities, zero and negative
sizes are refused with a message.

**The current guard.** A run enters ``with guarding(guard):`` around its work; the engines'
inner loops that one event or one ``close()`` can make long (SES and match-window drains and
selections, the A-Seq baseline's search, the interval engines, the oracle) tick
``current_guard()`` (``NO_GUARD``, which never stops, outside such a block). So a caller
(``cep run``, the app with its time limit and Stop button) passes its own guard without
threading it through every constructor. The current guard is a context variable: each
thread (each app session's run) has its own.
"""
from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["guarding", "loaded_objects_frozen", "current_guard", "guarded", "GuardedMatcher", "NO_GUARD", "NoGuard", "MemoryGuard", "RunGuard", "RunStopped", "MemoryLimit", "TimeLimit", "Cancelled", "parse_size", "rss_bytes", "total_memory", "default_limit",
           "format_bytes", "DEFAULT_LIMIT"]

DEFAULT_LIMIT = 2 << 30  # 2 GiB, or half the machine's memory when that is less

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40,
          "tib": 1 << 40}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z%]*)\s*", re.IGNORECASE)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class RunStopped(RuntimeError):
    """A run stopped by its guard (memory, time, cancellation); the message is for a person."""


class MemoryLimit(RunStopped):
    """The run's resident memory passed the limit; the message says what to do."""


class TimeLimit(RunStopped):
    """The run took longer than its time limit."""


class Cancelled(RunStopped):
    """The run was cancelled (Stop pressed, its session ended)."""


def total_memory() -> int | None:
    """The machine's physical memory in bytes (None when unknown)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def default_limit() -> int:
    """``DEFAULT_LIMIT``, or half the machine's memory when that is less."""
    total = total_memory()
    return min(DEFAULT_LIMIT, total // 2) if total else DEFAULT_LIMIT


def format_bytes(n: float) -> str:
    """``1.5 GB``, ``800 MB`` (binary units, as ``parse_size`` reads them)."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.1f} {unit}" if v < 10 and v != int(v) else f"{v:.0f} {unit}"
    return f"{n:.0f} bytes"


def parse_size(text: str | float | int) -> int | None:
    """Bytes of a size (see the module); None for ``off`` / ``none`` / ``0``-less "no limit".
    Raises ``ValueError`` with a message for anything else."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"a memory limit must be a positive finite size, not {text!r}")
        return int(value)
    s = str(text).strip()
    if s.lower() in ("off", "none", "no", "unlimited"):
        return None
    m = _SIZE.fullmatch(s)
    if m is None:
        raise ValueError(f"cannot read {s!r} as a memory size; write e.g. 2GB, 800MB, 50% or off")
    number, unit = float(m.group(1)), m.group(2).lower()
    if unit == "%":
        total = total_memory()
        if total is None:
            raise ValueError("a memory limit in % needs the machine's memory size, which is unknown here")
        if not 0 < number <= 100:
            raise ValueError(f"a memory limit in % must be above 0 and at most 100, not {s}")
        return int(total * number / 100)
    if unit not in _UNITS:
        raise ValueError(f"unknown unit {m.group(2)!r} in {s!r}; use KB, MB, GB or %")
    size = number * _UNITS[unit]
    if not math.isfinite(size) or size < 1:
        raise ValueError(f"a memory limit must be a positive size, not {s!r}")
    return int(size)


def rss_bytes() -> int:
    """The resident set size of this process now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if os.uname().sysname == "Darwin" else peak * 1024


class MemoryGuard:
    """Stops a run whose resident memory passes ``limit`` bytes (None: no limit), that runs
    past ``time_limit`` seconds (None: none) or whose ``cancel`` event is set.

    ``holds()`` (optional) says what holds the memory, for the message (e.g. the matcher's
    live runs); ``where()`` where the run is (e.g. the line being read). ``every`` is the
    first number of ticks between checks; it then adapts to ``interval`` seconds (module)."""

    def __init__(self, limit: int | None, *, every: int = 2048, holds: Callable[[], str] | None = None,
                 where: Callable[[], str] | None = None, time_limit: float | None = None,
                 cancel: threading.Event | None = None, interval: float = 0.2,
                 max_every: int | None = None) -> None:
        if time_limit is not None and not (isinstance(time_limit, (int, float)) and math.isfinite(time_limit)
                                           and time_limit > 0):
            raise ValueError(f"a time limit must be a positive number of seconds, not {time_limit!r}")
        self.limit = limit
        self.every = max(1, every)
        self.max_every = max(self.every, max_every or 8 * self.every)
        self.holds = holds
        self.where = where
        self.time_limit = time_limit
        self.cancel = cancel
        self.interval = interval
        self.peak = 0
        self.started = time.monotonic()
        self._last = self.started
        self._n = 0

    def tick(self) -> None:
        """Count one step; check every ``every`` steps (``every`` adapts to ``interval``)."""
        self._n += 1
        if self._n >= self.every:
            self._n = 0
            now = time.monotonic()
            took = now - self._last
            self._last = now
            if took > self.interval and self.every > 1:
                self.every = max(1, int(self.every * self.interval / took))
            elif took < self.interval / 4 and self.every < self.max_every:
                self.every = min(self.max_every, self.every * 2)
            self.check()

    def __deepcopy__(self, memo: dict[int, Any]) -> "MemoryGuard":
        """A guard is its run's (its clock, its cancel event, its lock), never part of a
        matcher's state: a snapshot of a matcher (engine/checkpoints.py) shares it."""
        return self

    def elapsed(self) -> float:
        """Seconds since the guard was made (the run's start)."""
        return time.monotonic() - self.started

    def check(self) -> None:
        """Raise ``Cancelled``, ``TimeLimit`` or ``MemoryLimit`` when one applies."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled(self._message("the run was cancelled", memory=False))
        if self.time_limit is not None and self.elapsed() > self.time_limit:
            raise TimeLimit(self._message(
                f"the run took longer than its time limit of {self.time_limit:g} s", memory=False,
                advice="use a tighter WITHIN, a more selective strategy or less data, or raise the time limit"))
        if self.limit is None:
            return
        rss = rss_bytes()
        self.peak = max(self.peak, rss)
        if rss <= self.limit:
            return
        raise MemoryLimit(self._message(
            f"resident memory {format_bytes(rss)} passed the limit of {format_bytes(self.limit)} (--max-memory)",
            memory=True, advice="raise --max-memory if the machine has room"))

    def _message(self, head: str, *, memory: bool, advice: str = "") -> str:
        parts = [head]
        if self.where is not None:
            parts.append(self.where())
        if self.holds is not None:
            parts.append(self.holds())
        if advice:
            parts.append(advice)
        return "; ".join(p for p in parts if p)


RunGuard = MemoryGuard  # the guard checks more than memory; both names are kept


class NoGuard:
    """The guard outside ``guarding``: ticks and checks that never stop anything."""

    def __deepcopy__(self, memo: dict[int, Any]) -> "NoGuard":
        return self

    limit = None
    time_limit = None
    cancel = None
    every = 1 << 30

    def tick(self) -> None:
        """Nothing to count."""

    def check(self) -> None:
        """Nothing to check."""


NO_GUARD = NoGuard()
_CURRENT: ContextVar["MemoryGuard | NoGuard"] = ContextVar("cep_run_guard", default=NO_GUARD)


@contextmanager
def guarding(guard: "MemoryGuard | NoGuard | None") -> Iterator["MemoryGuard | NoGuard"]:
    """Make ``guard`` the current guard of this thread for the block (None: ``NO_GUARD``)."""
    token = _CURRENT.set(guard if guard is not None else NO_GUARD)
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def current_guard() -> "MemoryGuard | NoGuard":
    """The guard of the run this thread is in (``NO_GUARD`` outside ``guarding``)."""
    return _CURRENT.get()


class GuardedMatcher:
    """A matcher whose ``feed``, ``feed_many`` and ``close`` run with ``guard`` as the
    current guard (``guarding``), so that the engine's inner loops tick it; everything else
    (``stats``, ``trace_state``, ``pattern`` ...) is the matcher's own. For a caller that
    holds a guard but does not enter ``guarding`` itself (``RunChoice.build(guard=...)``)."""

    def __init__(self, matcher: object, guard: "MemoryGuard | NoGuard") -> None:
        self.__dict__["_matcher"] = matcher
        self.__dict__["_guard"] = guard

    def feed(self, event: object) -> list:
        with guarding(self._guard):
            return list(self._matcher.feed(event))  # type: ignore[attr-defined]

    def feed_many(self, events: object, out: list | None = None) -> list:
        with guarding(self._guard):
            return self._matcher.feed_many(events, out)  # type: ignore[attr-defined]

    def close(self) -> list:
        with guarding(self._guard):
            return list(self._matcher.close())  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.__dict__["_matcher"], name)

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self.__dict__["_matcher"], name, value)


def guarded(matcher: object, guard: "MemoryGuard | NoGuard | None") -> object:
    """``matcher`` run under ``guard`` (a ``GuardedMatcher``), or itself when ``guard`` is None."""
    return matcher if guard is None else GuardedMatcher(matcher, guard)


@contextmanager
def loaded_objects_frozen() -> Iterator[None]:
    """The objects alive now (loaded events, imported modules) left out of the garbage collector's
    scans while the block runs (``gc.freeze``), then put back: a full collection during a run would
    otherwise walk every loaded event again and again (Spark's workers pace theirs the same way,
    ``engine.spark.partition_runner``). Automatic collections still run for what the block makes."""
    import gc

    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()

