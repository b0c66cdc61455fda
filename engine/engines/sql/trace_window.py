"""A window of a MATCH_RECOGNIZE query's trace on a long table (docs/trace.md, "A window of a
long table").

A query's matcher keeps nothing between two searches but the partition, MATCH_NUMBER and where
the last match ended (``covered``: whether a row is unmatched), so any search can be traced on
its own. :func:`index_query` runs the query once **untraced** (the production matcher, or the
oracle, counting the steps each search would make) and keeps, for every search in the trace's
order, its partition, start row, MATCH_NUMBER, ``covered``, first step number, step count and
result: the :class:`SearchIndex`. :func:`trace_searches` then traces only the searches asked
for, each from its own start; :func:`trace_window` the searches that start in a window of
input rows. Their steps equal the same steps of the whole trace (:func:`~engine.engines.sql.
trace.trace_query` without a window): the same step numbers, threads, actions and output rows
(tests/engines/sql/test_trace_window.py). A search reads rows past the window's end: it is
traced whole."""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Iterable

from engine.engines.sql.binding import BoundQuery, bind, partitions
from engine.engines.sql.matcher import ThreadMatcher
from engine.engines.sql.oracle import OracleMatcher
from engine.engines.sql.output import json_row, match_rows, project
from engine.engines.sql.query import Query
from engine.engines.sql.search import RowMatch, match_partition
from engine.engines.sql.trace import (SqlTrace, SqlTracer, TracedOracle, TracedThreadMatcher, _Search,
                                      id_column, row_label)
from engine.trace import Step, TraceLimit

MAX_WINDOW_ROWS = 2_000   # input rows a window may hold
STEPS_PER_ROW = 50        # and steps per row of the window


class _CountingThreads(ThreadMatcher):
    """The thread matcher, untraced, counting the steps its traced twin would make: one per
    loop turn that reads a row (or finds it too late for WITHIN)."""

    def __init__(self, bound: BoundQuery, **options: Any):
        super().__init__(bound, **options)
        self.turns = 0
        self.silent = False

    def _closure(self, code: tuple[tuple, ...], incoming: list,  # type: ignore[override]
                 pos: int, n: int) -> tuple[list, Any]:
        waiting, matched = ThreadMatcher._closure(code, incoming, pos, n)
        self.turns += 1
        self.silent = not waiting or pos >= n  # the search ends here without reading the row
        return waiting, matched

    def find_counted(self, start: int, number: int) -> tuple[Any, int]:
        """(the result of ``find``, the steps of the traced search: its search step, the rows it
        read, its result step)."""
        self.turns, self.silent = 0, False
        found = self.find(start, number)
        return found, 2 + self.turns - (1 if self.silent else 0)


class _CountingOracle(OracleMatcher):
    """The oracle, untraced, counting the steps its traced twin makes: one per DEFINE tried on a row."""

    def __init__(self, bound: BoundQuery, **options: Any):
        super().__init__(bound, **options)
        self.tried = 0

    def accepts(self, var: str, state: Any) -> bool:
        if state[0] < len(self.rows):
            self.tried += 1
        return super().accepts(var, state)

    def find_counted(self, start: int, number: int) -> tuple[Any, int]:
        self.tried = 0
        found = self.find(start, number)
        return found, 2 + self.tried


