"""Debug: step through a run event by event (runs, buffer, matches, why / why not)."""
from __future__ import annotations

from app import debug, ui

ui.page("Debug", "🐞")
debug.render()
