"""The ``DataError`` for an input Spark could not read."""
from __future__ import annotations

from pathlib import Path

from engine.events import DataError


def _spark_error(path: Path, what: str, e: Exception) -> DataError:
    text = str(e).strip().splitlines()
    first = text[0] if text else type(e).__name__
    return DataError(f"cannot read '{path.name}' as {what}: {first}")
