"""``cep lesson check``'s second half: a lesson that loads is run against itself.

- predict: the lesson's pattern runs; a count, matches or value the file states equal the run's;
- write: the reference runs and is accepted against itself on the lesson's stream and on every
  hidden variation (each variation builds);
- choose: every option runs, and the stated answer is the only option that gives what is asked.
"""
from __future__ import annotations

import json
from typing import Any

from engine.lessons.model import ChooseExercise, Lesson, PredictExercise, Problem, WriteExercise
from engine.lessons.running import DEFAULT_LIMITS, Limits

__all__ = ["check_lesson"]


def _p(lesson: Lesson, key: str, message: str) -> Problem:
    return Problem(file=lesson.source, line=lesson.line_of(key) or lesson.line_of("exercise"), message=message)


def _canon(ms: Any) -> list[str]:
    return sorted(json.dumps({v: list(ids) for v, ids in m.items()}, sort_keys=True, default=str) for m in ms)


def check_lesson(lesson: Lesson, limits: Limits = DEFAULT_LIMITS) -> list[Problem]:
    """The problems found by running the lesson's reference answers (none: the lesson is sound)."""
    from engine.lessons.checks import _right, check_write, lesson_run, option_runs
    from engine.lessons.streams import StreamProblem

    ex = lesson.exercise
    run = lesson_run(lesson, limits)
    if not run.ok:
        return [_p(lesson, "pattern", f"the pattern cannot run on the stream: {run.error}")]
    problems: list[Problem] = []
    if isinstance(ex, PredictExercise):
        n = len(run.rows) if run.rows is not None else len(run.matches)
        if ex.ask == "value" and run.rows is None:
            problems.append(_p(lesson, "exercise.ask", "ask = \"value\" needs an AGG pattern"))
        if ex.ask != "value" and run.rows is not None:
            problems.append(_p(lesson, "exercise.ask", "an AGG pattern's exercise asks for its value: ask = \"value\""))
        if ex.count is not None and ex.count != n:
            problems.append(_p(lesson, "exercise.count", f"the file states {ex.count} matches; the engine finds {n}"))
        if ex.matches is not None and run.rows is None:
            found = run.match_dicts()
            if _canon(ex.matches) != _canon(found):
                shown = "; ".join(" ".join(f"{v}={ids}" for v, ids in m.items()) for m in found[:6])
                problems.append(_p(lesson, "exercise.matches", f"the stated matches differ from the engine's: it "
                                   f"finds {len(found)}" + (f" ({shown})" if found else "")))
        if ex.value is not None and run.rows is not None:
            last = run.rows[-1].value if run.rows else None
            if last != ex.value:
                problems.append(_p(lesson, "exercise.value", f"the file states the value {ex.value!r}; the engine's "
                                   f"last row has {last!r}"))
        if ex.ask == "matches" and run.rows is None and not run.matches:
            problems.append(_p(lesson, "exercise.ask", "the pattern finds no match to click on"))
    elif isinstance(ex, WriteExercise):
        try:
            result = check_write(lesson, ex.reference, limits)
        except StreamProblem as err:
            return problems + [Problem(file=lesson.source, line=err.line, message=err.message)]
        if not result.accepted:
            problems.append(_p(lesson, "exercise.reference", f"the reference does not answer itself: {result.message}"
                               + (f" ({result.error})" if result.error else "")))
    elif isinstance(ex, ChooseExercise):
        runs = option_runs(lesson, limits)
        for option, r in runs:
            if not r.ok:
                problems.append(_p(lesson, "exercise.options", f"option {option!r} cannot run: {r.error}"))
        right = _right(ex, runs)
        if right != [ex.answer]:
            got = ", ".join(f"{o}: {len(r.rows) if r.rows is not None else len(r.matches)} matches, "
                            f"{r.stats.get('runs_created', 0)} runs" for o, r in runs)
            problems.append(_p(lesson, "exercise.answer",
                               (f"the options that give what is asked are {', '.join(map(repr, right))}" if right
                                else "no option gives what is asked")
                               + f", not only the answer {ex.answer!r} ({got})"))
    return problems
