"""What ``uncertain-event`` and ``uncertain-point`` run over interval data, as the Automaton
page draws it (``engine.engines.uncertain.automaton``)."""
from __future__ import annotations

from typing import Any

from engine.engines.spec import GraphUnavailable
from engine.model import Pattern


def _refuse(pattern: Pattern) -> None:
    from engine.engines.uncertain.query import unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise GraphUnavailable(f"the uncertain engines cannot run this pattern: {why}")


def event_based_graph(pattern: Pattern) -> Any:
    """The event-based framework's runs over whole interval events (Zhang et al. §4)."""
    from engine.engines.uncertain.automaton import event_based_graph as graph

    _refuse(pattern)
    return graph(pattern)


def point_based_graph(pattern: Pattern) -> Any:
    """The point-based framework's point NFA, then collapsing (Zhang et al. §3)."""
    from engine.engines.uncertain.automaton import point_based_graph as graph

    _refuse(pattern)
    return graph(pattern)
