"""The SQL engines' side of the step trace (engine/trace.py, docs/trace.md "MATCH_RECOGNIZE").

The thread matcher (matcher.py) calls :func:`find_traced` instead of its own loop when it was
built with a :class:`SqlTracer`; the untraced path is unchanged. The traced search is the same
algorithm (the same closure, the same order, the same merges), with bookkeeping: every thread
has a stable id ``"<start row>.<k>"`` (the first branch of a split keeps its thread's id, the
second gets the next id), and each thing a thread does is an :class:`~engine.trace.Action` in
the shared vocabulary:

- ``search`` (edge ``start``): a search for a match begins at a row; ``begin``: its first thread;
- ``take``: a thread labels the row with a variable, ``predicates`` = the DEFINE with the value of
  every column reference, navigation and aggregate it read, and the result;
- ``discard`` (edge ``die``): the DEFINE is false or NULL on the row (same predicates), an anchor
  failed, the partition ended while the thread waited for a row, or a more preferred thread
  completed a match (``cut``); ``expire``: WITHIN exceeded;
- ``merge``: a less preferred thread reached a state an earlier-preferred thread holds (same
  instruction, same loop iterations, same history as far as a DEFINE can read): ``into`` names it;
- ``wait`` (edge ``complete``): a thread completed a match; it is the match unless a more
  preferred thread alive completes later;
- ``match``: the search's result (``detail.match``, the winner's ``steps`` with their DEFINEs,
  ``preferred_over``: the threads it was preferred over), then ``proceed`` (edge ``skip``): AFTER
  MATCH SKIP to a row; ``ignore`` (edge ``unmatched``): no match from the row.

The details of every thread action hold the thread's ``labels`` and ``rows`` so far, its
preference ``rank`` (1 = most preferred alive) and the ``search`` (start row) it belongs to.
Rows are numbered by their 1-based position in the input table (file order); texts for a person
name them ``row #812 (id 4711)`` (:func:`row_label`). A window of the trace on a long table (the
searches that start in some rows, the rest run untraced): engine/engines/sql/trace_window.py."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sqlglot import exp

from engine.engines.sql import values as V
from engine.engines.sql.binding import BoundQuery, bind, partitions
from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.expressions import AGGREGATES, Compiler, Needs, Scope, _bare, _function_name
from engine.engines.sql.frame import Frame
from engine.engines.sql.matcher import ThreadMatcher
from engine.engines.sql.oracle import OracleMatcher
from engine.engines.sql.output import json_row, match_rows, project
from engine.engines.sql.query import Query
from engine.engines.sql.search import RowMatch, match_partition, within_ok
from engine.match import StateExplosion
from engine.trace import DEFAULT_LIMIT, PredicateCheck, Recorder, RunView, Step, TraceLimit

LEAF_FUNCTIONS = {"PREV", "NEXT", "FIRST", "LAST", "CLASSIFIER", "MATCH_NUMBER"} | AGGREGATES


# --------------------------------------------------------------------------- DEFINE with its values

class DefineProbe:
    """Each DEFINE's text and its leaves (column references, navigations, aggregates,
    CLASSIFIER, MATCH_NUMBER) compiled on their own, to show the values the DEFINE read."""

    def __init__(self, bound: BoundQuery):
        q = bound.query
        self.text: dict[str, str] = {}
        self.leaves: dict[str, list[tuple[str, Callable[[Frame], Any]]]] = {}
        for var, e in q.defines.items():
            scope = Scope(q.source, bound.columns, q.variables, q.subsets, "define", defining=var, running=True,
                          needs=Needs())
            compiler = Compiler(scope, e.offset)
            leaves = []
            seen: set[str] = set()
            for node in _leaf_nodes(e.tree):
                text = _leaf_text(node)
                if text in seen:
                    continue
                seen.add(text)
                leaves.append((text, compiler.compile(node)))
            self.text[var] = " ".join(e.text.split())
            self.leaves[var] = leaves

    def check(self, var: str, frame: Frame, result: Any) -> PredicateCheck:
        """The DEFINE of ``var`` on ``frame`` (the result already computed) with its values."""
        if var not in self.text:
            return PredicateCheck(f"{var}: no DEFINE (always true)", {}, True)
        values: dict[str, Any] = {}
        for text, fn in self.leaves[var]:
            frame.at = None
            try:
                values[text] = V.json_value(fn(frame))
            except V.SqlValueError as err:
                values[text] = f"error: {err}"
        frame.at = None
        return PredicateCheck(self.text[var], values, result is True)


def _leaf_nodes(tree: Any) -> list[Any]:
    out: list[Any] = []

    def visit(node: Any) -> None:
        name = _function_name(node)
        if isinstance(node, exp.Column) or (name is not None and _bare(name) in LEAF_FUNCTIONS):
            out.append(node)
            return
        for child in node.iter_expressions():
            visit(child)
    visit(tree)
    return out


def _leaf_text(node: Any) -> str:
    text = node.sql()
    for word in ("RUNNING", "FINAL"):
        text = text.replace(f"{word}___", f"{word} ").replace(f"{word}__", f"{word} ").replace(f"{word}_", f"{word} ")
    return text


def id_column(columns: list[str]) -> str | None:
    """The table's ``id`` column (any case), which names rows beside their number, or None."""
    return next((c for c in columns if c.lower() == "id"), None)


