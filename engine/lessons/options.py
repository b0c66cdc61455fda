"""A choose exercise's option applied to the lesson: the pattern and engine it runs with.

``strategy``: the lesson's pattern under another selection strategy; ``window``: with another
window (``5 s``, ``3 events``, ``10`` in the time column's unit, or ``none``); ``engine``: the
lesson's pattern on another engine; ``pattern``: the option is a whole pattern.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.lessons.model import ChooseExercise, Lesson
from engine.model import Pattern

__all__ = ["OptionError", "OptionRun", "apply_option", "option_run"]


class OptionError(ValueError):
    """An option that is not a strategy / window / engine / pattern that exists."""


@dataclass(frozen=True)
class OptionRun:
    """What one option runs: the pattern (model and text) and the engine."""

    option: str
    pattern: Pattern | Any  # a MATCH_RECOGNIZE query: engine.lessons.sql.LessonQuery
    text: str
    engine: str


def apply_option(lesson: Lesson, option: str) -> OptionRun:
    """The run of ``option`` of the lesson's choose exercise (``OptionError`` says why not)."""
    ex = lesson.exercise
    if not isinstance(ex, ChooseExercise):
        raise OptionError("the lesson's exercise is not a choose exercise")
    return option_run(ex, lesson.pattern, lesson.engine, option)


def option_run(ex: ChooseExercise, pattern_text: str, engine: str, option: str) -> OptionRun:
    """``apply_option`` for an exercise, the lesson's pattern text and engine."""
    from engine.dsl import DslError, parse, to_text
    from engine.lessons.sql import is_query
    from engine.model import Strategy
    if is_query(pattern_text) or (ex.axis == "pattern" and is_query(option)):
        return _query_option(ex, pattern_text, engine, option)
    if ex.axis == "pattern":
        try:
            pattern = parse(option)
        except DslError as err:
            raise OptionError(f"does not parse: {err.message}") from None
        return OptionRun(option, pattern, option, engine)
    base = parse(pattern_text)
    if ex.axis == "engine":
        from engine.engines.planner import engine_names

        if option not in engine_names():
            raise OptionError(f"unknown engine; the engines are {', '.join(engine_names())}")
        return OptionRun(option, base, pattern_text, option)
    if ex.axis == "strategy":
        names = [s.value for s in Strategy]
        if option not in names:
            raise OptionError(f"not a strategy; the strategies are {', '.join(names)}")
        pattern = base.model_copy(update={"strategy": Strategy(option)})
    else:
        if option.strip().lower() in ("none", "no window"):
            pattern = base.model_copy(update={"window": None})
        else:
            try:
                window = parse(f"PATTERN SEQ(A a) WITHIN {option}").window
            except DslError as err:
                raise OptionError(f"not a window such as 5 s, 3 events or none: {err.message}") from None
            pattern = base.model_copy(update={"window": window})
    try:
        text = to_text(pattern)
        pattern = parse(text)  # validated again as a whole
    except DslError as err:
        raise OptionError(f"the pattern with it is refused: {err.message}") from None
    return OptionRun(option, pattern, text, engine)


def _query_option(ex: ChooseExercise, pattern_text: str, engine: str, option: str) -> OptionRun:
    """An option of a lesson whose pattern is a MATCH_RECOGNIZE query: a whole query (axis
    ``pattern``) or a SQL engine (axis ``engine``); a query has no strategy or window to vary."""
    from engine.dsl import DslError
    from engine.engines.planner import choose_query
    from engine.lessons.sql import is_query, parse_query_text
    from engine.match import EngineUnsupported

    if ex.axis == "pattern":
        if not is_query(option):
            raise OptionError("the lesson's pattern is a query: each option must be a query too")
        try:
            return OptionRun(option, parse_query_text(option), option, engine)
        except DslError as err:
            raise OptionError(f"does not parse: {err.message}") from None
    if ex.axis != "engine":
        raise OptionError(f"a query has no {ex.axis} to change: its PATTERN, DEFINE and AFTER MATCH SKIP say it all; "
                          "use options that are whole queries (axis pattern)")
    try:
        choose_query(option)
    except (EngineUnsupported, KeyError, ValueError) as err:
        raise OptionError(f"cannot run a query: {err}") from None
    try:
        return OptionRun(option, parse_query_text(pattern_text), pattern_text, option)
    except DslError as err:
        raise OptionError(f"the lesson's query does not parse: {err.message}") from None
