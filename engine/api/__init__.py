"""The Python API of CEP Studio (docs/api.md): ``cep run``, ``cep explain`` and ``cep trace`` as
functions, and their objects rendered in notebooks.

:data:`__all__` is the one list of public names; ``import engine`` re-exports each of them lazily
(``engine.parse``, ``engine.run`` ...), so that ``import engine`` imports none of this until a name
is used (the ``cep`` commands start without it). tests/api/test_public_names.py freezes the list.

=====================  ==================================================================
``parse``              a pattern (DSL) or MATCH_RECOGNIZE query -> ``ParsedPattern`` / ``ParsedQuery``
``run``                ``cep run`` -> ``Result`` (matches, signatures, AGG rows, query rows)
``Result``             ``to_pandas``, ``to_arrow``, ``to_records``, ``to_jsonl``, ``explain``,
                       ``why_not``, ``trace``, ``timeline``
``Explanation``        ``cep explain``'s answer (text, JSON)
``Trace``              ``cep trace``'s records
``Automaton``          the Automaton page's figure of a pattern
``CommandError``       what ``cep`` reports: options, data, engines (``.status``: 2 bad input, 1 a stopped run)
``DslError``           a pattern that cannot be read (``line``, ``column``); ``SqlError`` for a query
``PatternError``       a pattern the engines refuse (``engine.model``)
=====================  ==================================================================
"""
from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module that defines it
_WHERE = {
    "parse": "engine.api.parsing",
    "run": "engine.api.runner",
    "option_names": "engine.api.options",
    "ParsedPattern": "engine.api.parsing",
    "ParsedQuery": "engine.api.parsing",
    "Result": "engine.api.result",
    "Explanation": "engine.api.explain",
    "Trace": "engine.api.explain",
    "Automaton": "engine.api.render",
    "CommandError": "engine.commands.arguments",
    "DslError": "engine.dsl.errors",
    "SqlError": "engine.engines.sql.errors",
    "PatternError": "engine.model",
}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
