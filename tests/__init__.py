"""The test suite. Its folders mirror the code, so the tests of a module sit beside its path:

- ``engine/X/...`` -> ``tests/X/`` (``engine/engines/nfab/matcher.py`` -> ``tests/engines/nfab/``,
  ``engine/commands/output.py`` -> ``tests/commands/test_output.py``; folders: ``engines/<name>/``,
  ``commands/``, ``dsl/``, ``events/``, ``explain/``, ``spark/``);
- ``engine/X.py`` -> ``tests/test_X.py`` (what spans the whole engine, below);
- ``app/`` -> ``tests/app/`` (AppTest), its browser tests in ``tests/app/browser/``;
- ``visualizers/`` -> ``tests/visualizers/``; ``sample_streams/`` -> ``tests/sample_streams/``;
- hostile inputs through the whole house -> ``tests/fuzz/``.

Each folder's ``__init__`` lists its test modules. At this level:

- test_model.py: the pattern model (engine/model.py) and the partition key (engine/partition.py).
- test_run_choice.py: one matcher choice for run, trace and explain (engine/run_choice.py).
- test_trace.py: the step trace (engine/trace.py), faithful and well-formed for every engine.
- test_guard.py: the state guard on every engine (engine/match.py's StateExplosion).
- test_guard_hooks.py: the run guard inside each engine's long steps (engine/memory.py's hooks).
- test_memory.py: the run guard itself (engine/memory.py's MemoryGuard).
- test_json_text.py: exact JSON text (engine/json_text.py).
- test_alternatives.py: ``?``, ``*`` and OR as alternatives (engine/alternatives.py).
- test_bindings.py: WHERE conjuncts on complete bindings (engine/bindings.py).
- test_exact_numbers.py: exact numbers or a clear refusal, from reading to writing.

Shared helpers (imported as ``tests.<name>``):

- support.py: the ``cep`` runner ``run(capsys, *argv)``, ``stream("a1@1 b2")``, match-id helpers.
- strategies.py: hypothesis strategies for patterns and streams.
- aseq_util.py: A-Seq's expected rows from the oracle's matches.
- app_support.py: AppTest helpers; browser_support.py: the app under ``streamlit run`` and chromium.
- conftest.py: the Spark session fixtures (for every folder) and ``no_spark_warmup``.
- queries/: the papers' queries; data/: hostile files.
- untested_modules.py: ``python -m tests.untested_modules`` lists the modules of engine/ and
  visualizers/ that no test module imports directly.
"""
