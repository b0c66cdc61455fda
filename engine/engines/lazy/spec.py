"""The lazy engines' entries in the planner's list (engine/engines/planner.py): the lazy tree and chain
NFAs of Kolchinsky & Schuster and their eager baseline, which share one ``supports``."""
from __future__ import annotations

from engine.engines.spec import Drawing, EngineSpec, Lazy

SUPPORTS = Lazy("engine.engines.lazy.chain_compiler:unsupported_reason")
ANY_ONLY = frozenset({"skip_till_any_match"})
CITED = "Kolchinsky & Schuster"

TREE = EngineSpec(
    name="lazy-tree",
    title="lazy tree NFA",
    summary=("lazy Tree NFA (Kolchinsky & Schuster §7): takes the rarest remaining variable first, by live buffer "
             "counts; needs no frequencies"),
    factory="engine.engines.lazy.tree_matcher:LazyTreeMatcher",
    supports=SUPPORTS,
    strategies=ANY_ONLY,
    output_all_only=True,
    trace_note=("Lazy tree NFA (Kolchinsky & Schuster §7): events are buffered per variable; each partial match "
                "takes next the variable whose buffer is smallest (the rarest), so no rates are needed."),
    drawing=Drawing(
        title="Lazy tree NFA (rarest remaining type first)",
        graph="engine.engines.lazy.graph:tree_graph",
        cited_at="Kolchinsky & Schuster §7",
        help=("Lazy tree NFA: from the root, each state takes whichever remaining "
              "variable has the fewest buffered events (`isMin`), so the order adapts while the stream runs; "
              "Kleene variables come last (**iterate**). **R** drops partial matches whose window closed."),
        cited=CITED,
    ),
)

CHAIN = EngineSpec(
    name="lazy-chain",
    title="lazy chain NFA",
    summary=("lazy (Multi-)Chain NFA (Kolchinsky & Schuster §4-§5): evaluation in ascending frequency order "
             "(given rates, or estimated from a prefix of the stream)"),
    factory="engine.engines.lazy.chain_matcher:LazyChainMatcher",
    supports=SUPPORTS,
    strategies=ANY_ONLY,
    output_all_only=True,
    takes_rates=True,
    prefer_with_rates=True,
    feeds_many=True,  # a fixed-length SEQ goes the columnar way (columnar.py) when fed in chunks
    counts_only=True,  # ... and is then only counted for `--format count`
    trace_note=("Lazy chain NFA (Kolchinsky & Schuster §3, §4.1): events are buffered per variable and partial "
                "matches are built in ascending frequency order{order}"),
    drawing=Drawing(
        title="Lazy chain NFA (evaluation in ascending frequency)",
        graph="engine.engines.lazy.graph:chain_graph",
        ordered_graph="engine.engines.lazy.graph:chain_graph_in_order",
        cited_at="Kolchinsky & Schuster §4-§5",
        help=("Lazy chain NFA: states q1 … qn take the variables in ascending "
              "frequency (rarest first; pattern order while the rates are unknown). Events of later variables "
              "are **stored** in buffers and taken from there; a state only takes from the stream when no later "
              "variable must precede it. **R** drops a partial match whose window closed (**timeout**) or that "
              "met a negated event."),
        cited=CITED,
    ),
)

EAGER = EngineSpec(
    name="eager",
    title="eager NFA",
    summary="eager NFA baseline with the lazy engines' semantics (skip_till_any_match)",
    factory="engine.engines.lazy.eager_matcher:EagerMatcher",
    supports=SUPPORTS,
    strategies=ANY_ONLY,
    output_all_only=True,
    trace_buffers=False,
    trace_note=("The eager NFA buffers nothing: every event is applied on arrival to every partial match, in the "
                "pattern's order, and each take clones the instance (Kolchinsky & Schuster §2.1). Its partial "
                "matches are the runs listed beside; compare the lazy chain on the Learn page."),
    drawing=Drawing(
        title="Eager NFA (every event on arrival, pattern order)",
        graph="engine.engines.lazy.graph:eager_graph",
        cited_at="Kolchinsky & Schuster §2.2",
        help=("Eager NFA, the baseline of the lazy engines: every event is applied "
              "on arrival, in pattern order; a state is the set of variables bound so far (`q{c,p}`). A **take** "
              "clones the partial match and the **ignore** loop keeps the original, so partial matches live "
              "until their window closes (**timeout** → R)."),
        cited=CITED,
    ),
)
