"""Reading a lesson file: a TOML header between ``+++`` lines, then the lesson's markdown.

::

    +++
    id = "seq-variables"
    title = "SEQ and variables"
    order = 2
    pattern = '''
    PATTERN SEQ(A a, B b)
    '''

    [stream]
    rows = '''
    id,type,ts
    1,A,1
    2,B,2
    '''

    [exercise]
    kind = "predict"
    ask = "count"
    +++
    The lesson's text (markdown) ...

    ## Hints
    - first hint
    - second hint

    ## Explanation
    Shown once the exercise is answered.

    ## In the papers
    Optional.

The header is read with the standard library's ``tomllib`` (no code in it is ever run). Every
problem names the file, its line and what was expected: an unknown key (with the nearest
known one), a value of the wrong kind, a pattern that does not parse (the pattern's own line
and column mapped to the file's line), an unknown sample or generator, a bad inline row.
Checks that need a run (a stated answer, the reference on its variations) are
``engine.lessons.selfcheck``'s.
"""
from __future__ import annotations

import difflib
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.lessons.model import (CHOOSE_AXES, EXERCISE_KINDS, ChooseExercise, GeneratorStream, InlineStream,
                                  Lesson, LessonError, PredictExercise, Problem, SampleStream, Variation,
                                  WriteExercise)

__all__ = ["parse_lesson", "load_lesson", "course", "lesson_from_upload", "DELIMITER", "MAX_FILE_CHARS"]

DELIMITER = "+++"
MAX_FILE_CHARS = 100_000

_TOP = {"id", "title", "order", "pattern", "engine", "match_windows", "hints", "stream", "exercise"}
_STREAM = {"rows", "sample", "limit", "generator", "seed", "size", "options"}
_EXERCISE = {
    "predict": {"kind", "ask", "question", "count", "matches", "value"},
    "write": {"kind", "question", "reference", "start", "variations"},
    "choose": {"kind", "question", "axis", "options", "answer", "asks", "count", "matches"},
}
_VARIATION = {"seed", "generator_seed", "shuffle", "drop"}
_SECTIONS = {"hints": "hints", "hint": "hints", "explanation": "explanation", "in the papers": "papers"}
_KEY = re.compile(r"""^\s*("?)([A-Za-z0-9_.-]+)\1\s*=""")
_TABLE = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$")
_MULTI_OPEN = re.compile(r"""=\s*('''|\"\"\")\s*$""")


