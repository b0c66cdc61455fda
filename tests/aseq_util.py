"""Helpers for the A-Seq tests: the expected rows computed from the oracle's matches (the ground truth, independent of engine/engines/aseq)."""
from __future__ import annotations

import math
from typing import Any

from engine.engines.oracle import oracle
from engine.bindings import conjunct
from engine.events import Event
from engine.expr import variables
from engine.model import Pattern, conjuncts_of


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def expected_rows(pattern: Pattern, events: list[Event]) -> list[tuple[Any, Any, Any]]:
    """(TRIG event id, group, value) at every TRIG event, from the oracle's matches:
    docs/semantics.md "Aggregation (A-Seq)" written out directly."""
    agg = pattern.aggregate
    assert agg is not None
    eq = list(pattern.equivalence) + [g for g in agg.group_by if g not in pattern.equivalence]
    matches = oracle.run(pattern.model_copy(update={"aggregate": None, "equivalence": eq}), events)
    by_id = {e.id: e for e in events}
    last = [c for c in pattern.components() if not c.negated][-1]
    own = [conjunct(x, set()) for w in pattern.where for x in conjuncts_of(w) if variables(x) == {last.var}]
    w = pattern.window
    out = []
    for e in events:
        if not (last.matches_type(e.type) and all(c.holds({last.var: [e]}) for c in own)):
            continue
        group = tuple(e.get(a) for a in agg.group_by) if agg.group_by else None
        values: list[list[Any]] = []
        for m in matches:
            if m.end_seq > e.seq:
                continue
            if w is not None and ((e.seq - m.start_seq) if w.is_count else (e.ts - m.start)) >= w.size:
                continue
            if group is not None:
                first = by_id[m.bindings[0][1][0]]
                if tuple(first.get(a) for a in agg.group_by) != group:
                    continue
            values.append([by_id[i].get(agg.attr) for i in m.ids(agg.var)] if agg.var else [])
        nums = [x for vs in values for x in vs if _is_number(x)]
        if agg.func == "COUNT":
            value: Any = sum(1 for vs in values for x in vs if x is not None) if agg.attr else len(values)
        elif agg.func == "SUM":
            value = sum(nums)
        elif agg.func == "AVG":
            value = sum(nums) / len(nums) if nums else None
        elif agg.func == "MAX":
            value = max(nums) if nums else None
        else:
            value = min(nums) if nums else None
        g = None if group is None else (group[0] if len(group) == 1 else list(group))
        out.append((e.id, g, value))
    return out


def same_value(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def same_rows(got: list[tuple[Any, Any, Any]], want: list[tuple[Any, Any, Any]]) -> bool:
    return len(got) == len(want) and all(x[:2] == y[:2] and same_value(x[2], y[2]) for x, y in zip(got, want))
