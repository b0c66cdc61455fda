"""Why did this match fire, and why didn't these events match (``cep explain``).

- :func:`explain_match` -- the K-th match of ``cep run`` step by step;
- :func:`explain_why_not` -- whether chosen events form a match, and if not the furthest
  partial run and the first condition that fails;
- :func:`format_text` -- either answer as readable text.

docs/trace.md ("cep explain") documents the JSON forms.
"""
from __future__ import annotations

from engine.explain.common import ExplainError
from engine.explain.match import explain_match
from engine.explain.text import format_text
from engine.explain.whynot import explain_why_not, parse_spec

__all__ = ["ExplainError", "explain_match", "explain_why_not", "format_text", "parse_spec"]
