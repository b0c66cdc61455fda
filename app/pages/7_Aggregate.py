"""Aggregate: A-Seq's prefix counters event by event beside the baseline's matches."""
from __future__ import annotations

from app import aggregate, ui

ui.page("Aggregate", "∑")
aggregate.render()
