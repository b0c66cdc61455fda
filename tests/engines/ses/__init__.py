"""Tests of the SES automaton (engine/engines/ses/).

- test_matcher.py: states (i, S), the lazy call A(P, W), selected matches, the step trace and the guard.
- test_selections_in_dsl.py: the selections in the model and the DSL, refused by the other engines.
- test_graph.py: the SES automaton drawing (engine/engines/ses/graph.py).
- test_event_sets.py: the event-set analysis (θ^p_v, compiled properties, SES shape) the engines share."""