@dataclass
class SearchIndex:
    """Every search of a query's run, in the trace's order (partitions in order of first
    appearance, then start row), from one untraced run. ``start[i]`` is search i's start row
    (1-based input row), ``part[i]`` its partition (an index of ``parts``), ``position[i]`` its
    start in the partition, ``number[i]`` the MATCH_NUMBER it offers, ``covered[i]`` the last
    partition position of a match before it, ``offset[i]`` its first step number and
    ``count[i]`` its steps; ``match_of[i]`` the 0-based index of its match in ``matches``
    (``cep run``'s order) or -1. ``total_steps`` excludes the close step."""

    query: Query
    bound: BoundQuery
    engine: str
    n_rows: int
    options: dict[str, Any]
    parts: list[tuple[tuple[Any, ...], list[dict[str, Any]], str]]
    row_numbers: dict[int, int]
    ids: list[Any]                         # the id column's value per input row (None without one)
    has_ids: bool
    columns: list[str]                     # the output's columns
    rows: list[dict[str, Any]]             # the output rows, as ``cep run`` prints them
    matches: list[tuple[tuple[Any, ...], RowMatch]]
    start: list[int] = field(default_factory=list)
    part: list[int] = field(default_factory=list)
    position: list[int] = field(default_factory=list)
    number: list[int] = field(default_factory=list)
    covered: list[int] = field(default_factory=list)
    offset: list[int] = field(default_factory=list)
    count: list[int] = field(default_factory=list)
    match_of: list[int] = field(default_factory=list)
    match_search: list[int] = field(default_factory=list)   # match k-1 -> its search
    total_steps: int = 0
    _by_row: dict[int, int] | None = field(default=None, repr=False)
    _places: dict[int, tuple[int, int]] | None = field(default=None, repr=False)

    def places(self) -> dict[int, tuple[int, int]]:
        """Input row -> (its partition, its position there)."""
        if self._places is None:
            self._places = {self.row_numbers[id(r)]: (p, pos) for p, (_key, prow, _where) in enumerate(self.parts)
                            for pos, r in enumerate(prow)}
        return self._places

    def search_at(self, row: int) -> int | None:
        """The search that starts at input row ``row``, or None (AFTER MATCH SKIP passed it)."""
        if self._by_row is None:
            self._by_row = {r: i for i, r in enumerate(self.start)}
        return self._by_row.get(row)

    def label(self, row: int) -> str:
        """``row #812 (id 4711)`` (:func:`~engine.engines.sql.trace.row_label`)."""
        return row_label(row, self.ids[row - 1] if 1 <= row <= len(self.ids) else None)

    def match_start(self, k: int) -> int:
        """The input row match ``k`` (1-based, ``cep run``'s order) starts at."""
        return self.start[self.match_search[k - 1]]

    def match_rows_of(self, k: int) -> list[int]:
        """The input rows of match ``k`` (1-based), in match order."""
        key, m = self.matches[k - 1]
        rows = self.parts[self.part[self.match_search[k - 1]]][1]
        return [self.row_numbers[id(rows[m.start + i])] for i in range(len(m.labels))]

    def step_of_match(self, k: int) -> int:
        """The step number of match ``k``'s result step (the step that reports it)."""
        i = self.match_search[k - 1]
        return self.offset[i] + self.count[i] - 1

    def searches_between(self, first: int, last: int) -> list[int]:
        """The searches (indices, in the trace's order) that start in input rows first..last."""
        return sorted(i for i, r in enumerate(self.start) if first <= r <= last)


def index_query(query: Query, table: Any, engine: str = "sql", **options: Any) -> SearchIndex:
    """Run ``query`` over ``table`` untraced and index its searches (:class:`SearchIndex`). Raises
    what ``cep run`` raises (SqlError, SqlRunError, StateExplosion)."""
    bound = bind(query, table.columns)
    numbers = {id(r): i + 1 for i, r in enumerate(table.rows)}
    col = id_column(table.columns)
    ids = [r.get(col) for r in table.rows] if col is not None else [None] * len(table.rows)
    if engine == "sql-oracle":
        matcher: Any = _CountingOracle(bound, **{k: v for k, v in options.items() if k == "max_steps"})
    else:
        matcher = _CountingThreads(bound, **{k: v for k, v in options.items() if k in ("max_threads", "max_work")})
    index = SearchIndex(query, bound, engine, len(table.rows), dict(options), [], numbers, ids, col is not None, [],
                        [], [])
    out: list[dict[str, Any]] = []
    step = 0
    for key, rows in partitions(bound, table.rows):
        where = f" in partition {', '.join(f'{c}={v!r}' for c, v in zip(bound.partition_by, key))}" \
            if bound.partition_by else ""
        p = len(index.parts)
        index.parts.append((key, rows, where))
        matcher.bind_partition(rows, where)
        state = {"covered": -1}

        def find(s: int, number: int, rows: list[dict[str, Any]] = rows, p: int = p,
                 state: dict[str, int] = state) -> Any:
            nonlocal step
            found, count = matcher.find_counted(s, number)
            index.start.append(numbers[id(rows[s])])
            index.part.append(p)
            index.position.append(s)
            index.number.append(number)
            index.covered.append(state["covered"])
            index.offset.append(step)
            index.count.append(count)
            step += count
            if found is None:
                index.match_of.append(-1)
            else:
                index.match_of.append(len(index.matches) + len(pending))
                pending.append(len(index.start) - 1)
                if found[0]:
                    state["covered"] = max(state["covered"], s + len(found[0]) - 1)
            return found

        pending: list[int] = []
        matches, unmatched = match_partition(len(rows), find, query.after_match, bound.members, where)
        index.match_search.extend(pending)
        index.matches.extend((key, m) for m in matches)
        out.extend(match_rows(bound, key, rows, matches, unmatched, where))
    index.columns, index.rows = project(bound, out)
    index.total_steps = step
    return index


