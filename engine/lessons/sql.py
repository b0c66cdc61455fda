"""Lessons whose pattern is a MATCH_RECOGNIZE query (SQL:2016 row pattern recognition).

A lesson's pattern (or a write exercise's reference, a learner's answer, a choose option) is a
query when its first word is SELECT (``engine.engines.sql.detect.is_sql``). The query runs on
the lesson's stream as a table: one row per event, the columns ``id``, ``type``, ``ts`` (or
``lower``, ``upper``) and then the attributes in the order they first appear (the inline rows'
columns). Whatever table the query names, it reads that table; a query with its own VALUES is
refused.

A match of a query is compared as the rows each pattern variable took, by event id:
``{"STRT": [1], "DOWN": [2, 3], "UP": [4]}`` (:class:`QueryMatch`, like the studio pattern's
``{var: [ids]}``), so predict, write and choose compare queries exactly as they compare
patterns. The output rows (MEASURES, ONE ROW / ALL ROWS PER MATCH) are not compared.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from engine.events import Event
from engine.match import Match

__all__ = ["LessonQuery", "QueryMatch", "is_query", "parse_query_text", "events_table", "check_query_columns",
           "run_query_outcome", "query_match_text"]


#: DEFINE evaluations one lesson run may make (the thread matcher stops past it with a message):
#: a lesson's stream has at most 200 rows, so only a runaway pattern comes near it
MAX_DEFINE_EVALUATIONS = 1_000_000


def is_query(text: str) -> bool:
    """True when ``text`` is a MATCH_RECOGNIZE query (its first word is SELECT)."""
    from engine.engines.sql.detect import is_sql

    return is_sql(text)


@dataclass(frozen=True)
class LessonQuery:
    """A parsed query with its text: what a lesson runs instead of a studio pattern."""

    text: str
    query: Any  # engine.engines.sql.query.Query

    @property
    def variables(self) -> list[str]:
        """The pattern variables in order of first appearance."""
        return list(self.query.variables)


def parse_query_text(text: str) -> LessonQuery:
    """The query in ``text``; ``SqlError`` (a ``DslError``: message, line, column) when it does
    not parse, has no MATCH_RECOGNIZE, or brings its own VALUES table."""
    from engine.engines.sql.errors import error_at
    from engine.engines.sql.parser import parse_query

    query = parse_query(text)
    if query.pattern is None:
        raise error_at(text, 0, "the query has no MATCH_RECOGNIZE with a PATTERN")
    if query.values is not None:
        at = text.upper().find("VALUES")
        raise error_at(text, max(at, 0), "a lesson's query reads the lesson's stream, not its own VALUES table",
                       "write FROM events instead", 6)
    return LessonQuery(text, query)


def events_table(events: Sequence[Event]) -> Any:
    """The events as the query's input table (``engine.engines.sql.run.Table``)."""
    from engine.engines.sql.run import Table

    interval = any(e.lower is not None for e in events)
    attrs: list[str] = []
    for e in events:
        attrs.extend(a for a in e.attrs if a not in attrs)
    head = ["id", "type", "lower", "upper"] if interval else ["id", "type", "ts"]
    rows = []
    for e in events:
        base = [e.id, e.type, _exact(e.lower), _exact(e.upper)] if interval else [e.id, e.type, _exact(e.ts)]
        rows.append(dict(zip(head + attrs, base + [e.attrs.get(a) for a in attrs])))
    return Table(head + attrs, rows)


