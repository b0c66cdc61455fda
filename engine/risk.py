"""Patterns that can explode, known before a run: one rule for ``cep run`` and the app.

A Kleene component (``+`` or ``*``) under skip_till_any_match may bind any subset of its
relevant events: up to 2^n partial matches for n events. Two things bound that: a window
(``WITHIN``), after which runs expire, and a predicate between events (one that relates the
Kleene component's events to another event, or to each other: ``b[i].price > b[i-1].price``,
``b.to = a.from``), which keeps most subsets from starting. A filter on one event
(``b.price > 100``) or the partition key (``[symbol]``) bounds neither: the subsets of the
events that pass it still grow as 2^n.

:func:`explosion_risk` returns None when a pattern has a bound, else an :class:`ExplosionRisk`
naming the Kleene variables and the remedy in plain words. It is a warning, not a refusal:
the state guard still stops a run that does explode.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.expr.analysis import uses_iteration, variables
from engine.model import Pattern, Strategy

__all__ = ["ExplosionRisk", "explosion_risk"]


@dataclass(frozen=True)
class ExplosionRisk:
    """Why a pattern can explode and what to do about it."""

    variables: tuple[str, ...]  # the unbounded Kleene variables, in pattern order

    @property
    def message(self) -> str:
        """One paragraph for a person (no flags, no citations)."""
        names = ", ".join(self.variables)
        one = len(self.variables) == 1
        return (f"This pattern can grow without bound: the repeated event{'' if one else 's'} {names} may "
                "take any combination of the matching events (the skip till any match strategy), and "
                "nothing limits them, so the work can double with every matching event.")

    @property
    def remedy(self) -> str:
        """What to change, in plain words."""
        return ("Add a time window (WITHIN), add a condition between events (for example each price "
                "above the previous one), or use another strategy (skip till next match).")

    def __str__(self) -> str:
        return f"{self.message} {self.remedy}"


def _selective(pattern: Pattern, var: str) -> bool:
    """True when a WHERE condition relates ``var``'s events to another event or to each other."""
    for expr in pattern.where:
        mentioned = variables(expr)
        if var not in mentioned:
            continue
        if len(mentioned) > 1 or var in uses_iteration(expr):
            return True
    return False


def explosion_risk(pattern: Pattern) -> ExplosionRisk | None:
    """The risk of a state explosion of ``pattern`` (see the module), or None."""
    if pattern.strategy is not Strategy.ANY or pattern.window is not None:
        return None
    if pattern.aggregate is not None:  # counted, not enumerated
        return None
    open_vars = tuple(c.var for c in pattern.positive if c.kleene and not _selective(pattern, c.var))
    return ExplosionRisk(open_vars) if open_vars else None
