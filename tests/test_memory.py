"""The run guard (engine.memory.MemoryGuard): memory, time limit, cancellation, adaptive checks."""
from __future__ import annotations

import threading
import time

import pytest

from engine.memory import Cancelled, MemoryGuard, MemoryLimit, RunStopped, TimeLimit


def test_cancel_stops_at_the_next_check():
    cancel = threading.Event()
    guard = MemoryGuard(None, every=4, cancel=cancel)
    for _ in range(20):
        guard.tick()
    cancel.set()
    with pytest.raises(Cancelled) as err:
        for _ in range(guard.max_every + 1):
            guard.tick()
    assert "cancelled" in str(err.value)
    assert isinstance(err.value, RunStopped)


def test_time_limit_names_the_limit():
    guard = MemoryGuard(None, every=1, time_limit=0.05)
    time.sleep(0.08)
    with pytest.raises(TimeLimit, match="time limit of 0.05 s"):
        guard.tick()


def test_slow_steps_make_checks_more_frequent():
    """A step of 20 ms with every=2048 would check once in 40 s; the guard adapts so that a
    time limit of 0.3 s is noticed within about a second."""
    guard = MemoryGuard(None, every=8, time_limit=0.3, interval=0.05)
    start = time.monotonic()
    with pytest.raises(TimeLimit):
        while True:
            time.sleep(0.02)
            guard.tick()
    assert time.monotonic() - start < 1.5
    assert guard.every < 8


def test_fast_steps_check_less_often_but_bounded():
    guard = MemoryGuard(None, every=16, max_every=256)
    for _ in range(100_000):
        guard.tick()
    assert 16 <= guard.every <= 256


def test_memory_limit_is_a_run_stopped():
    guard = MemoryGuard(1, every=1, holds=lambda: "3 live runs")
    with pytest.raises(MemoryLimit) as err:
        guard.tick()
    assert isinstance(err.value, RunStopped)
    text = str(err.value)
    assert "--max-memory" in text and "3 live runs" in text


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "5"])
def test_bad_time_limits_are_refused(bad):
    with pytest.raises(ValueError, match="time limit"):
        MemoryGuard(None, time_limit=bad)
