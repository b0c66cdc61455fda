"""Checking a learner's answer to a lesson's exercise, by running the engine (pure functions:
no state, no Streamlit).

- :func:`check_predict` -- a guessed count, the events clicked on the timeline, or guessed
  matches (groups of event ids), against what the lesson's pattern finds; each wrong guess
  comes with why it is no match, each missed match with why it is one (``engine.explain``).
- :func:`check_write` -- a pattern written by the learner against the lesson's reference, on
  the lesson's stream and then on each hidden variation; the first differing match, on which
  stream and on which side, with the other side's why-not.
- :func:`check_choose` -- an option of a choose exercise, by running every option.

Every run is guarded (``engine.lessons.running``): a runaway pattern is answered with a message.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.events import Event
from engine.lessons.model import ChooseExercise, Lesson, PredictExercise, Variation, WriteExercise
from engine.lessons.running import DEFAULT_LIMITS, Limits, RunOutcome, run_pattern
from engine.model import Pattern

__all__ = ["Feedback", "PredictResult", "WriteResult", "ChooseResult", "OptionSummary", "check_predict",
           "check_write", "check_choose", "lesson_events", "lesson_csv", "lesson_run", "option_runs", "MAX_EXPLAINED"]

#: wrong guesses / missed matches explained per answer (the rest are listed without a why)
MAX_EXPLAINED = 5


@dataclass
class Feedback:
    """One wrong or missed item: its events (``{var: [ids]}`` or ``{"events": [ids]}``), a
    one-line ``summary`` and the explanation (``explain`` text and JSON; empty past the limit)."""

    events: dict[str, list[Any]]
    summary: str
    explanation: str = ""
    detail: dict[str, Any] | None = None


@dataclass
class PredictResult:
    """The verdict on a prediction: ``correct``; the ``expected`` answer (count, matches or
    value) and what was guessed; ``wrong``: guessed events / matches that are no match (with
    why not); ``missed``: matches not guessed (with why they match); ``message``: one line."""

    correct: bool
    message: str
    expected_count: int
    guessed_count: int | None = None
    expected_value: Any = None
    matches: list[dict[str, list[Any]]] = field(default_factory=list)
    wrong: list[Feedback] = field(default_factory=list)
    missed: list[Feedback] = field(default_factory=list)
    error: str | None = None


@dataclass
class WriteResult:
    """The verdict on a written pattern: ``accepted``; else ``error`` (it does not parse or
    cannot run: ``line`` / ``column`` in the learner's text when known), or the first difference:
    the ``stream`` it shows on (``lesson`` or a variation's label), ``side`` (``yours``: found by
    your pattern only, ``reference``: found by the reference only) and its ``difference``."""

    accepted: bool
    message: str
    error: str | None = None
    line: int | None = None
    column: int | None = None
    stream: str | None = None
    variation: int | None = None  # index into the exercise's variations; None: the lesson's stream
    side: str | None = None
    difference: Feedback | None = None
    streams_checked: int = 0


@dataclass
class OptionSummary:
    """One option's run: its match count, partial runs created, and error if it could not run."""

    option: str
    count: int
    runs_created: int
    matches: list[dict[str, list[Any]]]
    right: bool
    error: str | None = None


@dataclass
class ChooseResult:
    """The verdict on a chosen option: ``correct``, a one-line ``message`` and every option's run."""

    correct: bool
    message: str
    right: list[str]
    options: list[OptionSummary]


# --------------------------------------------------------------------------- runs (cached)

@functools.lru_cache(maxsize=64)
def _events_for(stream_json: str, variation_json: str | None) -> tuple[Event, ...]:
    from pydantic import TypeAdapter

    from engine.lessons.model import StreamSpec
    from engine.lessons.streams import stream_events, vary

    spec = TypeAdapter(StreamSpec).validate_json(stream_json)
    if variation_json is None:
        return tuple(stream_events(spec))
    return tuple(vary(spec, Variation.model_validate_json(variation_json)))


def lesson_events(lesson: Lesson, variation: Variation | None = None) -> list[Event]:
    """The lesson's stream as events (or a hidden variation of it)."""
    return list(_events_for(lesson.stream.model_dump_json(), None if variation is None
                            else variation.model_dump_json()))


def lesson_csv(lesson: Lesson, variation: Variation | None = None) -> str:
    """The lesson's stream (or a variation of it) as CSV text, to load as data (Open in Debug)."""
    from engine.lessons.streams import events_csv

    return events_csv(lesson_events(lesson, variation))


def _parse(text: str) -> Any:
    """A studio pattern (``Pattern``), or a MATCH_RECOGNIZE query (``LessonQuery``)."""
    from engine.dsl import parse
    from engine.lessons.sql import is_query, parse_query_text

    return parse_query_text(text) if is_query(text) else parse(text)


def _fits(pattern: Any, events: list[Event], text: str) -> None:
    """``DslError`` when the pattern (or query) names an attribute (a column) the stream lacks."""
    from engine.dsl import check_schema
    from engine.events import infer_schema
    from engine.lessons.sql import LessonQuery, check_query_columns

    if isinstance(pattern, LessonQuery):
        check_query_columns(pattern, events)
    else:
        check_schema(pattern, infer_schema(events), text)


def _variables(pattern: Any) -> list[str]:
    from engine.lessons.sql import LessonQuery

    return list(pattern.variables) if isinstance(pattern, LessonQuery) else [c.var for c in pattern.positive]


def lesson_run(lesson: Lesson, limits: Limits = DEFAULT_LIMITS) -> RunOutcome:
    """The lesson's pattern on the lesson's stream (what a predict exercise's answer is)."""
    return _run_text(lesson.pattern, lesson, None, lesson.engine, limits)


def _run_text(text: str, lesson: Lesson, variation: Variation | None, engine: str, limits: Limits) -> RunOutcome:
    return run_pattern(_parse(text), lesson_events(lesson, variation), engine, lesson.match_windows, limits)


# --------------------------------------------------------------------------- explanations

def _why_not(pattern: Any, events: list[Event], spec: str, outcome: RunOutcome) -> tuple[str, dict[str, Any] | None]:
    from engine.explain import ExplainError, explain_why_not, format_text

    if not isinstance(pattern, Pattern):
        return _query_why_not(spec, outcome), None

    try:
        result = explain_why_not(pattern, events, spec, engine=outcome.requested, match_windows=outcome.match_windows,
                                 run=outcome.engine_run())
    except (ExplainError, ValueError, NotImplementedError) as err:
        return f"(no explanation: {err})", None
    return format_text(result), result


def _why(pattern: Any, events: list[Event], k: int, outcome: RunOutcome) -> tuple[str, dict[str, Any] | None]:
    from engine.explain import ExplainError, explain_match, format_text

    if not isinstance(pattern, Pattern):
        from engine.lessons.sql import query_match_text

        m = outcome.matches[k - 1]
        return (f"match {m.number} takes {query_match_text(m.as_dict())}: each row meets its variable's DEFINE "
                "condition, and the rows in order fit the PATTERN"), None

    try:
        result = explain_match(pattern, events, k, engine=outcome.requested, match_windows=outcome.match_windows)
    except (ExplainError, ValueError, NotImplementedError) as err:
        return f"(no explanation: {err})", None
    return format_text(result), result


def _query_why_not(spec: str, outcome: RunOutcome) -> str:
    """Why events are in no match of a query, in plain words (the query's matches that touch them)."""
    from engine.lessons.sql import query_match_text

    ids = {i for part in spec.split(";") for i in part.split("=")[-1].split(",") if i}
    near = [m for m in outcome.matches if ids & {str(i) for _, i in m.labelled}]
    if not near:
        return ("no match of the query takes these events: no search that starts at or before them reaches "
                "the end of the PATTERN with every DEFINE condition met")
    shown = "; ".join(f"match {m.number}: {query_match_text(m.as_dict())}" for m in near[:3])
    return f"the query's matches that take some of these events are: {shown}"


def _ids_text(ids: Iterable[Any]) -> str:
    return ", ".join(str(i) for i in ids)


def _match_text(m: dict[str, list[Any]]) -> str:
    return " ".join(f"{v}=[{_ids_text(ids)}]" for v, ids in m.items())


# --------------------------------------------------------------------------- predict

def _events_of(m: dict[str, list[Any]]) -> frozenset[str]:
    return frozenset(str(i) for ids in m.values() for i in ids)


def check_predict(lesson: Lesson, guess: int | Iterable[Any] | Any, limits: Limits = DEFAULT_LIMITS
                  ) -> PredictResult:
    """Check a prediction: ``guess`` is a match count (an int), an AGG pattern's last value
    (a number, for ``ask = "value"``), the ids of the events clicked on the timeline (a flat
    collection: the events taking part in some match), or guessed matches (a collection of
    collections of ids, one per match). Ids compare by their text (``"3"`` is event 3)."""
    ex = lesson.exercise
    pattern = _parse(lesson.pattern)
    events = lesson_events(lesson)
    outcome = lesson_run(lesson, limits)
    if not outcome.ok:
        return PredictResult(False, f"the lesson's pattern cannot run: {outcome.error}", 0, error=outcome.error)
    if outcome.rows is not None:  # an AGG pattern: the value of the last row
        values = [r.value for r in outcome.rows]
        last = values[-1] if values else None
        if isinstance(guess, (list, tuple)):
            ok = list(guess) == values
            return PredictResult(ok, "right: the values are " + _ids_text(values) if ok else
                                 f"not quite: the values are {_ids_text(values)}, you said {_ids_text(guess)}",
                                 len(values), expected_value=values)
        ok = _same_number(guess, last)
        return PredictResult(ok, f"right: the last value is {last}" if ok else
                             f"not quite: the last value is {last}, you said {guess}", len(values), expected_value=last)
    found = outcome.match_dicts()
    n = len(found)
    if isinstance(guess, bool):
        raise TypeError("a prediction is a count, event ids or matches, not a yes/no")
    if isinstance(guess, int):
        ok = guess == n
        wrong, missed = [], []
        if not ok and isinstance(ex, PredictExercise):
            missed = [_missed(pattern, events, outcome, k, m) for k, m in enumerate(found[:MAX_EXPLAINED], 1)] \
                if guess < n else []
        msg = (f"right: {n} match{'es' if n != 1 else ''}" if ok else
               f"not quite: the pattern finds {n} match{'es' if n != 1 else ''}, you said {guess}")
        return PredictResult(ok, msg, n, guess, matches=found, wrong=wrong, missed=missed)
    items = list(guess)
    if items and all(isinstance(x, (list, tuple, set, frozenset, dict)) for x in items):
        return _predict_groups(pattern, events, outcome, found, items)
    return _predict_events(pattern, events, outcome, found, items)


def _same_number(a: Any, b: Any) -> bool:
    try:
        return a == b or (a is not None and b is not None and float(a) == float(b))
    except (TypeError, ValueError):
        return False


def _missed(pattern: Any, events: list[Event], outcome: RunOutcome, k: int, m: dict[str, list[Any]],
            explain: bool = True) -> Feedback:
    text, detail = _why(pattern, events, k, outcome) if explain else ("", None)
    return Feedback(m, f"match #{k}: {_match_text(m)}", text, detail)


def _predict_events(pattern: Any, events: list[Event], outcome: RunOutcome, found: list[dict[str, list[Any]]],
                    clicked: list[Any]) -> PredictResult:
    in_matches: dict[str, int] = {}
    for k, m in enumerate(found, 1):
        for i in _events_of(m):
            in_matches.setdefault(i, k)
    chosen = [str(c) for c in dict.fromkeys(str(c) for c in clicked)]
    wrong: list[Feedback] = []
    for j, c in enumerate(x for x in chosen if x not in in_matches):
        text, detail = _why_not(pattern, events, c, outcome) if j < MAX_EXPLAINED else ("", None)
        wrong.append(Feedback({"events": [c]}, f"event {c} is in no match", text, detail))
    missed: list[Feedback] = []
    chosen_set = set(chosen)
    for k, m in enumerate(found, 1):
        if not _events_of(m) <= chosen_set:
            missed.append(_missed(pattern, events, outcome, k, m, len(missed) < MAX_EXPLAINED))
    ok = not wrong and not missed
    n = len(found)
    msg = ("right: the events you picked are exactly those of the matches" if ok else
           f"not quite: {len(wrong)} picked event{'s' if len(wrong) != 1 else ''} in no match, "
           f"{len(missed)} match{'es' if len(missed) != 1 else ''} not covered")
    return PredictResult(ok, msg, n, None, matches=found, wrong=wrong, missed=missed)


def _predict_groups(pattern: Any, events: list[Event], outcome: RunOutcome, found: list[dict[str, list[Any]]],
                    groups: list[Any]) -> PredictResult:
    keys = {_events_of(m): k for k, m in enumerate(found, 1)}
    guessed: list[frozenset[str]] = []
    for g in groups:
        ids = [i for ids in g.values() for i in ids] if isinstance(g, dict) else list(g)
        guessed.append(frozenset(str(i) for i in ids))
    wrong = []
    for j, g in enumerate(x for x in dict.fromkeys(guessed) if x not in keys):
        spec = ",".join(sorted(g, key=_id_order))
        text, detail = _why_not(pattern, events, spec, outcome) if j < MAX_EXPLAINED else ("", None)
        wrong.append(Feedback({"events": sorted(g, key=_id_order)}, f"events {', '.join(sorted(g, key=_id_order))} "
                              "are no match", text, detail))
    missed = []
    for key, k in keys.items():
        if key not in guessed:
            missed.append(_missed(pattern, events, outcome, k, found[k - 1], len(missed) < MAX_EXPLAINED))
    ok = not wrong and not missed
    msg = (f"right: all {len(found)} matches" if ok and len(found) != 1 else "right: the one match" if ok else
           f"not quite: {len(wrong)} guess{'es' if len(wrong) != 1 else ''} no match, {len(missed)} "
           f"match{'es' if len(missed) != 1 else ''} missed")
    return PredictResult(ok, msg, len(found), len(guessed), matches=found, wrong=wrong, missed=missed)


def _id_order(i: str) -> tuple[int, Any]:
    return (0, int(i)) if i.lstrip("-").isdigit() else (1, i)


# --------------------------------------------------------------------------- write

def _keys(outcome: RunOutcome, by_vars: bool) -> dict[str, dict[str, list[Any]]]:
    import json

    out: dict[str, dict[str, list[Any]]] = {}
    if outcome.rows is not None:
        for r in outcome.rows:
            d = {"ts": r.ts, "event": r.event, "group": r.group, "value": r.value}
            out[json.dumps(d, sort_keys=True, default=str)] = d
        return out
    for m in outcome.matches:
        d = m.as_dict()
        key = d if by_vars else sorted(_events_of(d), key=_id_order)
        out.setdefault(json.dumps(key, sort_keys=True, default=str), d)
    return out


def check_write(lesson: Lesson, text: str, limits: Limits = DEFAULT_LIMITS) -> WriteResult:
    """Check a pattern written for the lesson's write exercise: run it and the reference on the
    lesson's stream, then on each hidden variation; accepted when they find the same matches
    (by variable and events when both patterns have the same variables, else by events) on every
    one. A pattern that does not parse returns the parser's message with its line and column."""
    from engine.dsl import DslError
    from engine.lessons.sql import is_query

    ex = lesson.exercise
    if not isinstance(ex, WriteExercise):
        raise ValueError(f"lesson {lesson.id!r} has a {ex.kind} exercise, not a write exercise")
    if is_query(text) != is_query(ex.reference):
        want = "a MATCH_RECOGNIZE query (SELECT ... MATCH_RECOGNIZE (...))" if is_query(ex.reference) else \
            "a pattern (PATTERN ...), not a query"
        return WriteResult(False, f"this exercise asks for {want}", error=f"expected {want}")
    try:
        mine = _parse(text)
    except DslError as err:
        return WriteResult(False, "your pattern does not parse", error=str(err), line=err.line, column=err.column)
    try:
        _fits(mine, lesson_events(lesson), text)
    except DslError as err:
        return WriteResult(False, "your pattern does not fit the lesson's stream", error=str(err), line=err.line,
                           column=err.column)
    reference = _parse(ex.reference)
    by_vars = sorted(_variables(mine)) == sorted(_variables(reference))
    streams: list[tuple[Variation | None, str]] = [(None, "the lesson's stream")]
    streams += [(v, f"hidden variation {i + 1}: {v.label()}") for i, v in enumerate(ex.variations)]
    for n, (variation, label) in enumerate(streams, 1):
        events = lesson_events(lesson, variation)
        ref = run_pattern(reference, events, lesson.engine, lesson.match_windows, limits)
        if not ref.ok:
            return WriteResult(False, f"the lesson's reference cannot run on {label}", error=ref.error, stream=label,
                               streams_checked=n)
        got = run_pattern(mine, events, lesson.engine, lesson.match_windows, limits)
        if not got.ok:
            return WriteResult(False, f"your pattern cannot run on {label}", error=got.error, stream=label,
                               streams_checked=n)
        if (ref.rows is None) != (got.rows is None):
            return WriteResult(False, "your pattern aggregates and the reference does not, or the other way round"
                               if got.rows is not None else "the reference aggregates (AGG) and your pattern does not",
                               stream=label, streams_checked=n)
        a, b = _keys(got, by_vars), _keys(ref, by_vars)
        diff = [(k, "yours") for k in a if k not in b] + [(k, "reference") for k in b if k not in a]
        if diff:
            index = None if variation is None else ex.variations.index(variation)
            return _difference(lesson, diff, a, b, mine, reference, got, ref, events, label, index, n)
    return WriteResult(True, f"accepted: the same matches as the reference on the lesson's stream and on "
                       f"{len(ex.variations)} hidden variation{'s' if len(ex.variations) != 1 else ''}",
                       streams_checked=len(streams))


def _difference(lesson: Lesson, diff: list[tuple[str, str]], mine_keys: dict[str, Any], ref_keys: dict[str, Any],
                mine: Any, reference: Any, got: RunOutcome, ref: RunOutcome, events: list[Event], label: str,
                index: int | None, n: int) -> WriteResult:
    seq = {str(e.id): e.seq for e in events}

    def place(item: tuple[str, str]) -> tuple[int, int, str]:
        d = (mine_keys if item[1] == "yours" else ref_keys)[item[0]]
        if "value" in d and "ts" in d:
            return (seq.get(str(d["event"]), -1), 0, item[0])
        positions = [seq.get(str(i), -1) for ids in d.values() for i in ids]
        return (max(positions, default=-1), min(positions, default=-1), item[0])

    key, side = min(diff, key=place)
    d = (mine_keys if side == "yours" else ref_keys)[key]
    if "value" in d and "ts" in d:
        fb = Feedback(d, f"the row at event {d['event']} (value {d['value']}) is "
                      + ("only in yours" if side == "yours" else "only in the reference's output"))
    else:
        other_pattern, other_run = (reference, ref) if side == "yours" else (mine, got)
        positive = set(_variables(other_pattern))
        bound = {v: ids for v, ids in d.items() if ids}
        spec = (";".join(f"{v}={','.join(str(i) for i in ids)}" for v, ids in bound.items()) if set(bound) <= positive
                else ",".join(str(i) for ids in bound.values() for i in ids))
        text, detail = _why_not(other_pattern, events, spec, other_run)
        who = "your pattern finds it, the reference does not" if side == "yours" else \
            "the reference finds it, your pattern does not"
        fb = Feedback(d, f"{_match_text(d)}: {who}", text, detail)
    extra = " (a hidden variation: your pattern agrees on the lesson's stream)" if index is not None else ""
    return WriteResult(False, f"not yet: a different match on {label}{extra}", stream=label, variation=index,
                       side=side, difference=fb, streams_checked=n)


# --------------------------------------------------------------------------- choose

def option_runs(lesson: Lesson, limits: Limits = DEFAULT_LIMITS) -> list[tuple[str, RunOutcome]]:
    """Every option of the lesson's choose exercise with its run."""
    from engine.lessons.options import apply_option

    ex = lesson.exercise
    if not isinstance(ex, ChooseExercise):
        raise ValueError(f"lesson {lesson.id!r} has a {ex.kind} exercise, not a choose exercise")
    events = lesson_events(lesson)
    out = []
    for option in ex.options:
        o = apply_option(lesson, option)
        out.append((option, run_pattern(o.pattern, events, o.engine, lesson.match_windows, limits)))
    return out


def _right(ex: ChooseExercise, runs: list[tuple[str, RunOutcome]]) -> list[str]:
    import json

    ok = [(o, r) for o, r in runs if r.ok]
    if ex.asks == "count":
        return [o for o, r in ok if _count(r) == ex.count]
    if ex.asks == "matches":
        want = sorted(json.dumps({v: list(ids) for v, ids in m.items()}, sort_keys=True, default=str)
                      for m in ex.matches or ())
        return [o for o, r in ok if sorted(json.dumps(m, sort_keys=True, default=str)
                                           for m in r.match_dicts()) == want]
    measure = (lambda r: r.stats.get("runs_created", 0)) if ex.asks.endswith("runs") else _count
    if not ok:
        return []
    values = [measure(r) for _, r in ok]
    best = min(values) if ex.asks.startswith("fewest") else max(values)
    return [o for (o, _), v in zip(ok, values) if v == best]


def _count(r: RunOutcome) -> int:
    return len(r.rows) if r.rows is not None else len(r.matches)


def check_choose(lesson: Lesson, option: str, limits: Limits = DEFAULT_LIMITS) -> ChooseResult:
    """Check a chosen option by running every option: it is right when its run gives what the
    exercise asks (the stated count or matches, or the fewest / most partial runs or matches)."""
    ex = lesson.exercise
    if not isinstance(ex, ChooseExercise):
        raise ValueError(f"lesson {lesson.id!r} has a {ex.kind} exercise, not a choose exercise")
    if option not in ex.options:
        raise ValueError(f"{option!r} is not one of the options ({', '.join(ex.options)})")
    runs = option_runs(lesson, limits)
    right = _right(ex, runs)
    summaries = [OptionSummary(o, _count(r), int(r.stats.get("runs_created", 0)),
                               r.match_dicts() if r.rows is None else [], o in right, r.error) for o, r in runs]
    mine = next(s for s in summaries if s.option == option)
    want = {"count": f"{ex.count} match{'es' if ex.count != 1 else ''}", "matches": "the matches shown",
            "fewest_runs": "the fewest partial runs", "most_runs": "the most partial runs",
            "most_matches": "the most matches", "fewest_matches": "the fewest matches"}[ex.asks]
    if mine.right:
        msg = f"right: {option} gives {want}"
    elif mine.error:
        msg = f"not this one: {option} cannot run ({mine.error})"
    else:
        what = f"{mine.count} match{'es' if mine.count != 1 else ''}"
        if ex.asks.endswith("runs"):
            what += f" and {mine.runs_created} partial runs"
        msg = f"not this one: {option} gives {what}; the question asks for {want}"
    return ChooseResult(mine.right, msg, right, summaries)
