"""The match of a complete value vector, compiled for the patterns that bind one event per
variable in fixed slots (no Kleene variable, nothing optional): the emission fast path of
``LazyBase._emit_vals``.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.engines.lazy.chain_compiler import PatternInfo


def single_emission(info: PatternInfo) -> tuple[tuple[tuple[str, int], ...] | None, tuple[int, int] | None]:
    """For a pattern whose every clause binds every positive variable to exactly one event
    (no Kleene variable, nothing optional): the (variable, slot) pairs of a match, and, with
    one clause whose precedence has a first and a last variable (a SEQ), their slots (the
    match's span without comparing positions). (None, None) for the other patterns."""
    pos = info.positive
    if any(info.vars[v].kleene for v in pos) or any(cl.absent for cl in info.clauses):
        return None, None
    single = tuple((v, info.vars[v].slot) for v in pos)
    span = None
    if len(info.clauses) == 1:
        cl = info.clauses[0]
        others = len(cl.vars) - 1
        first = [v for v in cl.vars if len(cl.after[v]) == others]
        last = [v for v in cl.vars if len(cl.before[v]) == others]
        if first and last:
            span = (info.vars[first[0]].slot, info.vars[last[0]].slot)
    return single, span


def match_binder(single: tuple[tuple[str, int], ...]) -> Callable[[list[Any]], tuple[tuple[str, tuple[Any]], ...]]:
    """The bindings of a match from a value vector with one event per variable in fixed
    slots (written out for up to four variables: no loop, no list)."""
    n = len(single)
    if n == 1:
        (v0, s0), = single
        return lambda vals: ((v0, (vals[s0].id,)),)
    if n == 2:
        (v0, s0), (v1, s1) = single
        return lambda vals: ((v0, (vals[s0].id,)), (v1, (vals[s1].id,)))
    if n == 3:
        (v0, s0), (v1, s1), (v2, s2) = single
        return lambda vals: ((v0, (vals[s0].id,)), (v1, (vals[s1].id,)), (v2, (vals[s2].id,)))
    if n == 4:
        (v0, s0), (v1, s1), (v2, s2), (v3, s3) = single
        return lambda vals: ((v0, (vals[s0].id,)), (v1, (vals[s1].id,)), (v2, (vals[s2].id,)),
                             (v3, (vals[s3].id,)))
    return lambda vals: tuple([(var, (vals[slot].id,)) for var, slot in single])


__all__ = ["match_binder", "single_emission"]
