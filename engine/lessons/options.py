"""A choose exercise's option applied to the lesson: the pattern and engine it runs with.

``strategy``: the lesson's pattern under another selection strategy; ``window``: with another
window (``5 s``, ``3 events``, ``10`` in the time column's unit, or ``none``); ``engine``: the
lesson's pattern on another engine; ``pattern``: the option is a whole pattern.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.lessons.model import ChooseExercise, Lesson
from engine.model import Pattern

__all__ = ["OptionError", "OptionRun", "apply_option", "option_run"]


class OptionError(ValueError):
    """An option that is not a strategy / window / engine / pattern that exists."""


@dataclass(frozen=True)
class OptionRun:
    """What one option runs: the pattern (model and text) and the engine."""

    option: str
    pattern: Pattern
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
    from engine.model import Strategy
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
