"""Learn: the course (lessons with checked exercises) and the experiments (strategies side by side, lazy vs eager)."""
from __future__ import annotations

from app import learn, ui

ui.page("Learn", "🎓")
learn.render()