def _exact(v: Any) -> Any:
    """A whole float timestamp as an integer (the file's integer stays one)."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def check_query_columns(query: LessonQuery, events: Sequence[Event]) -> None:
    """``SqlError`` when the query names a column the stream does not have."""
    from engine.engines.sql.binding import bind

    bind(query.query, events_table(events).columns)


@dataclass(frozen=True)
class QueryMatch:
    """One match of a query, shaped like the studio's ``engine.match.Match``: ``bindings`` maps
    each pattern variable (in pattern order) to the ids of the rows it labelled (excluded rows
    included; a variable that labelled none maps to ``()``), ``start`` / ``end`` the first and
    last row's time, ``start_seq`` / ``end_seq`` their places in the stream. ``number`` is
    MATCH_NUMBER() (per partition), ``partition`` the PARTITION BY key, ``labelled`` the
    (variable, id) of each matched row in row order (CLASSIFIER())."""

    number: int
    partition: tuple[Any, ...]
    labelled: tuple[tuple[str, Any], ...]
    bindings: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    start: Any = None
    end: Any = None
    start_seq: int = -1
    end_seq: int = -1

    # the studio match's own readers (they read only ``bindings``, ``start``, ``end`` and ``as_dict``)
    key = Match.key
    ids = Match.ids
    to_json = Match.to_json

    def as_dict(self) -> dict[str, list[Any]]:
        """``{variable: [ids]}`` for the variables that labelled a row, in pattern order."""
        return {v: list(ids) for v, ids in self.bindings if ids}


def _query_match(number: int, key: tuple[Any, ...], labelled: tuple[tuple[str, Any], ...], order: list[str],
                 by_id: dict[Any, Event]) -> QueryMatch:
    bindings = tuple((v, tuple(i for label, i in labelled if label == v)) for v in order)
    events = [by_id[i] for _label, i in labelled if i in by_id]
    first = min(events, key=lambda e: e.seq) if events else None
    last = max(events, key=lambda e: e.seq) if events else None
    return QueryMatch(number, key, labelled, bindings, first.ts if first else None, last.ts if last else None,
                      first.seq if first else -1, last.seq if last else -1)


def run_query_outcome(query: LessonQuery, events: Sequence[Event], engine: str = "auto",
                      limits: Any = None) -> Any:
    """Run the query on the events as a table: a ``RunOutcome`` whose matches are
    :class:`QueryMatch` (in the engine's order), or with ``error`` in plain words."""
    from engine.engines.planner import choose_query
    from engine.engines.sql.binding import bind, partitions
    from engine.engines.sql.errors import SqlError, SqlRunError
    from engine.engines.sql.run import run_query
    from engine.lessons.running import DEFAULT_LIMITS, RunOutcome, _guard
    from engine.match import EngineUnsupported, StateExplosion
    from engine.memory import RunStopped, guarding

    limits = limits or DEFAULT_LIMITS
    try:
        name = choose_query(engine).name
    except (EngineUnsupported, KeyError, ValueError) as err:
        return RunOutcome(engine, error=f"the engine cannot run this: {err}", requested=engine)
    table = events_table(events)
    out = RunOutcome(name, requested=engine)
    from engine.engines.sql.matcher import MAX_THREADS

    options = {"max_threads": min(limits.max_runs or MAX_THREADS, MAX_THREADS), "max_work": MAX_DEFINE_EVALUATIONS}
    try:
        with guarding(_guard(limits, lambda: "a query run")):
            result = run_query(query.query, table, name, **options)
            keyed = {key: rows for key, rows in partitions(bind(query.query, table.columns), table.rows)}
    except SqlError as err:
        out.error = f"the query does not fit the stream: {err.message}"
        return out
    except (SqlRunError, StateExplosion, RunStopped, RecursionError) as err:
        out.error = f"stopped: {err}"
        return out
    by_id = {e.id: e for e in events}
    order = query.variables
    for key, m in result.matches:
        rows = keyed[key]
        labelled = tuple((label, rows[m.start + i]["id"]) for i, label in enumerate(m.labels))
        out.matches.append(_query_match(m.number, tuple(key), labelled, order, by_id))
    out.stats = {k: v for k, v in result.stats.items() if k not in ("engine", "seconds")}
    out.stats.setdefault("runs_created", result.stats.get("define_evaluations", 0))
    return out


def query_match_text(match: dict[str, list[Any]]) -> str:
    """A match's rows in plain words: ``event 1 as STRT, events 2, 3 as DOWN, event 4 as UP``."""
    parts = []
    for var, ids in match.items():
        shown = ", ".join(str(i) for i in ids)
        parts.append(f"event{'s' if len(ids) != 1 else ''} {shown} as {var}")
    return ", ".join(parts) or "an empty match (no rows)"