def row_label(number: int, row_id: Any = None) -> str:
    """The one name of an input row in every view of a query's trace: ``row #812 (id 4711)`` for
    the 1-based input row 812 whose ``id`` column holds 4711 (``row #812`` without an id
    column), as :func:`engine.trace.event_label` names a pattern's events."""
    return f"row #{number:,}" + ("" if row_id is None else f" (id {V.json_value(row_id)})")


def truth_text(value: Any) -> str:
    return "NULL" if value is None else "true" if value is True else "false"


# --------------------------------------------------------------------------- the tracer

@dataclass(slots=True)
class Thread:
    """A thread of the traced search: where it is, its labels, and the DEFINE checks that
    accepted its rows (row, variable, check)."""

    pc: int
    labels: tuple[str, ...]
    excluded: tuple[bool, ...]
    tid: str
    history: tuple[tuple[int, str, PredicateCheck], ...]


class SqlTracer(Recorder):
    """The tracer the SQL matchers receive: collects the actions (``act``) and cuts them into
    :class:`~engine.trace.Step` s, one per row read, per search start and per search result."""

    matcher_code: tuple[tuple, ...] = ()  # the thread matcher's program (set by find_traced)

    def __init__(self, bound: BoundQuery, row_numbers: dict[int, int], max_steps: int | None = None):
        super().__init__()
        self.bound = bound
        self.probe = DefineProbe(bound)
        self.row_numbers = row_numbers      # id(row dict) -> 1-based input row number
        self.max_steps = max_steps
        self.steps: list[Step] = []
        self.rows: list[dict[str, Any]] = []
        self.key: tuple[Any, ...] = ()
        self.where = ""
        self.counter = 0
        self.search_row = 0
        self.parents: dict[str, str] = {}   # thread -> the thread it forked from
        self.shift = 0                      # a window's steps keep the whole trace's step numbers

    def begin_partition(self, key: tuple[Any, ...], rows: list[dict[str, Any]], where: str) -> None:
        self.key, self.rows, self.where = key, rows, where

    def row_id(self, pos: int) -> int:
        return self.row_numbers[id(self.rows[pos])]

    def ids(self, start: int, count: int) -> list[int]:
        return [self.row_id(start + i) for i in range(count)]

    def event(self, pos: int) -> dict[str, Any]:
        """A row as a step's event: ``id`` (input row number), ``position`` in its partition, the
        partition key, then the columns."""
        d: dict[str, Any] = {"id": self.row_id(pos), "position": pos + 1}
        if self.bound.partition_by:
            d["partition"] = {c: V.json_value(v) for c, v in zip(self.bound.partition_by, self.key)}
        for c, v in self.rows[pos].items():
            d.setdefault(c, V.json_value(v))
        return d

    def new_thread(self, parent: str | None = None) -> str:
        self.counter += 1
        tid = f"{self.search_row}.{self.counter}"
        if parent is not None:
            self.parents[tid] = parent
        return tid

    def flush(self, event: dict[str, Any] | None, threads: list[Thread] = (), start: int = 0,  # type: ignore
              matches: list[dict[str, Any]] | None = None) -> None:
        if self.max_steps is not None and len(self.steps) >= self.max_steps:
            raise TraceLimit(f"the trace stops at {self.max_steps:,} steps (rows read, searches and results): "
                             "trace a smaller table or raise --limit")
        runs = [self.view(t, start) for t in threads]
        self.steps.append(Step(step=len(self.steps) + self.shift, event=event, actions=self.take_actions(), runs=runs,
                               runs_total=len(runs), buffer={}, matches=matches or []))

    def view(self, t: Thread, start: int) -> RunView:
        code = self.matcher_code
        bindings: dict[str, list[Any]] = {}
        for i, v in enumerate(t.labels):
            bindings.setdefault(v, []).append(self.row_id(start + i))
        ins = code[t.pc]
        state = ins[1] if ins[0] == "label" else "end" if ins[0] == "match" else \
            f"after {t.labels[-1]}" if t.labels else "start"
        return RunView(id=t.tid, state=state, bindings=bindings, start=self.row_id(start))

    def thread_detail(self, t: Thread, start: int, rank: int | None = None, **extra: Any) -> dict[str, Any]:
        d: dict[str, Any] = {"search": self.search_row, "labels": list(t.labels),
                             "rows": self.ids(start, len(t.labels))}
        if rank is not None:
            d["rank"] = rank
        if t.tid in self.parents:
            d["from"] = self.parents[t.tid]
        d.update({k: v for k, v in extra.items() if v is not None})
        return d


