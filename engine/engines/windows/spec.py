"""Match windows' entry in the planner's list (engine/engines/planner.py): Algorithm 1 of the
match-windows paper around a matcher A (the SES automaton, or another engine)."""
from __future__ import annotations

from engine.engines.spec import ALL_SELECTIONS, EngineSpec, Lazy

ENGINE = EngineSpec(
    name="match-windows",
    title="match windows",
    summary=("match windows (Algorithm 1): filter, partition, necessary conditions, then the SES automaton (or "
             "another engine) called lazily once per candidate window"),
    factory="engine.engines.windows.matcher:MatchWindowMatcher",
    supports=Lazy("engine.engines.windows.matcher:supports"),
    selections=ALL_SELECTIONS,
    strategies=frozenset({"skip_till_any_match"}),
    output_all_only=True,
    feeds_many=True,
    drawn_as="ses",
)
