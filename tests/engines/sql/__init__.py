"""Tests of the MATCH_RECOGNIZE engine (engine/engines/sql/).

- test_parser.py: the clause, the row pattern and the errors (line, column, caret, suggestion).
- test_semantics.py: preferment, navigation, RUNNING / FINAL, output modes, SKIP, WITHIN, by hand.
- test_engine_vs_oracle.py: the thread matcher equals the backtracking oracle on random queries and data.
- test_cli.py: cep run QUERY.sql, the JSON Lines contract and the other formats.
"""
