"""Classic MATCH_RECOGNIZE queries with their sample tables (``sample_streams/sql/``): a V and a W
shape in stock prices, a double bottom, sessionization by inactivity, and a price drop after a rise
and a heavy-volume tick in either order (PERMUTE). Each ``NAME.sql`` names its table file in a
``-- data: FILE`` line and says what it finds in its first comment line."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SQL_DIR = Path(__file__).resolve().parent / "sql"
ORDER = ("v_shape", "w_shape", "double_bottom", "sessions", "drop_after_rise")


@dataclass(frozen=True)
class SqlPreset:
    name: str
    title: str      # the first comment line
    text: str       # the query
    data: Path      # its table


def presets() -> dict[str, SqlPreset]:
    """Every preset, in :data:`ORDER`."""
    out = {}
    for name in ORDER:
        path = SQL_DIR / f"{name}.sql"
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        title = lines[0].lstrip("- ").strip()
        data = next(ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("-- data:"))
        out[name] = SqlPreset(name, title, text, SQL_DIR / data)
    return out
