"""The imprecise-timestamps engines' entries in the planner's list (engine/engines/planner.py): interval
data only, under the possible-worlds semantics (Zhang et al.)."""
from __future__ import annotations

from engine.engines.spec import Drawing, EngineSpec, Lazy

SUPPORTS = Lazy("engine.engines.uncertain.query:unsupported_reason")
STRATEGIES = frozenset({"skip_till_any_match", "skip_till_next_match"})
CITED = "Zhang et al."

EVENT = EngineSpec(
    name="uncertain-event",
    title="imprecise timestamps, event-based",
    menu_title="event-based (auto)",
    summary=("event-based framework (Zhang et al. §4): runs over whole interval events with valid intervals, "
             "exact confidence by DP; results as soon as final"),
    factory="engine.engines.uncertain.event:EventBasedMatcher",
    supports=SUPPORTS,
    data="interval",
    strategies=STRATEGIES,
    output_all_only=True,
    options=frozenset({"u_max", "pmf", "mode"}),
    drawing=Drawing(
        title="Uncertain, event-based (runs over intervals)",
        graph="engine.engines.uncertain.graph:event_based_graph",
        cited_at="Zhang et al. §4",
        help=("Event-based evaluation over uncertainty intervals: runs hold whole events and a "
              "*valid interval* per component, shrunk by order and window. Any-state: a run is any set of filled "
              "components `q{S}`, so events may arrive out of time order; sorted (exclusive components): events "
              "wait in a reorder buffer and extend prefixes. Runs are **prune**d against the frontier F' (TTL, "
              "gap); a complete run is a signature, **emit**ted at once (skip_till_any_match) or after it "
              "**wait**s for its spoilers (skip_till_next_match, NELT)."),
        cited=CITED,
        states={"initial": ("start", "no run yet: an arriving interval event begins runs"),
                "state": ("q{S}", "a run with one event per component in S and a valid interval [lo, hi] for each"),
                "final": ("F", "a complete run: a signature with its valid intervals"),
                "reject": ("R", "the run or signature is dropped (pruned by TTL or gap, NELT, or confidence 0)")},
    ),
)

POINT = EngineSpec(
    name="uncertain-point",
    title="imprecise timestamps, point-based",
    menu_title="point-based",
    summary=("point-based framework (Zhang et al. §3): every instant of an interval as a point event, "
             "skip_till_any_match over points, NELT, match collapsing"),
    factory="engine.engines.uncertain.point:PointBasedMatcher",
    supports=SUPPORTS,
    data="interval",
    strategies=STRATEGIES,
    output_all_only=True,
    options=frozenset({"u_max", "pmf"}),
    drawing=Drawing(
        title="Uncertain, point-based (a point NFA, then collapsing)",
        graph="engine.engines.uncertain.graph:point_based_graph",
        cited_at="Zhang et al. §3",
        help=("Point-based evaluation over uncertainty intervals: every instant t of an "
              "interval becomes a point `e^t`, released in time order behind the frontier F; a "
              "skip_till_any_match NFA over points (id check, window, and NELT for skip_till_next_match) builds "
              "point matches, which are **collapse**d per signature into (signature, range, confidence)."),
        cited=CITED,
        states={"initial": ("a", "waits for a point of the first component's events"),
                "state": ("x", "a point run that waits for a point of component x"),
                "final": ("F", "a point match: one instant per event, in strict order, within the window"),
                "reject": ("R", "the point run or signature is dropped (window passed, or confidence 0)")},
    ),
)

ORACLE = EngineSpec(
    name="uncertain-oracle",
    title="imprecise timestamps, possible worlds (oracle)",
    menu_title="possible-worlds oracle",
    summary="possible-worlds semantics by enumeration (small inputs only)",
    factory="engine.engines.uncertain.oracle:UncertainOracleMatcher",
    supports=SUPPORTS,
    data="interval",
    options=frozenset({"pmf", "max_worlds"}),
    reference=True,
    incremental=False,
    stream_refusal=("the possible-worlds oracle reports signatures only at the end of the stream; use "
                    "uncertain-event"),
    drawing_refusal="the possible-worlds oracle enumerates every world; it runs no automaton",
)
