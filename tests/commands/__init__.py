"""Tests of the ``cep`` commands (engine/commands/).

- test_cli.py: ``cep`` end to end: check, run (every format, engines, errors), samples.
- test_floor.py: ``cep run`` parses once and resolves the data once; one error translator, one
  ``--stats`` line; one module per subcommand (run.py, request.py, errors.py, stats.py).
- test_output.py: engine/commands/output.py: match_json, format_matches, MatchWriter in every format.
- test_guards.py: every ``cep`` path guarded (memory, batches, time limit, state guard) and dispatched.
- test_input_safety.py: no crash from a file, no input destroyed (output paths, JSON depth, ``cep stream``).
- test_streaming_io.py: reading in batches, streamed output, stops with messages (engine/commands/run*.py).
- test_run_aggregate.py: ``cep run`` for AGG patterns and workloads (engine/commands/run_aggregate.py).
- test_run_intervals.py: ``cep run`` on interval data (engine/commands/run_intervals.py)."""