# --------------------------------------------------------------------------- the traced search

def find_traced(m: Any, start: int, number: int) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
    """:meth:`ThreadMatcher.find` with the trace (same threads, same order, same result)."""
    t: SqlTracer = m.tracer
    code = m.program.code
    t.matcher_code = code
    rows = m.rows
    n = len(rows)
    defines = m.bound.defines
    key = m.key
    frame = Frame(rows, start, [], match_number=number)
    t.search_row, t.counter = t.row_id(start), 0
    t.parents.clear()
    first = Thread(m.program.entry, (), (), t.new_thread(), ())
    t.act("search", event=t.row_id(start), edge="start", reason=f"search for match {number} from row {t.row_id(start)}",
          detail={"search": t.search_row, "number": number})
    t.act("begin", run=first.tid, event=t.row_id(start), edge="start",
          reason=f"thread {first.tid} starts at row {t.row_id(start)}", detail=t.thread_detail(first, start, 1))
    t.flush(t.event(start), [first], start)
    best: Thread | None = None
    superseded: list[str] = []
    cut_all: list[str] = []
    incoming = [first]
    pos = start
    time_of = m.time_of if m.window is not None else None
    while incoming:
        waiting, matched, cut = _closure(t, code, incoming, pos, n, key, start)
        if matched is not None:
            if best is not None:
                superseded.append(best.tid)
            best = matched
            cut_all.extend(cut)
        if not waiting or pos >= n:
            for rank, th in enumerate(waiting, 1):
                var = code[th.pc][1]
                t.act("discard", run=th.tid, edge="die", reason=f"the partition ends: no row for {var}",
                      detail=t.thread_detail(th, start, rank, waits_for=var))
            break
        if len(waiting) > m.threads_peak:
            m.threads_peak = len(waiting)
            if len(waiting) > m.max_threads:
                raise StateExplosion(f"{len(waiting):,} threads alive at row {pos + 1}{m.where} (limit "
                                     f"{m.max_threads:,}): the DEFINEs navigate or aggregate over so much of "
                                     "the match that few threads can be merged; bound the quantifiers, add "
                                     "WITHIN, or PARTITION BY")
        if not within_ok(time_of, m.window, start, pos):
            col = m.bound.time_column
            a, b = rows[start][col], rows[pos][col]
            written = m.bound.query.within[1]
            written = written[len("WITHIN "):] if written.upper().startswith("WITHIN ") else written
            check = PredicateCheck(f"{col} - FIRST({col}) < {written}",
                                   {col: V.json_value(b), f"FIRST({col})": V.json_value(a), "W": m.window}, False)
            for rank, th in enumerate(waiting, 1):
                t.act("expire", run=th.tid, event=t.row_id(pos), predicates=[check],
                      reason=f"WITHIN: row {t.row_id(pos)} is too late for a match that began at row "
                             f"{t.row_id(start)}", detail=t.thread_detail(th, start, rank))
            t.flush(t.event(pos), [], start)
            break
        nxt = []
        for rank, th in enumerate(waiting, 1):
            ins = code[th.pc]
            var = ins[1]
            cond = defines.get(var)
            frame.labels = list(th.labels)
            frame.labels.append(var)
            frame.positions = None  # built from these labels when a navigation needs it
            frame.n = len(frame.labels)
            if cond is not None:
                m.work += 1
                if m.work > m.max_work:
                    raise StateExplosion(f"more than {m.max_work:,} DEFINE evaluations{m.where}: the "
                                         "pattern backtracks over long runs of rows; bound the quantifiers or add "
                                         "WITHIN")
                try:
                    value = V.truth(cond(frame))
                except V.SqlValueError as err:
                    raise SqlRunError(f"DEFINE {var} on row {pos + 1}{m.where}: {err}") from None
            else:
                value = True
            check = t.probe.check(var, frame, value)
            rid = t.row_id(pos)
            if cond is not None and not value:
                t.act("discard", run=th.tid, edge="die", event=rid, predicates=[check],
                      reason=f"DEFINE {var} is {truth_text(value)} on row {rid}",
                      detail=t.thread_detail(th, start, rank, tried=var, result=truth_text(value)))
                continue
            new = Thread(ins[2], th.labels + (var,), th.excluded + (ins[3],), th.tid,
                         th.history + ((pos, var, check),))
            t.act("take", run=th.tid, edge="take", event=rid, predicates=[check], to=var,
                  reason=f"thread {th.tid} labels row {rid} {var}", detail=t.thread_detail(new, start, rank))
            nxt.append(new)
        t.flush(t.event(pos), nxt, start)
        incoming = nxt
        pos += 1
    m.trace_result = (best, superseded, cut_all)
    return (best.labels, best.excluded) if best is not None else None


