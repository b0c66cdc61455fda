"""The engines, one folder each, and the planner's list of them (docs/engines.md).

| module / folder | what it holds |
|---|---|
| ``spec``       | ``EngineSpec`` (what an engine declares: factory, ``supports``, data kind, selections, abilities, drawing), ``Drawing``, ``Lazy`` |
| ``planner``    | ``SPECS``, every engine in auto's order of preference; ``choose``, ``reasons``, ``make_matcher`` |
| ``graph_columns`` | the drawing attribute the automaton exports share (a state's column) |
| ``nfab/``      | SASE+ NFA^b (``nfab``) |
| ``lazy/``      | the lazy tree and chain NFAs and the eager baseline (``lazy-tree``, ``lazy-chain``, ``eager``) |
| ``ses/``       | the SES automaton (``ses``), earliest / maximal selections, the event-set analysis |
| ``windows/``   | match windows, Algorithm 1 (``match-windows``) |
| ``uncertain/`` | imprecise timestamps (``uncertain-event``, ``uncertain-point``, ``uncertain-oracle``) |
| ``aseq/``      | A-Seq aggregation (``aseq``, ``aseq-baseline``) |
| ``oracle/``    | the brute-force reference semantics (``oracle``) |

Each folder's ``spec.py`` imports no engine code, so importing the planner loads no engine.
"""
