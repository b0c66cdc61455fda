"""Errors of the SQL front-end: :class:`SqlError` (a parse or validation error with line, column,
caret and a suggestion, rendered like the DSL's) and :class:`SqlRunError` (an error the data raises
while matching: a division by zero, AFTER MATCH SKIP to an absent variable, the state guard)."""
from __future__ import annotations

from engine.dsl.errors import DslError


class SqlError(DslError):
    """A MATCH_RECOGNIZE query that cannot be parsed or run as written."""


class SqlRunError(ValueError):
    """Matching stopped on the data: the message names the partition, the row and the cause."""


def span_at(source: str, offset: int, width: int = 1) -> tuple[int, int, int]:
    """(line, column, width), 1-based, of a character offset into ``source``."""
    offset = max(0, min(offset, len(source)))
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return (line, column, max(1, width))


def error_at(source: str, offset: int, message: str, hint: str | None = None, width: int = 1) -> SqlError:
    return SqlError(message, span_at(source, offset, width), source, hint)
