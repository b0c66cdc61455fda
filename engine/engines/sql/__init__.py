"""MATCH_RECOGNIZE (SQL:2016 row pattern recognition): the studio's SQL engine, one folder.

- lexer.py: the query's tokens with their offsets.
- row_pattern.py: the PATTERN tree (variables, concatenation, |, quantifiers greedy and reluctant,
  anchors, (), {- -}, PERMUTE) and its parser.
- query.py: the parsed query (clauses as written); parser.py: the clause parser (sqlglot reads
  the expressions); errors.py: line, column, caret and a suggestion.
- values.py: SQL values (NULL, exact integers, three-valued logic, CAST); functions.py: scalar
  functions and aggregates.
- frame.py: what an expression sees (rows, the labels so far, RUNNING / FINAL, the navigation's row);
  expressions.py: expressions compiled to functions of a frame, with what DEFINEs read of the history.
- binding.py: the query bound to the input's columns; partitions and ORDER BY.
- program.py: the pattern compiled for the thread matcher; matcher.py: threads in preference order
  (the production engine); oracle.py: backtracking in preferment order (the reference).
- search.py: row-by-row matching with AFTER MATCH SKIP; output.py: the output rows, SELECT and ORDER BY;
  run.py: a query over a table.
- trace.py: the step trace of a query (one step per search start, per row a search reads, per
  search result); trace_window.py: an untraced index of every search, from which any window of
  searches is traced alone (the Debug page and `cep trace --from/--to` on 100k rows);
  trace_breaks.py: `cep trace --break` for queries.
"""
