"""The lazy chain / tree NFA engines and the eager NFA baseline they are measured against
(Kolchinsky & Schuster, arXiv 1612.05110; docs/papers.md, "Lazy chain / tree NFA").

Compilers (pattern -> automaton, no runtime state):

- ``chain_compiler``: pattern analysis (variables, DNF clauses, conditions, negations) and
  the lazy chain NFA (evaluation order from rates, steps, First-Chance / Post-Processing).
- ``tree_compiler``: the lazy tree NFA (tree variables, edges per bound set, Kleene tail).
- ``eager_compiler``: the eager NFA drawn as an automaton.
- ``graph``: the three automata as graphs for the Automaton and Debug pages.
- ``spec``: the engines' entries (``TREE``, ``CHAIN``, ``EAGER``) in the planner's list.

Runtime, from the bottom up:

- ``buffers``: ``EventBuffer``, a per-variable chronological buffer searched by range.
- ``instances``: ``Instance`` (a partial match) and the bound-position helpers.
- ``conditions``: conditions and unary filters compiled into closures.
- ``emission``: the compiled match binder for one-event-per-variable patterns.
- ``compiled_steps``: ``VariableRuntime``, ``CompiledNegation``, ``CompiledStep``,
  ``CompiledChain``, which steps' buffer searches can find anything.
- ``trace``: the step trace side (called only with a tracer).
- ``base``: ``LazyBase``, the state the lazy engines and eager share (buffers, negation,
  emission, guard, statistics).
- ``chain_steps``: ``ChainStepRunner``, entering states, takes, iterate, waiting lists.
- ``chain_matcher``: ``LazyChainMatcher``, the lazy (Multi-)Chain NFA.
- ``columnar``: the chain's columnar path: a fixed-length SEQ fed in chunks (``feed_many``,
  ``feed_columns``), evaluated as window joins over numpy arrays; counted without building
  matches for ``--format count``.
- ``tree_matcher``: ``CompiledTree`` and ``LazyTreeMatcher``, the lazy (Multi-)Tree NFA.
- ``eager_matcher``: ``EagerMatcher``, the eager NFA baseline.

Nothing is imported here: callers import the modules.
"""
