"""The three exercise checks: predict, write and choose, with their explanations; runs that stop."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.lessons import (Limits, Variation, check_choose, check_predict, check_write, lesson_events, lesson_run,
                            load_lesson, parse_lesson)
from tests.lessons.support import LESSONS, VALID

PREDICATES = LESSONS / "03-predicates.md"


# --------------------------------------------------------------------------- predict

def test_predict_a_right_and_a_wrong_count():
    lesson = load_lesson(LESSONS / "02-seq-and-variables.md")
    right = check_predict(lesson, 3)
    assert right.correct and right.message == "right: 3 matches" and right.expected_count == 3
    low = check_predict(lesson, 2)
    assert not low.correct and "finds 3 matches, you said 2" in low.message
    assert low.missed and "l=[1] b=[3]" in low.missed[0].summary
    assert "match #1" in low.missed[0].explanation
    high = check_predict(lesson, 5)
    assert not high.correct and high.missed == []


def test_predict_clicked_events_say_which_are_in_no_match_and_why():
    lesson = load_lesson(LESSONS / "01-events-and-streams.md")
    assert check_predict(lesson, {3, 6, 7}).correct
    assert check_predict(lesson, ["3", "6", "7"]).correct  # ids compare by their text
    result = check_predict(lesson, [3, 6, 1])
    assert not result.correct
    assert [w.events for w in result.wrong] == [{"events": ["1"]}]
    assert "t.celsius > 30 is false (t.celsius=21)" in result.wrong[0].explanation
    assert result.wrong[0].detail["verdict"] == "no_match"
    assert [m.events for m in result.missed] == [{"t": [7]}]
    assert "match #3" in result.missed[0].explanation


def test_predict_guessed_matches_explain_a_wrong_one_with_why_not():
    lesson = load_lesson(LESSONS / "08-negation.md")
    assert check_predict(lesson, [[2, 5], [6, 8]]).correct
    assert check_predict(lesson, [{"s": [6], "e": [8]}, {"s": [2], "e": [5]}]).correct
    result = check_predict(lesson, [[1, 4], [6, 8]])
    assert not result.correct
    assert result.wrong[0].events == {"events": ["1", "4"]}
    assert result.wrong[0].detail["reason"]["kind"] == "negation"
    assert "negation" in result.wrong[0].explanation
    assert [m.events for m in result.missed] == [{"s": [2], "e": [5]}]


RUNAWAY = """+++
id = "runaway"
title = "Runaway"
order = 1
pattern = '''
PATTERN SEQ(Stock+ a[], Stock b)
'''

[stream]
generator = "stocks"
seed = 1
size = 60
options = { symbols = 1 }

