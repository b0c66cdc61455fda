"""Lessons: the course's lessons as files (``lessons/*.md``), and the exercises checked by the engine.

The API the Learn page builds on (docs/lessons.md describes the file format)::

    from engine.lessons import course, load_lesson, lesson_from_upload, check_predict, check_write, check_choose

    lessons = course("lessons")                 # list[Lesson], in course order
    lesson = lesson_from_upload(data, "mine.md")  # a teacher's upload; LessonError lists line-numbered problems
    lesson_events(lesson)                       # the stream as engine Events (the timeline)
    lesson_csv(lesson)                          # the stream as CSV text (the data to open in Debug)
    lesson_run(lesson)                          # RunOutcome: the lesson pattern's matches on its stream
    check_predict(lesson, 3)                    # a count; or clicked ids {1, 2, 6}; or matches [[1, 6], [3, 6]]
    check_write(lesson, text)                   # WriteResult: accepted, or the first differing match explained
    check_choose(lesson, "skip_till_next_match")  # ChooseResult: right or not, every option's run
    check_lesson(lesson)                        # what ``cep lesson check`` runs: list[Problem]

Modules: ``model`` (pydantic models, ``LessonError`` / ``Problem``), ``parse`` (files), ``streams``
(events, hidden variations), ``running`` (guarded runs), ``options`` (a choose option applied),
``checks`` (the three checks), ``selfcheck`` (a lesson against itself), ``sql`` (a lesson whose pattern
is a MATCH_RECOGNIZE query: its stream as a table, its matches as the variables' rows).
"""
from __future__ import annotations

from engine.lessons.checks import (ChooseResult, Feedback, OptionSummary, PredictResult, WriteResult, check_choose,
                                   check_predict, check_write, lesson_csv, lesson_events, lesson_run, option_runs)
from engine.lessons.model import (ChooseExercise, Exercise, GeneratorStream, InlineStream, Lesson, LessonError,
                                  PredictExercise, Problem, SampleStream, Variation, WriteExercise)
from engine.lessons.parse import course, lesson_from_upload, load_lesson, parse_lesson
from engine.lessons.running import Limits, RunOutcome, run_pattern
from engine.lessons.selfcheck import check_lesson

__all__ = ["course", "load_lesson", "parse_lesson", "lesson_from_upload", "check_predict", "check_write",
           "check_choose", "check_lesson", "lesson_events", "lesson_csv", "lesson_run", "option_runs", "run_pattern", "Limits",
           "RunOutcome", "Lesson", "LessonError", "Problem", "Exercise", "PredictExercise", "WriteExercise",
           "ChooseExercise", "InlineStream", "SampleStream", "GeneratorStream", "Variation", "PredictResult",
           "WriteResult", "ChooseResult", "OptionSummary", "Feedback"]