class _Reader:
    """Collects the problems of one file; ``line(key)`` is a header key's file line."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}
        self.header_start = 0  # file line of the opening +++
        self.header_end = 0

    def add(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(file=self.name, line=line, message=message))

    def line(self, key: str, default: int | None = None) -> int | None:
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key.rpartition(".")[0]
        return default if default is not None else (self.header_start or None)

    def fail(self) -> LessonError:
        return LessonError(self.problems)


def _split(r: _Reader) -> tuple[str, str, int]:
    """(header text, body text, file line of the body's first line)."""
    lines = r.text.splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        r.add(None, "the file is empty: a lesson starts with a header between +++ lines")
        raise r.fail()
    if lines[first].strip() != DELIMITER:
        r.add(first + 1, f"expected the header's opening line +++ here, found {lines[first].strip()[:40]!r}")
        raise r.fail()
    close = next((i for i in range(first + 1, len(lines)) if lines[i].strip() == DELIMITER), None)
    if close is None:
        r.add(first + 1, "the header opened here is never closed: add a line +++ after it")
        raise r.fail()
    r.header_start, r.header_end = first + 1, close + 1
    return "\n".join(lines[first + 1:close]), "\n".join(lines[close + 1:]), close + 2


def _index_keys(r: _Reader, header: str) -> None:
    """The file line of every ``key =`` and ``[table]`` of the header (``table.key``; arrays
    of tables as ``table.N.key``)."""
    table = ""
    counts: dict[str, int] = {}
    in_multi: str | None = None
    for i, ln in enumerate(header.splitlines()):
        number = r.header_start + 1 + i
        if in_multi:
            if ln.count(in_multi) % 2 == 1:
                in_multi = None
            continue
        m = _TABLE.match(ln)
        if m:
            name = m.group(2)
            if m.group(1) == "[[":
                counts[name] = counts.get(name, -1) + 1
                name = f"{name}.{counts[name]}"
            table = name
            r.lines.setdefault(table, number)
            continue
        m = _KEY.match(ln)
        if m:
            key = f"{table}.{m.group(2)}" if table else m.group(2)
            r.lines.setdefault(key, number)
            if _MULTI_OPEN.search(ln):
                in_multi = _MULTI_OPEN.search(ln).group(1)  # type: ignore[union-attr]
                r.lines.setdefault(key + "#text", number + 1)
            else:
                r.lines.setdefault(key + "#text", number)


def _unknown(r: _Reader, where: str, keys: dict[str, Any], known: set[str]) -> None:
    for key in keys:
        if key not in known:
            near = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
            full = f"{where}.{key}" if where else key
            place = f" in [{where}]" if where else " in the header"
            r.add(r.line(full), f"unknown key {key!r}{place}"
                  + (f"; did you mean {near[0]!r}?" if near else f"; the keys are {', '.join(sorted(known))}"))


def _body(r: _Reader, body: str, first_line: int) -> dict[str, Any]:
    """The lesson's text and its sections (hints as a list)."""
    parts: dict[str, list[str]] = {"text": [], "hints": [], "explanation": [], "papers": []}
    current = "text"
    for ln in body.splitlines():
        m = re.match(r"^##\s+(.+?)\s*#*\s*$", ln)
        if m and m.group(1).strip().lower() in _SECTIONS:
            current = _SECTIONS[m.group(1).strip().lower()]
            continue
        parts[current].append(ln)
    hints: list[str] = []
    for ln in parts["hints"]:
        s = ln.strip()
        if s.startswith(("- ", "* ")):
            hints.append(s[2:].strip())
        elif s and hints:
            hints[-1] += " " + s
        elif s:
            hints.append(s)
    return {"text": "\n".join(parts["text"]).strip(), "hints": hints,
            "explanation": "\n".join(parts["explanation"]).strip(), "papers": "\n".join(parts["papers"]).strip()}


def _check_pattern(r: _Reader, text: str, key: str) -> Any:
    """The parsed pattern (or MATCH_RECOGNIZE query), or None with a problem at the file line of
    the pattern's error."""
    from engine.dsl import DslError
    from engine.lessons.checks import _parse

    try:
        return _parse(text)
    except DslError as err:
        base = r.line(key + "#text")
        line = base + (err.line - 1) if base is not None and err.line else r.line(key)
        where = f" (column {err.column})" if err.column else ""
        r.add(line, f"the {key.replace('exercise.', '')} does not parse{where}: {err.message}"
              + (f"; {err.hint}" if err.hint else ""))
        return None


def _schema(r: _Reader, pattern: Any, text: str, key: str, events: list[Any]) -> None:
    from engine.dsl import DslError
    from engine.lessons.checks import _fits

    try:
        _fits(pattern, list(events), text)
    except DslError as err:
        base = r.line(key + "#text")
        line = base + (err.line - 1) if base is not None and err.line else r.line(key)
        r.add(line, f"the {key.replace('exercise.', '')} does not fit the stream: {err.message}"
              + (f"; {err.hint}" if err.hint else ""))


def _stream(r: _Reader, data: Any) -> Any:
    if not isinstance(data, dict):
        r.add(r.line("stream"), "expected a [stream] table with rows, sample or generator")
        return None
    _unknown(r, "stream", data, _STREAM)
    given = [k for k in ("rows", "sample", "generator") if k in data]
    if len(given) != 1:
        r.add(r.line("stream"), "the [stream] table needs exactly one of rows, sample or generator"
              + (f", not {' and '.join(given)}" if given else ""))
        return None
    kind = given[0]
    allowed = {"rows": {"rows"}, "sample": {"sample", "limit"}, "generator": {"generator", "seed", "size", "options"}}
    for key in data:
        if key in _STREAM and key not in allowed[kind]:
            r.add(r.line(f"stream.{key}"), f"{key!r} does not go with a {kind} stream")
    try:
        if kind == "rows":
            if not isinstance(data["rows"], str):
                r.add(r.line("stream.rows"), "rows must be a text block of CSV lines between ''' quotes")
                return None
            return InlineStream(csv=data["rows"], first_line=r.line("stream.rows#text") or 1)
        if kind == "sample":
            return SampleStream(sample=data["sample"], limit=data.get("limit"))
        options = data.get("options", {})
        if not isinstance(options, dict) or not all(_plain_value(v) for v in options.values()):
            r.add(r.line("stream.options"), f"options must be a table of numbers (at most {MAX_OPTION:,}), short texts "
                  f"or lists of at most {MAX_OPTION:,} of those")
            return None
        return GeneratorStream(generator=data["generator"], seed=data.get("seed", 0), size=data.get("size", 0),
                               options=options)
    except ValidationError as err:
        _pydantic(r, err, "stream")
        return None


#: a generator option is small: numbers of at most this magnitude, lists of at most this many items
MAX_OPTION = 1_000


def _plain_value(v: Any) -> bool:
    if isinstance(v, list):
        return len(v) <= MAX_OPTION and all(isinstance(x, (int, float, str)) and not isinstance(x, bool)
                                              and _small(x) for x in v)
    return isinstance(v, (int, float, str, bool)) and _small(v)


def _small(v: Any) -> bool:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return abs(v) <= MAX_OPTION
    return len(str(v)) <= 200


def _pydantic(r: _Reader, err: ValidationError, where: str) -> None:
    for e in err.errors():
        loc = [str(x) for x in e["loc"] if not str(x).startswith(("function-", "tagged-union"))]
        key = ".".join([where, *loc]) if where else ".".join(loc)
        shown = ".".join(loc) or where
        r.add(r.line(key), f"{shown}: {e['msg'].lower()} (got {e.get('input')!r})" if "input" in e
              else f"{shown}: {e['msg'].lower()}")


def _matches(r: _Reader, value: Any, key: str) -> Any:
    """Stated matches: a list of tables ``{a = [1, 2], b = [6]}`` (a single id may be written bare)."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
        r.add(r.line(key), "matches must be a list like [{a = [1], b = [3]}, {a = [2], b = [3]}]")
        return None
    out = []
    for m in value:
        out.append({str(v): tuple(ids if isinstance(ids, list) else [ids]) for v, ids in m.items()})
    return out


def _exercise(r: _Reader, data: Any) -> Any:
    if not isinstance(data, dict):
        r.add(r.line("exercise"), "expected an [exercise] table with a kind: predict, write or choose")
        return None
    kind = data.get("kind")
    if kind not in EXERCISE_KINDS:
        near = difflib.get_close_matches(str(kind), EXERCISE_KINDS, n=1, cutoff=0.5)
        r.add(r.line("exercise.kind", r.line("exercise")),
              f"unknown exercise kind {kind!r}; expected predict, write or choose"
              + (f" (did you mean {near[0]!r}?)" if near else ""))
        return None
    _unknown(r, "exercise", data, _EXERCISE[kind])
    fields = {k: v for k, v in data.items() if k in _EXERCISE[kind]}
    try:
        if kind == "predict":
            fields["matches"] = _matches(r, fields.get("matches"), "exercise.matches")
            return PredictExercise(**fields)
        if kind == "write":
            variations = []
            raw = fields.pop("variations", [])
            if not isinstance(raw, list):
                r.add(r.line("exercise.variations"), "variations must be a list of [[exercise.variations]] tables")
                raw = []
            for i, v in enumerate(raw):
                if not isinstance(v, dict):
                    r.add(r.line("exercise.variations"), "each variation must be a table like {seed = 1, shuffle = ['price']}")
                    continue
                _unknown(r, f"exercise.variations.{i}", v, _VARIATION)
                known = {k: v[k] for k in v if k in _VARIATION}
                if isinstance(known.get("shuffle"), str):
                    known["shuffle"] = [known["shuffle"]]
                try:
                    variations.append(Variation(**known, line=r.line(f"exercise.variations.{i}",
                                                                      r.line("exercise.variations"))))
                except ValidationError as err:
                    _pydantic(r, err, f"exercise.variations.{i}")
            if "reference" in fields and _check_pattern(r, str(fields["reference"]), "exercise.reference") is None:
                pass
            return WriteExercise(**fields, variations=tuple(variations),
                                 reference_line=r.line("exercise.reference#text"))
        fields["matches"] = _matches(r, fields.get("matches"), "exercise.matches")
        ex = ChooseExercise(**fields)
        if ex.answer not in ex.options:
            r.add(r.line("exercise.answer"), f"the answer {ex.answer!r} is not one of the options "
                  f"({', '.join(repr(o) for o in ex.options)})")
        if ex.asks in ("count", "matches") and getattr(ex, ex.asks) is None:
            r.add(r.line("exercise.asks"), f"asks = {ex.asks!r} needs the {ex.asks} stated in the exercise")
        return ex
    except ValidationError as err:
        _pydantic(r, err, "exercise")
        return None


def _check_options(r: _Reader, ex: Any, pattern_text: str, engine: str) -> None:
    """The options of a choose exercise are strategies / windows / engines / patterns that exist."""
    from engine.lessons.options import OptionError, option_run

    if not isinstance(ex, ChooseExercise):
        return
    for option in ex.options:
        try:
            option_run(ex, pattern_text, engine, option)
        except OptionError as err:
            r.add(r.line("exercise.options"), f"option {option!r}: {err}")


def parse_lesson(text: str, name: str = "<lesson>") -> Lesson:
    """The lesson in ``text`` (the file's content; ``name`` names it in messages). Raises
    :class:`LessonError` listing every problem found, each with its file line."""
    from engine.lessons.streams import StreamProblem, problem, stream_events

    r = _Reader(name, text)
    if len(text) > MAX_FILE_CHARS:
        r.add(None, f"the file has {len(text):,} characters; a lesson holds at most {MAX_FILE_CHARS:,}")
        raise r.fail()
    header, body, body_line = _split(r)
    try:
        data = tomllib.loads(header)
    except RecursionError:
        r.add(r.header_start, "the header nests too deeply")
        raise r.fail() from None
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"at line (\d+), column (\d+)", str(err))
        line = r.header_start + int(m.group(1)) if m else r.header_start
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(err))
        r.add(line, f"the header is not valid TOML: {msg}" + (f" (column {m.group(2)})" if m else ""))
        raise r.fail() from None
    _index_keys(r, header)
    _unknown(r, "", data, _TOP)
    for key in ("id", "title", "order", "pattern", "stream", "exercise"):
        if key not in data:
            r.add(r.header_end, f"the header has no {key!r}: a lesson needs id, title, order, pattern, stream and exercise")
    stream = _stream(r, data["stream"]) if "stream" in data else None
    exercise = _exercise(r, data["exercise"]) if "exercise" in data else None
    pattern_text = data.get("pattern")
    parsed = None
    if pattern_text is not None:
        if not isinstance(pattern_text, str):
            r.add(r.line("pattern"), "the pattern must be text between ''' quotes")
        else:
            parsed = _check_pattern(r, pattern_text, "pattern")
    events = None
    if stream is not None:
        try:
            events = stream_events(stream)
        except StreamProblem as err:
            r.problems.append(problem(name, err, r.lines.get("stream.sample") or r.lines.get("stream.generator")
                                      or r.line("stream")))
    if events is not None:
        if parsed is not None:
            _schema(r, parsed, pattern_text, "pattern", events)
        if isinstance(exercise, WriteExercise):
            from engine.dsl import DslError
            from engine.lessons.checks import _parse

            try:
                _schema(r, _parse(exercise.reference), exercise.reference, "exercise.reference", events)
            except DslError:
                pass  # reported by _exercise
    if isinstance(pattern_text, str) and isinstance(exercise, WriteExercise):
        from engine.lessons.sql import is_query

        if is_query(pattern_text) != is_query(exercise.reference):
            r.add(r.line("exercise.reference"), "the reference must be in the lesson pattern's language: "
                  + ("a MATCH_RECOGNIZE query" if is_query(pattern_text) else "a pattern, not a query"))
    fields = {k: data[k] for k in ("id", "title", "order", "engine", "match_windows") if k in data}
    sections = _body(r, body, body_line)
    if parsed is not None and isinstance(exercise, ChooseExercise):
        _check_options(r, exercise, pattern_text, str(data.get("engine", "auto")))
    if "hints" in data:
        hints = data["hints"]
        if not isinstance(hints, list) or not all(isinstance(h, str) for h in hints):
            r.add(r.line("hints"), "hints must be a list of texts, e.g. hints = [\"first\", \"second\"]")
        else:
            sections["hints"] = [*hints, *sections["hints"]]
    if r.problems:
        raise r.fail()
    try:
        lesson = Lesson(**fields, stream=stream, pattern=pattern_text, pattern_line=r.line("pattern#text"),
                        exercise=exercise, source=name, header_lines=dict(r.lines), **sections)
    except ValidationError as err:
        _pydantic(r, err, "")
        raise r.fail() from None
    _check_engine(r, lesson)
    if r.problems:
        raise r.fail()
    return lesson


def _check_engine(r: _Reader, lesson: Lesson) -> None:
    from engine.engines.planner import engine_names

    names = engine_names()
    if lesson.engine not in names:
        near = difflib.get_close_matches(lesson.engine, names, n=1)
        r.add(r.line("engine"), f"unknown engine {lesson.engine!r}"
              + (f"; did you mean {near[0]!r}?" if near else f"; the engines are {', '.join(names)}"))


def load_lesson(path: str | Path) -> Lesson:
    """The lesson in the file at ``path`` (UTF-8); :class:`LessonError` names the file and line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise LessonError([Problem(file=str(p), line=None, message=f"not UTF-8 text ({err.reason})")]) from None
    except OSError as err:
        raise LessonError([Problem(file=str(p), line=None, message=f"cannot read the file: {err.strerror}")]) from None
    return parse_lesson(text, str(p))


def lesson_from_upload(data: bytes | str, name: str = "upload.md") -> Lesson:
    """A lesson uploaded as bytes or text (a teacher's upload on the Learn page)."""
    if isinstance(data, bytes):
        if len(data) > MAX_FILE_CHARS * 4:
            raise LessonError([Problem(file=name, line=None, message="the upload is too large for a lesson")])
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise LessonError([Problem(file=name, line=None, message=f"not UTF-8 text ({err.reason})")]) from None
    return parse_lesson(data, name)


def course(folder: str | Path) -> list[Lesson]:
    """The lessons of ``folder`` (its ``*.md`` files) in course order: by ``order``, then file
    name. A file that does not load raises its :class:`LessonError` (all problems of all files
    together); ids must be unique."""
    lessons: list[Lesson] = []
    problems: list[Problem] = []
    for p in sorted(Path(folder).glob("*.md")):
        try:
            lessons.append(load_lesson(p))
        except LessonError as err:
            problems.extend(err.problems)
    seen: dict[str, str] = {}
    for lesson in lessons:
        if lesson.id in seen:
            problems.append(Problem(file=lesson.source, line=lesson.line_of("id"),
                                    message=f"the id {lesson.id!r} is also the id of {seen[lesson.id]}"))
        seen.setdefault(lesson.id, lesson.source)
    if problems:
        raise LessonError(problems)
    return sorted(lessons, key=lambda x: (x.order, Path(x.source).name))
