"""The SES automaton's entry in the planner's list (engine/engines/planner.py): event-set patterns, all
matches or the earliest / maximal ones per start event."""
from __future__ import annotations

from engine.engines.spec import ALL_SELECTIONS, Drawing, EngineSpec, Lazy

ENGINE = EngineSpec(
    name="ses",
    title="event sets (SES)",
    summary=("SES automaton (match-windows §4.8): states (i, S) over event sets, all matches or earliest/maximal "
             "ones per start event"),
    factory="engine.engines.ses.matcher:SesMatcher",
    supports=Lazy("engine.engines.ses.compiler:unsupported_reason"),
    selections=ALL_SELECTIONS,
    strategies=frozenset({"skip_till_any_match"}),
    output_all_only=True,
    drawing=Drawing(
        title="Event-set automaton (SES)",
        graph="engine.engines.ses.graph:automaton_graph",
        cited_at="Cadonna et al., as the match-windows paper §4.8 uses it",
        help=("SES automaton: a pattern is a sequence of "
              "event sets; a state `(i,S)` says set i is being filled and S of its variables are bound. An "
              "instance **begin**s at every event that fits a variable of the first set, **take**s the variables "
              "of the current set in any order (a clone; the original **skip**s), **iterate**s a Kleene variable, "
              "and on a complete set takes the **next set**'s first variable; it **expire**s when the window "
              "closes. With `earliest`/`maximal` the matches of each start event are selected when its window "
              "closes."),
        cited="the match-windows paper §4.8",
        states={"initial": ("(1,{})", "no variable bound: every event that fits a variable of the first set starts "
                                      "an instance"),
                "state": ("(i,S)", "event set i is being filled and S holds its variables bound so far; the sets "
                                   "before i are complete"),
                "final": ("(k,Bk)", "accepting: the last set is complete; a match is reported (after the "
                                    "conditions that need the whole binding)"),
                "reject": ("R", "the instance is dropped: its window closed")},
    ),
)
