"""The Flink test modules' jobs, run together in one Flink process (one JVM start-up).

A module registers a builder of its jobs with ``register(name, build)`` when it is imported;
pytest imports every collected module before the first test runs, so the first test that asks
for the ``flink_results`` fixture (``conftest.py``) runs the jobs of every collected module in
one ``run_flink_many`` call, and each module reads back its own results by name, in the order
of its jobs."""
from __future__ import annotations

from typing import Callable, Sequence

from engine.engines.sql.flink.runner import FlinkJob, FlinkRefused, FlinkResult, run_flink_many

Builder = Callable[[], Sequence[FlinkJob]]
Results = list[FlinkResult | FlinkRefused]

_BUILDERS: dict[str, tuple[Builder, float]] = {}


def register(name: str, build: Builder, timeout: float) -> None:
    """Run ``build()``'s jobs with the others; ``timeout``: the seconds they may take."""
    _BUILDERS[name] = (build, timeout)


def run_registered() -> dict[str, Results]:
    """Every registered module's results by name, from one Flink process."""
    names = list(_BUILDERS)
    batches = {name: list(_BUILDERS[name][0]()) for name in names}
    timeout = sum(timeout for _, timeout in _BUILDERS.values())
    results = run_flink_many([job for name in names for job in batches[name]], timeout=timeout)
    by_name: dict[str, Results] = {}
    at = 0
    for name in names:
        by_name[name] = results[at:at + len(batches[name])]
        at += len(batches[name])
    assert at == len(results)
    return by_name
