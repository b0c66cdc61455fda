"""NFA^b, the SASE+ automaton with a shared versioned buffer (docs/papers.md, "SASE+ / NFA^b").

Modules, from the bottom up:

- ``compiler``: the pattern compiled into chains of states with begin/take/proceed formulas
  (``compile_pattern``, ``unsupported_reason``, the automaton graph's edge formulas).
- ``paths``: matches read from run paths (``PathIds``, ``PathMatch``).
- ``shared_buffer``: the shared versioned match buffer's ``Entry`` and a merged run's
  ``Member`` / ``Members``.
- ``runs``: ``Run`` and its value vector ``ValueVector``.
- ``edge_plans``: each chain compiled into closures over ``(V, event)``, V's columns and
  updates, and the step's ``StateStep`` per state (``ChainPlan``, ``compiled_chains``).
- ``trace``: NFA^b's side of the step trace.
- ``match_construction``: matches read back from the buffer, negation, de-duplication,
  NON_OVERLAP (``MatchConstruction``, a part of the matcher).
- ``matcher``: ``NfabMatcher``, the step, merging and housekeeping.
- ``graph``: the automaton the Automaton page draws; ``spec``: NFA^b's entry in the planner's
  list (``ENGINE``).
"""
