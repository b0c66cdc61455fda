"""The model of a lesson: its stream, its pattern, its exercise, its hints and texts.

A lesson file (``lessons/*.md``, docs/lessons.md) is parsed by ``engine.lessons.parse`` into
a :class:`Lesson`. Every model here is a frozen pydantic model; a file that does not fit one
is a :class:`LessonError` naming the file, the line and what was expected.
"""
from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["LessonError", "Problem", "InlineStream", "SampleStream", "GeneratorStream", "StreamSpec",
           "Variation", "PredictExercise", "WriteExercise", "ChooseExercise", "Exercise", "Lesson",
           "EXERCISE_KINDS", "CHOOSE_AXES", "CHOOSE_ASKS", "PREDICT_ASKS"]

EXERCISE_KINDS = ("predict", "write", "choose")
#: what a choose exercise's options vary: the strategy, the window, the engine, or whole patterns
CHOOSE_AXES = ("strategy", "window", "engine", "pattern")
#: what a choose exercise asks for: the option that gives the stated count / matches, or the
#: option whose run creates the fewest / most partial runs, or finds the most / fewest matches
CHOOSE_ASKS = ("count", "matches", "fewest_runs", "most_runs", "most_matches", "fewest_matches")
#: what a predict exercise asks: the number of matches, the matches (events clicked on the
#: timeline), or the aggregate value of an AGG pattern's last row
PREDICT_ASKS = ("count", "matches", "value")


class Problem(BaseModel):
    """One problem of a lesson file: where (``file``, 1-based ``line``, None when the whole
    file is meant) and what was expected."""

    model_config = ConfigDict(frozen=True)

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


class LessonError(ValueError):
    """A lesson file that cannot be used: ``problems`` lists each one with its file and line."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @property
    def first(self) -> Problem:
        return self.problems[0]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class InlineStream(_Frozen):
    """Rows written in the file as CSV (a header line, then one event a line). ``first_line``
    is the file line of the header, so that a row's problem names its file line."""

    kind: Literal["rows"] = "rows"
    csv: str
    first_line: int = 1


class SampleStream(_Frozen):
    """A sample of ``sample_streams`` (``cep samples``), its first ``limit`` events."""

    kind: Literal["sample"] = "sample"
    sample: str
    limit: int | None = Field(default=None, ge=1)


class GeneratorStream(_Frozen):
    """A generator of ``sample_streams.generators`` with its seed and size (number of rows)
    and further keyword options (numbers, text or lists of those only)."""

    kind: Literal["generator"] = "generator"
    generator: str
    seed: int = 0
    size: int = Field(ge=1, le=200)
    options: dict[str, Any] = Field(default_factory=dict)


StreamSpec = Union[InlineStream, SampleStream, GeneratorStream]


class Variation(_Frozen):
    """A hidden variation of the lesson's stream for a write exercise: another ``seed`` of the
    generator, and/or the values of the ``shuffle`` attributes shuffled among the events, and/or
    ``drop`` events left out (chosen by ``seed``), and/or ``reverse`` attributes' values reversed."""

    seed: int = 0
    generator_seed: int | None = None
    shuffle: tuple[str, ...] = ()
    drop: int = Field(default=0, ge=0)
    line: int | None = None

    def label(self) -> str:
        """A short plain description, e.g. ``shuffled price (seed 3), 2 events dropped``."""
        parts = []
        if self.generator_seed is not None:
            parts.append(f"generated with seed {self.generator_seed}")
        if self.shuffle:
            parts.append(f"{', '.join(self.shuffle)} shuffled (seed {self.seed})")
        if self.drop:
            parts.append(f"{self.drop} event{'s' if self.drop != 1 else ''} dropped (seed {self.seed})")
        return "; ".join(parts) or "the lesson's stream"


class PredictExercise(_Frozen):
    """Predict what the pattern finds: ``ask`` is ``count``, ``matches`` or ``value`` (an AGG
    pattern's last row). ``count`` / ``matches`` / ``value``, when the file states them, are
    checked against the run by ``cep lesson check``; the answer is always the run's."""

    kind: Literal["predict"] = "predict"
    ask: Literal["count", "matches", "value"] = "count"
    question: str = ""
    count: int | None = Field(default=None, ge=0)
    matches: tuple[dict[str, tuple[Any, ...]], ...] | None = None
    value: Any = None


class WriteExercise(_Frozen):
    """Write a pattern that finds what ``reference`` finds on the lesson's stream and on every
    hidden ``variations`` stream. ``reference_line``: the file line of the reference's first line."""

    kind: Literal["write"] = "write"
    question: str = ""
    reference: str
    reference_line: int | None = None
    start: str = ""
    variations: tuple[Variation, ...] = ()


class ChooseExercise(_Frozen):
    """Choose the option that gives what is asked. ``axis``: what the options vary on the lesson's
    pattern (a strategy name, a window such as ``5 s`` / ``3 events`` / ``none``, an engine
    name, or a whole pattern); ``asks``: see ``CHOOSE_ASKS``; ``answer``: the right option."""

    kind: Literal["choose"] = "choose"
    question: str
    axis: Literal["strategy", "window", "engine", "pattern"]
    options: tuple[str, ...] = Field(min_length=2)
    answer: str
    asks: Literal["count", "matches", "fewest_runs", "most_runs", "most_matches", "fewest_matches"] = "count"
    count: int | None = Field(default=None, ge=0)
    matches: tuple[dict[str, tuple[Any, ...]], ...] | None = None


Exercise = Union[PredictExercise, WriteExercise, ChooseExercise]


class Lesson(_Frozen):
    """One lesson: ``id`` (a short name for links), ``title``, ``order`` in the course, the
    ``stream``, the ``pattern`` (DSL text, or a MATCH_RECOGNIZE query; ``pattern_line`` its first
    line in the file), the
    ``engine`` / ``match_windows`` it runs with, the ``exercise``, ``hints``, the lesson
    ``text`` (markdown), the ``explanation`` shown after the answer and ``papers`` (the
    optional "In the papers" section). ``source``: the file name or upload name."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")
    title: str = Field(min_length=1)
    order: int
    stream: StreamSpec = Field(discriminator="kind")
    pattern: str
    pattern_line: int | None = None
    engine: str = "auto"
    match_windows: Literal["auto", "on", "off"] = "auto"
    exercise: Exercise = Field(discriminator="kind")
    hints: tuple[str, ...] = ()
    text: str = ""
    explanation: str = ""
    papers: str = ""
    source: str = "<lesson>"
    header_lines: dict[str, int] = Field(default_factory=dict)

    def line_of(self, key: str) -> int | None:
        """The file line of a header key (``exercise.answer``, ``pattern``), or None."""
        return self.header_lines.get(key)
