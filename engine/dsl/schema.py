"""The schema check against the source text: :func:`check_schema` runs
:meth:`Pattern.check_schema` and renders its errors and warnings (with the model's
"did you mean" suggestions) at the place in the text where the name is written, with a
caret under it."""
from __future__ import annotations

from engine import expr as X
from engine.model import Pattern, PatternError
from engine.dsl.errors import DslError, render_error
from engine.dsl.parser import name_spans


def check_schema(pattern: Pattern, schema: dict[str, dict[str, str]], source: str | None = None) -> list[str]:
    """:meth:`Pattern.check_schema`, with errors and warnings rendered against ``source``
    (the text ``pattern`` was parsed from) when given: line, column and a caret under the
    name, also for an unknown event type (a warning) and an unknown ``[attr]`` or
    ``GROUP BY`` attribute, which the model reports without a place of their own."""
    spans = name_spans(source) if source is not None else None
    try:
        warnings = pattern.check_schema(schema)
    except PatternError as err:
        if source is None or isinstance(err, DslError):
            raise
        span = err.span
        if spans is not None and (span is None or span == pattern.span):
            span = _list_name_span(pattern, err.message, spans) or span
        raise DslError(err.message, span, source, err.hint) from None
    if spans is None:
        return warnings
    used: set[str] = set()
    return [_located_warning(w, pattern, spans, source, used) for w in warnings]


def _list_name_span(pattern: Pattern, message: str, spans: dict[str, dict[str, X.Span]]) -> X.Span | None:
    """The span of the ``[attr]`` / ``GROUP BY`` name an ``unknown attribute `x``` error is
    about (checked in the model's order: equivalence, then GROUP BY)."""
    names = [("equivalence", a) for a in pattern.equivalence]
    names += [("group_by", a) for a in (pattern.aggregate.group_by if pattern.aggregate else [])]
    for where, attr in names:
        if message == f"unknown attribute `{attr}`":
            return spans[where].get(attr)
    return None


def _located_warning(warning: str, pattern: Pattern, spans: dict[str, dict[str, X.Span]], source: str,
                     used: set[str]) -> str:
    """An ``event type `T` does not occur in the data`` warning (one per component, in
    order) with the place of the next component of type T not placed yet (``used``: the
    variables placed), its caret and the suggestion."""
    for c in pattern.components():
        msg = f"event type `{c.type}` does not occur in the data"
        if c.var not in used and (warning == msg or warning.startswith(msg + "; ")):
            used.add(c.var)
            span = spans["type"].get(c.var)
            if span is None:
                return warning
            hint = warning[len(msg) + 2:] or None
            return render_error(msg, span, source, hint)
    return warning
