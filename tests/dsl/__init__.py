"""Tests of the pattern text language (engine/dsl/).

- test_parse_and_print.py: round trips, the papers' queries, syntax details, error messages.
- test_tokens.py: the lexer (token kinds, positions, comments, refusals).
- test_errors.py: DslError and render_error (head, hint, caret, the window of a long line).
- test_vocabulary.py: clause keywords, strategy / selection names, aggregate functions, time units.
- test_expressions.py: the token cursor, the predicate grammar, number literals and nesting limits.
- test_parser.py: the pattern grammar (items, clauses, parse, parse_expr, name_spans, prev).
- test_schema.py: check_schema's warnings and errors placed in the source text.
- test_printer.py: the model -> text side (component, item, window and pattern texts)."""
