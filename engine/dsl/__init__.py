"""The text DSL (being split into modules; everything is in ``parser`` for now)."""
from .parser import (  # noqa: F401
    DslError,
    _window_text,
    check_schema,
    item_text,
    parse,
    parse_expr,
    render_error,
    to_text,
    tokenize,
)
