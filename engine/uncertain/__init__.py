"""Pattern matching over events with imprecise timestamps (Zhang, Diao, Immerman, VLDB 2010;
docs/papers.md, "Imprecise timestamps"; docs/semantics.md,
"Imprecise timestamps").

| module        | what it holds (notes section)                                                |
|---------------|-------------------------------------------------------------------------------|
| ``pmf``       | ``IEvent``: integer interval and exact pmf weights; the pmf column (§1.3)     |
| ``query``     | the supported pattern subset, predicates per component (§1.2, res. 13)        |
| ``result``    | ``UncertainMatch``: (signature, range, confidence) (§1.4)                     |
| ``oracle``    | the possible-worlds semantics by enumeration, exact, guarded (§1.4)           |
| ``bounds``    | valid intervals: the fixpoint, the paper's three passes (§3.1)                |
| ``confidence``| Eq. 1–3, the windowed DP, the union form for case 2 (§2.3, §3.5)              |
| ``index``     | events seen so far; NELT and spoiler lookups (§2.2)                           |
| ``common``    | arrival, ``U_max``, frontier, finalisation and emission (§1.3, §3.7)          |
| ``point``     | the point-based framework (§2)                                                |
| ``event``     | the event-based framework: any-state, sorted, selectivity (§3)                |
| ``explain``   | per-signature explanations for the Uncertain time page (§7)                   |

Engines register in ``engine.planner`` as ``uncertain-event`` (``auto`` on interval data),
``uncertain-point`` and ``uncertain-oracle``.
"""
from __future__ import annotations

from .query import UncertainUnsupported, compile_query, unsupported_reason
from .result import UncertainMatch

__all__ = ["UncertainMatch", "UncertainUnsupported", "compile_query", "unsupported_reason"]
