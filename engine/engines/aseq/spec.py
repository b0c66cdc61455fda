"""A-Seq's entries in the planner's list (engine/engines/planner.py): AGG patterns, aggregated without
building matches, and the construct-then-aggregate baseline. For an AGG pattern the planner asks
``choose_aggregate`` (engine/engines/aseq/select.py) before its preference walk."""
from __future__ import annotations

from engine.engines.spec import EngineSpec, Lazy

SUPPORTS = Lazy("engine.engines.aseq.select:supports")
CHOOSE = Lazy("engine.engines.aseq.select:choose_aggregate")
NO_DRAWING = ("A-Seq keeps prefix counters per START event instead of runs; the Aggregate page animates them")

ENGINE = EngineSpec(
    name="aseq",
    title="A-Seq (aggregates without matches)",
    summary=("A-Seq (Qi et al. §3): AGG patterns without building matches: prefix counters per START event, "
             "negation recount, hashed partitions, exact SUM/AVG/MIN/MAX; falls back to aseq-baseline (with "
             "the reason) for what needs the matches"),
    factory="engine.engines.aseq.engine:AseqMatcher",
    supports=SUPPORTS,
    aggregate=True,
    drawing_refusal=NO_DRAWING,
)

BASELINE = EngineSpec(
    name="aseq-baseline",
    title="A-Seq baseline (matches, then AGG)",
    summary=("construct-then-aggregate (Qi et al. §2): SASE stacks build every match, then aggregate "
             "(NFA^b's matches for Kleene, AND/OR, other strategies)"),
    factory="engine.engines.aseq.baseline:BaselineMatcher",
    supports=SUPPORTS,
    aggregate=True,
    drawing_refusal="the baseline builds every match on SASE stacks, then aggregates them; it is drawn as NFA^b",
)