def trace_searches(index: SearchIndex, searches: Iterable[int], close: bool = False,
                   max_steps: int | None = None) -> SqlTrace:
    """The steps of the searches ``searches`` (indices of ``index``; traced in the trace's order),
    and the close step when ``close``: each equal to the same step of the whole trace."""
    chosen = sorted(set(searches))
    steps = sum(index.count[i] for i in chosen)
    if max_steps is not None and steps > max_steps:
        raise TraceLimit(f"these searches make {steps:,} steps, more than {max_steps:,}: trace fewer rows")
    bound = index.bound
    tracer = SqlTracer(bound, index.row_numbers)
    if index.engine == "sql-oracle":
        matcher: Any = TracedOracle(bound, tracer, **{k: v for k, v in index.options.items() if k == "max_steps"})
    else:
        matcher = TracedThreadMatcher(bound, tracer=tracer, **{k: v for k, v in index.options.items()
                                                              if k in ("max_threads", "max_work")})
    part = -1
    search: _Search | None = None
    for i in chosen:
        if index.part[i] != part:
            part = index.part[i]
            key, rows, where = index.parts[part]
            tracer.begin_partition(key, rows, where)
            matcher.bind_partition(rows, where)
            search = _Search(tracer, matcher, bound, key, rows, where)
        assert search is not None
        search.covered = index.covered[i]
        tracer.shift = index.offset[i] - len(tracer.steps)
        search.find(index.position[i], index.number[i])
    if close:
        rows_out = [json_row(r) for r in index.rows] if index.query.final_order else []
        tracer.steps.append(Step(step="close", event=None, actions=tracer.take_actions(), matches=rows_out))
    return SqlTrace(index.engine, tracer.steps, index.columns, index.rows, index.matches, bound, index=index,
                    searches=[index.start[i] for i in chosen], ids=index.ids if index.has_ids else None)


def trace_window(index: SearchIndex, first: int, last: int, close: bool = False,
                 max_rows: int = MAX_WINDOW_ROWS) -> SqlTrace:
    """The steps of the searches that start in input rows ``first..last`` (1-based, inclusive),
    and the close step when ``close``. At most ``max_rows`` rows and ``STEPS_PER_ROW`` steps per
    row: past them, TraceLimit with what to do."""
    n = index.n_rows
    if n == 0:
        raise TraceLimit("the table has no rows: nothing to trace")
    for what, v in (("first", first), ("last", last)):
        if not 1 <= v <= n:
            raise TraceLimit(f"the window's {what} row {v:,} is not a row of the table (rows 1 to {n:,}, 1-based "
                             "in file order)")
    if first > last:
        raise TraceLimit(f"the window's first row {first:,} is after its last row {last:,}")
    if last - first + 1 > max_rows:
        raise TraceLimit(f"rows {first:,}-{last:,} are {last - first + 1:,} rows, more than a window holds "
                         f"({max_rows:,}): the window's trace keeps its steps in memory; narrow the window")
    chosen = index.searches_between(first, last)
    steps = sum(index.count[i] for i in chosen)
    cap = STEPS_PER_ROW * max_rows
    if steps > cap:
        raise TraceLimit(f"the searches that start in rows {first:,}-{last:,} make {steps:,} steps, more than "
                         f"{cap:,} ({STEPS_PER_ROW} per row of a {max_rows:,}-row window): narrow the window")
    return trace_searches(index, chosen, close=close)


def searches_near(index: SearchIndex, rows: list[int]) -> list[int]:
    """The searches ``cep explain --why-not ROWS`` reads: the search from each row (if any), the
    searches of the matches covering a row, and of the last match that starts at or before each
    row in its partition (its AFTER MATCH SKIP may have passed the row)."""
    place = index.places()
    by_part: dict[int, list[int]] = {}
    longest: dict[int, int] = {}
    for k, i in enumerate(index.match_search):
        p = index.part[i]
        by_part.setdefault(p, []).append(i)
        longest[p] = max(longest.get(p, 0), len(index.matches[k][1].labels))
    starts = {p: [index.position[i] for i in ss] for p, ss in by_part.items()}
    wanted: set[int] = set()
    for r in rows:
        i = index.search_at(r)
        if i is not None:
            wanted.add(i)
        if r not in place:
            continue
        p, pos = place[r]
        ss = by_part.get(p, [])
        j = bisect_right(starts.get(p, []), pos) - 1
        if j >= 0:
            wanted.add(ss[j])
        while j >= 0 and index.position[ss[j]] + longest[p] > pos:
            m = index.matches[index.match_of[ss[j]]][1]
            if m.end >= pos:
                wanted.add(ss[j])
            j -= 1
    return sorted(wanted)


__all__ = ["MAX_WINDOW_ROWS", "STEPS_PER_ROW", "SearchIndex", "index_query", "searches_near", "trace_rows",
           "trace_searches",
           "trace_window"]


def trace_rows(query: Any, table: Any, first: int, last: int, engine: str = "sql", close: bool = False,
               limit: int | None = None, **options: Any) -> Any:
    """The trace of the searches that start in input rows ``first..last`` (1-based, inclusive),
    the others run untraced, with the close step when ``close``; ``limit`` bounds the window's
    rows (default ``MAX_WINDOW_ROWS``)."""
    index = index_query(query, table, engine, **options)
    return trace_window(index, first, last, close=close, max_rows=MAX_WINDOW_ROWS if limit is None else limit)
