"""Apache Flink as a second opinion on MATCH_RECOGNIZE queries.

``runner`` (imported by the studio, never imports pyflink) runs ``driver`` (a standalone
script for the ``.venv-flink`` interpreter) in a subprocess; see ``docs/flink.md``.
"""
