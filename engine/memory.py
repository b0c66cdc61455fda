"""A guard on the resident memory of a run (``cep run --max-memory``).

``MemoryGuard.check()`` reads the process's resident set size (``/proc/self/statm``; where
there is no /proc, the peak from ``resource.getrusage``) and raises ``MemoryLimit`` past
the limit. A run calls ``tick()`` per event and per match: it reads the size every
``every`` calls, so the guard costs nothing measurable. The message names the limit, what
was being done and, from the caller, what holds the memory (live runs, buffered events).

``parse_size`` reads a limit as a person writes it: ``2GB``, ``1.5g``, ``800M``, ``50%`` (of
the machine's memory), a number of bytes, or ``off``; NaN, infinities, zero and negative
sizes are refused with a message.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Callable

__all__ = ["MemoryGuard", "MemoryLimit", "parse_size", "rss_bytes", "total_memory", "default_limit",
           "format_bytes", "DEFAULT_LIMIT"]

DEFAULT_LIMIT = 2 << 30  # 2 GiB, or half the machine's memory when that is less

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40,
          "tib": 1 << 40}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z%]*)\s*", re.IGNORECASE)
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class MemoryLimit(RuntimeError):
    """The run's resident memory passed the limit; the message says what to do."""


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
    """Stops a run whose resident memory passes ``limit`` bytes (None: no limit).

    ``holds()`` (optional) says what holds the memory, for the message (e.g. the matcher's
    live runs); ``where()`` where the run is (e.g. the line being read)."""

    def __init__(self, limit: int | None, *, every: int = 2048, holds: Callable[[], str] | None = None,
                 where: Callable[[], str] | None = None) -> None:
        self.limit = limit
        self.every = max(1, every)
        self.holds = holds
        self.where = where
        self.peak = 0
        self._n = 0

    def tick(self) -> None:
        """Count one step; read the memory every ``every`` steps."""
        self._n += 1
        if self._n >= self.every:
            self._n = 0
            self.check()

    def check(self) -> None:
        if self.limit is None:
            return
        rss = rss_bytes()
        self.peak = max(self.peak, rss)
        if rss <= self.limit:
            return
        parts = [f"resident memory {format_bytes(rss)} passed the limit of {format_bytes(self.limit)} "
                 f"(--max-memory)"]
        if self.where is not None:
            parts.append(self.where())
        if self.holds is not None:
            parts.append(self.holds())
        parts.append("raise --max-memory if the machine has room")
        raise MemoryLimit("; ".join(p for p in parts if p))
