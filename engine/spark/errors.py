"""Errors of the Spark runs: a matcher's failure inside a task, as the matcher's own message."""
from __future__ import annotations

__all__ = ["PipelineError", "task_error"]


class PipelineError(RuntimeError):
    """A matcher failed inside a Spark task (state explosion, oracle too large, ...); the
    message is the matcher's own, without the Spark/Py4J stack."""


def task_error(e: Exception) -> Exception:
    """The matcher's own message from a failed Spark task (the last 'Name: message' line
    of the Python traceback)."""
    text = str(e)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        s = ln.strip()
        head, sep, msg = s.partition(": ")
        if sep and head.replace(".", "").replace("_", "").isalnum() and (
                head.endswith("Error") or head.endswith("Explosion") or head.endswith("Large")
                or head.endswith("Unsupported") or head.endswith("Exception")):
            return PipelineError(f"{head.rsplit('.', 1)[-1]}: {msg}")
    return PipelineError(lines[0] if lines else repr(e))
