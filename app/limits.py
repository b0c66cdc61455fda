"""Limits of the app's inputs, and engine errors as messages.

- ``upload_problem(name, size)``: an upload over ``UPLOAD_MAX_BYTES`` (100 MB: the app loads
  a file whole, about ten times its size in memory) gets a message that states the size,
  the limit and what to do instead (``cep run`` reads big files in batches, in bounded
  memory). ``.streamlit/config.toml`` and ``cep serve`` set Streamlit's ``server.maxUploadSize``
  to the same 100 MB, so the browser refuses a bigger file before sending it; this check
  covers what reaches the app another way.
- ``call_engine(fn, ...)`` / ``message_of(err)``: any exception of an engine call, the
  expected ones (pattern, data, state explosion) and the unexpected ones (RecursionError,
  OverflowError, MemoryError, a bug) alike, becomes ``EngineFailure`` with one line for a
  person; never a traceback on the page. ``app/runner.py`` can use it in one line:
  ``except Exception as err: raise RunError(message_of(err)) from None``.
- ``finite_number(value, what)``: a threshold typed into the app is a finite number; NaN
  and infinities are refused by name.
- The server's settings (``cep serve`` passes them as environment variables, see
  ``engine.commands.serve``): ``data_dir()`` (None: no server files), ``run_time_limit()``,
  ``memory_limit()``, ``run_slots()``, ``session_grace()``; and ``file_in_data_dir(text,
  root)``, the only way a typed path becomes a file: resolved with its symlinks and refused
  unless it stays inside ``root``, with one message whether or not the file exists.
- ``UPLOADS_TOTAL_MAX_BYTES``: all sessions' uploads together (``app.uploads``).

No streamlit import here: the pages call these and show the message.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["UPLOAD_MAX_BYTES", "UPLOADS_TOTAL_MAX_BYTES", "upload_problem", "EngineFailure", "call_engine",
           "message_of", "finite_number", "DataDirRefused", "file_in_data_dir", "data_dir", "run_time_limit",
           "memory_limit", "run_slots", "session_grace"]

T = TypeVar("T")

UPLOAD_MAX_BYTES = 100 << 20  # .streamlit/config.toml server.maxUploadSize = 100 (MiB) says the same
UPLOADS_TOTAL_MAX_BYTES = int(os.environ.get("CEP_UPLOADS_TOTAL_MAX", 4 * UPLOAD_MAX_BYTES))


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


# --------------------------------------------------------------------------- server settings

class DataDirRefused(ValueError):
    """A typed path that is not a readable file inside the data directory."""


def data_dir() -> Path | None:
    """The directory ``cep serve --data-dir`` named (resolved), or None: no server files."""
    from engine.commands.serve import ENV_DATA_DIR

    text = os.environ.get(ENV_DATA_DIR, "").strip()
    if not text:
        return None
    try:
        root = Path(text).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    return root if root.is_dir() else None


def file_in_data_dir(text: str, root: Path) -> Path:
    """The file ``text`` names, relative to ``root`` (or absolute), with every symlink and
    ``..`` resolved; ``DataDirRefused`` unless it is a regular file inside ``root``. A path
    that leads outside gets the same message whether or not something is there (no way to
    probe the server's other files)."""
    refused = DataDirRefused(f"'{text}' is not a file in the data directory; choose a file under {root}")
    raw = text.strip()
    if not raw or "\x00" in raw:
        raise refused
    try:
        base = Path(root).resolve(strict=True)
        candidate = Path(raw).expanduser() if raw.startswith("~") else Path(raw)
        if not candidate.is_absolute():
            candidate = base / candidate
        real = Path(os.path.realpath(candidate))
        if os.path.commonpath([str(base), str(real)]) != str(base) or real == base:
            raise refused
        real = real.resolve(strict=True)
        if not real.is_file():
            raise refused
    except (OSError, RuntimeError, ValueError):
        raise refused from None
    return real


def _env_float(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 and math.isfinite(value) else default


def run_time_limit() -> float:
    """Seconds an app run may take (``cep serve --time-limit``; default 60)."""
    from engine.commands.serve import DEFAULT_TIME_LIMIT, ENV_TIME_LIMIT

    return _env_float(ENV_TIME_LIMIT, DEFAULT_TIME_LIMIT)


def memory_limit() -> int | None:
    """The server's resident memory past which a run stops (``cep serve --max-memory``;
    default ``engine.memory.default_limit()``; None: off)."""
    from engine.memory import default_limit, parse_size
    from engine.commands.serve import ENV_MAX_MEMORY

    text = os.environ.get(ENV_MAX_MEMORY)
    if text is None:
        return default_limit()
    try:
        return parse_size(text)
    except ValueError:
        return default_limit()


def run_slots() -> int:
    """How many app runs may work at once (``cep serve --run-slots``; default 2)."""
    from engine.commands.serve import DEFAULT_RUN_SLOTS, ENV_RUN_SLOTS

    try:
        value = int(os.environ.get(ENV_RUN_SLOTS, DEFAULT_RUN_SLOTS))
    except ValueError:
        return DEFAULT_RUN_SLOTS
    return min(max(value, 1), 64)


def session_grace() -> float:
    """Seconds a session may stay disconnected (a network blip) before it counts as ended:
    its runs are cancelled at once, its data and uploads go after this grace."""
    return _env_float("CEP_SESSION_GRACE", 30.0)
