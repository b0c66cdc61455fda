"""A query bound to its input's columns: every name resolved, every expression compiled, every
rule of the clause checked (a DEFINE for a variable the pattern lacks, a subset of unknown
variables, SKIP TO a variable the pattern lacks, exclusion WITH UNMATCHED ROWS, ...)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.engines.sql.errors import error_at
from engine.engines.sql.expressions import Compiled, Needs, Scope, compile_expression
from engine.engines.sql.query import Query, SortKey
from engine.engines.sql.row_pattern import Exclusion, has


@dataclass
class BoundQuery:
    query: Query
    columns: list[str]                        # the input's columns, in order
    partition_by: list[str]
    order_by: list[tuple[str, bool, bool]]    # (column, descending, nulls_first)
    defines: dict[str, Compiled]              # variable -> condition (absent: always true)
    needs: Needs                              # the label history any DEFINE can read
    measures: list[tuple[str, Compiled]]
    output_columns: list[str]                 # the MATCH_RECOGNIZE's own output, before SELECT
    select: list[tuple[str, Compiled]] | None  # None: SELECT *
    time_column: str | None                   # WITHIN measures the first ORDER BY column
    members: dict[str, frozenset[str]] = field(default_factory=dict)  # variable or subset -> variables

    @property
    def variables(self) -> list[str]:
        return self.query.variables


def bind(query: Query, columns: list[str]) -> BoundQuery:
    src = query.source
    variables = query.variables

    def column(key: SortKey) -> str:
        for c in columns:
            if c == key.column or c.upper() == key.column.upper():
                return c
        import difflib
        close = difflib.get_close_matches(key.column, columns, n=1)
        raise error_at(src, key.offset, f"no column {key.column!r} in the input",
                       f"did you mean {close[0]}?" if close else "the columns are " + ", ".join(columns[:12]),
                       len(key.column))

    partition = [column(k) for k in query.partition_by]
    order = [(column(k), k.descending, k.nulls_first) for k in query.order_by]
    for name, members in query.subsets.items():
        if name in variables:
            raise error_at(src, 0, f"the subset {name} has the name of a pattern variable", "rename the subset")
        for m in members:
            if m not in variables:
                raise error_at(src, _find(src, "SUBSET"), f"the subset {name} names {m}, which the pattern lacks",
                               "the pattern variables are " + ", ".join(variables))
    for v, e in query.defines.items():
        if v not in variables:
            raise error_at(src, e.offset, f"DEFINE {v}: the pattern has no variable {v}",
                           "the pattern variables are " + ", ".join(variables) or "none")
    kind, target = query.after_match
    if target is not None and target not in variables and target not in query.subsets:
        raise error_at(src, query.after_match_offset, f"AFTER MATCH SKIP TO {target}: the pattern has no variable {target}",
                       "the pattern variables are " + ", ".join(variables))
    if query.empty_matches == "unmatched" and query.pattern is not None and has(query.pattern, Exclusion):
        raise error_at(src, _find(src, "UNMATCHED"), "exclusion {- -} cannot be used WITH UNMATCHED ROWS",
                       "drop the exclusion or show matched rows only (SQL:2016)")
    time_column = order[0][0] if query.within is not None else None
    needs = Needs()
    defines: dict[str, Compiled] = {}
    for v, e in query.defines.items():
        scope = Scope(src, columns, variables, query.subsets, "define", defining=v, running=True, needs=needs)
        defines[v] = compile_expression(e, scope)
    one_row = query.rows_per_match == "one"
    measures = []
    for m in query.measures:
        scope = Scope(src, columns, variables, query.subsets, "measure", running=not one_row)
        measures.append((m.name, compile_expression(m.expression, scope)))
    measure_names = [m.name for m in query.measures]
    if one_row:
        output = partition + measure_names
    else:
        used = set(partition) | {c for c, _, _ in order}
        output = partition + [c for c, _, _ in order if c not in partition] + measure_names + \
            [c for c in columns if c not in used]
    dupes = {c for c in output if sum(1 for d in output if d.upper() == c.upper()) > 1}
    if dupes:
        name = sorted(dupes)[0]
        raise error_at(src, _find(src, name), f"the output has two columns named {name}",
                       "rename the measure with AS")
    select = None
    if query.select is not None:
        quals = tuple(x.upper() for x in (query.alias, query.table) if x)
        select = []
        for item in query.select:
            assert item.expression is not None
            scope = Scope(src, output, [], {}, "select", qualifiers=quals)
            select.append((item.name, compile_expression(item.expression, scope)))
    members = {v: frozenset({v}) for v in variables}
    members.update({k: frozenset(v) for k, v in query.subsets.items()})
    return BoundQuery(query, columns, partition, order, defines, needs, measures, output, select, time_column,
                      members)


def _find(source: str, word: str) -> int:
    i = source.upper().find(word.upper())
    return max(i, 0)


def partitions(bound: BoundQuery, rows: list[dict[str, Any]]) -> list[tuple[tuple[Any, ...], list[dict[str, Any]]]]:
    """The rows by PARTITION BY key (in order of first appearance), each sorted by ORDER BY (ties
    keep the input order)."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    keys = bound.partition_by
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = []
    for key, part in groups.items():
        out.append((key, sort_rows(part, bound.order_by, bound.query.source)))
    return out


def sort_rows(rows: list[dict[str, Any]], order: list[tuple[str, bool, bool]], source: str) -> list[dict[str, Any]]:
    """A stable sort by the keys (NULLS LAST ascending, NULLS FIRST descending unless said)."""
    out = list(rows)
    for col, desc, nulls_first in reversed(order):
        null_rank = 2 if nulls_first == desc else 0

        def key(r: dict[str, Any], col: str = col, null_rank: int = null_rank) -> tuple[Any, ...]:
            v = r[col]
            return (null_rank,) if v is None else (1, v)
        try:
            out.sort(key=key, reverse=desc)
        except TypeError:
            kinds = sorted({type(r[col]).__name__ for r in rows if r[col] is not None})
            raise error_at(source, _find(source, col), f"the column {col} mixes {' and '.join(kinds)}: "
                           "its rows cannot be ordered", "give the column one type") from None
    return out
