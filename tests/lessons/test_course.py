"""Every lesson file of the repository loads, and its reference answers itself: ``cep lesson check``
run in-process on all of them, and the API called on each."""
from __future__ import annotations

import json

import pytest

from engine.commands.cli import main
from engine.lessons import (ChooseExercise, PredictExercise, WriteExercise, check_choose, check_lesson, check_predict,
                            check_write, course, lesson_run, load_lesson)
from tests.lessons.support import LESSONS

FILES = sorted(LESSONS.glob("*.md"))


def test_the_course_has_12_to_15_lessons_in_order_with_every_exercise_kind():
    lessons = course(LESSONS)
    assert 12 <= len(lessons) <= 15
    assert [x.order for x in lessons] == sorted(x.order for x in lessons)
    assert len({x.id for x in lessons}) == len(lessons)
    kinds = {x.exercise.kind for x in lessons}
    assert kinds == {"predict", "write", "choose"}
    assert lessons[0].id == "events-and-streams"
    for lesson in lessons:
        assert lesson.hints, lesson.source
        assert lesson.explanation, lesson.source
        assert len(lesson.text.splitlines()) <= 40, lesson.source  # one screen
        from engine.lessons import lesson_events

        assert len(lesson_events(lesson)) <= 30, lesson.source


def test_cep_lesson_check_passes_on_every_file(capsys):
    assert main(["lesson", "check", *map(str, FILES)]) == 0
    out = capsys.readouterr().out
    assert f"{len(FILES)} of {len(FILES)} lesson files pass" in out


def test_cep_lesson_check_json_on_the_folder(capsys):
    assert main(["lesson", "check", str(LESSONS), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True and len(doc["files"]) == len(FILES)
    assert all(f["ok"] and f["problems"] == [] for f in doc["files"])


def test_cep_lesson_list_prints_the_course_order(capsys):
    assert main(["lesson", "list", str(LESSONS)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(FILES)
    assert lines[0].startswith(" 1. Events and streams")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_lesson_answers_itself_through_the_api(path):
    lesson = load_lesson(path)
    assert check_lesson(lesson) == []
    ex = lesson.exercise
    run = lesson_run(lesson)
    assert run.ok, run.error
    if isinstance(ex, PredictExercise):
        if run.rows is not None:
            assert check_predict(lesson, run.rows[-1].value).correct
        else:
            assert check_predict(lesson, len(run.matches)).correct
            groups = [[i for ids in m.values() for i in ids] for m in run.match_dicts()]
            assert check_predict(lesson, groups).correct
    elif isinstance(ex, WriteExercise):
        assert check_write(lesson, ex.reference).accepted
    elif isinstance(ex, ChooseExercise):
        assert check_choose(lesson, ex.answer).correct
        for option in ex.options:
            if option != ex.answer:
                assert not check_choose(lesson, option).correct


def test_the_strategies_lesson_gives_2_2_3_68():
    lesson = load_lesson(LESSONS / "07-strategies.md")
    result = check_choose(lesson, "skip_till_any_match")
    assert not result.correct
    assert [s.count for s in result.options] == [2, 2, 3, 68]
    assert result.right == ["skip_till_next_match"]
    assert "68 matches" in result.message


def test_the_aggregation_lesson_gives_the_prefix_counts_3_then_6():
    lesson = load_lesson(LESSONS / "13-aggregation.md")
    assert [r.value for r in lesson_run(lesson).rows] == [3, 6]
    assert check_predict(lesson, [3, 6]).correct
    wrong = check_predict(lesson, 4)
    assert not wrong.correct and "the last value is 6" in wrong.message


def test_the_imprecise_lesson_reports_two_signatures_of_confidence_two_and_one_thirds():
    from fractions import Fraction

    lesson = load_lesson(LESSONS / "12-imprecise-timestamps.md")
    run = lesson_run(lesson)
    assert run.engine.startswith("uncertain")
    assert {m.bindings: m.confidence for m in run.matches} == {
        (("a", (1,)), ("b", (2,))): Fraction(2, 3), (("a", (3,)), ("b", (4,))): Fraction(1, 3)}


def test_the_evaluation_order_lesson_lazy_creates_fewer_runs():
    lesson = load_lesson(LESSONS / "11-evaluation-order.md")
    result = check_choose(lesson, "nfab")
    runs = {s.option: s for s in result.options}
    assert runs["lazy-chain"].runs_created < runs["nfab"].runs_created
    assert runs["lazy-chain"].count == runs["nfab"].count == 11
    assert not result.correct and "partial runs" in result.message


def test_the_docs_show_a_whole_lesson_file_of_the_course():
    docs = (LESSONS.parent / "docs" / "lessons.md").read_text(encoding="utf-8")
    example = (LESSONS / "02-seq-and-variables.md").read_text(encoding="utf-8")
    assert example in docs


def test_what_the_lesson_texts_say_about_other_patterns_holds():
    """Numbers a lesson's text gives for a pattern other than its own, run here."""
    from engine.dsl import parse
    from engine.lessons import lesson_events, run_pattern

    partitions = load_lesson(LESSONS / "05-partitions.md")
    assert "there would be 10" in partitions.explanation
    assert len(run_pattern(parse("PATTERN SEQ(Login l, Buy b)"), lesson_events(partitions)).matches) == 10
    overlap = load_lesson(LESSONS / "10-non-overlap.md")
    assert "`OUTPUT ALL` reports 3 + 10 = 13" in overlap.explanation
    text = overlap.pattern.replace("OUTPUT NON_OVERLAP", "")
    assert len(run_pattern(parse(text), lesson_events(overlap)).matches) == 13
    and_or = load_lesson(LESSONS / "09-and-or.md")
    assert run_pattern(parse(and_or.exercise.reference), lesson_events(and_or)).match_dicts() == [
        {"p": [1], "k": [2], "s": [4]}, {"p": [5], "k": [3], "s": [6]}]
