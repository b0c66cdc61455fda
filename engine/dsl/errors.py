"""Errors of the DSL: :class:`DslError` (a :class:`PatternError` with the source text) and
:func:`render_error`, which writes line, column, the offending line and a caret under the
place (a long line is shown as a window around the caret)."""
from __future__ import annotations

from engine import expr as X
from engine.model import PatternError


class DslError(PatternError):
    """A parse or validation error, rendered with line, column and a caret."""

    def __init__(self, message: str, span: X.Span | None, source: str, hint: str | None = None):
        super().__init__(message, span, hint)
        self.source = source
        self.line = span[0] if span else None
        self.column = span[1] if span else None

    def __str__(self) -> str:
        return render_error(self.message, self.span, self.source, self.hint)


def render_error(message: str, span: X.Span | None, source: str, hint: str | None = None) -> str:
    head = f"line {span[0]}, column {span[1]}: {message}" if span else message
    if hint:
        head += f"; {hint}" if hint.startswith("did you mean") else f" ({hint})"
    if not span:
        return head
    lines = source.splitlines() or [""]
    ln = lines[span[0] - 1] if 0 < span[0] <= len(lines) else ""
    width = max(1, min(span[2], max(1, len(ln) - span[1] + 1)))
    col = span[1] - 1  # 0-based
    if len(ln) > SHOWN_LINE:  # a long line is shown as a window around the caret
        start = max(0, min(col - SHOWN_LINE // 3, len(ln) - SHOWN_LINE))
        pre = "..." if start > 0 else ""
        post = "..." if start + SHOWN_LINE < len(ln) else ""
        ln = pre + ln[start:start + SHOWN_LINE] + post
        col = col - start + len(pre)
        width = max(1, min(width, SHOWN_LINE + len(pre) - col))
    return f"{head}\n  {ln}\n  {' ' * col}{'^' * width}"


SHOWN_LINE = 100  # characters of the offending line shown under an error
