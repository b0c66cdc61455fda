"""The rows a query outputs (Deliver 4's contract): ONE ROW PER MATCH gives the PARTITION BY
columns then the measures; ALL ROWS PER MATCH one row per matched row (excluded rows left out):
PARTITION BY columns, ORDER BY columns, measures, then the other input columns; empty matches
and unmatched rows as the clause says. Then the SELECT list and the query's ORDER BY."""
from __future__ import annotations

from typing import Any

from engine.engines.sql import values as V
from engine.engines.sql.binding import BoundQuery, sort_rows
from engine.engines.sql.errors import SqlRunError, error_at
from engine.engines.sql.frame import Frame
from engine.engines.sql.search import RowMatch


def match_rows(bound: BoundQuery, key: tuple[Any, ...], rows: list[dict[str, Any]], matches: list[RowMatch],
               unmatched: list[int], where: str = "") -> list[dict[str, Any]]:
    """The MATCH_RECOGNIZE's output rows of one partition, in match order (unmatched rows where
    the search passed them)."""
    q = bound.query
    out: list[dict[str, Any]] = []
    part = dict(zip(bound.partition_by, key))
    pending = list(unmatched)

    def flush(upto: int) -> None:
        while pending and pending[0] < upto:
            r = pending.pop(0)
            out.append(_row(bound, part, rows[r], {name: None for name, _ in bound.measures}))

    for m in matches:
        if q.empty_matches == "unmatched":
            flush(m.start)
        frame = Frame(rows, m.start, list(m.labels), match_number=m.number)
        if q.rows_per_match == "one":
            out.append({**part, **_measures(bound, frame, where, m)})
            continue
        if m.empty:
            if q.empty_matches != "omit":
                out.append(_row(bound, part, rows[m.start], _measures(bound, frame, where, m)))
            continue
        for i in range(len(m.labels)):
            if m.excluded[i]:
                continue
            frame.n = i + 1
            out.append(_row(bound, part, rows[m.start + i], _measures(bound, frame, where, m)))
    if q.empty_matches == "unmatched":
        flush(len(rows))
    return out


def _measures(bound: BoundQuery, frame: Frame, where: str, m: RowMatch) -> dict[str, Any]:
    values = {}
    for name, fn in bound.measures:
        try:
            values[name] = fn(frame)
        except V.SqlValueError as err:
            raise SqlRunError(f"measure {name} of match {m.number}{where}: {err}") from None
    return values


def _row(bound: BoundQuery, part: dict[str, Any], row: dict[str, Any], measures: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for c in bound.output_columns:
        out[c] = measures[c] if c in measures else row[c] if c in row else part.get(c)
    return out


def project(bound: BoundQuery, rows: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """SELECT and ORDER BY over the MATCH_RECOGNIZE's rows: (output columns, rows)."""
    q = bound.query
    if q.final_order:
        order = []
        for k in q.final_order:
            name = _resolve(bound, k.column, k.offset)
            order.append((name, k.descending, k.nulls_first))
        rows = sort_rows(rows, order, q.source)
    if bound.select is None:
        return list(bound.output_columns), rows
    names = [name for name, _ in bound.select]
    projected = []
    for r in rows:
        frame = Frame([r], 0, [])
        out = {}
        for name, fn in bound.select:
            try:
                out[name] = fn(frame)
            except V.SqlValueError as err:
                raise SqlRunError(f"SELECT {name}: {err}") from None
        projected.append(out)
    return names, projected


def _resolve(bound: BoundQuery, name: str, offset: int) -> str:
    for c in bound.output_columns:
        if c == name or c.upper() == name.upper():
            return c
    raise error_at(bound.query.source, offset, f"ORDER BY {name}: the MATCH_RECOGNIZE's output has no such column",
                   "its columns are " + ", ".join(bound.output_columns))


_AS_IS = frozenset({int, str, bool, type(None)})


def json_row(row: dict[str, Any]) -> dict[str, Any]:
    """The row's values as JSON values (values.py ``json_value``, which ints, strings, booleans and
    NULL pass unchanged: those skip the call)."""
    json_value, as_is = V.json_value, _AS_IS
    return {k: v if type(v) in as_is else json_value(v) for k, v in row.items()}
