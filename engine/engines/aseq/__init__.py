"""A-Seq: online aggregation of sequence patterns without building matches (Qi, Cao, Ray,
Rundensteiner, SIGMOD 2014; docs/papers.md, "A-Seq", which also lists the ambiguities A1-A17
cited in this package with the resolution each follows).

| module       | what it holds                                                              |
|--------------|----------------------------------------------------------------------------|
| ``values``   | ``AggRow`` (the output row), ``Val`` (an aggregate with ⊕ and ⊗), ``finish`` |
| ``plan``     | an AGG pattern compiled for A-Seq (positions, predicates, negation, HPC key) |
| ``prefix_tree`` | the counters' state: ``Node`` (PreTree), ``Channel``, ``QuerySpec``, ``Tree`` (one START), ``Snapshot`` (Chop-Connect), ``PartitionState``, ``GroupTotals``, ``ALL`` |
| ``counter_updates`` | ``CounterUpdates``: one event's in-place update of the counters (RR, Lemma 1, channels) |
| ``core``     | ``Counters``: prefix counters / PreTree per START (DPC, SEM, RR, Chop-Connect) |
| ``engine``   | ``AseqMatcher`` (``--engine aseq``), with the baseline fallback             |
| ``baseline`` | construct-then-aggregate: SASE stacks (§2.2) or another engine's matches    |
| ``workload`` | several queries: PreTree prefix sharing and Chop-Connect (§4)              |
| ``select``   | the planner's ``supports`` and the AGG choice (``auto`` -> ``aseq``)        |
| ``output``, ``row_sink`` | the rows as JSON Lines, CSV, Parquet, a table           |
| ``spec``     | the engines' entries in the planner's list: ``aseq``, ``aseq-baseline``     |

docs/semantics.md ("Aggregation (A-Seq)") is the exact meaning of the rows.
"""
