"""The SES automaton (Cadonna et al., as the match-windows paper §4.8 uses it): event-set
patterns, all matches or the earliest / maximal ones per start event.

| module | what it holds |
|---|---|
| ``event_sets`` | the event-set analysis SES and match windows share: the sets B1..Bk, the WHERE conjuncts of one variable |
| ``compiler``   | ``SesAutomaton``: states (i, S), variables, the conditions that need the whole binding |
| ``moves``      | the runtime's moves as a graph (begin, take, skip, iterate, next set, expire) |
| ``selection``  | earliest / maximal matches per start event (the fast form of the oracle's definition) |
| ``matcher``    | ``SesMatcher`` (``--engine ses``) and its side of the step trace |
| ``graph``      | the automaton the Automaton page draws |
| ``spec``       | the engine's entry in the planner's list |
"""
