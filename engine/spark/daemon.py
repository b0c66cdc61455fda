"""PySpark's worker daemon with the engine already imported (``spark.python.daemon.module``).

Spark starts one daemon per executor (``python -m <module>``) and forks a Python worker
from it for every task that finds no idle worker; Spark ends workers idle for a minute.
A plain daemon forks workers that then import pandas, pyarrow, the planner and the
matchers on their first task (about a second each on a loaded 2-core machine). This
daemon imports them once, before it forks, so a forked worker starts matching at once:
after an idle minute in the app, a run does not pay the imports again.
"""
from __future__ import annotations

import importlib

# what a matching task imports (engine.spark.pipeline's worker, the planner's engines)
PRELOAD = ("pandas", "pyarrow", "pyspark.worker", "pyspark.sql.pandas.serializers", "engine.spark.pipeline",
           "engine.spark.io", "engine.spark.match_rows", "engine.engines.planner", "engine.engines.nfab.matcher")


def preload() -> list[str]:
    """Import ``PRELOAD``; returns the modules that failed (a failure only costs speed)."""
    failed = []
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the worker imports what it needs itself
            failed.append(name)
    return failed


if __name__ == "__main__":
    preload()
    from pyspark.daemon import manager

    manager()
