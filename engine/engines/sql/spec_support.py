"""``supports`` of the SQL engines: a parsed MATCH_RECOGNIZE query, never a studio pattern."""
from __future__ import annotations

from typing import Any


def supports(pattern: Any) -> str | None:
    from engine.engines.sql.query import Query
    from engine.engines.sql.spec import NOT_SQL

    return None if isinstance(pattern, Query) else NOT_SQL
