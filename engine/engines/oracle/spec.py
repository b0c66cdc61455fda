"""The oracle's entry in the planner's list (engine/engines/planner.py): the brute-force reference every
matcher is checked against."""
from __future__ import annotations

from engine.engines.spec import ALL_SELECTIONS, EngineSpec, Lazy

ENGINE = EngineSpec(
    name="oracle",
    title="oracle (brute force)",
    summary="brute-force reference semantics (small inputs only)",
    factory="engine.engines.oracle.oracle:OracleMatcher",
    supports=Lazy("engine.engines.oracle.oracle:supports"),
    selections=ALL_SELECTIONS,
    reference=True,
    incremental=False,
    stream_refusal=("the oracle reports matches only at the end of the stream; use an incremental engine "
                    "(--engine nfab or auto) with cep stream"),
    trace_note="The oracle enumerates matches at the end of the stream: its trace has no runs or buffers.",
    drawing_refusal="the oracle enumerates the matches of the semantics; it runs no automaton",
)
