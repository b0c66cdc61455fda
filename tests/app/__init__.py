"""Tests of the Streamlit app (app/): each page under Streamlit's AppTest, and the app's server side.
The Spark warm-up is off in these modules (the ``no_spark_warmup`` fixture of tests/conftest.py).

- test_pages.py: every page, what a person sees after clicking and typing.
- test_aggregate.py: the Aggregate page (app/aggregate.py).
- test_automaton.py: the Automaton page, every engine drawn or refused with its reason.
- test_debug.py: the Debug and Learn pages (app/debug.py, app/learn.py).
- test_uncertain.py: the Uncertain time page (app/uncertain.py).
- test_windows.py: the match-window views on the Debug and Learn pages (app/windows_panels.py).
- test_hostile.py: a hostile pattern and CSV on every page, shown literally.
- test_run_guard.py: the Run page refuses what ``cep run`` refuses and stops at its time limit.
- test_schema_check.py: Debug, Automaton, Learn and Aggregate check the pattern against the data.
- test_server.py: data directory, uploads, sessions, guarded runs (app/runner.py, app/uploads.py,
  app/sessions.py, app/jobs.py) and ``cep serve``'s settings.
- test_state.py: app/state.py's commit refuses a model the DSL cannot print.
- browser/: the same pages in Debian's chromium under ``streamlit run``."""
