"""The DSL lexer (engine/dsl/tokens.py): token kinds, line / column / offset bookkeeping,
comments and whitespace dropped, strategy names as one token, the eof token, and the two
refusals (an unexpected character, an over-long number literal) with their place."""
from __future__ import annotations

import pytest

from engine import expr as X
from engine.dsl.errors import DslError
from engine.dsl.tokens import Tok, tokenize


def kinds_texts(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text)]


def test_kinds_of_a_pattern_line() -> None:
    assert kinds_texts("PATTERN SEQ(A a, B+ b[])") == [
        ("name", "PATTERN"), ("name", "SEQ"), ("op", "("), ("name", "A"), ("name", "a"), ("op", ","),
        ("name", "B"), ("op", "+"), ("name", "b"), ("op", "["), ("op", "]"), ("op", ")"), ("eof", ""),
    ]


def test_positions_are_one_based_line_and_column_and_zero_based_offset() -> None:
    toks = tokenize("a.x\n  >= 12")
    assert [(t.text, t.line, t.col, t.pos) for t in toks] == [
        ("a", 1, 1, 0), (".", 1, 2, 1), ("x", 1, 3, 2), (">=", 2, 3, 6), ("12", 2, 6, 9), ("", 2, 8, 11),
    ]


def test_eof_token_of_empty_and_blank_text() -> None:
    assert [(t.kind, t.line, t.col, t.pos) for t in tokenize("")] == [("eof", 1, 1, 0)]
    assert [(t.kind, t.line, t.col, t.pos) for t in tokenize("\t\n\n  ")] == [("eof", 3, 3, 5)]


@pytest.mark.parametrize("comment", ["-- note", "# note", "// note"])
def test_comments_run_to_the_end_of_the_line(comment: str) -> None:
    toks = tokenize(f"a {comment} b c\nd")
    assert [(t.text, t.line) for t in toks[:-1]] == [("a", 1), ("d", 2)]


@pytest.mark.parametrize("text", ["skip-till-any-match", "Skip_Till_Next_Match", "STRICT-CONTIGUITY",
                                  "partition_contiguity"])
def test_strategy_names_are_one_token_in_any_case_and_separator(text: str) -> None:
    assert kinds_texts(text) == [("strategy", text), ("eof", "")]


def test_strategy_name_must_end_at_a_word_boundary() -> None:
    assert kinds_texts("strict_contiguityx")[0] == ("name", "strict_contiguityx")
    # with dashes, the word boundary fails, so it is a name and operators
    assert kinds_texts("strict-contiguityx")[:3] == [("name", "strict"), ("op", "-"), ("name", "contiguityx")]


@pytest.mark.parametrize("text", ["0", "12", "1.5", ".5", "1e3", "2.5E-7", ".5e+2"])
def test_number_literals(text: str) -> None:
    assert kinds_texts(text) == [("number", text), ("eof", "")]


def test_a_trailing_dot_is_not_part_of_a_number() -> None:
    assert kinds_texts("1.") == [("number", "1"), ("op", "."), ("eof", "")]


def test_two_character_operators_are_one_token() -> None:
    ops = [t.text for t in tokenize("== != <> <= >= .. < > = ( ) [ ] { } ! ~ ¬ ? : ; % / * + - , .")][:-1]
    assert ops == ["==", "!=", "<>", "<=", ">=", "..", "<", ">", "=", "(", ")", "[", "]", "{", "}", "!", "~",
                   "¬", "?", ":", ";", "%", "/", "*", "+", "-", ",", "."]


def test_range_operator_between_names() -> None:
    assert kinds_texts("b[..i-1]") == [("name", "b"), ("op", "["), ("op", ".."), ("name", "i"), ("op", "-"),
                                       ("number", "1"), ("op", "]"), ("eof", "")]


def test_strings_keep_their_quotes_and_escapes() -> None:
    toks = tokenize("'it\\'s' \"a\\\"b\"")
    assert [(t.kind, t.text) for t in toks[:-1]] == [("string", "'it\\'s'"), ("string", '"a\\"b"')]


def test_a_string_does_not_cross_a_line() -> None:
    with pytest.raises(DslError) as info:
        tokenize("x = 'ab\ncd'")
    assert "unexpected character" in info.value.message
    assert (info.value.line, info.value.column) == (1, 5)


def test_unexpected_character_names_the_character_and_place() -> None:
    with pytest.raises(DslError) as info:
        tokenize("a.x = 1\n  AND b @ c")
    err = info.value
    assert err.message == "unexpected character '@'"
    assert err.span == (2, 9, 1)
    assert err.source == "a.x = 1\n  AND b @ c"
    assert str(err).splitlines()[-1] == "  " + " " * 8 + "^"


def test_number_literal_length_limit() -> None:
    ok = "1" * X.MAX_NUMBER_LENGTH
    assert tokenize(ok)[0].kind == "number"
    too_long = "1" * (X.MAX_NUMBER_LENGTH + 1)
    with pytest.raises(DslError) as info:
        tokenize("x " + too_long)
    assert info.value.message == f"number literal longer than {X.MAX_NUMBER_LENGTH} characters"
    assert info.value.span == (1, 3, X.MAX_NUMBER_LENGTH + 1)


def test_tok_span_and_predicates() -> None:
    t = Tok("name", "where", 3, 4, 20)
    assert t.span == (3, 4, 5)
    assert Tok("eof", "", 1, 1, 0).span == (1, 1, 1)  # a span is at least one wide
    assert t.is_kw("WHERE", "AND") and not t.is_kw("AND")
    assert not t.is_op("where")
    op = Tok("op", "<=", 1, 1, 0)
    assert op.is_op("<", "<=") and not op.is_op("<") and not op.is_kw("<=")
    assert not Tok("string", "'AND'", 1, 1, 0).is_kw("'AND'")


def test_crlf_line_endings_count_lines() -> None:
    toks = tokenize("a\r\nb")
    assert [(t.text, t.line, t.col) for t in toks[:-1]] == [("a", 1, 1), ("b", 2, 1)]
