"""The brute-force reference semantics (docs/semantics.md), the ground truth of the tests.

| module | what it holds |
|---|---|
| ``oracle`` | ``run``: every match by enumeration (guarded: ``OracleTooLarge``), the selections by definition, ``OracleMatcher`` (``--engine oracle``) |
| ``spec``   | the engine's entry in the planner's list |
"""
