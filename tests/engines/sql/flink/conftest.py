"""One Flink process for the jobs of both Flink test modules (agreement and deviations): the
JVM starts once per test session instead of once per module (``shared_run``)."""
from __future__ import annotations

import pytest

from .shared_run import Results, run_registered


@pytest.fixture(scope="session")
def flink_results() -> dict[str, Results]:
    """Each registered module's results (in its jobs' order) by its name."""
    return run_registered()
