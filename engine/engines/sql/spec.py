"""The SQL engines' entries in the planner's list (engine/engines/planner.py): the thread matcher
for MATCH_RECOGNIZE queries and its backtracking reference. Their factories take a query bound to
its table (engine/engines/sql/binding.py), not a studio pattern; ``language="sql"`` keeps them
apart from the pattern engines (each side refuses the other's input with the reason)."""
from __future__ import annotations

from engine.engines.spec import EngineSpec, Lazy

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
    drawing_refusal="the Automaton page does not draw MATCH_RECOGNIZE programs yet",
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
