"""The production matcher: threads in preference order over the compiled program (a Pike VM).

From a start row, every thread is a way of labelling the rows so far; the threads are kept in
preferment order (a ``split`` puts its first branch before its second), each row is offered to
every thread waiting on a ``label`` whose DEFINE accepts it, and the first thread (in that order)
that reaches ``match`` while no better-preferred thread is still alive is the match. Two threads
at the same instruction whose label histories no DEFINE can tell apart (``Needs``: the rows of a
variable a DEFINE navigates to or aggregates over) have the same future, so the less preferred
is dropped; this also ends a loop iteration that consumed no row. Without navigation that looks
back, the threads alive at a row are at most the program's size: matching is linear in the rows.
The state guard stops a search whose live threads or DEFINE evaluations pass their limits."""
from __future__ import annotations

from typing import Any, Callable

from engine.engines.sql import values as V
from engine.engines.sql.binding import BoundQuery
from engine.engines.sql.errors import SqlRunError
from engine.engines.sql.frame import Frame
from engine.engines.sql.program import Program, compile_pattern
from engine.engines.sql.search import within_ok
from engine.match import StateExplosion

MAX_THREADS = 100_000      # live threads at one row
MAX_WORK = 50_000_000      # DEFINE evaluations in one query


def history_key(needs: set[tuple[Any, ...]]) -> Callable[[tuple[str, ...]], Any] | None:
    """labels -> what the DEFINEs can read of them (None when they read nothing: every thread at
    an instruction is then equivalent). The traced search's key; the untraced search keeps the
    same key in its :class:`History` as the labels grow."""
    items = sorted(needs, key=repr)
    if not items:
        return None
    if any(i[0] in ("labels",) for i in items):
        return lambda labels: labels

    def key(labels: tuple[str, ...]) -> tuple[Any, ...]:
        out = []
        for item in items:
            kind, members = item[0], item[1]
            positions = [i for i, v in enumerate(labels) if v in members]
            if kind == "all":
                out.append(tuple(positions))
            elif kind == "first":
                out.append(tuple(positions[:item[2]]))
            else:
                out.append(tuple(positions[-item[2]:]))
        return tuple(out)
    return key


class History:
    """A thread's labels so far, the indices each variable labels (``positions``, what
    :class:`Frame` navigates with) and :func:`history_key`'s value for them, kept as the labels
    grow: O(1) per row for keys of the last / first k rows, where recomputing scanned the whole
    history. Threads forked at a row share one History until they take rows differently."""

    __slots__ = ("labels", "excluded", "positions", "key")

    def __init__(self, labels: list[str], excluded: list[bool], positions: dict[str, list[int]], key: Any):
        self.labels, self.excluded, self.positions, self.key = labels, excluded, positions, key

    def copy(self) -> "History":
        return History(list(self.labels), list(self.excluded), {v: list(p) for v, p in self.positions.items()},
                       self.key)


def key_updater(needs: set[tuple[Any, ...]]) -> Callable[[History], Any] | None:
    """History -> :func:`history_key`'s value, from its positions (the same value; a parity test
    checks them against each other)."""
    items = sorted(needs, key=repr)
    if not items:
        return None
    if any(i[0] == "labels" for i in items):
        return lambda h: tuple(h.labels)

    def indices(h: History, members: frozenset[str]) -> list[int]:
        if len(members) == 1:
            (v,) = members
            return h.positions.get(v, [])
        out = [i for v in members for i in h.positions.get(v, ())]
        out.sort()
        return out

    def key(h: History) -> tuple[Any, ...]:
        out = []
        for item in items:
            kind, members = item[0], item[1]
            idx = indices(h, members)
            if kind == "all":
                out.append(tuple(idx))
            elif kind == "first":
                out.append(tuple(idx[:item[2]]))
            else:
                out.append(tuple(idx[-item[2]:]))
        return tuple(out)
    return key