def _closure(t: SqlTracer, code: tuple[tuple, ...], incoming: list[Thread], pos: int, n: int,
             key: Callable[[tuple[str, ...]], Any] | None, start: int) -> tuple[list[Thread], Thread | None, list[str]]:
    """ThreadMatcher._closure with thread ids, merges, failed anchors and cuts traced."""
    waiting: list[Thread] = []
    visited: dict[Any, str] = {}
    none: frozenset[int] = frozenset()
    for index, th in enumerate(incoming):
        k = key(th.labels) if key is not None else None
        stack: list[tuple[int, frozenset[int], str | None, str]] = [(th.pc, none, th.tid, th.tid)]
        while stack:
            pc, started, tid, parent = stack.pop()
            if tid is None:
                tid = t.new_thread(parent)
            mark = (pc, started, k)
            if mark in visited:
                owner = visited[mark]
                if owner != tid:
                    here = Thread(pc, th.labels, th.excluded, tid, th.history)
                    t.act("merge", run=tid, reason=f"thread {tid} is in the same state as thread {owner}, which is "
                          "preferred: same place in the pattern, and no DEFINE can tell their labels apart",
                          detail=t.thread_detail(here, start, None, into=owner, branch_of=parent if parent != tid
                                                 else None, pc=pc))
                continue
            visited[mark] = tid
            ins = code[pc]
            op = ins[0]
            if op == "label":
                waiting.append(Thread(pc, th.labels, th.excluded, tid, th.history))
            elif op == "split":
                stack.append((ins[2], started, None, tid))
                stack.append((ins[1], started, tid, tid))
            elif op == "loop":
                body = (ins[1], started | {pc}, tid, tid)
                leave = (ins[2], started - {pc} if pc in started else started)
                if ins[3]:
                    stack.append((*leave, None, tid))
                    stack.append(body)
                else:
                    stack.append((body[0], body[1], None, tid))
                    stack.append((*leave, tid, tid))
            elif op == "back":
                if ins[1] not in started:
                    stack.append((ins[1], started, tid, tid))
            elif op in ("start", "end"):
                ok = pos == 0 if op == "start" else pos == n
                if ok:
                    stack.append((ins[1], started, tid, tid))
                else:
                    here = Thread(pc, th.labels, th.excluded, tid, th.history)
                    if op == "start":
                        why = (f"anchor ^: row {t.row_id(pos)} is not the partition's first row" if pos < n else
                               f"anchor ^: the thread is past the partition's first row (after row {t.row_id(pos - 1)})")
                    else:
                        why = "anchor $: the partition goes on after row " + str(t.row_id(pos - 1)) if pos else \
                            f"anchor $: the partition goes on from row {t.row_id(pos)}"
                    t.act("discard", run=tid, edge="die", reason=why, detail=t.thread_detail(here, start, None))
            else:  # match
                done = Thread(pc, th.labels, th.excluded, tid, th.history)
                cut = [s[2] for s in stack if s[2] is not None] + [x.tid for x in incoming[index + 1:]]
                branches = sum(1 for s in stack if s[2] is None)
                span = _span(t, start, len(th.labels))
                alive = [w.tid for w in waiting]
                t.act("wait", run=tid, edge="complete",
                      reason=f"thread {tid} completes a match ({span})" + (
                          f"; it is the match unless a more preferred thread ({', '.join(alive)}) completes"
                          if alive else ": no more preferred thread is alive"),
                      detail=t.thread_detail(done, start, len(waiting) + 1, more_preferred=alive, cut=cut,
                                             cut_branches=branches))
                for x in incoming[index + 1:]:
                    t.act("discard", run=x.tid, edge="cut",
                          reason=f"cut: thread {tid}, more preferred, completed a match",
                          detail=t.thread_detail(x, start, None, by=tid))
                return waiting, done, cut
    return waiting, None, []


