"""Helpers of the conversion tests: a studio pattern's matches and a query's rows over the same
events, each as one tuple per match (a singleton's id, a Kleene's first and last ids, None for
an optional variable that took no event), so that the two can be compared as sets."""
from __future__ import annotations

from typing import Any

from engine.engines.planner import make_matcher
from engine.engines.sql.parser import parse_query
from engine.engines.sql.run import Table, run_query
from engine.events import make_stream
from engine.model import Pattern

COLUMNS = ["id", "type", "ts", "symbol", "price", "x"]


def studio_matches(pattern: Pattern, rows: list[dict[str, Any]], engine: str = "auto") -> list[tuple[Any, ...]]:
    """The pattern's matches on ``rows`` (the studio's engine), in a canonical order."""
    matcher = make_matcher(pattern, engine)
    found = []
    for event in make_stream(rows):
        found.extend(matcher.feed(event))
    found.extend(matcher.close())
    kleene = {c.var for c in pattern.components() if c.kleene}
    out = []
    for m in found:
        item: list[Any] = []
        for var, ids in m.bindings:
            if var in kleene:
                item += [ids[0], ids[-1]] if ids else [None, None]
            else:
                item.append(ids[0] if ids else None)
        out.append(tuple(item))
    return sorted(out, key=repr)


def sql_matches(sql: str, rows: list[dict[str, Any]], engine: str = "sql") -> list[tuple[Any, ...]]:
    """The query's output rows on ``rows``, each as the tuple of its measures (partition columns left out)."""
    query = parse_query(sql)
    result = run_query(query, Table(COLUMNS, rows), engine)
    names = [m.name for m in query.measures]
    return sorted((tuple(r[n] for n in names) for r in result.rows), key=repr)
