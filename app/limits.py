"""Limits of the app's inputs, and engine errors as messages (issue 16, item 6).

- ``upload_problem(name, size)``: an upload over ``UPLOAD_MAX_BYTES`` (100 MB: the app loads
  a file whole, about ten times its size in memory) gets a message that states the size,
  the limit and what to do instead (``cep run`` reads big files in batches, in bounded
  memory). Streamlit's own ``server.maxUploadSize`` (200 MB by default) must stay above it,
  or Streamlit refuses the file first with its own message.
- ``call_engine(fn, ...)`` / ``message_of(err)``: any exception of an engine call, the
  expected ones (pattern, data, state explosion) and the unexpected ones (RecursionError,
  OverflowError, MemoryError, a bug) alike, becomes ``EngineFailure`` with one line for a
  person; never a traceback on the page. ``app/runner.py`` can use it in one line:
  ``except Exception as err: raise RunError(message_of(err)) from None``.
- ``finite_number(value, what)``: a threshold typed into the app is a finite number; NaN
  and infinities are refused by name.

No streamlit import here: the pages call these and show the message.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["UPLOAD_MAX_BYTES", "upload_problem", "EngineFailure", "call_engine", "message_of", "finite_number"]

T = TypeVar("T")

UPLOAD_MAX_BYTES = 100 << 20


def _mb(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MB" if n % (1 << 20) else f"{n >> 20} MB"


def upload_problem(name: str, size: int, cap: int = UPLOAD_MAX_BYTES) -> str | None:
    """None when an upload of ``size`` bytes is accepted; else why not, and what to do."""
    if size <= cap:
        return None
    return (f"'{name}' is {_mb(size)}; uploads are limited to {_mb(cap)} (the app loads the data "
            f"in memory). Run big files with `cep run PATTERN --data FILE` (it reads them in "
            f"batches, in bounded memory), or use a sample or a smaller extract here.")


class EngineFailure(RuntimeError):
    """An engine call failed; the message is for a person."""


def message_of(err: BaseException) -> str:
    """One line (or the engine's own multi-line message with a caret) for any exception."""
    if isinstance(err, RecursionError):
        return ("the pattern or the data is too deeply nested for the engine (RecursionError); "
                "use fewer nested groups or parentheses")
    if isinstance(err, OverflowError):
        return f"a number too large for the engine (OverflowError: {_first_line(err)}); use smaller numbers"
    if isinstance(err, MemoryError):
        return ("the engine ran out of memory; use a tighter WITHIN, skip_till_next_match, or "
                "less data (cep run reads big files in bounded memory)")
    text = _first_line(err) if not _known(err) else (str(err).strip() or type(err).__name__)
    if _known(err):
        return text
    return f"the engine failed: {type(err).__name__}: {text}"


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def _known(err: BaseException) -> bool:
    """Errors whose message is written for a person (pattern, data, guard, planner)."""
    names = {c.__name__ for c in type(err).__mro__}
    return bool(names & {"DslError", "PatternError", "DataError", "StateExplosion", "EngineUnsupported",
                         "MemoryLimit", "TimeLimit", "Cancelled", "RunStopped", "RunError", "PipelineError", "SparkUnavailable", "ValidationError"})


def call_engine(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``; any ``Exception`` becomes ``EngineFailure(message_of(err))``
    with no traceback chained to it."""
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - the point: never a traceback on the page
        raise EngineFailure(message_of(err)) from None


def finite_number(value: Any, what: str) -> float:
    """``value`` as a finite float; ``ValueError`` naming ``what`` for NaN, infinities,
    missing values and text that is not a number."""
    if value is None or isinstance(value, bool):
        raise ValueError(f"{what} must be a number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, not {value!r}") from None
    if math.isnan(x):
        raise ValueError(f"{what} must be a number, not NaN")
    if math.isinf(x):
        raise ValueError(f"{what} must be finite, not {x}")
    return x
