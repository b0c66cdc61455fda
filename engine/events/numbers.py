"""Plain values without pandas: the schema kind a list of values shares, and CSV's
number-looking text as numbers. ``values`` (pandas columns) and ``small_csv`` (a small
CSV read without pandas) both use these, so both give the same values and kinds.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["plain_kind", "text_number", "INT_TEXT", "NUMBER_TEXT"]

_NONE_TYPE = type(None)
_PLAIN_KINDS: dict[frozenset[type], str | None] = {
    frozenset({str}): "string", frozenset({str, _NONE_TYPE}): "string",
    frozenset({int}): "number", frozenset({int, _NONE_TYPE}): "number",
    frozenset({float}): "number", frozenset({float, _NONE_TYPE}): "number",
    frozenset({int, float}): "number", frozenset({int, float, _NONE_TYPE}): "number",
    frozenset({bool}): "bool", frozenset({bool, _NONE_TYPE}): "bool",
}

INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")
NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def plain_kind(types: Iterable[type]) -> str | None:
    """The kind ("string", "number", "bool") shared by values of these Python types (None
    counts as missing); None when they do not share one."""
    return _PLAIN_KINDS.get(frozenset(types))


def text_number(v: Any) -> Any:
    """A text cell that looks like a number as that number (int when the text is an
    integer); any other value unchanged."""
    if type(v) is str and NUMBER_TEXT.fullmatch(v):
        return int(v) if INT_TEXT.fullmatch(v) else float(v)
    return v