def _span(t: SqlTracer, start: int, count: int) -> str:
    if count == 0:
        return f"an empty match at row {t.row_id(start)}"
    ids = t.ids(start, count)
    return f"row {ids[0]}" if count == 1 else f"rows {ids[0]}-{ids[-1]}" if ids == list(range(ids[0], ids[-1] + 1)) \
        else "rows " + ",".join(map(str, ids))


# --------------------------------------------------------------------------- a query's trace

@dataclass
class SqlTrace:
    """A traced run: the steps, the engine, and the output (columns and rows, as ``cep run``)."""

    engine: str
    steps: list[Step]
    columns: list[str]
    rows: list[dict[str, Any]]
    matches: list[tuple[tuple[Any, ...], RowMatch]]
    bound: BoundQuery
    index: Any = None                    # a window's untraced pre-pass (trace_window.SearchIndex)
    searches: list[int] | None = None    # a window's traced searches (their start rows); None: all
    ids: list[Any] | None = None         # the table's id column, by input row (None: no id column)

    def label(self, row: int) -> str:
        """Input row ``row`` as every view names it: ``row #812 (id 4711)`` (:func:`row_label`)."""
        return row_label(row, self.ids[row - 1] if self.ids is not None and 1 <= row <= len(self.ids) else None)


def trace_query(query: Query, table: Any, engine: str = "sql", limit: int | None = DEFAULT_LIMIT,
                **options: Any) -> SqlTrace:
    """Run ``query`` over ``table`` with the trace: one step per search start, per row each
    search reads and per search result (the match with its output rows, AFTER MATCH SKIP, or
    the unmatched row), then a close step. The rows of the steps' ``matches`` are, in order,
    the rows ``cep run`` prints (before the query's own ORDER BY, which the close step applies:
    it then holds every row in that order). A window of a long table (the searches that start
    in some rows, the rest untraced): ``trace_window.trace_rows``."""
    if limit is not None and len(table.rows) > limit:
        raise TraceLimit(f"the table has {len(table.rows):,} rows, more than the trace limit {limit:,} "
                         "(--limit): a trace keeps every step in memory")
    bound = bind(query, table.columns)
    numbers = {id(r): i + 1 for i, r in enumerate(table.rows)}
    tracer = SqlTracer(bound, numbers, max_steps=None if limit is None else 50 * max(limit, 1))
    if engine == "sql-oracle":
        matcher: Any = TracedOracle(bound, tracer, **{k: v for k, v in options.items() if k == "max_steps"})
    else:
        matcher = TracedThreadMatcher(bound, tracer=tracer,
                                **{k: v for k, v in options.items() if k in ("max_threads", "max_work")})
    out: list[dict[str, Any]] = []
    found: list[tuple[tuple[Any, ...], RowMatch]] = []
    for key, rows in partitions(bound, table.rows):
        where = f" in partition {', '.join(f'{c}={v!r}' for c, v in zip(bound.partition_by, key))}" \
            if bound.partition_by else ""
        tracer.begin_partition(key, rows, where)
        matcher.bind_partition(rows, where)
        search = _Search(tracer, matcher, bound, key, rows, where)
        matches, unmatched = match_partition(len(rows), search.find, query.after_match, bound.members, where)
        found.extend((key, m) for m in matches)
        out.extend(search.output)
    columns, rows_out = project(bound, out)
    close = [json_row(r) for r in rows_out] if query.final_order else []
    tracer.steps.append(Step(step="close", event=None, actions=tracer.take_actions(), matches=close))
    col = id_column(table.columns)
    return SqlTrace(engine, tracer.steps, columns, rows_out, found, bound,
                    ids=None if col is None else [r.get(col) for r in table.rows])


