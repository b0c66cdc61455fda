"""``cep trace QUERY.sql --from ROW --to ROW --break SPEC``: a window of a query's trace
(engine/engines/sql/trace_window.py) and the breakpoints a query's trace has (docs/trace.md,
"MATCH_RECOGNIZE queries"):

==============  =====================================================================
``event:N``     the first step that reads input row N (1-based, file order): a search
                starting there, or a search that reads it
``id:X``        the first step that reads a row whose ``id`` column is ``X`` (as text)
``match:K``     the result step of match K (1-based, ``cep run``'s numbering)
==============  =====================================================================

The other kinds of engine/breakpoints.py (``fails:``, ``holds:``, ``runs>``, ``buffer>``) speak
of a pattern's conjuncts and runs; a query's trace refuses them with a message."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.engines.sql.trace_window import STEPS_PER_ROW, SearchIndex, trace_searches
from engine.trace import Step, TraceLimit

SQL_BREAK_FORMS = "event:N (input row N), id:X or match:K"
SEARCHES_PER_CHUNK = 200


class SqlBreakError(ValueError):
    """A breakpoint a query's trace cannot use; the message names the spec and what is expected."""


@dataclass(frozen=True, slots=True)
class SqlBreak:
    """``kind`` (event, id, match), ``value`` (row number, id text, match number), ``spec``."""

    kind: str
    value: Any
    spec: str

    def hit(self, step: Step, index: SearchIndex, numbers: dict[int, int]) -> str | None:
        """The reason this breakpoint holds on ``step`` (``numbers``: a search's start row -> the
        number of its match), or None."""
        if self.kind == "match":
            for a in step.actions:
                if a.kind == "match" and numbers.get(a.detail.get("search")) == self.value:
                    return f"match #{self.value:,} found at step {step.step:,} (the search from " \
                           f"{index.label(a.detail['search'])})"
            return None
        if step.event is None:
            return None
        row = step.event["id"]
        if self.kind == "event" and row == self.value:
            return f"{index.label(row)} read at step {step.step:,}"
        if self.kind == "id" and index.has_ids and str(index.ids[row - 1]) == self.value:
            return f"{index.label(row)} read at step {step.step:,}"
        return None


def parse_sql_breaks(specs: list[str], index: SearchIndex) -> list[SqlBreak]:
    """The specs as breakpoints of a query's trace; SqlBreakError names a bad one."""
    out = []
    n = index.n_rows
    for spec in specs:
        kind, sep, value = spec.strip().partition(":")
        kind = kind.strip().lower()
        value = value.strip()
        if not sep or kind not in ("event", "row", "id", "match"):
            raise SqlBreakError(f"breakpoint `{spec}`: a MATCH_RECOGNIZE query's trace stops at "
                                f"{SQL_BREAK_FORMS}; the other kinds speak of a pattern's conjuncts and runs")
        if kind == "id":
            if not index.has_ids:
                raise SqlBreakError(f"breakpoint `{spec}`: the table has no id column; use event:N (input row N)")
            if not value:
                raise SqlBreakError(f"breakpoint `{spec}`: id:X needs an id")
            out.append(SqlBreak("id", value, spec))
            continue
        if not re.fullmatch(r"[0-9]{1,18}", value) or int(value) < 1:
            what = "an input row (1-based)" if kind != "match" else "a match number (1-based)"
            raise SqlBreakError(f"breakpoint `{spec}`: {kind}:N needs {what}, a whole number from 1")
        number = int(value)
        if kind in ("event", "row"):
            if number > n:
                raise SqlBreakError(f"breakpoint `{spec}`: the table has {n:,} rows")
            out.append(SqlBreak("event", number, spec))
        else:
            out.append(SqlBreak("match", number, spec))
    return out


def steps_to_break(index: SearchIndex, searches: list[int], breaks: list[SqlBreak],
                   max_steps: int) -> tuple[list[Step], tuple[int, str] | None]:
    """The steps of ``searches`` (in the trace's order) up to and including the first step where
    a breakpoint holds, and (that step's number, the reason) or None. Traced a few searches at a
    time; more than ``max_steps`` steps before a hit (or without one): TraceLimit."""
    numbers = {index.start[i]: index.match_of[i] + 1 for i in searches if index.match_of[i] >= 0}
    out: list[Step] = []
    for lo in range(0, len(searches), SEARCHES_PER_CHUNK):
        chunk = searches[lo:lo + SEARCHES_PER_CHUNK]
        for step in trace_searches(index, chunk).steps:
            out.append(step)
            for b in breaks:
                reason = b.hit(step, index, numbers)
                if reason is not None:
                    return out, (int(step.step), reason)
            if len(out) > max_steps:
                raise TraceLimit(f"no breakpoint holds in the first {max_steps:,} steps of the window "
                                 f"({STEPS_PER_ROW} per row of --limit): start later with --from, or raise --limit")
    return out, None


__all__ = ["SQL_BREAK_FORMS", "SqlBreak", "SqlBreakError", "parse_sql_breaks", "steps_to_break"]
