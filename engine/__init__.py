"""CEP Studio's engine. The Python API (docs/api.md) is ``engine.parse``, ``engine.run`` and the
other names of ``engine.api.__all__``, re-exported here lazily: ``import engine`` imports nothing
more until one of them is used (the ``cep`` commands start fast)."""
from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    import engine.api as api

    if name == "api":
        return api
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


def __dir__() -> list[str]:
    import engine.api as api

    return sorted(set(globals()) | set(api.__all__))
