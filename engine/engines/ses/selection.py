"""Earliest and maximal matches (match-windows paper §3.5 with the notes' formalisation),
computed per start event from all the matches that start there.

Fix s = first(σ). σ is **earliest** iff no match σ' with the same start has
first(σ'(v)) <= first(σ(v)) for every variable v, and < for one (a Pareto-minimal vector of
first positions). σ is **maximal** iff no match arises from σ by inserting one event after
s into the binding of one Kleene variable. ``earliest_maximal`` is both. Positions are
stream positions (``seq``): ts, ties broken by input order (notes §7.6).

``engine/engines/oracle/oracle.py`` states the same definition by pairwise comparison; this module is the
fast form the SES matcher and Algorithm 1 use (a Pareto front, and a hash lookup of every
match with one element removed), and a property test checks they agree.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from engine.match import Match
from engine.model import Selection

__all__ = ["select_group", "select_matches", "drop_reason"]


def _firsts(m: Match, seq: Mapping[Any, int]) -> tuple[int, ...]:
    return tuple(min(seq[i] for i in ids) if ids else -1 for _, ids in m.bindings)


def _no_tick() -> None:
    """The default ``tick``: no guard."""


def _not_maximal(group: Sequence[Match], kleene: frozenset[str], seq: Mapping[Any, int],
                 tick: Callable[[], None] = _no_tick) -> set[Any]:
    """Keys of the matches some other match of the group extends by one Kleene element."""
    keys = {m.key for m in group}
    out: set[Any] = set()
    for big in group:
        tick()
        start = big.start_seq
        for k, (v, ids) in enumerate(big.bindings):
            if v not in kleene or len(ids) < 2:
                continue
            for j, i in enumerate(ids):
                if seq[i] <= start:
                    continue
                smaller = big.bindings[:k] + ((v, ids[:j] + ids[j + 1:]),) + big.bindings[k + 1:]
                if smaller in keys:
                    out.add(smaller)
    return out


def _not_earliest(group: Sequence[Match], seq: Mapping[Any, int],
                  tick: Callable[[], None] = _no_tick) -> set[Any]:
    vecs = [(_firsts(m, seq), m.key) for m in group]
    vecs.sort()
    front: list[tuple[int, ...]] = []
    out: set[Any] = set()
    for f, key in vecs:  # lexicographic order: a dominating vector always comes first
        tick()
        if any(g != f and all(a <= b for a, b in zip(g, f)) for g in front):
            out.add(key)
        else:
            front.append(f)
    return out


def select_group(selection: Selection, group: Sequence[Match], kleene: frozenset[str],
                 seq: Mapping[Any, int], tick: Callable[[], None] = _no_tick) -> list[Match]:
    """The selected matches of ``group`` (all matches with the same first event); ``tick``
    is called per match compared (a run's guard, ``engine.memory``)."""
    if selection is Selection.ALL or len(group) <= 1 and selection is not Selection.MAXIMAL:
        return list(group)
    drop: set[Any] = set()
    if selection in (Selection.EARLIEST, Selection.EARLIEST_MAXIMAL):
        drop |= _not_earliest(group, seq, tick)
    if selection in (Selection.MAXIMAL, Selection.EARLIEST_MAXIMAL):
        drop |= _not_maximal(group, kleene, seq, tick)
    return [m for m in group if m.key not in drop]


def drop_reason(selection: Selection, group: Sequence[Match], kleene: frozenset[str],
                seq: Mapping[Any, int]) -> dict[Any, str]:
    """Match key -> why the selection drops it ("not earliest", "not maximal"), for the trace."""
    out: dict[Any, str] = {}
    if selection in (Selection.EARLIEST, Selection.EARLIEST_MAXIMAL):
        for k in _not_earliest(group, seq):
            out[k] = "not earliest: another match from the same start binds its variables no later"
    if selection in (Selection.MAXIMAL, Selection.EARLIEST_MAXIMAL):
        for k in _not_maximal(group, kleene, seq):
            out.setdefault(k, "not maximal: a Kleene binding can take one more event")
    return out


def select_matches(selection: Selection, matches: Iterable[Match], kleene: frozenset[str],
                   seq: Mapping[Any, int]) -> list[Match]:
    """Apply the selection to matches of any start events (grouped by start)."""
    groups: dict[int, list[Match]] = {}
    for m in matches:
        groups.setdefault(m.start_seq, []).append(m)
    out: list[Match] = []
    for g in groups.values():
        out.extend(select_group(selection, g, kleene, seq))
    return out
