"""The parts of engine.lessons, each imported directly: cells, options, guarded runs, the course."""
from __future__ import annotations

import json

import pytest

from engine.commands.cli import main
from engine.lessons.model import LessonError, Problem
from engine.lessons.options import OptionError, apply_option
from engine.lessons.parse import course, load_lesson, parse_lesson
from engine.lessons.running import Limits, run_pattern
from engine.lessons.selfcheck import check_lesson
from engine.lessons.streams import _cell, events_csv, stream_events
from engine.lessons.model import InlineStream
from engine.lessons.checks import lesson_events
from tests.lessons.support import LESSONS, VALID


@pytest.mark.parametrize("text,value", [("12", 12), ("-3", -3), ("2.5", 2.5), ("1e3", 1000.0), ("true", True),
                                        ("ACME", "ACME"), ("", None), ("nan", "nan"), ("1_000", "1_000")])
def test_a_cell_is_read_as_a_plain_value_never_evaluated(text, value):
    assert _cell(text) == value and type(_cell(text)) is type(value)


def test_inline_rows_without_ids_are_numbered_and_sorted_by_time():
    events = stream_events(InlineStream(csv="type,ts\nB,2\nA,1\n", first_line=1))
    assert [(e.id, e.type, e.ts) for e in events] == [(2, "A", 1), (1, "B", 2)]
    assert events_csv(events) == "id,type,ts\n2,A,1\n1,B,2\n"


def test_options_of_each_axis():
    strategies = load_lesson(LESSONS / "07-strategies.md")
    assert apply_option(strategies, "strict_contiguity").pattern.strategy.value == "strict_contiguity"
    with pytest.raises(OptionError, match="not a strategy"):
        apply_option(strategies, "greedy")
    windows = load_lesson(LESSONS / "04-windows.md")
    assert apply_option(windows, "none").pattern.window is None
    assert apply_option(windows, "2 events").pattern.window.unit == "events"
    assert "WITHIN 10" in apply_option(windows, "10 s").text
    with pytest.raises(OptionError, match="not a window"):
        apply_option(windows, "soon")
    engines = load_lesson(LESSONS / "11-evaluation-order.md")
    assert apply_option(engines, "lazy-chain").engine == "lazy-chain"
    with pytest.raises(OptionError, match="unknown engine"):
        apply_option(engines, "turbo")
    with pytest.raises(OptionError, match="not a choose exercise"):
        apply_option(load_lesson(LESSONS / "01-events-and-streams.md"), "x")


def test_a_run_on_an_engine_that_cannot_run_the_pattern_says_why():
    from engine.dsl import parse

    lesson = load_lesson(LESSONS / "12-imprecise-timestamps.md")
    out = run_pattern(parse(lesson.pattern), lesson_events(lesson), engine="nfab", limits=Limits(seconds=5))
    assert not out.ok and "interval" in out.error


def test_the_course_refuses_two_lessons_with_one_id(tmp_path):
    (tmp_path / "a.md").write_text(VALID, encoding="utf-8")
    (tmp_path / "b.md").write_text(VALID.replace("order = 1", "order = 0"), encoding="utf-8")
    with pytest.raises(LessonError, match="the id 'tiny' is also the id of"):
        course(tmp_path)
    (tmp_path / "b.md").write_text(VALID.replace("order = 1", "order = 0").replace('"tiny"', '"tiny-2"'),
                                   encoding="utf-8")
    assert [x.id for x in course(tmp_path)] == ["tiny-2", "tiny"]


def test_cep_lesson_check_json_lists_each_problem_with_its_line(tmp_path, capsys):
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(VALID, encoding="utf-8")
    bad.write_text(VALID.replace("order = 1", "order = 1\nlevel = 2").replace("3,A,3,9", "3,A"), encoding="utf-8")
    assert main(["lesson", "check", str(good), str(bad), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    assert doc["files"][0] == {"file": str(good), "id": "tiny", "ok": True, "problems": []}
    assert doc["files"][1]["ok"] is False
    assert [p["line"] for p in doc["files"][1]["problems"]] == [5, 16]
    assert doc["files"][1]["problems"][0]["message"].startswith("unknown key 'level'")


def test_a_problem_reads_as_file_line_message():
    assert str(Problem(file="x.md", line=3, message="m")) == "x.md, line 3: m"
    assert str(Problem(file="x.md", line=None, message="m")) == "x.md: m"
    assert check_lesson(parse_lesson(VALID, "t.md")) == []


def test_generator_options_and_nesting_are_bounded():
    from tests.lessons.support import line_of

    text = VALID.replace("rows = '''\nid,type,ts,x\n1,A,1,5\n2,B,2,7\n3,A,3,9\n4,B,4,8\n'''",
                         'generator = "stocks"\nsize = 10\noptions = { symbols = 100000000 }')
    with pytest.raises(LessonError) as info:
        parse_lesson(text, "g.md")
    assert info.value.first.line == line_of(text, "options =")
    assert "options must be a table of numbers (at most 1,000)" in info.value.first.message
    deep = VALID.replace("order = 1", "order = 1\ndeep = " + "[" * 20_000 + "]" * 20_000)
    with pytest.raises(LessonError, match="the header nests too deeply"):
        parse_lesson(deep, "d.md")


def test_the_command_module_expands_folders():
    from engine.commands import lesson as command

    assert command._files([str(LESSONS)]) == sorted(LESSONS.glob("*.md"))