[exercise]
kind = "write"
reference = '''
PATTERN SEQ(Stock a, Stock b)
WHERE strict_contiguity
'''
+++
Every subset of 60 ticks is a match of the pattern: 2^59 of them.
"""


def test_a_runaway_lesson_pattern_stops_with_a_message():
    from engine.lessons import check_lesson

    lesson = parse_lesson(RUNAWAY, "runaway.md")
    result = check_predict(lesson, 0, Limits(seconds=0.5, max_runs=2_000))
    assert not result.correct and result.error.startswith("stopped: state explosion")
    timed = check_predict(lesson, 0, Limits(seconds=0.5, max_runs=None))
    assert not timed.correct and "longer than its time limit of 0.5 s" in timed.error
    problems = check_lesson(lesson, Limits(seconds=0.5, max_runs=2_000))
    assert len(problems) == 1 and problems[0].line == 5  # the pattern = line
    assert problems[0].message.startswith("the pattern cannot run on the stream: stopped")


# --------------------------------------------------------------------------- write

def test_write_accepts_an_equivalent_pattern_written_differently():
    lesson = load_lesson(PREDICATES)
    result = check_write(lesson, "PATTERN SEQ(Stock a, Stock b)\nWHERE b.price - a.price > 5\n  AND b.symbol = a.symbol")
    assert result.accepted, result.message
    assert result.streams_checked == 1 + len(lesson.exercise.variations)
    renamed = check_write(lesson, "PATTERN SEQ(Stock x, Stock y) WHERE [symbol] AND y.price > x.price + 5")
    assert renamed.accepted, renamed.message  # other variable names: compared by events


def test_write_rejects_a_pattern_that_differs_only_on_a_hidden_variation():
    lesson = load_lesson(PREDICATES)
    text = "PATTERN SEQ(Stock a, Stock b) WHERE a.symbol = b.symbol AND b.price > a.price + 5 AND a.ts < 7"
    # on the lesson's stream alone it is right ...
    from engine.dsl import parse
    from engine.lessons import run_pattern

    events = lesson_events(lesson)
    ref = run_pattern(parse(lesson.exercise.reference), events).match_dicts()
    assert run_pattern(parse(text), events).match_dicts() == ref
    # ... and the hidden variation is what catches it
    result = check_write(lesson, text)
    assert not result.accepted
    assert result.variation == 0 and result.stream == "hidden variation 1: symbol shuffled (seed 1)"
    assert result.side == "reference"
    assert result.difference.events == {"a": [7], "b": [8]}
    assert "a.ts < 7 is false (a.ts=7)" in result.difference.explanation
    assert "your pattern agrees on the lesson's stream" in result.message


def test_write_shows_the_first_difference_on_the_lesson_stream_with_why_not():
    lesson = load_lesson(PREDICATES)
    result = check_write(lesson, "PATTERN SEQ(Stock a, Stock b) WHERE a.symbol = b.symbol AND b.price > a.price")
    assert not result.accepted and result.variation is None and result.side == "yours"
    assert result.difference.events == {"a": [1], "b": [3]}
    assert "b.price > a.price + 5 is false" in result.difference.explanation


def test_write_a_pattern_that_does_not_parse_returns_the_parser_message():
    lesson = load_lesson(PREDICATES)
    result = check_write(lesson, "PATTERN SEQ(Stock a, Stock b)\nWHERE a.price >> b.price")
    assert not result.accepted and result.message == "your pattern does not parse"
    assert (result.line, result.column) == (2, 16)
    typo = check_write(lesson, "PATTERN SEQ(Stock a, Stock b)\nWHERE a.symbl = b.symbol")
    assert typo.message == "your pattern does not fit the lesson's stream"
    assert typo.line == 2 and "did you mean `symbol`" in typo.error


def test_write_a_runaway_pattern_stops_with_a_message():
    lesson = parse_lesson(RUNAWAY, "runaway.md")
    assert check_write(lesson, lesson.exercise.reference).accepted
    result = check_write(lesson, "PATTERN SEQ(Stock+ a[], Stock b)", Limits(seconds=0.5, max_runs=None))
    assert not result.accepted and result.message == "your pattern cannot run on the lesson's stream"
    assert "time limit" in result.error


def test_write_on_a_lesson_of_another_kind_is_refused():
    with pytest.raises(ValueError, match="not a write exercise"):
        check_write(load_lesson(LESSONS / "01-events-and-streams.md"), "PATTERN Temp t")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), drop=st.integers(0, 4),
       shuffle=st.sampled_from([(), ("price",), ("symbol",), ("price", "symbol")]))
def test_the_reference_is_accepted_on_any_generated_variation(seed, drop, shuffle):
    base = load_lesson(PREDICATES)
    ex = base.exercise.model_copy(update={"variations": (Variation(seed=seed, drop=drop, shuffle=shuffle),)})
    lesson = base.model_copy(update={"exercise": ex})
    assert check_write(lesson, ex.reference).accepted


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_variations_are_deterministic_and_keep_the_values(seed):
    lesson = load_lesson(PREDICATES)
    v = Variation(seed=seed, shuffle=("price",), drop=1)
    a, b = lesson_events(lesson, v), lesson_events(lesson, v)
    assert [(e.id, e.attrs) for e in a] == [(e.id, e.attrs) for e in b]
    assert len(a) == len(lesson_events(lesson)) - 1
    prices = sorted(e.attrs["price"] for e in lesson_events(lesson))
    assert set(e.attrs["price"] for e in a) <= set(prices)


# --------------------------------------------------------------------------- choose

def test_choose_a_window():
    lesson = load_lesson(LESSONS / "04-windows.md")
    right = check_choose(lesson, "10 s")
    assert right.correct and right.right == ["10 s"]
    assert {s.option: s.count for s in right.options} == {"5 s": 2, "10 s": 3, "2 events": 2, "none": 5}
    wrong = check_choose(lesson, "none")
    assert not wrong.correct and wrong.message == "not this one: none gives 5 matches; the question asks for 3 matches"
    with pytest.raises(ValueError, match="not one of the options"):
        check_choose(lesson, "7 s")


def test_lesson_run_of_a_generator_stream():
    text = VALID.replace("rows = '''\nid,type,ts,x\n1,A,1,5\n2,B,2,7\n3,A,3,9\n4,B,4,8\n'''",
                         'generator = "keyed"\nseed = 3\nsize = 12\noptions = { keys = 2, types = ["A", "B"] }')
    text = text.replace("b.x > a.x", "b.value > a.value").replace("count = 2\n", "")
    lesson = parse_lesson(text, "g.md")
    assert len(lesson_events(lesson)) == 12
    assert lesson_run(lesson).ok


# --------------------------------------------------------------------------- streams

GENERATED = VALID.replace("rows = '''\nid,type,ts,x\n1,A,1,5\n2,B,2,7\n3,A,3,9\n4,B,4,8\n'''",
                          'generator = "stocks"\nseed = 3\nsize = 20\noptions = { symbols = 1 }'
                          ).replace("b.x > a.x", "b.price > a.price").replace("count = 2\n", "")


def test_a_generator_seed_variation_draws_the_stream_again():
    lesson = parse_lesson(GENERATED, "g.md")
    same = lesson_events(lesson, Variation())
    other = lesson_events(lesson, Variation(generator_seed=4))
    assert [(e.id, e.attrs) for e in same] == [(e.id, e.attrs) for e in lesson_events(lesson)]
    assert [e.attrs for e in other] != [e.attrs for e in same] and len(other) == 20


def test_a_generator_seed_on_inline_rows_is_refused_with_the_variation_line():
    from engine.lessons import check_lesson
    from tests.lessons.support import line_of

    text = VALID.replace('kind = "predict"\nask = "count"\ncount = 2',
                         "kind = \"write\"\nreference = '''\nPATTERN SEQ(A a, B b)\n'''\n\n"
                         "[[exercise.variations]]\ngenerator_seed = 4")
    problems = check_lesson(parse_lesson(text, "w.md"))
    assert [(p.line, p.message) for p in problems] == [
        (line_of(text, "[[exercise.variations]]"), "a variation with a generator seed needs a generator stream")]


def test_the_stream_as_csv_loads_back_to_the_same_events(tmp_path):
    from engine.events import load_events
    from engine.lessons import lesson_csv

    for name in ("01-events-and-streams.md", "07-strategies.md"):
        lesson = load_lesson(LESSONS / name)
        path = tmp_path / "data.csv"
        path.write_text(lesson_csv(lesson), encoding="utf-8")
        loaded = load_events(path).events
        assert [(e.id, e.type, e.ts, e.attrs) for e in loaded] == \
            [(e.id, e.type, e.ts, e.attrs) for e in lesson_events(lesson)]
    text = lesson_csv(load_lesson(LESSONS / "12-imprecise-timestamps.md"))
    assert text.splitlines()[:2] == ["id,type,lower,upper,task", "1,Start,1,3,t1"]
