"""What a Spark run of a pattern returns, shared by the match pipeline and the interval
engines: the persisted result DataFrame with the mode, warnings, the events read, the pattern,
the row count, the seconds and the run's facts. Subclasses say how rows become results."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.model import Pattern
from engine.spark.io import SparkEvents

__all__ = ["SparkResult"]


@dataclass
class SparkResult:
    matches: Any
    mode: str
    warnings: list[str]
    events: SparkEvents
    pattern: Pattern
    count: int = 0
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)
    interval: ClassVar[bool] = False  # rows are interval signatures (range, confidence)

    def to_matches(self) -> list[Any]:
        raise NotImplementedError

    def to_json(self) -> list[dict[str, Any]]:
        """``to_json()`` of every result of ``to_matches()``, in canonical order."""
        return [m.to_json() for m in self.to_matches()]

    def unpersist(self) -> None:
        try:
            self.matches.unpersist()
        except Exception:  # noqa: BLE001 - a stopped session has nothing left to free
            pass
        self.events.unpersist()
