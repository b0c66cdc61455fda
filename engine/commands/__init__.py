"""The ``cep`` command: one module per subcommand, and what they share.

| module | what it holds |
|---|---|
| ``cli``          | ``main``: the shell (``COMMANDS``, one parser built per call, ``cep: message`` and the exit status) |
| ``check``, ``run``, ``trace``, ``explain``, ``samples``, ``serve``, ``stream`` | one subcommand each: ``add_parser`` and ``run`` |
| ``request``      | ``cep run``'s request (the pattern parsed once, the data resolved and mapped once), its flags and guard, the events of the data |
| ``run_matches``, ``run_aggregate``, ``run_intervals``, ``run_spark`` | the four paths ``cep run`` dispatches to: matches in process, AGG rows, interval signatures, Spark |
| ``errors``, ``stats`` | the one error translator and the one ``--stats`` line of every run path |
| ``arguments``    | ``CommandError``, the column-mapping flags, the pattern and data arguments |
| ``output``, ``output_paths`` | matches as ``table`` / ``jsonl`` / ``csv`` / ``count``; where ``--out`` may write |
"""
