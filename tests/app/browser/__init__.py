"""Browser tests of the app: ``streamlit run`` driven by Playwright with Debian's chromium,
loopback only (fixtures in tests/browser_support.py; marked ``browser``).

- test_app.py: Home, Design and Run end to end (this module's app warms up Spark).
- test_aggregate.py, test_automaton.py, test_debug.py, test_uncertain.py, test_windows.py: one page each.
- test_hostile.py: a hostile pattern and data file on every page.
- test_server.py: the app as a server (loopback, memory back after sessions close, Stop, ten sessions)."""
