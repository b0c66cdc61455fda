"""The worked examples of the imprecise-timestamps notes (§4, T1–T7) as event streams and
patterns, for the tests and the Uncertain time page. Intervals marked [R] in the notes are
reconstructed from the paper's prose (its figures are lost); the expected results live in
the tests, taken from the notes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.events import Event

__all__ = ["Example", "EXAMPLES", "interval_events", "example"]


def interval_events(rows: list[tuple[Any, ...]]) -> list[Event]:
    """Events from ``(id, type, lower, upper[, attrs])`` rows, in arrival order."""
    out = []
    for k, r in enumerate(rows):
        eid, typ, lo, hi = r[:4]
        attrs = dict(r[4]) if len(r) > 4 else {}
        out.append(Event(id=eid, type=typ, ts=lo, seq=k, attrs=attrs, lower=lo, upper=hi))
    return out


@dataclass(frozen=True)
class Example:
    name: str
    title: str
    pattern: str
    rows: tuple[tuple[Any, ...], ...]
    note: str = ""

    def events(self) -> list[Event]:
        return interval_events(list(self.rows))

    def with_strategy(self, strategy: str) -> str:
        return self.pattern.replace("skip_till_any_match", strategy)


_T1 = (("a1", "A", 1, 5), ("c2", "C", 3, 5), ("b3", "B", 3, 5), ("c4", "C", 4, 8))
_T5 = (("a1", "A", 1, 4), ("b2", "B", 2, 3), ("b3", "B", 3, 4), ("b4", "B", 5, 7), ("b5", "B", 6, 6),
       ("b6", "B", 8, 9))
_Q1 = (("a", "TaskStart", 1, 1, {"taskId": 1, "nodeId": 1}), ("b1", "CPU", 2, 2, {"nodeId": 1, "value": 97}),
       ("b2", "CPU", 3, 3, {"nodeId": 1, "value": 99}), ("c", "TaskFinish", 4, 4, {"taskId": 1, "nodeId": 1}),
       ("d", "CPU", 5, 5, {"nodeId": 1, "value": 60}))
QUERY1 = ("PATTERN SEQ(TaskStart a, CPU b, TaskFinish c, CPU d)\n"
          "WHERE skip_till_any_match AND a.taskId = c.taskId AND b.nodeId = a.nodeId AND d.nodeId = a.nodeId\n"
          "  AND b.value > 95 AND d.value <= 70\nWITHIN 15")

EXAMPLES: dict[str, Example] = {e.name: e for e in (
    Example("T1", "Running example (Fig. 1): a1, c2, b3, c4, WITHIN 4",
            "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 4", _T1,
            "225 worlds; the paper's 15/225 is not reproducible (notes §4 T1)"),
    Example("T3", "Three-pass prune (Fig. 3(c)) [R]: a1, b5, c6, WITHIN 4",
            "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 4",
            (("a1", "A", 1, 5), ("b5", "B", 2, 3), ("c6", "C", 6, 7)), "pruned at W=4; matches at W=5"),
    Example("T5", "NELT (Fig. 2(c)) [R]: a1 then b2..b6, WITHIN 10",
            "PATTERN SEQ(A a, B b) WHERE skip_till_any_match WITHIN 10", _T5,
            "under skip_till_next_match b6 can never be next: NELT(a1) = 6"),
    Example("T6", "Query 1 with certain timestamps (§2.1)", QUERY1, _Q1,
            "skip_till_any_match: 2 matches; skip_till_next_match: 1"),
    Example("T7", "NELT false positive [C]: a, b, b', c', c, WITHIN 10",
            "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 10",
            (("a", "A", 1, 1), ("b", "B", 2, 10), ("b'", "B", 3, 3), ("c'", "C", 5, 5), ("c", "C", 7, 7)),
            "under skip_till_next_match (a, b, c) passes NELT but has confidence 0"),
    Example("T7-window", "W < l [C]: three events, WITHIN 2",
            "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 2",
            (("a", "A", 1, 3), ("b", "B", 2, 4), ("c", "C", 4, 6)), "no match: the window holds 2 instants"),
    Example("T7-nested", "Nested intervals [C]: the sorting optimisation's release rule",
            "PATTERN SEQ(A a, B b, C c) WHERE skip_till_any_match WITHIN 10",
            (("a", "A", 1, 1), ("b", "B", 2, 10), ("c", "C", 4, 4), ("a9", "A", 9, 9), ("a14", "A", 14, 14),
             ("a20", "A", 20, 20)), "C is safe before B; (a, b, c) must still be found"),
)}


def example(name: str) -> Example:
    return EXAMPLES[name]
