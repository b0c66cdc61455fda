"""Exact JSON text: ``json_text`` never writes ``Infinity`` or ``NaN`` (the non-finite numbers
become null, with a warning naming where), numpy scalars are written through ``.item()``, and an
integer too long for ``str`` is written as its digits (docs/semantics.md, "Exact numbers").
Every engine and command writes JSON through this module."""
from __future__ import annotations

import json
from typing import Any

__all__ = ["finite_json", "json_default", "json_text"]


def json_text(obj: Any, where: str = "a row") -> str:
    """``json.dumps(obj)`` that never writes ``Infinity`` or ``NaN`` (not JSON): encoded with
    ``allow_nan=False``; when that refuses, the non-finite numbers are written as null and a
    warning on stderr names ``where`` (docs/semantics.md, "Exact numbers")."""
    try:
        return json.dumps(obj, default=json_default, allow_nan=False)
    except ValueError:
        clean, replaced = finite_json(obj)
        if replaced:
            import sys

            print(f"cep: warning: {where}: {', '.join(replaced[:5])} written as null "
                  "(JSON has no Infinity or NaN)", file=sys.stderr)
        return json.dumps(clean, default=json_default, allow_nan=False)


def finite_json(obj: Any, path: str = "") -> tuple[Any, list[str]]:
    """``obj`` with every non-finite float (and numpy float) as None, and the paths of
    those replaced (``value = inf``); an int too long for ``str`` becomes its digits as text."""
    replaced: list[str] = []

    def walk(v: Any, at: str) -> Any:
        if isinstance(v, dict):
            return {k: walk(x, f"{at}.{k}" if at else str(k)) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x, f"{at}[{i}]") for i, x in enumerate(v)]
        if hasattr(v, "item") and not isinstance(v, (int, float, str)):
            v = v.item()
        if isinstance(v, float) and v - v != 0.0:
            replaced.append(f"{at or 'value'} = {v!r}")
            return None
        if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 14_000:
            from engine.events.numbers import int_text

            return int_text(v)
        return v

    return walk(obj, path), replaced


def json_default(o: Any) -> Any:
    """``json.dumps`` fallback: numpy scalars via ``.item()``, anything else as text."""
    if hasattr(o, "item"):
        return o.item()
    return str(o)
