"""Pattern matching over events with imprecise timestamps (Zhang, Diao, Immerman, VLDB 2010;
docs/papers.md, "Imprecise timestamps"; docs/semantics.md,
"Imprecise timestamps").

| module        | what it holds (the paper's sections where it has them)                      |
|---------------|-------------------------------------------------------------------------------|
| ``pmf``       | ``IEvent``: integer interval and exact pmf weights; the pmf column (model)    |
| ``query``     | the supported pattern subset, predicates per component (language)            |
| ``result``    | ``UncertainMatch``: (signature, range, confidence) (semantics)                |
| ``oracle``    | the possible-worlds semantics by enumeration, exact, guarded (semantics)      |
| ``bounds``    | valid intervals: the fixpoint, the paper's three passes (§4.1)                |
| ``confidence``| Eq. 1–3, the windowed DP, the union form for case 2 (§3, §4.1, App. C.4)      |
| ``index``     | events seen so far; NELT and spoiler lookups (§3)                             |
| ``common``    | arrival, ``U_max``, frontier, finalisation and emission (model; derived)      |
| ``point``     | the point-based framework (§3, App. B)                                        |
| ``event``     | the event-based framework: any-state, sorted, selectivity (§4, App. C)        |
| ``explain``   | per-signature explanations for the Uncertain time page                        |
| ``automaton``, ``graph`` | what the two frameworks run, as a graph the Automaton page draws |
| ``spec``      | the engines' entries in the planner's list                                    |

Docstrings in this package cite the implementation notes on the paper by section ("notes §3.6")
and resolution number; docs/papers.md, "Imprecise timestamps", indexes both.

The engines are ``uncertain-event`` (``auto`` on interval data), ``uncertain-point`` and
``uncertain-oracle`` (``spec``); the selections earliest / maximal live in engine/engines/ses/.
"""
