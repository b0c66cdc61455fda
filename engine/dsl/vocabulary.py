"""The words of the DSL: the clause keywords, the reserved words, the strategy and selection
names, the aggregate functions, and the time units a window may be written in (each with
the unit it means and a factor: `2 weeks` is 14 days)."""
from __future__ import annotations

from engine.model import Selection, Strategy

CLAUSES = ("WHERE", "WITHIN", "OUTPUT", "AGG", "GROUP", "RETURN")
KEYWORDS = {"PATTERN", "SEQ", "AND", "OR", "NOT", "WHERE", "WITHIN", "OUTPUT", "AGG", "GROUP", "BY", "RETURN", "AS"}
STRATEGY_NAMES = [s.value for s in Strategy]
SELECTION_NAMES = [s.value for s in Selection if s is not Selection.ALL]  # match-windows §3.5
AGG_FUNCS = ("avg", "sum", "min", "max", "count")
UNITS: dict[str, tuple[str, float]] = {}
for _words, _unit in (
    (("ms", "msec", "msecs", "millisecond", "milliseconds"), "ms"),
    (("s", "sec", "secs", "second", "seconds"), "s"),
    (("min", "mins", "minute", "minutes"), "min"),
    (("h", "hr", "hrs", "hour", "hours"), "hour"),
    (("d", "day", "days"), "day"),
    (("event", "events"), "events"),
):
    for _w in _words:
        UNITS[_w] = (_unit, 1.0)
UNITS["week"] = UNITS["weeks"] = ("day", 7)


def _strategy_of(text: str) -> Strategy:
    return Strategy(text.lower().replace("-", "_"))
