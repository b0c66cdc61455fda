"""Uncertain time: events with uncertainty intervals, possible worlds, ranges and confidences."""
from __future__ import annotations

from app import ui, uncertain

ui.page("Uncertain time", "⏱️")
uncertain.render()
