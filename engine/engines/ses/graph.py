"""The SES automaton (match-windows paper §4.8) as the Automaton page draws it: states (i, S)
with the runtime's moves (``engine.engines.ses.moves``)."""
from __future__ import annotations

from typing import Any

from engine.engines.spec import GraphUnavailable
from engine.model import Pattern


def automaton_graph(pattern: Pattern) -> Any:
    """The SES automaton for ``pattern``; GraphUnavailable says why not."""
    from engine.engines.ses.moves import ses_moves_graph, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise GraphUnavailable(f"the SES automaton cannot compile this pattern: {why}")
    return ses_moves_graph(pattern)
