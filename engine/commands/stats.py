"""``cep run --stats``: one line on stderr, written the same way by every run path
(in-process matches, AGG rows, interval signatures, Spark): what ran and what it counted
(``engine=NAME events=N matches=M``), the seconds, the events per second, then the engine's
own counters (``Stats.as_dict()``) or the Spark run's figures, as ``key=value``."""
from __future__ import annotations

import sys
from typing import Any, Iterable, Mapping

__all__ = ["print_stats", "stats_line"]


def stats_line(lead: Iterable[tuple[str, Any]], seconds: float, counters: Mapping[str, Any], *,
               events: int | None = None, skip: Iterable[str] = ("phase_seconds",), tail: str = "") -> str:
    """``lead`` as ``key=value``, ``seconds=S.sss``, ``events/s=R`` (when ``events`` is given:
    the rate over ``seconds``), then ``counters`` but those in ``skip``, then ``tail``."""
    parts = [f"{k}={v}" for k, v in lead] + [f"seconds={seconds:.3f}"]
    if events is not None:
        rate = events / seconds if seconds > 0 else float("inf")
        parts.append(f"events/s={rate:,.0f}")
    skipped = set(skip)
    return " ".join(parts) + " " + " ".join(f"{k}={v}" for k, v in counters.items() if k not in skipped) + tail


def print_stats(args: Any, lead: Iterable[tuple[str, Any]], seconds: float, counters: Mapping[str, Any], *,
                events: int | None = None, skip: Iterable[str] = ("phase_seconds",), tail: str = "") -> None:
    """Print :func:`stats_line` to stderr when ``--stats`` was given."""
    if getattr(args, "stats", False):
        print(stats_line(lead, seconds, counters, events=events, skip=skip, tail=tail), file=sys.stderr)