class _Search:
    """``find`` for :func:`match_partition` that adds the result step of each search: the
    match (with its output rows and AFTER MATCH SKIP) or the unmatched row."""

    def __init__(self, tracer: SqlTracer, matcher: Any, bound: BoundQuery, key: tuple[Any, ...],
                 rows: list[dict[str, Any]], where: str):
        self.t, self.matcher, self.bound, self.key, self.rows, self.where = tracer, matcher, bound, key, rows, where
        self.covered = -1
        self.output: list[dict[str, Any]] = []

    def find(self, s: int, number: int) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
        t = self.t
        found = self.matcher.find(s, number)
        rid = t.row_id(s)
        if found is None:
            rows: list[dict[str, Any]] = []
            if s > self.covered:
                rows = match_rows(self.bound, self.key, self.rows, [], [s], self.where)
                t.act("ignore", event=rid, edge="unmatched", reason=f"no match starts at row {rid}: it is unmatched",
                      detail={"search": rid})
            else:
                t.act("ignore", event=rid, edge="no match", reason=f"no match starts at row {rid} (it lies in a "
                      "match found before)", detail={"search": rid})
            self.flush(rows)
            return None
        labels, excluded = found
        m = RowMatch(s, labels, excluded, number)
        best, superseded, cut = getattr(self.matcher, "trace_result", (None, [], []))
        ids = t.ids(s, len(labels))
        bindings: dict[str, list[int]] = {}
        for v, r in zip(labels, ids):
            bindings.setdefault(v, []).append(r)
        history = best.history if best is not None else _history(t, self.rows, s, labels, number)
        steps = [{"row": t.row_id(p), "label": v, "define": c.text, "values": c.values, "result": c.result}
                 for p, v, c in history]
        match = {"match": bindings, "start": rid, "end": ids[-1] if ids else rid, "number": number,
                 "labels": list(labels), "rows": ids}
        if self.bound.partition_by:
            match["partition"] = {c: V.json_value(v) for c, v in zip(self.bound.partition_by, self.key)}
        t.act("match", run=best.tid if best is not None else None, event=rid,
              reason=f"match {number}: " + (_span(t, s, len(labels)) + " " + " ".join(labels) if labels else
                                             f"an empty match at row {rid}"),
              detail={"search": rid, "match": match, "steps": steps, "preferred_over": superseded + cut,
                      "superseded": superseded})
        if not m.empty:
            self.covered = max(self.covered, m.end)
        self.skip(m)
        rows = match_rows(self.bound, self.key, self.rows, [m], [], self.where)
        self.flush(rows)
        return found

    def skip(self, m: RowMatch) -> None:
        """AFTER MATCH SKIP as an action (the search goes on where match_partition says)."""
        t = self.t
        n = len(self.rows)
        kind, target = self.bound.query.after_match
        if m.empty:
            nxt, why = m.start + 1, "an empty match: the search goes on at the next row"
        elif kind == "past_last":
            nxt, why = m.end + 1, "AFTER MATCH SKIP PAST LAST ROW"
        elif kind == "next_row":
            nxt, why = m.start + 1, "AFTER MATCH SKIP TO NEXT ROW"
        else:
            wanted = self.bound.members[target]  # type: ignore[index]
            rows = [m.start + i for i, v in enumerate(m.labels) if v in wanted]
            if not rows or (rows[0] if kind == "first" else rows[-1]) == m.start:
                return  # match_partition raises the error
            nxt = rows[0] if kind == "first" else rows[-1]
            why = f"AFTER MATCH SKIP TO {kind.upper()} {target}"
        past = [t.row_id(r) for r in range(m.start + 1, min(nxt, n))]
        to = t.row_id(nxt) if nxt < n else None
        t.act("proceed", edge="skip", event=to, reason=f"{why}: " + (f"the next search starts at row {to}"
                                                                     if to is not None else "the partition is done")
              + (f"; row{'s' if len(past) > 1 else ''} {', '.join(map(str, past))} "
                 f"start{'' if len(past) > 1 else 's'} no search" if past else ""),
              detail={"search": t.row_id(m.start), "to": to, "skipped": past})

    def flush(self, rows: list[dict[str, Any]]) -> None:
        self.output.extend(rows)
        if self.bound.query.final_order:
            shown: list[dict[str, Any]] = []
        else:
            shown = [json_row(r) for r in project(self.bound, rows)[1]]
        self.t.flush(None, [], 0, matches=shown)