class ThreadMatcher:
    """Finds the preferred match at a row (``find``) for :func:`engine.engines.sql.search.match_partition`."""

    def __init__(self, bound: BoundQuery, max_threads: int = MAX_THREADS, max_work: int = MAX_WORK,
                 tracer: Any = None):
        self.bound = bound
        self.tracer = tracer  # an engine.engines.sql.trace.SqlTracer (TracedThreadMatcher runs the traced search)
        self.program: Program = compile_pattern(bound.query.pattern)  # type: ignore[arg-type]
        self.key = history_key(bound.needs.items)
        self.key_update = key_updater(bound.needs.items)
        self.max_threads = max_threads
        self.max_work = max_work
        self.work = 0
        self.threads_peak = 0
        self.window = bound.query.within[0] if bound.query.within else None
        self.rows: list[dict[str, Any]] = []
        self.where = ""

    def bind_partition(self, rows: list[dict[str, Any]], where: str = "") -> None:
        self.rows, self.where = rows, where

    def time_of(self, row: int) -> Any:
        return self.rows[row][self.bound.time_column]  # type: ignore[index]

    def find(self, start: int, number: int) -> tuple[tuple[str, ...], tuple[bool, ...]] | None:
        code = self.program.code
        rows = self.rows
        n = len(rows)
        defines = self.bound.defines
        update_key = self.key_update
        frame = Frame(rows, start, [], match_number=number)
        best: tuple[tuple[str, ...], tuple[bool, ...]] | None = None
        root = History([], [], {}, update_key(History([], [], {}, None)) if update_key is not None else None)
        incoming: list[tuple[int, History]] = [(self.program.entry, root)]
        pos = start
        time_of = self.time_of if self.window is not None else None
        while incoming:
            waiting, matched = self._closure(code, incoming, pos, n)
            if matched is not None:
                best = (tuple(matched.labels), tuple(matched.excluded))  # a snapshot: the History grows on
            if not waiting or pos >= n:
                break
            if len(waiting) > self.threads_peak:
                self.threads_peak = len(waiting)
                if len(waiting) > self.max_threads:
                    raise StateExplosion(f"{len(waiting):,} threads alive at row {pos + 1}{self.where} (limit "
                                         f"{self.max_threads:,}): the DEFINEs navigate or aggregate over so much of "
                                         "the match that few threads can be merged; bound the quantifiers, add "
                                         "WITHIN, or PARTITION BY")
            if not within_ok(time_of, self.window, start, pos):
                break
            advancing: list[tuple[int, History, str, bool]] = []
            users: dict[int, int] = {}
            for pc, hist in waiting:
                ins = code[pc]
                var = ins[1]
                cond = defines.get(var)
                if cond is not None:
                    self.work += 1
                    if self.work > self.max_work:
                        raise StateExplosion(f"more than {self.max_work:,} DEFINE evaluations{self.where}: the "
                                             "pattern backtracks over long runs of rows; bound the quantifiers or add "
                                             "WITHIN")
                    labels = hist.labels
                    at = len(labels)
                    labels.append(var)  # the row tentatively labelled var, taken back below
                    plist = hist.positions.setdefault(var, [])
                    plist.append(at)
                    frame.labels, frame.positions, frame.n = labels, hist.positions, at + 1
                    try:
                        ok = V.truth(cond(frame))
                    except V.SqlValueError as err:
                        raise SqlRunError(f"DEFINE {var} on row {pos + 1}{self.where}: {err}") from None
                    finally:
                        labels.pop()
                        plist.pop()
                    if not ok:
                        continue
                advancing.append((ins[2], hist, var, ins[3]))
                users[id(hist)] = users.get(id(hist), 0) + 1
            nxt: list[tuple[int, History]] = []
            for nxt_pc, hist, var, excluded in advancing:
                left = users[id(hist)] - 1
                users[id(hist)] = left
                own = hist if left == 0 else hist.copy()  # the last thread to advance takes it over
                own.positions.setdefault(var, []).append(len(own.labels))
                own.labels.append(var)
                own.excluded.append(excluded)
                if update_key is not None:
                    own.key = update_key(own)
                nxt.append((nxt_pc, own))
            incoming = nxt
            pos += 1
        return best

    @staticmethod
    def _closure(code: tuple[tuple, ...], incoming: list, pos: int, n: int) -> tuple[list, Any]:
        """Follow every thread's moves that consume no row at ``pos``, depth first in preference
        order (backtracking's order): (the threads waiting on a ``label``, in order; the History
        of the first thread that reached ``match``, which cuts every less preferred thread). A path
        carries the loops whose current iteration began at this row (``started``): a ``back`` edge
        of one of them would close an empty iteration and is not taken. A state already reached
        at this row (instruction, started loops, what DEFINEs can read of the history) was reached
        by a preferred path whose subtree is complete, and has the same future: it is dropped.
        Inlines the traced search's closure (engine/engines/sql/trace.py), which the parity test
        tests/engines/sql/test_trace.py holds equal."""
        waiting = []
        visited: set[Any] = set()
        none: frozenset[int] = frozenset()
        for pc0, hist in incoming:
            k = hist.key
            stack = [(pc0, none)]
            while stack:
                pc, started = stack.pop()
                mark = (pc, started, k)
                if mark in visited:
                    continue
                visited.add(mark)
                ins = code[pc]
                op = ins[0]
                if op == "label":
                    waiting.append((pc, hist))
                elif op == "split":
                    stack.append((ins[2], started))
                    stack.append((ins[1], started))
                elif op == "loop":
                    body = (ins[1], started | {pc})
                    leave = (ins[2], started - {pc}) if pc in started else (ins[2], started)
                    if ins[3]:
                        stack.append(leave)
                        stack.append(body)
                    else:
                        stack.append(body)
                        stack.append(leave)
                elif op == "back":
                    if ins[1] not in started:
                        stack.append((ins[1], started))
                elif op == "start":
                    if pos == 0:
                        stack.append((ins[1], started))
                elif op == "end":
                    if pos == n:
                        stack.append((ins[1], started))
                else:  # match: every thread after this one is less preferred
                    return waiting, hist
        return waiting, None
