"""NFA^b's entry in the planner's list (engine/engines/planner.py)."""
from __future__ import annotations

from engine.engines.spec import Drawing, EngineSpec, Lazy

ENGINE = EngineSpec(
    name="nfab",
    title="NFA^b (SASE+)",
    summary="SASE+ NFA^b with shared versioned buffer and run merging (all strategies)",
    factory="engine.engines.nfab.matcher:NfabMatcher",
    supports=Lazy("engine.engines.nfab.compiler:unsupported_reason"),
    counts_only=True,
    options=frozenset({"merge"}),
    drawing=Drawing(
        title="NFA^b (SASE+)",
        graph="engine.engines.nfab.graph:automaton_graph",
        cited_at="SASE+ §4",
        help=("NFA^b: a state per component (a pair `a[1] → a[i]` for Kleene +) and F. **begin** and "
              "**take** edges consume an event, **ignore** skips it (dashed), **proceed** (ε) moves on without "
              "consuming one. The strategy only changes the ignore formulas."),
        cited="SASE+",
        shown_formulas=True,
        own_moves=False,
        names_trace_states=True,
    ),
)
