"""Match windows (Cadonna, Gamper, Böhlen, KDD 2012; docs/papers.md, "Match windows",
which also indexes the "notes §N" sections cited in this package).

Two-phase matching: buffer the events of a match window per partition key, filter them,
test the necessary match conditions with a summary statistic, and call a matcher A lazily,
once per complete candidate window.

| module       | what                                                                       | paper      |
|--------------|----------------------------------------------------------------------------|------------|
| ``analysis`` | properties θ^p_v, clauses and precedence, partition key, P', soundness      | §3, §4.3, Def. 6 |
| ``beta``     | β_e compiled per pattern, the filtering gate, the batch prefilter          | Thm 1, §4.5 |
| ``statistic``| counters, counted masks + epochs, bit vectors, the NMC verdict             | Thm 2, Def. 5, Thm 3 |
| ``algorithm``| Algorithm 1: filter, partition, evict, NMC, lazy call, drain; statistics   | §4.7       |
| ``spec``     | the engine's entry in the planner's list (``match-windows``)               |            |
| ``matcher``  | ``MatchWindowMatcher`` (engine ``match-windows``), the choice of A, ``--match-windows`` | Def. 4, §4.8 |
"""
