"""The SQL engines' entries in the planner's list (engine/engines/planner.py): the thread matcher
for MATCH_RECOGNIZE queries and its backtracking reference. Their factories take a query bound to
its table (engine/engines/sql/binding.py), not a studio pattern; ``language="sql"`` keeps them
apart from the pattern engines (each side refuses the other's input with the reason)."""
from __future__ import annotations

from engine.engines.spec import Drawing, EngineSpec, Lazy

NOT_SQL = "runs MATCH_RECOGNIZE queries (SQL) only, not studio patterns"

ENGINE = EngineSpec(
    name="sql",
    title="MATCH_RECOGNIZE (threads in preference order)",
    summary="SQL:2016 MATCH_RECOGNIZE: threads in preference order, merged where no DEFINE tells them apart",
    factory="engine.engines.sql.matcher:ThreadMatcher",
    supports=Lazy("engine.engines.sql.spec_support:supports"),
    language="sql",
    incremental=False,
    stream_refusal="MATCH_RECOGNIZE runs over a finite table here (cep run QUERY.sql --data FILE)",
    spark="keyed",  # each PARTITION BY key's rows in one task (engine/spark/sql_query.py)
    drawing=Drawing(
        title="MATCH_RECOGNIZE program",
        graph="engine.engines.sql.graph:automaton_graph",
        help=("The row pattern compiled for the thread matcher: a state per place a variable labels a row, "
              "**take** edges label the next row as a variable when its DEFINE holds, **proceed** (ε) ends the "
              "match. The edges out of a state are numbered in preference order: greedy quantifiers try one "
              "more row first, reluctant ones stop first, alternation tries its left branch first."),
        cited="SQL:2016",
        own_moves=False,
    ),
    trace_note="",
)

ORACLE = EngineSpec(
    name="sql-oracle",
    title="MATCH_RECOGNIZE oracle (backtracking)",
    summary="SQL:2016 MATCH_RECOGNIZE by backtracking in preferment order (small inputs only)",
    factory="engine.engines.sql.oracle:OracleMatcher",
    supports=Lazy("engine.engines.sql.spec_support:supports"),
    language="sql",
    reference=True,
    incremental=False,
    stream_refusal="the oracle enumerates labellings over a finite table",
    spark=None,
    spark_refusal="the oracle is for small inputs, in process",
    drawing_refusal="the oracle enumerates labellings; it runs no automaton",
)
