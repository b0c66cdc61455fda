"""Is a text a MATCH_RECOGNIZE query? (standard library only: the CLI and the app ask before they
import the SQL engine). A ``.sql`` file, or text whose first word after comments is SELECT."""
from __future__ import annotations

import re

_LEAD = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*", re.S)


def is_sql(text: str) -> bool:
    rest = text[_LEAD.match(text).end():]  # type: ignore[union-attr]
    return rest[:6].upper() == "SELECT" and (len(rest) == 6 or not (rest[6].isalnum() or rest[6] == "_"))


def is_sql_file(name: str) -> bool:
    return name.lower().endswith(".sql")