def _history(t: SqlTracer, rows: list[dict[str, Any]], start: int, labels: tuple[str, ...],
             number: int) -> tuple[tuple[int, str, PredicateCheck], ...]:
    """Each row's DEFINE with its values, on the labels of a match (the oracle keeps no threads)."""
    out = []
    for i, var in enumerate(labels):
        frame = Frame(rows, start, list(labels[:i + 1]), match_number=number)
        cond = t.bound.defines.get(var)
        value = V.truth(cond(frame)) if cond is not None else True
        out.append((start + i, var, t.probe.check(var, frame, value)))
    return tuple(out)


class TracedThreadMatcher(ThreadMatcher):
    """The thread matcher whose ``find`` is the traced search (:func:`find_traced`): the same
    search in the same order, with every thread's actions recorded."""

    def find(self, start: int, number: int) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
        return find_traced(self, start, number)


class TracedOracle(OracleMatcher):
    """The backtracking oracle with a trace: one step per DEFINE it evaluates, the run named by
    the labelling tried (``"1:A B B"``: the search from row 1, labels so far), take when the
    DEFINE holds, discard when not (the oracle then backtracks to the next labelling in
    preferment order)."""

    def __init__(self, bound: BoundQuery, tracer: SqlTracer, **options: Any):
        super().__init__(bound, **options)
        self.tracer = tracer
        self.trace_result: tuple[Any, list[str], list[str]] = (None, [], [])

    def find(self, start: int, number: int) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
        t = self.tracer
        t.search_row, t.counter = t.row_id(start), 0
        t.act("search", event=t.search_row, edge="start",
              reason=f"search for match {number} from row {t.search_row}: labellings in preferment order",
              detail={"search": t.search_row, "number": number})
        t.flush(t.event(start))
        return super().find(start, number)

    def accepts(self, var: str, state: Any) -> bool:
        ok = super().accepts(var, state)
        pos, labels, _ = state
        t = self.tracer
        if pos >= len(self.rows):
            return ok
        tried = " ".join(labels + (var,))
        run = f"{t.search_row}:{tried}"
        frame = Frame(self.rows, self.start, list(labels) + [var], match_number=self.number)
        cond = self.bound.defines.get(var)
        detail = {"search": t.search_row, "labels": list(labels) + [var], "rows": t.ids(self.start, len(labels) + 1)}
        rid = t.row_id(pos)
        if not within_ok(self._time if self.window is not None else None, self.window, self.start, pos):
            t.act("expire", run=run, event=rid, reason=f"WITHIN: row {rid} is too late for a match that began at row "
                  f"{t.search_row}", detail=detail)
        else:
            value = True if ok or cond is None else V.truth(cond(frame))
            check = t.probe.check(var, frame, value)
            if ok:
                t.act("take", run=run, edge="take", event=rid, to=var, predicates=[check],
                      reason=f"the labelling {tried} holds on row {rid}", detail=detail)
            else:
                t.act("discard", run=run, edge="die", event=rid, predicates=[check],
                      reason=f"the labelling {tried} fails on row {rid}: DEFINE {var} is {truth_text(value)}",
                      detail=detail)
        t.flush(t.event(pos))
        return ok

    def _time(self, row: int) -> Any:
        return self.rows[row][self.bound.time_column]
