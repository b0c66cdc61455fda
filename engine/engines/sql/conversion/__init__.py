"""Conversions between the studio's patterns, MATCH_RECOGNIZE, Flink SQL and FlinkCEP Java, where the
meaning is exactly equal (docs/conversion.md); everything else is refused by the construct's name.

- refusals.py: :class:`ConversionError` (construct, target language, why, where).
- sql_text.py: SQL identifiers and literals, the canonical text of a sqlglot expression.
- studio_shape.py: which studio patterns have an exact MATCH_RECOGNIZE form (sequences under
  contiguity whose every match is fixed by its first row) and where each conjunct belongs.
- to_sql.py: studio pattern -> MATCH_RECOGNIZE; to_dsl.py: MATCH_RECOGNIZE -> studio pattern.
- query_text.py: a parsed query as canonical MATCH_RECOGNIZE text.
- flink_sql.py: Flink 2.3 SQL, its refusals and the warnings where its rows differ.
- flink_java.py (with java_support.py): a FlinkCEP Pattern API program.
"""
