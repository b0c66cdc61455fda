"""The lazy chain and tree automata (Kolchinsky & Schuster) and the eager NFA as the Automaton
page draws them: states in evaluation order, edges with their ``style``
(take / ignore / proceed / negation)."""
from __future__ import annotations

from typing import Any

from engine.engines.spec import GraphUnavailable
from engine.model import Pattern


def _refuse(pattern: Pattern, what: str) -> None:
    from engine.engines.lazy.chain_compiler import unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise GraphUnavailable(f"{what} cannot compile this pattern: {why}")


def chain_graph(pattern: Pattern) -> Any:
    """The lazy chain NFA for ``pattern`` (pattern order while the rates are unknown)."""
    from engine.engines.lazy.chain_compiler import compile_chain

    _refuse(pattern, "the lazy chain")
    return compile_chain(pattern).to_networkx()


def chain_graph_in_order(pattern: Pattern, order: list[str]) -> Any:
    """The lazy chain NFA for ``pattern`` evaluating the variables in ``order`` (the order a run
    chose from the type rates, as its trace reports it)."""
    from engine.engines.lazy.chain_compiler import compile_chain

    _refuse(pattern, "the lazy chain")
    return compile_chain(pattern, order=order).to_networkx()


def tree_graph(pattern: Pattern) -> Any:
    """The lazy tree NFA for ``pattern``."""
    from engine.engines.lazy.tree_compiler import compile_tree

    _refuse(pattern, "the lazy tree")
    try:
        return compile_tree(pattern).to_networkx()
    except ValueError as err:
        raise GraphUnavailable(f"the lazy tree is not drawn: {err}") from None


def eager_graph(pattern: Pattern) -> Any:
    """The eager NFA baseline's bound-set lattice."""
    from engine.engines.lazy.eager_compiler import eager_graph as lattice, unsupported_reason

    why = unsupported_reason(pattern)
    if why:
        raise GraphUnavailable(f"the eager NFA cannot compile this pattern: {why}")
    return lattice(pattern)
