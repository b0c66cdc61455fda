"""The server time of every script run, for the app's speed benchmark (benchmarks/app_speed.py).

Off unless the environment names a log file (``CEP_TIMING_LOG``): then every script run of the
server (a page switch, a widget change, a fragment rerun) appends one JSON line with the page
title (set by ``ui.page``), whether it was a fragment run, its start and its duration in
seconds. Streamlit has no hook at the end of a script run, so :func:`install` wraps
``ScriptRunner._run_script`` (the method that executes one run) once per process; the wrapper
only times the call and never changes what it does.
"""
from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

ENV = "CEP_TIMING_LOG"
PROFILE_ENV = "CEP_PROFILE_DIR"  # also profile every run (cProfile), one file per run, for benchmarks

_lock = threading.Lock()
_installed = False
_titles: dict[str, str] = {}  # session id -> the title of the page its last run set


def note_page(title: str) -> None:
    """Remember the page the current run belongs to (``ui.page`` calls this)."""
    if not os.environ.get(ENV):
        return
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is not None:
        _titles[ctx.session_id] = title


def install() -> None:
    """Wrap ``ScriptRunner._run_script`` with the timer (once; only with ``CEP_TIMING_LOG``)."""
    global _installed
    path = os.environ.get(ENV)
    if not path or _installed:
        return
    with _lock:
        if _installed:
            return
        from streamlit.runtime.scriptrunner import script_runner

        original = script_runner.ScriptRunner._run_script

        profile_dir = os.environ.get(PROFILE_ENV)
        counter = iter(range(1, 1 << 30))

        def timed(self: Any, rerun_data: Any) -> None:
            start = time.time()
            profiler = None
            if profile_dir:
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
            t0 = time.perf_counter()
            try:
                return original(self, rerun_data)
            finally:
                seconds = time.perf_counter() - t0
                if profiler is not None:
                    profiler.disable()
                    name = _titles.get(self._session_id, "page").replace(" ", "_")
                    profiler.dump_stats(os.path.join(profile_dir, f"{next(counter):05d}-{name}.prof"))
                line = {"session": self._session_id, "page": _titles.get(self._session_id, ""),
                        "fragment": bool(getattr(rerun_data, "fragment_id_queue", None)),
                        "start": round(start, 4), "seconds": round(seconds, 4)}
                with _lock, open(path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")

        timed.original = original  # type: ignore[attr-defined]
        script_runner.ScriptRunner._run_script = timed  # type: ignore[method-assign]
        _installed = True


def uninstall() -> None:
    """Put Streamlit's own method back (tests)."""
    global _installed
    from streamlit.runtime.scriptrunner import script_runner

    with _lock:
        original = getattr(script_runner.ScriptRunner._run_script, "original", None)
        if original is not None:
            script_runner.ScriptRunner._run_script = original  # type: ignore[method-assign]
        _installed = False
