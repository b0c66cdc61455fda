"""Errors of the DSL (engine/dsl/errors.py): :class:`DslError` keeps the source, line and
column, and :func:`render_error` writes the head (place, message, hint), the offending line
and a caret under the span; a long line is shown as a window around the caret."""
from __future__ import annotations

from engine.dsl.errors import SHOWN_LINE, DslError, render_error
from engine.model import PatternError


def test_head_only_without_a_span() -> None:
    assert render_error("the pattern is empty", None, "") == "the pattern is empty"
    assert render_error("bad", None, "x", "a hint") == "bad (a hint)"


def test_did_you_mean_hint_follows_a_semicolon_other_hints_go_in_parentheses() -> None:
    src = "PATTERN SEQ(A a)\nWITHN 3"
    assert render_error("unknown clause", (2, 1, 5), src, "did you mean `WITHIN`?").splitlines()[0] == \
        "line 2, column 1: unknown clause; did you mean `WITHIN`?"
    assert render_error("unknown clause", (2, 1, 5), src, "use WITHIN").splitlines()[0] == \
        "line 2, column 1: unknown clause (use WITHIN)"


def test_caret_under_the_span_of_the_right_line() -> None:
    src = "PATTERN SEQ(A a)\nWHERE a.x > 1\nWITHN 3"
    assert render_error("oops", (3, 1, 5), src) == "line 3, column 1: oops\n  WITHN 3\n  ^^^^^"
    assert render_error("oops", (2, 7, 3), src) == "line 2, column 7: oops\n  WHERE a.x > 1\n        ^^^"


def test_caret_width_is_clamped_to_the_rest_of_the_line() -> None:
    assert render_error("m", (1, 2, 10), "abc").splitlines()[2] == "   ^^"
    # a place past the end of the line still gets one caret at that column
    assert render_error("m", (1, 10, 3), "abc").splitlines()[2] == "  " + " " * 9 + "^"
    assert render_error("m", (1, 1, 0), "abc").splitlines()[2] == "  ^"


def test_a_line_outside_the_source_shows_an_empty_line() -> None:
    assert render_error("m", (5, 1, 1), "abc") == "line 5, column 1: m\n  \n  ^"
    assert render_error("m", (1, 1, 1), "") == "line 1, column 1: m\n  \n  ^"


def long_line(caret_at: int, length: int = 300) -> str:
    """A line of ``length`` characters with ``XYZ`` starting at the 1-based column ``caret_at``."""
    return "a" * (caret_at - 1) + "XYZ" + "b" * (length - caret_at - 2)


def shown(out: str) -> tuple[str, str]:
    _, line, caret = out.split("\n")
    return line[2:], caret[2:]


def test_long_line_is_a_window_around_the_caret_in_the_middle() -> None:
    line, caret = shown(render_error("m", (1, 200, 3), long_line(200)))
    # start = 199 - 100 // 3 = 166: "..." + 100 characters + "..."
    assert line == "..." + long_line(200)[166:266] + "..."
    assert len(line) == SHOWN_LINE + 6
    assert caret == " " * 36 + "^^^"
    assert line[36:39] == "XYZ"


def test_long_line_near_its_start_has_no_leading_ellipsis() -> None:
    line, caret = shown(render_error("m", (1, 5, 3), long_line(5)))
    assert line == long_line(5)[:SHOWN_LINE] + "..."
    assert caret == "    ^^^" and line[4:7] == "XYZ"


def test_long_line_near_its_end_has_no_trailing_ellipsis() -> None:
    src = long_line(298)
    line, caret = shown(render_error("m", (1, 298, 3), src))
    assert line == "..." + src[200:]
    assert line[caret.index("^"):][:3] == "XYZ" and caret.count("^") == 3


def test_a_line_of_exactly_the_shown_width_is_not_cut() -> None:
    src = long_line(50, SHOWN_LINE)
    line, _ = shown(render_error("m", (1, 50, 3), src))
    assert line == src


def test_dsl_error_fields_and_str() -> None:
    err = DslError("bad thing", (2, 3, 1), "ab\ncdef", "did you mean `x`?")
    assert isinstance(err, PatternError)
    assert (err.message, err.span, err.hint, err.source, err.line, err.column) == \
        ("bad thing", (2, 3, 1), "did you mean `x`?", "ab\ncdef", 2, 3)
    assert str(err) == "line 2, column 3: bad thing; did you mean `x`?\n  cdef\n    ^"


def test_dsl_error_without_a_span() -> None:
    err = DslError("the pattern is empty", None, "", "start with `PATTERN SEQ(...)`")
    assert err.line is None and err.column is None
    assert str(err) == "the pattern is empty (start with `PATTERN SEQ(...)`)"
