"""Lessons whose pattern is a MATCH_RECOGNIZE query: the course's lesson checks itself, a query
that does not parse names its file line, and a written query is checked like a pattern."""
from __future__ import annotations

from engine.lessons import LessonError, check_choose, check_lesson, check_predict, check_write, lesson_run, \
    load_lesson, parse_lesson
from tests.lessons.support import LESSONS

LESSON = LESSONS / "15-match-recognize.md"


def _lesson():
    return load_lesson(LESSON)


def test_the_match_recognize_lesson_checks_itself():
    lesson = _lesson()
    assert check_lesson(lesson) == []
    assert lesson_run(lesson).match_dicts() == [{"STRT": [1], "DOWN": [2, 3]}, {"STRT": [5], "DOWN": [6, 7, 8]},
                                                 {"STRT": [9], "DOWN": [10]}]
    assert check_predict(lesson, 3).correct


def test_the_reference_finds_the_two_v_shapes_the_explanation_names():
    lesson = _lesson()
    from engine.lessons.checks import _parse
    from engine.lessons.running import run_pattern
    from engine.lessons import lesson_events

    found = run_pattern(_parse(lesson.exercise.reference), lesson_events(lesson)).match_dicts()
    assert found == [{"STRT": [1], "DOWN": [2, 3], "UP": [4, 5]}, {"STRT": [6], "DOWN": [7, 8], "UP": [9]}]


def test_an_equivalent_query_is_accepted():
    lesson = _lesson()
    same = lesson.exercise.reference.replace("price < PREV(price)", "PREV(price) > price") \
        .replace("MEASURES FIRST(STRT.price) AS start_price, LAST(DOWN.price) AS bottom", "MEASURES MATCH_NUMBER() AS m")
    result = check_write(lesson, same)
    assert result.accepted, result.message
    assert result.streams_checked == 1 + len(lesson.exercise.variations)


def test_a_query_fitted_to_the_lessons_stream_is_rejected_on_a_hidden_variation():
    lesson = _lesson()
    fitted = lesson.exercise.reference.replace("UP AS price > PREV(price)", "UP AS price > PREV(price) AND ts < 10")
    result = check_write(lesson, fitted)
    assert not result.accepted
    assert result.variation is not None  # it agrees on the lesson's own stream
    assert result.side == "reference" and result.difference is not None
    assert "UP" in result.difference.events


def test_a_different_query_is_rejected_on_the_lessons_stream_with_the_first_difference():
    lesson = _lesson()
    result = check_write(lesson, lesson.pattern)
    assert not result.accepted and result.variation is None
    assert result.difference.events == {"STRT": [1], "DOWN": [2, 3]} and result.side == "yours"


def test_a_written_query_that_does_not_parse_gives_its_line_and_column():
    lesson = _lesson()
    result = check_write(lesson, "SELECT * FROM t MATCH_RECOGNIZE (\n  ORDER BY ts\n  PATTERN (A B+\n  DEFINE B AS price < 1)")
    assert not result.accepted and result.line == 4 and result.column == 3


def test_a_pattern_is_refused_where_a_query_is_asked():
    result = check_write(_lesson(), "PATTERN SEQ(Tick a, Tick b)")
    assert not result.accepted and "MATCH_RECOGNIZE" in result.message


def _file_with(old: str, new: str) -> str:
    text = LESSON.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_a_broken_query_names_the_file_line():
    text = _file_with("  PATTERN (STRT DOWN+)\n", "  PATTERN (STRT DOWN+\n")
    try:
        parse_lesson(text, "broken.md")
    except LessonError as err:
        first = err.first
    else:
        raise AssertionError("a broken query must not load")
    assert first.file == "broken.md"
    assert first.line == _line_of(text, "  DEFINE DOWN AS price < PREV(price)\n".strip())
    assert "pattern does not parse" in first.message


def test_a_query_naming_a_missing_column_names_the_file_line():
    text = _file_with("  ORDER BY ts\n  MEASURES FIRST(STRT.price) AS start_price, LAST(DOWN.price) AS bottom\n"
                      "  PATTERN (STRT DOWN+)", "  ORDER BY tstamp\n  MEASURES FIRST(STRT.price) AS start_price\n"
                      "  PATTERN (STRT DOWN+)")
    try:
        parse_lesson(text, "column.md")
    except LessonError as err:
        first = err.first
    else:
        raise AssertionError("a query on a missing column must not load")
    assert first.line == _line_of(text, "ORDER BY tstamp") and "tstamp" in first.message


def test_a_query_with_its_own_values_is_refused():
    text = _file_with("FROM ticks MATCH_RECOGNIZE", "FROM (VALUES (1, 2)) AS t(ts, price) MATCH_RECOGNIZE")
    try:
        parse_lesson(text, "values.md")
    except LessonError as err:
        assert any("VALUES" in p.message for p in err.problems)
    else:
        raise AssertionError("a query with its own table must not load")


def test_a_predict_and_a_choose_exercise_on_a_query():
    text = LESSON.read_text(encoding="utf-8")
    header_end = text.index("[exercise]")
    body = text[text.index("+++", header_end):]
    predict = text[:header_end] + ('[exercise]\nkind = "predict"\nask = "matches"\n'
                                   'matches = [{STRT = [1], DOWN = [2, 3]}, {STRT = [5], DOWN = [6, 7, 8]}, '
                                   '{STRT = [9], DOWN = [10]}]\n') + body
    lesson = parse_lesson(predict, "predict.md")
    assert check_lesson(lesson) == []
    assert check_predict(lesson, [[1, 2, 3], [5, 6, 7, 8], [9, 10]]).correct
    wrong = check_predict(lesson, [[1, 2, 3], [4, 5]])
    assert not wrong.correct and wrong.wrong and wrong.missed
    v_shape = ("SELECT * FROM ticks MATCH_RECOGNIZE ( ORDER BY ts MEASURES MATCH_NUMBER() AS m "
               "PATTERN (STRT DOWN+ UP+) DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price) )")
    falls = " ".join(lesson.pattern.split())
    choose = text[:header_end] + ('[exercise]\nkind = "choose"\nquestion = "Which finds 2 matches?"\n'
                                  f'axis = "pattern"\noptions = ["{falls}", "{v_shape}"]\nanswer = "{v_shape}"\n'
                                  'asks = "count"\ncount = 2\n') + body
    lesson = parse_lesson(choose, "choose.md")
    assert check_lesson(lesson) == []
    assert check_choose(lesson, v_shape).correct and not check_choose(lesson, falls).correct
